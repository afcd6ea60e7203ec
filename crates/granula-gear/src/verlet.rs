//! Velocity Verlet (kick-drift-kick).

use crate::per_body::PerBody;
use granula_core::math::integrate_orientation;
use granula_core::{AccelerationField, BodySet, DVec3, Integrator};

/// Fixed-point sweeps for the implicit gyroscopic half kick; the contraction factor is
/// |ω| Δt, so three sweeps leave an error of order (|ω| Δt)³ relative.
const GYROSCOPIC_SWEEPS: usize = 3;

/// Velocity Verlet, second order and symplectic for position-only forces (004 §2.3.2):
///
/// v(t + Δt/2) = v(t) + a(t) Δt/2, x(t + Δt) = x(t) + v(t + Δt/2) Δt (predict),
/// v(t + Δt) = v(t + Δt/2) + a(t + Δt) Δt/2 (correct).
///
/// Rotations follow the same kicks with Euler's equations (gyroscopic term ω × Iω, 003 eq. 1;
/// the second half kick is solved by fixed-point sweeps since the term depends on ω(t + Δt)); the orientation turns by ω(t + Δt/2) Δt through the exponential
/// map and stays a unit quaternion. Velocity-dependent forces see the half-step velocity,
/// which makes damping first-order accurate in Δt.
#[derive(Clone, Debug, Default)]
pub struct VelocityVerlet {
    /// Linear and angular accelerations of the last force evaluation.
    accel: PerBody<(DVec3, DVec3)>,
}

impl VelocityVerlet {
    /// A new integrator.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Integrator for VelocityVerlet {
    fn name(&self) -> &'static str {
        "velocity_verlet"
    }

    fn predict(&mut self, bodies: &mut BodySet, field: &AccelerationField, _t: f64, dt: f64) {
        self.accel.sync(bodies, |i| (field.linear(bodies, i), field.angular(bodies, i, bodies.angular_velocity[i])));
        let half = 0.5 * dt;
        for i in 0..bodies.len() {
            if bodies.inv_mass[i] == 0.0 {
                continue;
            }
            let locked = bodies.locked[i];
            let (a, alpha) = self.accel.values[i];
            bodies.velocity[i] += locked.mask_linear(a * half);
            bodies.position[i] += locked.mask_linear(bodies.velocity[i] * dt);
            bodies.angular_velocity[i] += locked.mask_angular(alpha * half);
            let w = locked.mask_angular(bodies.angular_velocity[i]);
            bodies.orientation[i] = integrate_orientation(bodies.orientation[i], w, dt);
        }
    }

    fn correct(&mut self, bodies: &mut BodySet, field: &AccelerationField, _t: f64, dt: f64) {
        let half = 0.5 * dt;
        for i in 0..bodies.len() {
            if bodies.inv_mass[i] == 0.0 {
                continue;
            }
            let a = field.linear(bodies, i);
            bodies.velocity[i] += a * half;
            // ω(t + Δt) = ω(t + Δt/2) + α(ω(t + Δt)) Δt/2 is implicit through the gyroscopic
            // term; a few fixed-point sweeps keep the scheme second order for asymmetric
            // bodies (a spherical top has no gyroscopic term: one evaluation is exact).
            let w_half = bodies.angular_velocity[i];
            let inertia = bodies.inertia[i];
            let sweeps = if inertia.x == inertia.y && inertia.y == inertia.z { 1 } else { GYROSCOPIC_SWEEPS };
            let mut w = w_half;
            let mut alpha = DVec3::ZERO;
            for _ in 0..sweeps {
                alpha = field.angular(bodies, i, w);
                w = w_half + alpha * half;
            }
            bodies.angular_velocity[i] = w;
            self.accel.values[i] = (a, alpha);
        }
    }
}
