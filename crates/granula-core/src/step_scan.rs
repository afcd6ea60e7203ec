//! The passes over the bodies around a step that feed the world's checks: the energies the
//! runaway-energy guard compares (`energy_guard.rs`), a sum that is finite when every
//! state is, and the body that travels farthest per step. They read the bodies and gravity
//! only; the guard itself takes their numbers.

use crate::body_set::{BodySet, MotionKind};
use crate::handle::BodyHandle;
use crate::math::DVec3;

/// Sums over the dynamic bodies of one pass ([`scan_start`], [`scan_end`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Scan {
    /// Translational kinetic energy Σ ½ m v² (J).
    pub kinetic: f64,
    /// Bound of the rotational kinetic energy, Σ ½ (I₁ + I₂ + I₃) |ω|² over finite
    /// moments (J).
    pub rotation: f64,
    /// Potential energy Σ −m g·x (J).
    pub potential: f64,
    /// What gravity and the external loads can give in one step from rest,
    /// Σ ½ m |g + F/m|² Δt² + ½ |T|² Δt² / I_min (J) (start of step only).
    pub loads: f64,
    /// Sum of every body's position, velocity, angular velocity and orientation
    /// components: finite exactly when all of them are (unless finite values overflow).
    pub state: f64,
    /// The dynamic body with the largest |v|² Δt² / r² (dense index, `usize::MAX` if none),
    /// and that value (end of step only).
    pub travel: (usize, f64),
}

/// A bound of a body's rotational energy, ½ (I₁ + I₂ + I₃) |ω|² ≥ ½ I_max |ω|² ≥ ½ ω·I ω,
/// over its finite moments (those with a non-zero inverse; a sum, not a maximum, because
/// it costs no comparison), zero for non-dynamic bodies.
#[inline(always)]
fn rotation_bound(inertia: DVec3, inv_inertia: DVec3, w: DVec3) -> f64 {
    0.5 * DVec3::select(inv_inertia.cmpgt(DVec3::ZERO), inertia, DVec3::ZERO).element_sum() * w.length_squared()
}

/// The pass at the start of a step (only when the one-step check runs): the energies of
/// the dynamic bodies of `b` under gravity `g` and what gravity and the loads give them in one step.
pub(crate) fn scan_start(b: &BodySet, g: DVec3, dt: f64) -> Scan {
    let half_dt2 = 0.5 * dt * dt;
    let mut out = Scan { travel: (usize::MAX, 0.0), ..Default::default() };
    for i in 0..b.len() {
        // Non-dynamic bodies have a zero inverse mass (and an infinite or unused mass).
        let inv_m = b.inv_mass[i];
        if inv_m == 0.0 {
            continue;
        }
        let (m, x, v, w) = (b.mass[i], b.position[i], b.velocity[i], b.angular_velocity[i]);
        out.kinetic += 0.5 * m * v.length_squared();
        out.potential -= m * g.dot(x);
        out.rotation += rotation_bound(b.inertia[i], b.inv_inertia[i], w);
        let a = g + b.external_force[i] * inv_m;
        out.loads += half_dt2
            * (m * a.length_squared() + b.external_torque[i].length_squared() * b.inv_inertia[i].max_element());
    }
    out
}

/// The pass after a step: the energies of the dynamic bodies (when `ENERGIES`; zero
/// otherwise), a sum that is finite when every state is, and the dynamic body that moves
/// farthest per step relative to its radius (at its velocity at the end of the step, over
/// `dt`). No division: the travel records compare |v|² r_best² with |v_best|² r² (a radius
/// is infinite for shapes other than spheres, which are thus never a record).
pub(crate) fn scan_end<const ENERGIES: bool>(b: &BodySet, g: DVec3, dt: f64) -> Scan {
    let mut state = DVec3::ZERO;
    // Twice the kinetic and rotational energies, minus the potential energy over |g|.
    let (mut k2, mut r2sum, mut mgx) = (0.0, 0.0, 0.0);
    let (mut best, mut best_v2, mut best_r2) = (usize::MAX, 0.0, 1.0);
    let columns = b.position.iter().zip(&b.velocity).zip(&b.angular_velocity).zip(&b.orientation);
    let masses = b.inv_mass.iter().zip(&b.mass).zip(&b.inertia).zip(&b.inv_inertia).zip(&b.radius);
    for (i, ((((x, v), w), q), ((((inv_m, m), inertia), inv_inertia), r))) in columns.zip(masses).enumerate() {
        state += *x + *v + *w + DVec3::new(q.x, q.y, q.z + q.w);
        // Non-dynamic bodies have a zero inverse mass (and an infinite or unused mass) and
        // zero inverse moments: selected out without a branch.
        let dynamic = *inv_m != 0.0;
        let m = if dynamic { *m } else { 0.0 };
        let v2 = if dynamic { v.length_squared() } else { 0.0 };
        if ENERGIES {
            k2 += m * v2;
            mgx += m * g.dot(*x);
            r2sum += 2.0 * rotation_bound(*inertia, *inv_inertia, *w);
        }
        let rr = r * r;
        if v2 * best_r2 > best_v2 * rr {
            (best, best_v2, best_r2) = (i, v2, rr);
        }
    }
    Scan {
        kinetic: 0.5 * k2,
        rotation: 0.5 * r2sum,
        potential: -mgx,
        loads: 0.0,
        state: state.x + state.y + state.z,
        travel: (best, if best == usize::MAX { 0.0 } else { best_v2 * dt * dt / best_r2 }),
    }
}

/// The dynamic body with the largest translational kinetic energy, and that energy (J).
pub(crate) fn most_kinetic(b: &BodySet) -> (BodyHandle, f64) {
    (0..b.len())
        .filter(|&i| b.motion[i] == MotionKind::Dynamic)
        .map(|i| (b.handle[i], 0.5 * b.mass[i] * b.velocity[i].length_squared()))
        .fold((BodyHandle(u32::MAX), f64::NEG_INFINITY), |a, x| if x.1 > a.1 { x } else { a })
}
