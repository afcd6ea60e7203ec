//! Checkpoints of the MD solver's own state: what the next step depends on besides the
//! bodies, so that a fresh solver continues a restored world bit-identically.

use crate::error::SmoothError;
use crate::solver::MdSolver;
use granula_core::{Broadphase, ContactKey, ContactLaw, CoreError, DQuat, DVec3, Integrator, IntegratorState, World};
use serde::{Deserialize, Serialize};

/// The state an [`MdSolver`] carries from one step to the next, beyond the bodies.
///
/// - the contact histories `H` of the law by [`ContactKey`] (body handles), and the elastic
///   energy each stored at the last step (it becomes sliding dissipation when the contact
///   opens);
/// - the integrator's memory ([`Integrator::save_state`]);
/// - the power of the kinematic bodies at the end of the last step (the trapezoidal rule of
///   their work uses it);
/// - each body's orientation at the last force evaluation, from which the next step's
///   rotation increments (002 eq. 15) are measured.
///
/// The candidate-pair list and the skin's reference boxes are not saved: the restored
/// solver rebuilds them at its first step, and histories realign by key. A rebuild only adds
/// or removes pairs out of contact, whose force is zero and whose history is the default, so
/// the forces and their summation order per body are unchanged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MdState<H> {
    /// Keys of the stored histories, sorted.
    pub keys: Vec<ContactKey>,
    /// Contact histories, aligned with `keys`.
    pub histories: Vec<H>,
    /// Elastic energy stored by each contact at the last step (J), aligned with `keys`.
    pub stored: Vec<f64>,
    /// The integrator's memory.
    pub integrator: IntegratorState,
    /// Power of the kinematic bodies at the end of the last step (W).
    pub kinematic_power: f64,
    /// Orientation of each body at the last force evaluation, in the bodies' dense order
    /// (empty for a solver that has not stepped yet: the restored orientations are used).
    pub orientations: Vec<DQuat>,
}

impl<L: ContactLaw, I: Integrator, B: Broadphase> MdSolver<L, I, B> {
    /// The solver's state for a checkpoint (see [`MdState`]). Taken after a step, with the
    /// world saved at the same time.
    pub fn save_state(&self) -> MdState<L::History>
    where
        L::History: Serialize + for<'de> Deserialize<'de>,
    {
        MdState {
            keys: self.store.keys().to_vec(),
            histories: self.store.states().to_vec(),
            stored: self.stored_energy.states().to_vec(),
            integrator: self.integrator.save_state(),
            kinematic_power: self.kinematic_power,
            orientations: self.prev_orientation.clone(),
        }
    }

    /// Restores a state from [`MdSolver::save_state`] into a solver built like the one that
    /// saved it, for `world` restored to the saving time (same bodies and handles). The next
    /// step then equals the saving solver's next step bit for bit: it does not re-evaluate
    /// the forces at the restored state (the integrator's memory holds what it needs) and
    /// rebuilds its candidate pairs.
    pub fn restore_state(&mut self, state: &MdState<L::History>, world: &World) -> Result<(), SmoothError>
    where
        L::History: Serialize + for<'de> Deserialize<'de>,
    {
        let n = state.keys.len();
        if state.histories.len() != n || state.stored.len() != n {
            return Err(CoreError::InvalidWorld {
                field: "MD solver state",
                value: format!("{n} keys, {} histories, {} stored energies", state.histories.len(), state.stored.len()),
                expected: "one history and one stored energy per key",
            }
            .into());
        }
        if !state.orientations.is_empty() && state.orientations.len() != world.bodies.len() {
            return Err(CoreError::InvalidWorld {
                field: "MD solver state: orientations",
                value: format!("{} orientations for {} bodies", state.orientations.len(), world.bodies.len()),
                expected: "one orientation per body, or none",
            }
            .into());
        }
        if let Some(k) =
            state.keys.iter().find(|k| world.bodies.index(k.body1).is_err() || world.bodies.index(k.body2).is_err())
        {
            let missing = if world.bodies.index(k.body1).is_err() { k.body1 } else { k.body2 };
            return Err(CoreError::NoSuchBody { handle: missing }.into());
        }
        self.integrator.restore_state(&state.integrator, &world.bodies)?;
        // Equal lengths were checked above, so both restores succeed.
        let _ = self.store.restore(state.keys.clone(), state.histories.clone());
        let _ = self.stored_energy.restore(state.keys.clone(), state.stored.clone());
        self.kinematic_power = state.kinematic_power;
        // A state saved before any step has no orientations: the next rotations are then
        // measured from the restored ones.
        let prev = if state.orientations.is_empty() { &world.bodies.orientation } else { &state.orientations };
        self.prev_orientation.clone_from(prev);
        self.rotation.clear();
        self.rotation.resize(world.bodies.len(), DVec3::ZERO);
        self.max_range = self.law_margin(world);
        self.verlet.invalidate();
        self.primed_version = Some(world.bodies.structure_version());
        self.primed_materials = world.materials.len();
        Ok(())
    }
}
