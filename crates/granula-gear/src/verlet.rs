//! Velocity Verlet (kick-drift-kick).

use crate::per_body::PerBody;
use granula_core::math::integrate_orientation;
use granula_core::{
    euler_angular_acceleration, parallel, AccelerationField, BodySet, CoreError, DVec3, Integrator, IntegratorState,
};
use rayon::prelude::*;

/// Bodies per parallel task (fixed chunks: each body is updated from its own data only, so
/// the split does not change any result).
const CHUNK: usize = 2048;

/// Fixed-point sweeps for the implicit gyroscopic half kick; the contraction factor is
/// |ω| Δt, so three sweeps leave an error of order (|ω| Δt)³ relative.
const GYROSCOPIC_SWEEPS: usize = 3;

/// Velocity Verlet, second order and symplectic for position-only forces (004 §2.3.2):
///
/// v(t + Δt/2) = v(t) + a(t) Δt/2, x(t + Δt) = x(t) + v(t + Δt/2) Δt (predict),
/// v(t + Δt) = v(t + Δt/2) + a(t + Δt) Δt/2 (correct).
///
/// Rotations follow the same kicks with Euler's equations (gyroscopic term ω × Iω, 003 eq. 1;
/// the second half kick is solved by fixed-point sweeps since the term depends on
/// ω(t + Δt)); the orientation turns by ω(t + Δt/2) Δt through the exponential map and stays
/// a unit quaternion.
///
/// The force a(t + Δt) is evaluated at x(t + Δt) with the velocity that [`ForceVelocity`]
/// chooses, left in `BodySet::velocity` / `BodySet::angular_velocity` between
/// [`Integrator::predict`] and [`Integrator::correct`] (the default,
/// [`ForceVelocity::Predicted`], keeps velocity-dependent forces second order); the
/// half-step velocities are kept aside for the second half kick. Forces that depend on the
/// position only see no difference: positions and end-of-step velocities do not depend on
/// the choice.
///
/// Bodies are updated in parallel with rayon (in the pool the caller runs in), each from its
/// own data only, so results do not depend on the number of threads.
#[derive(Clone, Debug, Default)]
pub struct VelocityVerlet {
    /// Linear and angular accelerations of the last force evaluation.
    accel: PerBody<(DVec3, DVec3)>,
    /// Linear and angular half-step velocities v(t + Δt/2), ω(t + Δt/2), between predict and
    /// correct (scratch within one step: empty between steps, not part of the state).
    half: Vec<(DVec3, DVec3)>,
    /// The velocity the forces see.
    force_velocity: ForceVelocity,
}

/// The velocity that velocity-dependent forces (dashpots, viscous friction, local damping)
/// see at the force evaluation of a [`VelocityVerlet`] step, at the positions x(t + Δt).
///
/// With the half-step velocity the dashpot lags by Δt/2 and the restitution of a damped
/// impact is first order in Δt (−1.4 % for e = 0.2 at t_c/100, Hertz with the damping
/// calibrated from e); the predicted velocity removes that lag at no extra force evaluation
/// (errors and their orders in `docs/contact-laws.md`). This is the modified velocity
/// Verlet of Groot and Warren (J. Chem. Phys. 107, 4423 (1997), eq. 22) with
/// ṽ(t + Δt) = v(t) + λ Δt a(t): λ = 1/2 is [`ForceVelocity::HalfStep`], λ = 1 is
/// [`ForceVelocity::Predicted`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ForceVelocity {
    /// ṽ(t + Δt) = v(t + Δt/2) + a(t) Δt/2 = v(t) + a(t) Δt (Groot-Warren λ = 1): an
    /// O(Δt²) estimate of v(t + Δt) per step, so damped impacts are second order in Δt.
    #[default]
    Predicted,
    /// v(t + Δt/2) (Groot-Warren λ = 1/2, the classic kick-drift-kick): O(Δt) behind the
    /// force's time level; damped impacts are first order in Δt. An incremental tangential
    /// spring ξ += 𝒱_t Δt then integrates the exact centre displacement (midpoint rule).
    HalfStep,
}

impl VelocityVerlet {
    /// A new integrator, forces seeing [`ForceVelocity::Predicted`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A new integrator whose forces see `force_velocity`.
    pub fn with_force_velocity(force_velocity: ForceVelocity) -> Self {
        VelocityVerlet { force_velocity, ..Self::default() }
    }

    /// The velocity the forces see.
    pub fn force_velocity(&self) -> ForceVelocity {
        self.force_velocity
    }
}

impl Integrator for VelocityVerlet {
    fn name(&self) -> &'static str {
        "velocity_verlet"
    }

    fn predict(&mut self, bodies: &mut BodySet, field: &AccelerationField, _t: f64, dt: f64) {
        self.accel.sync(bodies, |i| (field.linear(bodies, i), field.angular(bodies, i, bodies.angular_velocity[i])));
        let half = 0.5 * dt;
        let predicted = self.force_velocity == ForceVelocity::Predicted;
        self.half.clear();
        self.half.resize(bodies.len(), (DVec3::ZERO, DVec3::ZERO));
        let BodySet { position, velocity, angular_velocity, orientation, inv_mass, locked, .. } = bodies;
        let (inv_mass, locked, accel) = (&inv_mass[..], &locked[..], &self.accel.values[..]);
        // One closure call per chunk, a plain loop inside (inlined, no per-body dispatch).
        position
            .par_chunks_mut(CHUNK)
            .zip(velocity.par_chunks_mut(CHUNK))
            .zip(angular_velocity.par_chunks_mut(CHUNK))
            .zip(orientation.par_chunks_mut(CHUNK))
            .zip(self.half.par_chunks_mut(CHUNK))
            .with_min_len(parallel::min_len(1))
            .enumerate()
            .for_each(|(k, ((((x, v), w), q), h))| {
                let range = k * CHUNK..k * CHUNK + x.len();
                let (inv_m, locked, accel) = (&inv_mass[range.clone()], &locked[range.clone()], &accel[range]);
                for m in 0..x.len() {
                    if inv_m[m] == 0.0 {
                        continue;
                    }
                    let (a, alpha) = accel[m];
                    let lock = locked[m];
                    let (kick, spin) = (lock.mask_linear(a * half), lock.mask_angular(alpha * half));
                    v[m] += kick;
                    x[m] += lock.mask_linear(v[m] * dt);
                    w[m] += spin;
                    q[m] = integrate_orientation(q[m], lock.mask_angular(w[m]), dt);
                    h[m] = (v[m], w[m]);
                    if predicted {
                        // The forces see v(t) + a(t) Δt; the half-step values wait in `h`.
                        v[m] += kick;
                        w[m] += spin;
                    }
                }
            });
    }

    fn correct(&mut self, bodies: &mut BodySet, field: &AccelerationField, _t: f64, dt: f64) {
        let half = 0.5 * dt;
        let gravity = field.gravity;
        let BodySet {
            velocity,
            angular_velocity,
            orientation,
            force,
            torque,
            external_force,
            external_torque,
            inv_mass,
            inertia,
            inv_inertia,
            locked,
            ..
        } = bodies;
        // The half-step velocities of `predict` (the current ones if it did not run).
        let half_velocity = if self.half.len() == velocity.len() { &self.half[..] } else { &[] };
        velocity
            .par_chunks_mut(CHUNK)
            .zip(angular_velocity.par_chunks_mut(CHUNK))
            .zip(self.accel.values.par_chunks_mut(CHUNK))
            .with_min_len(parallel::min_len(1))
            .enumerate()
            .for_each(|(k, ((v, w), acc))| {
                let base = k * CHUNK;
                for m in 0..v.len() {
                    let i = base + m;
                    let inv_m = inv_mass[i];
                    if inv_m == 0.0 {
                        continue;
                    }
                    let lock = locked[i];
                    let a = lock.mask_linear((force[i] + external_force[i]) * inv_m + gravity);
                    let t = torque[i] + external_torque[i];
                    // ω(t + Δt) = ω(t + Δt/2) + α(ω(t + Δt)) Δt/2 is implicit through the
                    // gyroscopic term; a few fixed-point sweeps keep the scheme second order
                    // for asymmetric bodies (a spherical top has no gyroscopic term: one
                    // evaluation is exact).
                    let (q, moments, inv_moments) = (orientation[i], inertia[i], inv_inertia[i]);
                    let sweeps = if moments.x == moments.y && moments.y == moments.z { 1 } else { GYROSCOPIC_SWEEPS };
                    let (v_half, w_half) = half_velocity.get(i).copied().unwrap_or((v[m], w[m]));
                    let mut w_new = w_half;
                    let mut alpha = DVec3::ZERO;
                    for _ in 0..sweeps {
                        alpha = euler_angular_acceleration(t, w_new, q, moments, inv_moments, lock);
                        w_new = w_half + alpha * half;
                    }
                    v[m] = v_half + a * half;
                    w[m] = w_new;
                    acc[m] = (a, alpha);
                }
            });
        self.half.clear();
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
