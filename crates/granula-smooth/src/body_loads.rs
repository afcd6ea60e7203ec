//! Body-level terms of the step: non-viscous local damping, the power of kinematic bodies
//! and the work of constant external loads, for the energy ledger.

use granula_core::{BodySet, DVec3, MotionKind};

/// sign(x) with sign(0) = 0.
#[inline]
fn sign(v: DVec3) -> DVec3 {
    let s = |x: f64| {
        if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        }
    };
    DVec3::new(s(v.x), s(v.y), s(v.z))
}

/// Non-viscous damping force of 004 §2.3.2.4, per component: F_d = −α |F| sign(v), with F the
/// total force (or torque) on the body and v its velocity (or angular velocity).
#[inline]
pub fn local_damping_force(alpha: f64, total: DVec3, velocity: DVec3) -> DVec3 {
    -alpha * total.abs() * sign(velocity)
}

/// Adds the local damping of every dynamic body to `bodies.force` / `bodies.torque` (which
/// hold the contact loads); returns the energy it dissipates over `dt`, −(F_d·v + T_d·ω) Δt,
/// evaluated at the velocities of the force evaluation.
pub(crate) fn apply_local_damping(bodies: &mut BodySet, gravity: DVec3, alpha: f64, dt: f64) -> f64 {
    let mut dissipated = 0.0;
    for i in 0..bodies.len() {
        if bodies.inv_mass[i] == 0.0 {
            continue;
        }
        let total = bodies.force[i] + bodies.external_force[i] + gravity * bodies.mass[i];
        let fd = bodies.locked[i].mask_linear(local_damping_force(alpha, total, bodies.velocity[i]));
        let total_t = bodies.torque[i] + bodies.external_torque[i];
        let td = bodies.locked[i].mask_angular(local_damping_force(alpha, total_t, bodies.angular_velocity[i]));
        bodies.force[i] += fd;
        bodies.torque[i] += td;
        dissipated -= (fd.dot(bodies.velocity[i]) + td.dot(bodies.angular_velocity[i])) * dt;
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
/// F_ext·(x₁ − x₀) (exact for a constant force) + T_ext·(ω₀ + ω₁) Δt/2.
pub(crate) fn external_load_work(bodies: &BodySet, x0: &[DVec3], w0: &[DVec3], dt: f64) -> f64 {
    let mut work = 0.0;
    for i in 0..bodies.len() {
        if bodies.inv_mass[i] == 0.0 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_damping_opposes_motion_componentwise() {
        let f = local_damping_force(0.5, DVec3::new(-2.0, 4.0, 0.0), DVec3::new(1.0, -3.0, 0.0));
        // Exact: -0.5 * |F| * sign(v) with exactly representable values.
        assert_eq!(f, DVec3::new(-1.0, 2.0, 0.0));
        assert_eq!(local_damping_force(0.5, DVec3::ONE, DVec3::ZERO), DVec3::ZERO, "no damping at rest");
    }
}
