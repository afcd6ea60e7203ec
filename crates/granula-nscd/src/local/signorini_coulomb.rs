//! Signorini's condition with Coulomb friction, without regularisation: the inelastic
//! shock law of 000 eq. 34 for diagonal W and the three-step law of 001 eqs. 1.24-1.29 for
//! a coupled 3×3 W, with an optional restitution by Newton's, Poisson's or Stronge's impact
//! law (004 §2.2.2.2, §2.3.3; `super::impact`).

use super::impact::{impact_process, ImpactLaw, ImpactProcess};
use super::{ContactSetup, ContactStatus, LocalProblem, NonSmoothLaw};
use crate::config::GapMode;
use crate::error::NscdError;
use granula_core::{DMat3, DVec3, PairMaterial};

/// Normal restitution of [`SignoriniCoulomb`] (004 §2.2.2.2, shock law; 004 §2.3.3): none
/// (the position-level inelastic law), or an [`ImpactLaw`] with its coefficient e from the
/// pair or from one constant. The law and the coefficient's source compose: any law with
/// either source.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Restitution {
    /// Perfectly inelastic shocks at the position level (000 §2.4.2: e = 0): a contact that
    /// closes within the step gets U_n⁺ = −g_pos/(θ Δt), so that it lands exactly on contact
    /// at the end of the step (000 eqs. 24-26, 33).
    #[default]
    None,
    /// The impact law with e the pair's restitution coefficient
    /// (`PairMaterial::restitution`), applied as in Moreau-Jean's scheme (004 §2.3.3) to
    /// every contact that closes within the step while approaching (`in_impact_set`).
    /// `Restitution::Pair(ImpactLaw::default())` is Newton's law.
    Pair(ImpactLaw),
    /// The impact law with one coefficient e ∈ [0, 1] for every pair instead of the
    /// materials' (which lie in (0, 1]); e = 0 gives the velocity-level inelastic law.
    Constant(ImpactLaw, f64),
}

impl Restitution {
    /// Newton's law with the pairs' coefficients (004 §2.2.2.2, U_n⁺ = −e U_n⁻).
    pub const NEWTON: Restitution = Restitution::Pair(ImpactLaw::Newton);

    /// The restitution coefficient this option applies to a pair, `None` for the inelastic
    /// position-level law.
    #[inline]
    pub fn coefficient(&self, material: &PairMaterial) -> Option<f64> {
        match *self {
            Restitution::None => None,
            Restitution::Pair(_) => Some(material.restitution),
            Restitution::Constant(_, e) => Some(e),
        }
    }

    /// The impact law, `None` for the inelastic position-level law.
    #[inline]
    pub fn law(&self) -> Option<ImpactLaw> {
        match *self {
            Restitution::None => None,
            Restitution::Pair(law) | Restitution::Constant(law, _) => Some(law),
        }
    }
}

/// The signed gap predicted at the end of the step from the free motion,
/// g + θ Δt U_n,free (000 eq. 24 with the free velocity, 004 §2.3.3.1): a contact with a
/// predicted gap ≤ 0 closes within the step and belongs to the index set of active
/// contacts on which Moreau-Jean's scheme imposes the impact law.
#[inline]
pub fn predicted_gap(s: &ContactSetup<'_>) -> f64 {
    s.gap + s.theta_dt * s.normal_velocity_free
}

/// Newton's bound on the normal velocity after the step, −e U_n⁻, for a contact of the
/// index set (predicted gap ≤ 0, [`predicted_gap`]) that approaches at the start of the
/// step (U_n⁻ < 0, U_n⁻ the start-of-step normal velocity); `None` otherwise.
///
/// Moreau-Jean's velocity-level impact law on an active contact (004 §2.2.2.2 and
/// §2.3.3.1) is the Signorini condition on U_n⁺ + e U_n⁻:
/// 0 ≤ U_n⁺ + e U_n⁻ ⊥ P_n ≥ 0, i.e. U_n⁺ ≥ −e U_n⁻ with equality when P_n > 0. The
/// shock law combines it with the position-level bound of 000 eq. 25 as
/// u_min = max(−g_pos/(θ Δt), −e U_n⁻). For an approaching contact with g_pos ≥ 0 the
/// first term is ≤ 0 ≤ −e U_n⁻, so the impact law decides: the rebound is v⁺ = −e v⁻
/// whatever Δt and wherever within the step the contact closes. The price is the one of
/// Moreau's scheme (004 §2.3.3.1, q(0) = ε): the bodies turn at the gap they had at q_m,
/// a position error below θ Δt |U_n,free| that vanishes with Δt. The position-level term only
/// matters for an existing overlap under `GapMode::Correcting`.
#[inline]
pub fn newton_bound(s: &ContactSetup<'_>, e: f64) -> Option<f64> {
    in_impact_set(s).then(|| -e * s.normal_velocity_before)
}

/// `true` for a contact on which the impact law acts in this step: it closes within the
/// step (predicted gap ≤ 0, [`predicted_gap`]) and approaches at its start (U_n⁻ < 0).
#[inline]
pub fn in_impact_set(s: &ContactSetup<'_>) -> bool {
    predicted_gap(s) <= 0.0 && s.normal_velocity_before < 0.0
}

/// The Signorini-Coulomb law. `SignoriniCoulomb::default()` is the inelastic law of 000.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SignoriniCoulomb {
    /// Impact law.
    pub restitution: Restitution,
}

/// Per-contact constants of the shock law: the 16 bytes every sweep reads per contact.
/// A contact of the impact set under Poisson's or Stronge's law also has an
/// [`ImpactProcess`] ([`NonSmoothLaw::impact`]), which the solver keeps beside the contact
/// list, so that the other contacts read only these two numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ShockParams {
    /// Friction coefficient μ.
    pub mu: f64,
    /// Smallest admissible normal velocity after the step: −g_pos/(θ Δt) (000 eqs. 25,
    /// 33), or the Newton bound −e U_n⁻ (`newton_bound`) when larger.
    pub min_normal_velocity: f64,
}

/// The closed-form shock law for a diagonal W = diag(1/m_n, 1/m_t, 1/m_t) (000 eqs. 17-19
/// and 34, in impulse form P = R Δt, for the θ-method):
///
/// - if b_n > u_min (the gap stays open without impulse, 000 eq. 25): P = 0;
/// - else P_n = m_n (u_min − b_n), P_t = −m_t b_t (sticking, 000 eq. 28);
/// - if |P_t| > μ P_n: P_t := μ P_n P_t/|P_t| (sliding; exact because W is diagonal,
///   000 eq. 34 and the remark after it).
///
/// Here u_min = −g_pos/(θ Δt) (= −g_pos/Δt in 000 where θ = 1). A direction with zero
/// mobility (W_kk = 0: a locked degree of freedom) gets no impulse.
#[inline(always)]
pub fn diagonal_shock_law(w_diag: DVec3, b: DVec3, mu: f64, u_min: f64) -> DVec3 {
    if b.x > u_min || w_diag.x <= 0.0 {
        return DVec3::ZERO;
    }
    let pn = (u_min - b.x) / w_diag.x;
    let pt = if w_diag.y > 0.0 { -b.y / w_diag.y } else { 0.0 };
    let ps = if w_diag.z > 0.0 { -b.z / w_diag.z } else { 0.0 };
    let t2 = pt * pt + ps * ps;
    let lim = mu * pn;
    if t2 > lim * lim {
        let k = lim / t2.sqrt();
        DVec3::new(pn, pt * k, ps * k)
    } else {
        DVec3::new(pn, pt, ps)
    }
}

/// The three-step law for a coupled W (001 eqs. 1.24-1.29), impulse form:
///
/// 1. no contact if b_n > u_min (001 eq. 1.24);
/// 2. sticking: U = (u_min, 0, 0), P = W⁻¹ (U − b) (001 eq. 1.27), accepted if
///    |P_t| ≤ μ P_n;
/// 3. sliding: U_n = u_min, P_t = −μ P_n U_t/|U_t| (001 eqs. 1.28-1.29), three equations
///    for P_n and U_t, solved by fixed-point iteration on the sliding direction started
///    from the sticking guess (converges in a few passes for the mild coupling of convex
///    bodies; stops after 60 passes or a direction change below 1e-14).
///
/// Rows or columns of W without mobility (a locked degree of freedom) are handled by
/// restricting the solve to the mobile directions.
pub fn coupled_shock_law(w: &DMat3, b: DVec3, mu: f64, u_min: f64) -> DVec3 {
    let wn = w.x_axis.x;
    if b.x > u_min || wn <= 0.0 {
        return DVec3::ZERO;
    }
    // Sticking attempt, with locked tangential directions removed.
    let target = DVec3::new(u_min, 0.0, 0.0) - b;
    let mobile_t = w.y_axis.y > 0.0;
    let mobile_s = w.z_axis.z > 0.0;
    let p = match (mobile_t, mobile_s) {
        (true, true) => {
            let det = w.determinant();
            if det.abs() > 1e-300 {
                w.inverse() * target
            } else {
                DVec3::new(target.x / wn, 0.0, 0.0)
            }
        }
        (false, false) => DVec3::new(target.x / wn, 0.0, 0.0),
        (true, false) => solve2(wn, w.y_axis.x, w.y_axis.y, target.x, target.y, false),
        (false, true) => solve2(wn, w.z_axis.x, w.z_axis.z, target.x, target.z, true),
    };
    let (pn, pt) = (p.x, DVec3::new(0.0, p.y, p.z));
    if pn >= 0.0 && pt.length() <= mu * pn {
        return DVec3::new(pn.max(0.0), p.y, p.z);
    }
    // Sliding: fixed point on the direction d (unit, tangential) of P_t.
    let mut d = if pt.length() > 0.0 { pt / pt.length() } else { DVec3::ZERO };
    let mut pn = 0.0;
    for _ in 0..60 {
        let dir = DVec3::new(1.0, mu * d.y, mu * d.z);
        let wd = *w * dir;
        if wd.x <= 0.0 {
            break;
        }
        pn = ((u_min - b.x) / wd.x).max(0.0);
        let ut = DVec3::new(0.0, b.y + pn * wd.y, b.z + pn * wd.z);
        let len = ut.length();
        if len == 0.0 {
            break;
        }
        let nd = -ut / len;
        let nd = DVec3::new(0.0, if mobile_t { nd.y } else { 0.0 }, if mobile_s { nd.z } else { 0.0 });
        let change = (nd - d).length();
        d = nd;
        if change < 1e-14 {
            break;
        }
    }
    DVec3::new(pn, mu * pn * d.y, mu * pn * d.z)
}

/// Solves the 2×2 system of the normal and one tangential direction (the other locked).
fn solve2(wnn: f64, wnt: f64, wtt: f64, rn: f64, rt: f64, second: bool) -> DVec3 {
    let det = wnn * wtt - wnt * wnt;
    let (pn, pt) =
        if det.abs() > 1e-300 { ((wtt * rn - wnt * rt) / det, (wnn * rt - wnt * rn) / det) } else { (rn / wnn, 0.0) };
    if second {
        DVec3::new(pn, 0.0, pt)
    } else {
        DVec3::new(pn, pt, 0.0)
    }
}

/// The Signorini-Coulomb local solve for any W: the closed form for a diagonal W, the 2D
/// graph intersection of 004 §2.3.3.4 for a planar one, the three-step law otherwise.
#[inline(always)]
pub fn shock_law(p: &LocalProblem, mu: f64, u_min: f64) -> DVec3 {
    if p.diagonal {
        diagonal_shock_law(DVec3::new(p.w.x_axis.x, p.w.y_axis.y, p.w.z_axis.z), p.b, mu, u_min)
    } else if p.w.z_axis.z == 0.0 && p.w.z_axis.x == 0.0 && p.w.z_axis.y == 0.0 {
        // Planar: s has no mobility; the 2D graph intersection of 004 §2.3.3.4.
        let w2 = [[p.w.x_axis.x, p.w.y_axis.x], [p.w.x_axis.y, p.w.y_axis.y]];
        let [pn, pt] = super::planar_graph::graph_intersection_2d(w2, [p.b.x, p.b.y], mu, u_min);
        DVec3::new(pn, pt, 0.0)
    } else {
        coupled_shock_law(&p.w, p.b, mu, u_min)
    }
}

/// The impulse of a contact in the impact set under Poisson's or Stronge's law
/// (004 §2.2.2.2; `super::impact`): the shock from U⁻ = b − (U_n,free − U_n⁻) n (the local
/// velocity without the step's smooth loads), then the Signorini-Coulomb solve of the rest
/// of the step from b + W P_shock with the bound max(u_min, U_n after the shock), which
/// carries the smooth loads (gravity) while keeping the post-shock normal velocity. When the
/// loads do not push the contact closed (U_n,free ≥ U_n⁻) and the position-level bound is
/// met, that second impulse is zero and is skipped.
pub fn process_shock(p: &LocalProblem, k: &ShockParams, process: &ImpactProcess) -> DVec3 {
    if let Some(joint) = process.joint {
        // The shock was solved with the contact's neighbours: carry the smooth loads on top.
        let rest = LocalProblem { b: p.b + p.w * joint.impulse, ..*p };
        return joint.impulse + shock_law(&rest, k.mu, k.min_normal_velocity.max(joint.normal_after));
    }
    let u_minus = p.b - DVec3::new(process.smooth_shift, 0.0, 0.0);
    let shock = impact_process(&p.w, u_minus, k.mu, process.law, process.e).p;
    let after = u_minus + p.w * shock;
    if process.smooth_shift >= 0.0 && k.min_normal_velocity <= after.x {
        return shock;
    }
    let rest = LocalProblem { b: p.b + p.w * shock, ..*p };
    shock + shock_law(&rest, k.mu, k.min_normal_velocity.max(after.x))
}

/// The restitution problem of one contact in a multiple impact (004 §2.2.2.2, Poisson's
/// law on every contact of the impact set): a normal impulse at least `floor` (e times the
/// compression impulse), complementary to U_n ≥ u_min beyond it,
/// 0 ≤ P_n − floor ⊥ U_n − u_min ≥ 0, with Coulomb's law |P_t| ≤ μ P_n. The Signorini
/// solution is kept when its normal impulse reaches the floor; otherwise the normal impulse
/// is the floor and the tangential impulse sticks or slides within μ × floor (Coulomb's
/// law on the impulse, as one increment of the impact process).
pub fn restitution_law(p: &LocalProblem, mu: f64, u_min: f64, floor: f64) -> DVec3 {
    let q = shock_law(p, mu, u_min);
    if q.x >= floor || !(floor > 0.0) {
        return q;
    }
    super::impact::increment(&p.w, p.b, floor, mu).0
}

/// The smallest admissible normal velocity for a gap g after the step:
/// g + θΔt U_n ≥ 0 (000 eqs. 24-25) with g_pos = max(g, 0) (000 eq. 33) or the raw g.
#[inline]
pub fn signorini_bound(gap: f64, theta_dt: f64, mode: GapMode) -> f64 {
    let g = match mode {
        GapMode::Positive => gap.max(0.0),
        GapMode::Correcting => gap,
    };
    -g / theta_dt
}

impl NonSmoothLaw for SignoriniCoulomb {
    type Params = ShockParams;
    type State = ();

    fn name(&self) -> String {
        match self.restitution {
            Restitution::None => "signorini_coulomb".into(),
            Restitution::Pair(law) => format!("signorini_coulomb+{}", law.name()),
            Restitution::Constant(law, e) => format!("signorini_coulomb+{}(e = {e})", law.name()),
        }
    }

    /// A constant restitution coefficient must lie in [0, 1].
    fn validate(&self) -> Result<(), NscdError> {
        match self.restitution {
            Restitution::Constant(_, e) if !(0.0..=1.0).contains(&e) => Err(NscdError::InvalidSetting {
                param: "restitution",
                value: e,
                expected: "a constant restitution coefficient in [0, 1]",
            }),
            _ => Ok(()),
        }
    }

    /// μ and u_min: the position-level bound (000 eqs. 25, 33), raised to Newton's bound
    /// under Newton's law (`newton_bound`). Poisson's and Stronge's laws keep the
    /// position-level bound here and give the contacts of the impact set an
    /// [`ImpactProcess`] ([`NonSmoothLaw::impact`]).
    fn params(&self, s: &ContactSetup<'_>, _state: &()) -> ShockParams {
        let mut u_min = signorini_bound(s.gap, s.theta_dt, s.gap_mode);
        if let (Some(ImpactLaw::Newton), Some(e)) = (self.restitution.law(), self.restitution.coefficient(s.material)) {
            if let Some(bound) = newton_bound(s, e) {
                u_min = u_min.max(bound);
            }
        }
        ShockParams { mu: s.material.friction, min_normal_velocity: u_min }
    }

    /// Under Poisson's or Stronge's law, the process of a contact of the impact set
    /// (`in_impact_set`): the law, e, and the normal velocity U_n,free − U_n⁻ the smooth
    /// loads add over the step (004 §2.2.2.2; the crate's `impact` module). A contact that
    /// approaches no faster than the smooth loads change its velocity in one step,
    /// |U_n⁻| ≤ |U_n,free − U_n⁻|, is a persistent contact rather than an impact: in a bed
    /// at rest under gravity U_n⁻ is only the last step's residual, whose restitution would
    /// be noise. It gets no process and lands inelastically (the position-level bound).
    fn impact(&self, s: &ContactSetup<'_>, _state: &()) -> Option<ImpactProcess> {
        let smooth_shift = s.normal_velocity_free - s.normal_velocity_before;
        let impact = in_impact_set(s) && -s.normal_velocity_before > smooth_shift.abs();
        match (self.restitution.law(), self.restitution.coefficient(s.material)) {
            (Some(law @ (ImpactLaw::Poisson | ImpactLaw::Stronge)), Some(e)) if impact => {
                Some(ImpactProcess { law, e, smooth_shift, joint: None })
            }
            _ => None,
        }
    }

    /// Signorini's condition U_n ≥ u_min with Coulomb's law (`shock_law`: 000 eq. 34,
    /// 001 eqs. 1.24-1.29, 004 §2.3.3.4).
    #[inline(always)]
    fn solve(&self, p: &LocalProblem, k: &ShockParams) -> DVec3 {
        shock_law(p, k.mu, k.min_normal_velocity)
    }

    /// The shock followed along the impulse (004 §2.2.2.2), then the rest of the step
    /// (`process_shock`).
    fn solve_impact(&self, p: &LocalProblem, k: &ShockParams, process: &ImpactProcess) -> DVec3 {
        process_shock(p, k, process)
    }

    /// Onto Coulomb's cone: P_n ≥ 0, the tangential part scaled radially to |P_t| ≤ μ P_n.
    fn project(&self, k: &ShockParams, p: DVec3) -> Option<DVec3> {
        let pn = p.x.max(0.0);
        let (pt, ps) = (p.y, p.z);
        let tmag = (pt * pt + ps * ps).sqrt();
        let limit = k.mu * pn;
        if tmag > limit {
            let f = if tmag > 0.0 { limit / tmag } else { 0.0 };
            Some(DVec3::new(pn, pt * f, ps * f))
        } else {
            Some(DVec3::new(pn, pt, ps))
        }
    }

    fn status(&self, k: &ShockParams, p: DVec3) -> ContactStatus {
        coulomb_status(p, k.mu)
    }

    /// The constants themselves. A contact under the impulse process (Poisson, Stronge)
    /// does not obey the linear law U_n = u_min; the solver knows it from its process
    /// ([`NonSmoothLaw::impact`]) and leaves it out of the block solves.
    fn shock_params(&self, k: &ShockParams) -> Option<ShockParams> {
        Some(*k)
    }
}

/// Open / sticking / sliding from an impulse and μ (sliding when |P_t| ≥ μ P_n to a
/// relative 1e-9, the round-off of the clipping).
#[inline]
pub fn coulomb_status(p: DVec3, mu: f64) -> ContactStatus {
    if p.x <= 0.0 {
        ContactStatus::Open
    } else if mu == 0.0 || (p.y * p.y + p.z * p.z).sqrt() >= mu * p.x * (1.0 - 1e-9) {
        // Frictionless contacts slide freely.
        ContactStatus::Sliding
    } else {
        ContactStatus::Sticking
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// N1: the closed form reproduces 000 eq. 34 case by case.
    #[test]
    fn diagonal_law_matches_000_eq_34() {
        let (mn, mt, dt, mu) = (2.0, 0.8, 1e-3, 0.5);
        let w = DVec3::new(1.0 / mn, 1.0 / mt, 1.0 / mt);
        let g = 1e-5;
        let u_min = -g / dt;
        // Open: U_n Δt + g > 0.
        assert_eq!(diagonal_shock_law(w, DVec3::new(-0.009, 0.3, 0.0), mu, u_min), DVec3::ZERO);
        // Sticking: R_n = −m_n (g/Δt + U_n)/Δt, R_t = −m_t U_t/Δt (impulses: × Δt).
        let b = DVec3::new(-1.0, 0.1, -0.2);
        let p = diagonal_shock_law(w, b, mu, u_min);
        let rn = -mn * (g / dt + b.x) / dt;
        // Round-off only: a few operations on numbers of order 1.
        assert!((p.x / dt - rn).abs() < 1e-12 * rn.abs());
        assert!((p.y / dt + mt * b.y / dt).abs() < 1e-9);
        assert!((p.z / dt + mt * b.z / dt).abs() < 1e-9);
        // Sliding: clipped to μ R_n along the sticking direction.
        let b = DVec3::new(-1.0, 3.0, -4.0);
        let p = diagonal_shock_law(w, b, mu, u_min);
        let pt = (p.y * p.y + p.z * p.z).sqrt();
        assert!((pt - mu * p.x).abs() < 1e-12 * p.x);
        assert!((p.y / p.z - 3.0 / -4.0).abs() < 1e-12, "direction kept");
    }

    #[test]
    fn coupled_law_equals_closed_form_for_diagonal_w() {
        let w = DMat3::from_diagonal(DVec3::new(0.5, 1.25, 1.25));
        for b in [DVec3::new(-1.0, 0.1, -0.2), DVec3::new(-1.0, 3.0, -4.0), DVec3::new(0.2, 1.0, 1.0)] {
            let a = diagonal_shock_law(DVec3::new(0.5, 1.25, 1.25), b, 0.5, -0.01);
            let c = coupled_shock_law(&w, b, 0.5, -0.01);
            // The fixed point converges to 1e-14 in direction: differences at round-off.
            assert!((a - c).length() < 1e-12 * (1.0 + a.length()), "{a} vs {c}");
        }
    }

    #[test]
    fn coupled_sliding_solution_satisfies_001_eqs_1_28_1_29() {
        // A symmetric positive definite W with normal-tangential coupling.
        let w = DMat3::from_cols(DVec3::new(2.0, 0.3, -0.1), DVec3::new(0.3, 1.5, 0.2), DVec3::new(-0.1, 0.2, 1.8));
        let (mu, u_min) = (0.3, 0.0);
        let b = DVec3::new(-1.0, 2.0, 0.5);
        let p = coupled_shock_law(&w, b, mu, u_min);
        let u = b + w * p;
        // Normal: U_n = u_min (001 eq. 1.25); round-off of the fixed point.
        assert!((u.x - u_min).abs() < 1e-12, "U_n = {}", u.x);
        let pt = DVec3::new(0.0, p.y, p.z);
        let ut = DVec3::new(0.0, u.y, u.z);
        // On the cone and opposite to the sliding velocity (001 eq. 1.29).
        assert!((pt.length() - mu * p.x).abs() < 1e-12);
        assert!((pt.normalize() + ut.normalize()).length() < 1e-10);
    }
}
