//! The integrator trait for smooth (MD) dynamics.

use crate::body_set::BodySet;
use crate::math::DVec3;

/// Advances the state of dynamic bodies for smooth dynamics, in two halves around the force
/// computation of a step:
///
/// 1. [`Integrator::predict`] (Gear predictor, or Verlet's half kick and drift);
/// 2. the solver computes contact forces at the predicted state into `BodySet::force` and
///    `BodySet::torque` (contact forces only);
/// 3. [`Integrator::correct`] (Gear corrector, or Verlet's second half kick).
///
/// Integrators move only dynamic bodies (`inv_mass > 0`); kinematic bodies are advanced by
/// the solver with [`BodySet::advance_kinematic`]. Locked degrees of freedom must stay
/// untouched. Per-body state of the integrator must follow [`BodySet::structure_version`].
pub trait Integrator: Send {
    /// A stable name, e.g. `"gear5"`.
    fn name(&self) -> &'static str;

    /// First half of the step from `t` to `t + dt`.
    fn predict(&mut self, bodies: &mut BodySet, accel: &AccelerationField, t: f64, dt: f64);

    /// Second half: `bodies.force` and `bodies.torque` hold the contact loads at the
    /// predicted state.
    fn correct(&mut self, bodies: &mut BodySet, accel: &AccelerationField, t: f64, dt: f64);
}

/// The loads that do not come from contacts: gravity (the constant external forces are in
/// [`BodySet::external_force`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccelerationField {
    /// Gravitational acceleration (m/s²).
    pub gravity: DVec3,
}

impl AccelerationField {
    /// Linear acceleration of body `i` from its contact force, its external force and
    /// gravity, with locked components zeroed. Zero for non-dynamic bodies.
    #[inline]
    pub fn linear(&self, bodies: &BodySet, i: usize) -> DVec3 {
        let inv_m = bodies.inv_mass[i];
        if inv_m == 0.0 {
            return DVec3::ZERO;
        }
        bodies.locked[i].mask_linear((bodies.force[i] + bodies.external_force[i]) * inv_m + self.gravity)
    }

    /// Angular acceleration of body `i` at angular velocity `omega` (Euler's equations with
    /// the gyroscopic term, see [`BodySet::angular_acceleration`]).
    #[inline]
    pub fn angular(&self, bodies: &BodySet, i: usize, omega: DVec3) -> DVec3 {
        bodies.angular_acceleration(i, bodies.torque[i] + bodies.external_torque[i], omega)
    }
}
