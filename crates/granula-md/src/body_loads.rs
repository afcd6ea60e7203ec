//! Body-level terms of the step: non-viscous local damping, the power of kinematic bodies
//! and the work of constant external loads, for the energy ledger.

use granula_core::{BodySet, DVec3, MotionKind};
use granula_laws::LocalDamping;

/// Adds the non-viscous damping of `granula_laws::LocalDamping` (004 §2.3.2.4,
/// F_d = −α |F| sign(v) per component, F the resultant of contact, external and gravity
/// forces; the same on torques) to `bodies.force` / `bodies.torque`, which hold the contact
/// loads; returns the energy it dissipates over `dt`, −(F_d·v + T_d·ω) Δt, at the velocities
/// of the force evaluation, summed over the bodies not marked in `foreign` (bodies beyond
/// the slice are not: see [`MdSolver::set_foreign_bodies`](crate::MdSolver::set_foreign_bodies)).
pub(crate) fn apply_local_damping(
    bodies: &mut BodySet,
    gravity: DVec3,
    damping: &LocalDamping,
    dt: f64,
    foreign: &[bool],
) -> f64 {
    let mut dissipated = 0.0;
    for i in 0..bodies.len() {
        if bodies.inv_mass[i] == 0.0 {
            continue;
        }
        let locked = bodies.locked[i];
        let total = locked.mask_linear(bodies.force[i] + bodies.external_force[i] + gravity * bodies.mass[i]);
        let (damped, power) = damping.apply(total, locked.mask_linear(bodies.velocity[i]));
        let total_t = locked.mask_angular(bodies.torque[i] + bodies.external_torque[i]);
        let (damped_t, power_t) = damping.apply(total_t, locked.mask_angular(bodies.angular_velocity[i]));
        bodies.force[i] += damped - total;
        bodies.torque[i] += damped_t - total_t;
        if !foreign.get(i).copied().unwrap_or(false) {
            dissipated += (power + power_t) * dt;
        }
    }
    dissipated
}

/// Power delivered to the other bodies by kinematic bodies through contacts,
/// P = −Σ_k (F_k·v_k + T_k·ω_k), with F_k, T_k the contact loads on kinematic body k.
pub(crate) fn kinematic_power(bodies: &BodySet) -> f64 {
    let mut p = 0.0;
    for i in 0..bodies.len() {
        if bodies.motion[i] == MotionKind::Kinematic {
            p -= bodies.force[i].dot(bodies.velocity[i]) + bodies.torque[i].dot(bodies.angular_velocity[i]);
        }
    }
    p
}

/// Work of the constant external loads on dynamic bodies over a step:
/// F_ext·(x₁ − x₀) (exact for a constant force) + T_ext·(ω₀ + ω₁) Δt/2, summed over the
/// bodies not marked in `foreign`.
pub(crate) fn external_load_work(bodies: &BodySet, x0: &[DVec3], w0: &[DVec3], dt: f64, foreign: &[bool]) -> f64 {
    let mut work = 0.0;
    for i in 0..bodies.len() {
        if bodies.inv_mass[i] == 0.0 || foreign.get(i).copied().unwrap_or(false) {
            continue;
        }
        let (f, t) = (bodies.external_force[i], bodies.external_torque[i]);
        if f != DVec3::ZERO {
            work += f.dot(bodies.position[i] - x0[i]);
        }
        if t != DVec3::ZERO {
            work += t.dot(w0[i] + bodies.angular_velocity[i]) * 0.5 * dt;
        }
    }
    work
}
