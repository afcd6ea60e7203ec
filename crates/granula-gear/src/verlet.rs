//! Velocity Verlet (kick-drift-kick).

use crate::per_body::PerBody;
use granula_core::math::integrate_orientation;
use granula_core::{AccelerationField, BodySet, CoreError, DVec3, Integrator, IntegratorState};
use rayon::prelude::*;

/// Bodies per parallel task; smaller sets run on the calling thread.
const MIN_BODIES_PER_TASK: usize = 2048;

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
///
/// Bodies are updated in parallel with rayon (in the pool the caller runs in), each from its
/// own data only, so results do not depend on the number of threads.
#[derive(Clone, Debug, Default)]
pub struct VelocityVerlet {
    /// Linear and angular accelerations of the last force evaluation.
    accel: PerBody<(DVec3, DVec3)>,
    /// Per-body results of the correct step's first (read-only) pass: a, α, ω(t + Δt).
    scratch: Vec<(DVec3, DVec3, DVec3)>,
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
        let b = bodies;
        let accel = &self.accel.values;
        b.position
            .par_iter_mut()
            .zip(b.velocity.par_iter_mut())
            .zip(b.angular_velocity.par_iter_mut())
            .zip(b.orientation.par_iter_mut())
            .zip(b.inv_mass.par_iter().zip(b.locked.par_iter()).zip(accel.par_iter()))
            .with_min_len(MIN_BODIES_PER_TASK)
            .for_each(|((((x, v), w), q), ((inv_m, locked), (a, alpha)))| {
                if *inv_m == 0.0 {
                    return;
                }
                *v += locked.mask_linear(*a * half);
                *x += locked.mask_linear(*v * dt);
                *w += locked.mask_angular(*alpha * half);
                *q = integrate_orientation(*q, locked.mask_angular(*w), dt);
            });
    }

    fn correct(&mut self, bodies: &mut BodySet, field: &AccelerationField, _t: f64, dt: f64) {
        let half = 0.5 * dt;
        // Pass 1, read-only: accelerations and the new angular velocity of every body.
        let b: &BodySet = bodies;
        self.scratch.clear();
        self.scratch.resize(b.len(), (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO));
        self.scratch.par_iter_mut().enumerate().with_min_len(MIN_BODIES_PER_TASK).for_each(|(i, out)| {
            if b.inv_mass[i] == 0.0 {
                return;
            }
            let a = field.linear(b, i);
            // ω(t + Δt) = ω(t + Δt/2) + α(ω(t + Δt)) Δt/2 is implicit through the gyroscopic
            // term; a few fixed-point sweeps keep the scheme second order for asymmetric
            // bodies (a spherical top has no gyroscopic term: one evaluation is exact).
            let w_half = b.angular_velocity[i];
            let inertia = b.inertia[i];
            let sweeps = if inertia.x == inertia.y && inertia.y == inertia.z { 1 } else { GYROSCOPIC_SWEEPS };
            let mut w = w_half;
            let mut alpha = DVec3::ZERO;
            for _ in 0..sweeps {
                alpha = field.angular(b, i, w);
                w = w_half + alpha * half;
            }
            *out = (a, alpha, w);
        });
        // Pass 2: the second half kick.
        bodies
            .velocity
            .par_iter_mut()
            .zip(bodies.angular_velocity.par_iter_mut())
            .zip(self.accel.values.par_iter_mut())
            .zip(self.scratch.par_iter().zip(bodies.inv_mass.par_iter()))
            .with_min_len(MIN_BODIES_PER_TASK)
            .for_each(|(((v, w), acc), (&(a, alpha, w_new), inv_m))| {
                if *inv_m == 0.0 {
                    return;
                }
                *v += a * half;
                *w = w_new;
                *acc = (a, alpha);
            });
    }

    /// The accelerations of the last force evaluation (6 values per body, keyed by handle),
    /// which the next half kick uses: they were evaluated at the half-step velocities, so
    /// they cannot be recomputed from the end-of-step state when forces depend on velocity.
    fn save_state(&self) -> IntegratorState {
        crate::per_body::save_pairs(&self.accel, self.name())
    }

    /// Restores [`VelocityVerlet::save_state`]'s accelerations.
    fn restore_state(&mut self, state: &IntegratorState, _bodies: &BodySet) -> Result<(), CoreError> {
        let name = self.name();
        crate::per_body::restore_pairs(&mut self.accel, name, state)
    }
}
