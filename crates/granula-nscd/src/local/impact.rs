//! Impact laws of the contact-dynamics solver (004 §2.2.2.2, "Shock law"): Newton's,
//! Poisson's and Stronge's restitution, and the impulse-space process that realises the
//! last two within one Moreau-Jean step (004 §2.3.3.1).
//!
//! In 004's notation a binary shock splits into a compression phase (from t* to t_c, the
//! normal relative velocity U_n rising from U_n⁻ < 0 to 0) and a restitution phase (from
//! t_c to t_r). The three laws close it differently:
//!
//! - Newton: U⁺ = −e_n U⁻ (kinematic);
//! - Poisson: R^r = e_p R^c, the normal impulse of restitution is e_p times the one of
//!   compression (kinetic);
//! - Stronge: e_s = ∫_{t_c}^{t_r} R U dt / ∫_{t*}^{t_c} R U dt, the ratio of the works of the
//!   normal impulse in the two phases (energetic). The compression work is negative, so
//!   granula takes the coefficient e_* with e_*² = −e_s: the restitution work is −e_*²
//!   times the compression work, and e_* = e for a central impact.
//!
//! For a frictionless contact, or one whose normal and tangential directions are uncoupled
//! in W_αα (spheres, 000 eq. 19), U_n is linear in the normal impulse and the three laws
//! give the same U_n⁺ = −e U_n⁻. They differ when friction and an eccentric contact couple
//! the directions and the slip stops or reverses during the shock.
//!
//! Realisation (Poisson and Stronge). Newton's law is a condition on the end velocity and is
//! imposed by the Signorini condition on U_n⁺ + e U_n⁻ (`signorini_coulomb::newton_bound`).
//! Poisson's and Stronge's laws need the impulse and the work of the compression phase, so
//! the local solve follows the shock along the normal impulse p_n (Routh's process, with
//! Coulomb's law on each increment of the impulse): on an increment Δp_n the tangential
//! increment sticks (U_t = 0 at its end) if that needs |ΔP_t| ≤ μ Δp_n, and otherwise slides,
//! ΔP_t = −μ Δp_n U_t/|U_t| at its end. The path U(p_n) is then piecewise linear when the
//! slip direction is fixed (planar contacts), and the process is exact: an increment across
//! which the state changes (slide to stick, slip reversal) is halved until the change is
//! located to 1e-12 of the increment, and the work ∫ U_n dp_n is the trapezoid rule, exact
//! on each linear piece. When the slip direction turns continuously (a 3D coupled W_αα),
//! the process is a first-order discretisation with [`INCREMENTS`] increments per phase.
//!
//! The shock is solved from the velocity the contact would have without the smooth loads
//! of the step (U_n⁻, the start-of-step velocity, as Newton's law uses), and the contact
//! then carries those loads over the step with its post-shock normal velocity as the
//! Signorini bound, so that in a central impact under gravity all three laws give exactly
//! U_n⁺ = −e U_n⁻ at the end of the step, as Newton's does.

use granula_core::{DMat3, DVec3};

/// The impact law that turns a restitution coefficient e into a post-impact state
/// (004 §2.2.2.2). `Newton` is the default: `ImpactLaw::default() == ImpactLaw::Newton`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ImpactLaw {
    /// Newton's law U_n⁺ = −e U_n⁻ on the normal relative velocity (004 §2.2.2.2).
    #[default]
    Newton,
    /// Poisson's law P_r = e P_c: the normal impulse of restitution is e times the one of
    /// compression (004 §2.2.2.2, R^r = e_p R^c).
    Poisson,
    /// Stronge's energetic law: the work of the normal impulse during restitution is −e²
    /// times its work during compression (004 §2.2.2.2, e_s with e_s = −e²).
    Stronge,
}

impl ImpactLaw {
    /// The name used in law names and scenes: `"newton"`, `"poisson"` or `"stronge"`.
    pub fn name(&self) -> &'static str {
        match self {
            ImpactLaw::Newton => "newton",
            ImpactLaw::Poisson => "poisson",
            ImpactLaw::Stronge => "stronge",
        }
    }
}

/// The per-contact constants of a shock solved by the impulse process (Poisson's or
/// Stronge's law, module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpactProcess {
    /// [`ImpactLaw::Poisson`] or [`ImpactLaw::Stronge`].
    pub law: ImpactLaw,
    /// The restitution coefficient e ∈ [0, 1].
    pub e: f64,
    /// U_n,free − U_n⁻ (m/s): the normal velocity the smooth loads add over the step,
    /// taken out before the shock and carried afterwards.
    pub smooth_shift: f64,
    /// The contact's part of a multiple impact, solved jointly with its neighbours before
    /// the sweeps (the solver's compression and restitution problems); `None` for a
    /// binary impact, which the process above follows exactly.
    pub joint: Option<JointShock>,
}

/// A contact's share of a multiple impact (004 §2.2.2.2 applied to the whole impact set):
/// its shock impulse P_c + P_r from the joint compression and restitution problems, and
/// the normal velocity it leaves the contact with, without the smooth loads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointShock {
    /// Shock impulse in the local frame (n, t, s) (N s).
    pub impulse: DVec3,
    /// Normal velocity after the shock (m/s), the Signorini bound of the rest of the step;
    /// −∞ when the contact took no part in the shock (no bound beyond its own).
    pub normal_after: f64,
}

/// Increments of the normal impulse per phase of the process. Exact paths (fixed slip
/// direction) do not depend on it; a continuously turning slip direction converges as
/// 1/[`INCREMENTS`].
pub const INCREMENTS: usize = 64;

/// Safety cap on the increments of one phase (halvings included); a contact whose normal
/// velocity cannot rise along the impulse (Painlevé's jam, a non-positive slope) stops its
/// compression there.
const MAX_STEPS: usize = 16 * INCREMENTS + 4096;

/// Smallest increment, relative to the nominal one, to which a state change is located.
const LOCATE: f64 = 1e-12;

/// The tangential state of an increment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Slip {
    /// Frictionless: no tangential impulse.
    Free,
    /// U_t = 0 at the end of the increment.
    Stick,
    /// Sliding with this unit slip direction at the end of the increment.
    Slide(DVec3),
}

/// `true` when two increments are on the same linear piece of the path (a turning slip
/// direction counts as the same piece; a reversal or a stick-slip change does not).
fn same_piece(a: Slip, b: Slip) -> bool {
    match (a, b) {
        (Slip::Free, _) | (_, Slip::Free) | (Slip::Stick, Slip::Stick) => true,
        (Slip::Slide(x), Slip::Slide(y)) => x.dot(y) > 0.0,
        _ => false,
    }
}

/// A point of the shock's impulse path: local velocity, accumulated impulse, the work of
/// the normal impulse in the current phase, and the state of the last increment.
#[derive(Clone, Copy, Debug)]
pub struct PathPoint {
    /// Local relative velocity U (n, t, s).
    pub u: DVec3,
    /// Impulse accumulated since the start of the shock.
    pub p: DVec3,
    /// ∫ U_n dp_n over the current phase.
    pub work: f64,
    slip: Slip,
}

/// The tangential impulse x with W_tt x = target on the mobile tangential directions
/// (W_kk > 0); locked directions get 0.
fn solve_tangential(w: &DMat3, target: DVec3) -> DVec3 {
    let (wtt, wts, wss) = (w.y_axis.y, w.z_axis.y, w.z_axis.z);
    match (wtt > 0.0, wss > 0.0) {
        (true, true) => {
            let det = wtt * wss - wts * wts;
            if det.abs() <= 1e-300 {
                return DVec3::new(0.0, target.y / wtt, 0.0);
            }
            DVec3::new(0.0, (wss * target.y - wts * target.z) / det, (wtt * target.z - wts * target.y) / det)
        }
        (true, false) => DVec3::new(0.0, target.y / wtt, 0.0),
        (false, true) => DVec3::new(0.0, 0.0, target.z / wss),
        (false, false) => DVec3::ZERO,
    }
}

/// One increment dpn > 0 of the normal impulse from local velocity `u`, with Coulomb's law
/// on the increment (004 §2.2.2.2, Coulomb friction): sticking if |ΔP_t| ≤ μ dpn can bring
/// U_t to 0, else sliding against the slip at the end of the increment (the fixed point of
/// 001 eqs. 1.28-1.29 on the increment). Returns the impulse increment and its state.
pub(crate) fn increment(w: &DMat3, u: DVec3, dpn: f64, mu: f64) -> (DVec3, Slip) {
    let normal = DVec3::new(dpn, 0.0, 0.0);
    if mu == 0.0 {
        return (normal, Slip::Free);
    }
    // Tangential velocity at the end of the increment without tangential impulse.
    let base = DVec3::new(0.0, u.y, u.z) + DVec3::new(0.0, w.x_axis.y, w.x_axis.z) * dpn;
    let stick = solve_tangential(w, -base);
    let limit = mu * dpn;
    if stick.length() <= limit {
        return (normal + stick, Slip::Stick);
    }
    let (mobile_t, mobile_s) = (w.y_axis.y > 0.0, w.z_axis.z > 0.0);
    let mut d = -stick / stick.length();
    for _ in 0..60 {
        let wd = *w * d;
        let ut = DVec3::new(0.0, base.y - limit * wd.y, base.z - limit * wd.z);
        let len = ut.length();
        if len == 0.0 {
            break;
        }
        let nd = ut / len;
        let nd = DVec3::new(0.0, if mobile_t { nd.y } else { 0.0 }, if mobile_s { nd.z } else { 0.0 });
        let change = (nd - d).length();
        d = nd;
        if change < 1e-14 {
            break;
        }
    }
    (normal - limit * d, Slip::Slide(d))
}

/// Where a phase stops.
#[derive(Clone, Copy, Debug)]
enum Goal {
    /// Compression: U_n reaches 0.
    Compressed,
    /// Poisson's restitution: the phase's normal impulse reaches this value.
    Impulse(f64),
    /// Stronge's restitution: the phase's work ∫ U_n dp_n reaches this value.
    Work(f64),
}

/// The part x ∈ (0, h] of a trial increment (from `a` to `u1`, normal impulse h, on one
/// linear piece) at which the phase's goal is met, or `None` if it is met later.
fn goal_within(goal: Goal, a: &PathPoint, start_pn: f64, u1: DVec3, h: f64) -> Option<f64> {
    let k = (u1.x - a.u.x) / h;
    match goal {
        Goal::Compressed => (u1.x >= 0.0).then(|| if k > 0.0 { (-a.u.x / k).clamp(0.0, h) } else { h }),
        Goal::Impulse(target) => (a.p.x - start_pn + h >= target).then(|| (target - (a.p.x - start_pn)).clamp(0.0, h)),
        Goal::Work(target) => {
            let rest = target - a.work;
            (a.work + 0.5 * (a.u.x + u1.x) * h >= target).then(|| {
                // a.u.x x + k x²/2 = rest, in the cancellation-free form.
                let disc = (a.u.x * a.u.x + 2.0 * k * rest).max(0.0);
                let den = a.u.x + disc.sqrt();
                if den > 0.0 {
                    (2.0 * rest / den).clamp(0.0, h)
                } else {
                    h
                }
            })
        }
    }
}

/// Advances `path` by increments of nominal size `h0` until `goal` is met (module
/// documentation); an increment across which the state changes is halved until the
/// change is located.
fn phase(w: &DMat3, mu: f64, path: &mut PathPoint, goal: Goal, h0: f64) {
    if !(h0 > 0.0) || !h0.is_finite() {
        return;
    }
    let start_pn = path.p.x;
    let mut h = h0;
    for _ in 0..MAX_STEPS {
        if matches!(goal, Goal::Compressed) && path.u.x >= 0.0 {
            return;
        }
        let (dp, slip) = increment(w, path.u, h, mu);
        let u1 = path.u + *w * dp;
        if !same_piece(slip, path.slip) && h > LOCATE * h0 {
            h *= 0.5;
            continue;
        }
        let (dp, u1, slip, done) = match goal_within(goal, path, start_pn, u1, h) {
            Some(x) if x < h => {
                let (dp, slip) = increment(w, path.u, x, mu);
                (dp, path.u + *w * dp, slip, true)
            }
            Some(_) => (dp, u1, slip, true),
            None => (dp, u1, slip, false),
        };
        path.work += 0.5 * (path.u.x + u1.x) * dp.x;
        path.p += dp;
        path.u = u1;
        path.slip = slip;
        if done {
            return;
        }
        h = h0;
    }
}

/// Follows a shock from the local velocity `u_minus` (U_n⁻ < 0) through compression and
/// restitution under Poisson's or Stronge's law with coefficient `e` (004 §2.2.2.2; module
/// documentation). Returns the end of the path: the shock's impulse and the post-shock
/// local velocity. Newton's law is not a process; passed here it is treated as Poisson's.
pub fn impact_process(w: &DMat3, u_minus: DVec3, mu: f64, law: ImpactLaw, e: f64) -> PathPoint {
    let tangential = DVec3::new(0.0, u_minus.y, u_minus.z);
    let slip = if mu == 0.0 {
        Slip::Free
    } else if tangential.length() > 0.0 {
        Slip::Slide(tangential / tangential.length())
    } else {
        Slip::Stick
    };
    let mut path = PathPoint { u: u_minus, p: DVec3::ZERO, work: 0.0, slip };
    let wn = w.x_axis.x;
    if u_minus.x >= 0.0 || wn <= 0.0 {
        return path;
    }
    // Uncoupled normal direction: U_n is linear in p_n, one increment per phase is exact.
    let coupled = w.x_axis.y != 0.0 || w.x_axis.z != 0.0 || w.y_axis.x != 0.0 || w.z_axis.x != 0.0;
    let n = if coupled { INCREMENTS as f64 } else { 1.0 };
    phase(w, mu, &mut path, Goal::Compressed, -u_minus.x / wn / n);
    let (pc, wc) = (path.p.x, path.work);
    if e <= 0.0 || pc <= 0.0 {
        return path;
    }
    path.work = 0.0;
    let goal = match law {
        ImpactLaw::Stronge => Goal::Work(-e * e * wc),
        ImpactLaw::Newton | ImpactLaw::Poisson => Goal::Impulse(e * pc),
    };
    phase(w, mu, &mut path, goal, e * pc / n);
    path
}

/// The ratio P_r,n / P_c,n of the restitution and compression normal impulses of a binary
/// shock from `u_minus` (`impact_process`): e under Poisson's law; under Stronge's, e for
/// a central or frictionless shock and the value the energetic law gives otherwise. A
/// multiple impact imposes P_r,n ≥ ratio × P_c,n on each of its contacts; 0 for a contact
/// that does not approach.
pub fn restitution_ratio(w: &DMat3, u_minus: DVec3, mu: f64, law: ImpactLaw, e: f64) -> f64 {
    if law != ImpactLaw::Stronge || e <= 0.0 {
        return e;
    }
    let compression = impact_process(w, u_minus, mu, law, 0.0).p.x;
    if !(compression > 0.0) {
        return e;
    }
    let whole = impact_process(w, u_minus, mu, law, e).p.x;
    ((whole - compression) / compression).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A planar eccentric contact: W = [[A, −C], [−C, B]] in (n, t), s locked.
    fn planar_w(a: f64, b: f64, c: f64) -> DMat3 {
        DMat3::from_cols(DVec3::new(a, -c, 0.0), DVec3::new(-c, b, 0.0), DVec3::ZERO)
    }

    #[test]
    fn frictionless_shocks_of_all_laws_rebound_at_minus_e_u() {
        let w = planar_w(3.0, 2.0, 1.2);
        for law in [ImpactLaw::Poisson, ImpactLaw::Stronge] {
            let end = impact_process(&w, DVec3::new(-2.0, 0.7, 0.0), 0.0, law, 0.6);
            // Linear path: exact up to round-off of a few operations.
            assert!((end.u.x - 1.2).abs() < 1e-12, "{law:?}: {}", end.u.x);
        }
    }

    #[test]
    fn an_increment_sticks_inside_the_cone_and_slides_on_it() {
        let w = planar_w(3.0, 2.0, 0.5);
        let (dp, slip) = increment(&w, DVec3::new(-1.0, 0.1, 0.0), 1.0, 0.5);
        assert_eq!(slip, Slip::Stick);
        assert!(((w * dp).y + 0.1).abs() < 1e-14);
        let (dp, slip) = increment(&w, DVec3::new(-1.0, 5.0, 0.0), 1.0, 0.5);
        assert_eq!(slip, Slip::Slide(DVec3::new(0.0, 1.0, 0.0)));
        assert!((dp.y + 0.5).abs() < 1e-15);
    }
}
