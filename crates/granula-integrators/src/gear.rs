//! The Gear predictor-corrector for second-order equations of motion.

use crate::coefficients::{GearCoefficients, PASCAL};
use crate::per_body::{push_vec, read_vec, PerBody};
use granula_core::math::integrate_orientation;
use granula_core::{AccelerationField, BodySet, CoreError, DVec3, Integrator, IntegratorState, Permutation};

/// Scaled higher derivatives r_k = Δt^k r⁽ᵏ⁾/k! (k = 2 … n−1) of one body, for the position
/// and for the rotation angle vector θ (θ̇ = ω). Index 0 and 1 are unused: the position,
/// velocity, orientation and angular velocity live in the [`BodySet`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Derivatives {
    linear: [DVec3; 6],
    angular: [DVec3; 6],
}

/// Known time derivatives of one body for an exact start of the Gear scheme: entries 0 … 3
/// are the 2nd to 5th derivatives (acceleration, jerk, …) of the position and of the
/// rotation-angle vector (angular acceleration, …). See [`Gear::start_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StartDerivatives {
    /// d²x/dt² … d⁵x/dt⁵.
    pub linear: [DVec3; 4],
    /// d²θ/dt² … d⁵θ/dt⁵ (θ̇ = ω).
    pub angular: [DVec3; 4],
}

/// Gear predictor-corrector with 4, 5 or 6 values (002 Appendix A).
///
/// Predict: every scaled derivative by its Taylor series, r_kᵖ = Σ_{j ≥ k} C(j, k) r_j.
/// Evaluate: the solver computes the forces at the predicted positions and velocities.
/// Correct: Δ = r̈(t + Δt) Δt²/2 − r₂ᵖ, r_k = r_kᵖ + α_k Δ (002 eq. 17 and Appendix A).
///
/// Rotations use the same second-order scheme on the rotation-angle vector θ, whose first
/// derivative is the world-frame angular velocity ω and whose second is Euler's angular
/// acceleration with the gyroscopic term ω × Iω evaluated at the predicted ω
/// ([`BodySet::angular_acceleration`], 003 eq. 1). This is 002's treatment of the disc angle
/// θ, which makes θᵖ(t + Δt) − θ(t) of 002 eq. 15 available. The orientation is the unit
/// quaternion turned by the increment of θ through the exponential map (renormalised every
/// step): exact when the rotation axis is fixed (discs, planar mode, spheres without
/// torque), and with an error of order Δt³ |ω × ω̇| per step for tumbling bodies.
///
/// The body's position, velocity, orientation and angular velocity are read from the
/// [`BodySet`] at each step, so a user may edit them between steps; the higher derivatives
/// are the integrator's own state and are rescaled when Δt changes.
///
/// Start-up: by default a body starts with its acceleration from the forces at the initial
/// state and zero higher derivatives. That start-up error limits the global error to order
/// Δt² for generic initial conditions (measured in the tests); the nominal order needs the
/// true higher derivatives at t = 0, which [`Gear::start_with`] accepts. In DEM the forces
/// switch on and off at each contact, so that the nominal order is seldom reached anyway.
#[derive(Clone, Debug)]
pub struct Gear {
    coefficients: GearCoefficients,
    state: PerBody<Derivatives>,
    dt: f64,
}

impl Gear {
    /// A Gear integrator with the given corrector (see [`GearCoefficients`]).
    pub fn new(coefficients: GearCoefficients) -> Self {
        Gear { coefficients, state: PerBody::default(), dt: 0.0 }
    }

    /// 4 values, nominal order 3.
    pub fn four() -> Self {
        Self::new(GearCoefficients::FOUR)
    }

    /// 5 values, nominal order 4.
    pub fn five() -> Self {
        Self::new(GearCoefficients::FIVE)
    }

    /// 6 values with 002's coefficients (α₀ = 3/16, velocity-dependent forces).
    pub fn six() -> Self {
        Self::new(GearCoefficients::SIX)
    }

    /// The corrector coefficients.
    pub fn coefficients(&self) -> &GearCoefficients {
        &self.coefficients
    }

    /// Sets the higher derivatives of every body at the initial state, for step size `dt`,
    /// from `derivatives(i)` (unscaled, see [`StartDerivatives`]). Call it before the first
    /// step; later insertions start with the default start-up.
    pub fn start_with(&mut self, bodies: &BodySet, dt: f64, derivatives: impl Fn(usize) -> StartDerivatives) {
        self.state = PerBody::default();
        self.dt = dt;
        self.state.sync(bodies, |i| {
            let s = derivatives(i);
            let mut d = Derivatives::default();
            let mut scale = 1.0;
            for k in 2..6 {
                scale *= dt / k as f64;
                d.linear[k] = s.linear[k - 2] * (scale * dt);
                d.angular[k] = s.angular[k - 2] * (scale * dt);
            }
            d
        });
    }

    /// Rescales the stored derivatives when the time step changes: r_k ← r_k (Δt'/Δt)^k.
    fn rescale(&mut self, dt: f64) {
        if self.dt > 0.0 && self.dt != dt {
            let f = dt / self.dt;
            for d in self.state.values.iter_mut() {
                for k in 2..6 {
                    let fk = f.powi(k as i32);
                    d.linear[k] *= fk;
                    d.angular[k] *= fk;
                }
            }
        }
        self.dt = dt;
    }
}

impl Default for Gear {
    /// The 6-value scheme of 002.
    fn default() -> Self {
        Self::six()
    }
}

/// Taylor predictor on the scaled derivatives `r[1..n]`; returns the increment of the
/// zeroth value and overwrites `r[1..n]` with the predicted ones.
#[inline]
fn predict_values(r: &mut [DVec3; 6], n: usize) -> DVec3 {
    let mut increment = DVec3::ZERO;
    for rj in r.iter().take(n).skip(1) {
        increment += *rj;
    }
    for k in 1..n {
        let mut p = DVec3::ZERO;
        for j in k..n {
            p += r[j] * PASCAL[j][k];
        }
        r[k] = p;
    }
    increment
}

impl Integrator for Gear {
    fn name(&self) -> &'static str {
        match self.coefficients.values {
            4 => "gear4",
            5 => "gear5",
            _ => "gear6",
        }
    }

    fn predict(&mut self, bodies: &mut BodySet, field: &AccelerationField<'_>, _t: f64, dt: f64) {
        self.rescale(dt);
        let half_dt2 = 0.5 * dt * dt;
        self.state.sync(bodies, |i| {
            let mut d = Derivatives::default();
            d.linear[2] = field.linear(bodies, i) * half_dt2;
            d.angular[2] = field.angular(bodies, i, bodies.angular_velocity[i]) * half_dt2;
            d
        });
        let n = self.coefficients.values;
        for i in 0..bodies.len() {
            if bodies.inv_mass[i] == 0.0 {
                continue;
            }
            let locked = bodies.locked[i];
            let d = &mut self.state.values[i];
            d.linear[1] = bodies.velocity[i] * dt;
            let dx = predict_values(&mut d.linear, n);
            bodies.position[i] += locked.mask_linear(dx);
            let v = bodies.velocity[i];
            bodies.velocity[i] = v + locked.mask_linear(d.linear[1] / dt - v);
            d.angular[1] = bodies.angular_velocity[i] * dt;
            let dtheta = predict_values(&mut d.angular, n);
            bodies.orientation[i] = integrate_orientation(bodies.orientation[i], locked.mask_angular(dtheta), 1.0);
            let w = bodies.angular_velocity[i];
            bodies.angular_velocity[i] = w + locked.mask_angular(d.angular[1] / dt - w);
        }
    }

    fn correct(&mut self, bodies: &mut BodySet, field: &AccelerationField<'_>, _t: f64, dt: f64) {
        let n = self.coefficients.values;
        let alpha = self.coefficients.alpha;
        let half_dt2 = 0.5 * dt * dt;
        for i in 0..bodies.len() {
            if bodies.inv_mass[i] == 0.0 {
                continue;
            }
            let locked = bodies.locked[i];
            let a = field.linear(bodies, i);
            let ang = field.angular(bodies, i, bodies.angular_velocity[i]);
            let d = &mut self.state.values[i];
            let delta = locked.mask_linear(a * half_dt2 - d.linear[2]);
            bodies.position[i] += delta * alpha[0];
            bodies.velocity[i] += delta * (alpha[1] / dt);
            for (dk, ak) in d.linear[2..n].iter_mut().zip(&alpha[2..n]) {
                *dk += delta * *ak;
            }
            let delta = locked.mask_angular(ang * half_dt2 - d.angular[2]);
            bodies.orientation[i] = integrate_orientation(bodies.orientation[i], delta * alpha[0], 1.0);
            bodies.angular_velocity[i] += delta * (alpha[1] / dt);
            for (dk, ak) in d.angular[2..n].iter_mut().zip(&alpha[2..n]) {
                *dk += delta * *ak;
            }
        }
    }

    /// Moves the scaled derivatives r₂ … r₅ of every body with it (no restart of the
    /// scheme): the next step gives each body the bits it would have had in the old order.
    fn permute_bodies(&mut self, permutation: &Permutation, bodies: &BodySet) {
        self.state.permute(permutation, bodies);
    }

    /// The scaled derivatives r₂ … r₅ of the position and of θ of every body (24 values per
    /// body, keyed by handle) and the step size they are scaled with (the one scalar).
    fn save_state(&self) -> IntegratorState {
        self.state.save(self.name(), vec![self.dt], |d, out| {
            for k in 2..6 {
                push_vec(out, d.linear[k]);
                push_vec(out, d.angular[k]);
            }
        })
    }

    /// Restores [`Gear::save_state`]'s derivatives and step size; `bodies` absent from the
    /// state start as inserted bodies do.
    fn restore_state(&mut self, state: &IntegratorState, _bodies: &BodySet) -> Result<(), CoreError> {
        if state.name != self.name() || state.scalars.len() != 1 {
            return Err(state.mismatch("the state of a Gear integrator with as many values"));
        }
        let read = |s: &[f64]| {
            let mut d = Derivatives::default();
            for k in 2..6 {
                d.linear[k] = read_vec(s, 2 * (k - 2));
                d.angular[k] = read_vec(s, 2 * (k - 2) + 1);
            }
            d
        };
        if !self.state.restore(state, 24, read) {
            return Err(state.mismatch("24 per-body values (r2 … r5 of x and theta) per handle"));
        }
        self.dt = state.scalars[0];
        Ok(())
    }
}
