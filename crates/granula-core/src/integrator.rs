//! The integrator trait for smooth (MD) dynamics.

use crate::body_set::BodySet;
use crate::body_sums::BodySums;
use crate::error::CoreError;
use crate::handle::BodyHandle;
use crate::math::DVec3;
use crate::permutation::Permutation;
use serde::{Deserialize, Serialize};

/// The memory an integrator carries from one step to the next, in a flat, serialisable form
/// for checkpoints (see [`Integrator::save_state`]).
///
/// `per_body` holds `per_body.len() / handles.len()` values for each body of `handles`, in
/// that order; `scalars` holds the integrator's other numbers (e.g. the last time step).
/// An integrator without memory saves the default (empty) state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IntegratorState {
    /// [`Integrator::name`] of the writer (empty for an integrator without memory).
    pub name: String,
    /// The bodies whose values are stored, by handle.
    pub handles: Vec<BodyHandle>,
    /// Per-body values, `per_body.len() / handles.len()` for each handle, in handle order.
    pub per_body: Vec<f64>,
    /// Other values (time step, counters…), integrator-specific.
    pub scalars: Vec<f64>,
}

impl IntegratorState {
    /// Values stored per body (0 without bodies).
    pub fn values_per_body(&self) -> usize {
        if self.handles.is_empty() {
            0
        } else {
            self.per_body.len() / self.handles.len()
        }
    }

    /// An error for a state that does not fit the integrator `expected` or the bodies.
    pub fn mismatch(&self, expected: &'static str) -> CoreError {
        CoreError::InvalidWorld {
            field: "integrator state",
            value: format!(
                "'{}' with {} bodies, {} per-body and {} scalar values",
                self.name,
                self.handles.len(),
                self.per_body.len(),
                self.scalars.len()
            ),
            expected,
        }
    }
}

/// Advances the state of dynamic bodies for smooth dynamics, in two halves around the force
/// computation of a step:
///
/// 1. [`Integrator::predict`] (Gear predictor, or Verlet's half kick and drift), with the
///    loads at the state at t;
/// 2. the solver computes the contact loads at the predicted state;
/// 3. [`Integrator::correct`] (Gear corrector, or Verlet's second half kick), with those
///    loads.
///
/// The loads reach the integrator as an argument, an [`AccelerationField`] holding gravity
/// and the contact force and torque of every body: the caller says which loads a half step
/// uses by passing them, and an integrator reads no load column of the [`BodySet`] (its
/// `force` and `torque` columns are the solver's record of the last evaluation; the MD
/// solver lends them to the field for the duration of the call). The constant external
/// loads are the bodies' own data ([`BodySet::external_force`],
/// [`BodySet::external_torque`]).
///
/// Integrators move only dynamic bodies (`inv_mass > 0`); kinematic bodies are advanced by
/// the solver with [`BodySet::advance_kinematic`]. Locked degrees of freedom must stay
/// untouched. Per-body state of the integrator must follow [`BodySet::structure_version`],
/// and a reorder of the bodies ([`Integrator::permute_bodies`]).
pub trait Integrator: Send {
    /// A stable name, e.g. `"gear5"`.
    fn name(&self) -> &'static str;

    /// First half of the step from `t` to `t + dt`. `accel` holds the contact loads at the
    /// state at `t` (the integrator's start-up takes a new body's acceleration from them).
    fn predict(&mut self, bodies: &mut BodySet, accel: &AccelerationField<'_>, t: f64, dt: f64);

    /// Second half: `accel` holds the contact loads at the predicted state.
    fn correct(&mut self, bodies: &mut BodySet, accel: &AccelerationField<'_>, t: f64, dt: f64);

    /// [`Integrator::predict`], also adding up the sums of the state at the start of the
    /// step into `start` when it is given ([`BodySums::add_start`] over every body, under
    /// `accel.gravity`), for the world's checks. The default passes over the bodies first
    /// ([`BodySums::start_of`]); an integrator may add the terms up in its own loop, merging
    /// partial sums in body order ([`BodySums::merge`]).
    fn predict_summing(
        &mut self,
        bodies: &mut BodySet,
        accel: &AccelerationField<'_>,
        t: f64,
        dt: f64,
        start: Option<&mut BodySums>,
    ) {
        if let Some(s) = start {
            *s = BodySums::start_of(bodies, accel.gravity, dt);
        }
        self.predict(bodies, accel, t, dt);
    }

    /// [`Integrator::correct`], also adding up the sums of the state at the end of the step
    /// into `end` ([`BodySums::add_end`] over every body, with the energies when
    /// `energies`). The default passes over the bodies after the correction
    /// ([`BodySums::end_of`]).
    fn correct_summing(
        &mut self,
        bodies: &mut BodySet,
        accel: &AccelerationField<'_>,
        t: f64,
        dt: f64,
        energies: bool,
        end: &mut BodySums,
    ) {
        self.correct(bodies, accel, t, dt);
        *end = BodySums::end_of(bodies, accel.gravity, energies);
    }

    /// Between [`Integrator::predict`] and [`Integrator::correct`]: per body (dense index),
    /// what to add to `BodySet::velocity` and to `BodySet::angular_velocity` to obtain the
    /// velocities at the force's time level t + Δt ([`VelocityOffsets::linear`],
    /// [`VelocityOffsets::angular`]), if the body set holds other ones (Verlet keeps the
    /// half-step velocities there, which incremental springs need). The MD solver then
    /// takes the normal part of the contact's relative velocity, which drives the normal
    /// dashpots, from the shifted velocities. Zero for non-dynamic bodies. The default
    /// (`None`): the body set's velocities are the force's (Gear's predicted ones).
    fn force_velocity_offsets(&self) -> Option<VelocityOffsets<'_>> {
        None
    }

    /// Called right after `bodies` were reordered by `permutation`
    /// ([`BodySet::permute`], with [`BodySet::structure_version`] moved on): moves the
    /// integrator's per-body memory alike, so that the next half step gives every body the
    /// bits it would have had without the reorder. Called between steps or between
    /// [`Integrator::predict`] and [`Integrator::correct`] (then the scratch of the step,
    /// e.g. velocity Verlet's offsets, moves too).
    ///
    /// The default does nothing: right for an integrator without per-body memory, and for
    /// one that remaps its memory by handle when the structure version changes (at the cost
    /// of that remapping at its next step).
    fn permute_bodies(&mut self, permutation: &Permutation, bodies: &BodySet) {
        let _ = (permutation, bodies);
    }

    /// The memory this integrator carries between steps, for a checkpoint. The default (an
    /// integrator without memory) is the empty state.
    fn save_state(&self) -> IntegratorState {
        IntegratorState::default()
    }

    /// Restores a state from [`Integrator::save_state`] into a fresh integrator of the same
    /// kind, for `bodies` (the restored world: values are matched by handle, bodies missing
    /// from the state start as new ones). After it the next step must equal the step of the
    /// integrator that saved the state. The default accepts only the empty state.
    fn restore_state(&mut self, state: &IntegratorState, bodies: &BodySet) -> Result<(), CoreError> {
        let _ = bodies;
        if state.handles.is_empty() && state.per_body.is_empty() && state.scalars.is_empty() {
            Ok(())
        } else {
            Err(state.mismatch("an empty state (this integrator keeps nothing between steps)"))
        }
    }
}

/// The velocity offsets of [`Integrator::force_velocity_offsets`]: per body, a linear and an
/// angular rate and one factor, so that an integrator offers a column it keeps anyway (its
/// accelerations) instead of writing offsets for every body at every step, when the solver
/// reads them for the bodies in contact only.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VelocityOffsets<'a> {
    /// Per body (dense index), the linear and angular rates (m/s², rad/s²).
    pub rates: &'a [(DVec3, DVec3)],
    /// Their factor (s): the offset of body `i` is `rates[i] · scale`.
    pub scale: f64,
}

impl VelocityOffsets<'_> {
    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.rates.len()
    }

    /// `true` without bodies.
    pub fn is_empty(&self) -> bool {
        self.rates.is_empty()
    }

    /// What to add to the velocity of body `i` (m/s).
    #[inline(always)]
    pub fn linear(&self, i: usize) -> DVec3 {
        self.rates[i].0 * self.scale
    }

    /// What to add to the angular velocity of body `i` (rad/s).
    #[inline(always)]
    pub fn angular(&self, i: usize) -> DVec3 {
        self.rates[i].1 * self.scale
    }
}

/// The loads an integrator turns into accelerations: gravity, and the contact force and
/// torque of every body (dense index) at the state the half step needs. The constant
/// external loads are read from the body set ([`BodySet::external_force`],
/// [`BodySet::external_torque`]).
///
/// ```
/// use granula_core::{AccelerationField, BodySet, DVec3, MaterialTable, Material, SphereBuilder};
///
/// # fn main() -> Result<(), granula_core::CoreError> {
/// let mut materials = MaterialTable::new();
/// materials.add(Material::default())?;
/// let mut bodies = BodySet::default();
/// bodies.insert(&SphereBuilder::new(0.1, DVec3::ZERO).mass(2.0).build()?, &materials, false)?;
/// let (force, torque) = (vec![DVec3::new(4.0, 0.0, 0.0)], vec![DVec3::ZERO]);
/// let field = AccelerationField { gravity: DVec3::new(0.0, 0.0, -9.81), force: &force, torque: &torque };
/// assert_eq!(field.linear(&bodies, 0), DVec3::new(2.0, 0.0, -9.81));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccelerationField<'a> {
    /// Gravitational acceleration (m/s²).
    pub gravity: DVec3,
    /// Contact force on each body (N), by dense index, as long as the body set.
    pub force: &'a [DVec3],
    /// Contact torque on each body about its centre (N m), by dense index.
    pub torque: &'a [DVec3],
}

impl AccelerationField<'_> {
    /// Linear acceleration of body `i` from its contact force, its external force and
    /// gravity, with locked components zeroed. Zero for non-dynamic bodies.
    #[inline]
    pub fn linear(&self, bodies: &BodySet, i: usize) -> DVec3 {
        let inv_m = bodies.inv_mass[i];
        if inv_m == 0.0 {
            return DVec3::ZERO;
        }
        bodies.locked[i].mask_linear((self.force[i] + bodies.external_force[i]) * inv_m + self.gravity)
    }

    /// Angular acceleration of body `i` at angular velocity `omega` from its contact and
    /// external torques (Euler's equations with the gyroscopic term, see
    /// [`BodySet::angular_acceleration`]).
    #[inline]
    pub fn angular(&self, bodies: &BodySet, i: usize, omega: DVec3) -> DVec3 {
        bodies.angular_acceleration(i, self.torque[i] + bodies.external_torque[i], omega)
    }
}
