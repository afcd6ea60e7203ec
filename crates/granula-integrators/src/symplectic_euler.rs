//! Symplectic Euler (drift then kick).

use granula_core::math::integrate_orientations;
use granula_core::{AccelerationField, BodySet, DVec3, Integrator};

/// Symplectic Euler in its drift-kick form, first order and symplectic for position-only
/// forces: x(t + Δt) = x(t) + v(t) Δt (predict), v(t + Δt) = v(t) + a(x(t + Δt)) Δt
/// (correct). The drift comes first so that the forces are evaluated at the new positions,
/// together with kinematic bodies already advanced to t + Δt. Rotations: the orientation turns
/// by ω(t) Δt (exponential map), then ω(t + Δt) = ω(t) + α Δt with Euler's equations
/// (003 eq. 1). It keeps no per-body state.
#[derive(Clone, Copy, Debug, Default)]
pub struct SymplecticEuler;

impl SymplecticEuler {
    /// A new integrator.
    pub fn new() -> Self {
        SymplecticEuler
    }
}

impl Integrator for SymplecticEuler {
    fn name(&self) -> &'static str {
        "symplectic_euler"
    }

    fn predict(&mut self, bodies: &mut BodySet, _field: &AccelerationField<'_>, _t: f64, dt: f64) {
        for i in 0..bodies.len() {
            if bodies.inv_mass[i] == 0.0 {
                continue;
            }
            let locked = bodies.locked[i];
            bodies.position[i] += locked.mask_linear(bodies.velocity[i] * dt);
        }
        let (inv_mass, locked, w) = (&bodies.inv_mass, &bodies.locked, &bodies.angular_velocity);
        integrate_orientations(&mut bodies.orientation, |i| {
            if inv_mass[i] == 0.0 {
                DVec3::ZERO
            } else {
                locked[i].mask_angular(w[i]) * dt
            }
        });
    }

    fn correct(&mut self, bodies: &mut BodySet, field: &AccelerationField<'_>, _t: f64, dt: f64) {
        for i in 0..bodies.len() {
            if bodies.inv_mass[i] == 0.0 {
                continue;
            }
            let a = field.linear(bodies, i);
            let alpha = field.angular(bodies, i, bodies.angular_velocity[i]);
            bodies.velocity[i] += a * dt;
            bodies.angular_velocity[i] += alpha * dt;
        }
    }
}
