//! The restorable state of a world: what the next step depends on besides what the code
//! that built the world sets up (shapes, materials, gravity, walls and their drives).

use super::World;
use crate::clock::Clock;
use crate::energy::EnergyLedger;
use crate::energy_guard::GuardMemory;
use crate::error::{BodyRef, CoreError, Result};
use crate::handle::BodyHandle;
use crate::math::{DQuat, DVec3};
use serde::{Deserialize, Serialize};

/// The state of a [`World`] at the end of a step, from [`World::save_state`]: every body's
/// position, orientation, velocity, angular velocity and last contact loads (keyed by
/// handle, in the world's dense order), the clock, the energy ledger and the runaway guard's
/// memory. With a solver's own state (`MdSolver::save_state`, `NscdSolver::save_state`)
/// it is a checkpoint of a world built in code: serialize both (e.g. with bincode, which
/// round-trips every `f64` exactly), build the world again with the same code in another
/// process, and [`World::restore_state`] then the solver's `restore_state`; the next steps
/// equal those of the run that saved them, bit for bit.
///
/// Shapes, materials, gravity and drives are not in it: the code that builds the world
/// sets them up again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorldState {
    /// The clock (step count, time step, base time).
    pub clock: Clock,
    /// The energy accounts.
    pub ledger: EnergyLedger,
    /// The runaway guard's memory.
    pub guard: GuardMemory,
    /// Handles in dense order.
    pub handles: Vec<BodyHandle>,
    /// Positions (m), by dense index.
    pub position: Vec<DVec3>,
    /// Orientations.
    pub orientation: Vec<DQuat>,
    /// Velocities (m/s).
    pub velocity: Vec<DVec3>,
    /// Angular velocities (rad/s).
    pub angular_velocity: Vec<DVec3>,
    /// Contact forces of the last step (N).
    pub force: Vec<DVec3>,
    /// Contact torques of the last step (N m).
    pub torque: Vec<DVec3>,
}

impl World {
    /// The world's state for a checkpoint ([`WorldState`]), taken between steps.
    pub fn save_state(&self) -> WorldState {
        let b = &self.bodies;
        WorldState {
            clock: self.clock(),
            ledger: self.ledger,
            guard: self.guard_memory(),
            handles: b.handle.clone(),
            position: b.position.clone(),
            orientation: b.orientation.clone(),
            velocity: b.velocity.clone(),
            angular_velocity: b.angular_velocity.clone(),
            force: b.force.clone(),
            torque: b.torque.clone(),
        }
    }

    /// Restores a state from [`World::save_state`] into a world built by the same code (the
    /// same bodies under the same handles; a world whose run removed bodies removes them
    /// again first). The bodies are put back in the saved dense order, their columns
    /// overwritten, the clock, ledger and guard memory restored, and the overlaps of the
    /// restored configuration accepted (they are the run's, not an insertion's). Errors name
    /// the body or the column at fault; the world is unchanged when one is returned.
    pub fn restore_state(&mut self, state: &WorldState) -> Result<()> {
        state.check(self)?;
        let order = self.bodies.permutation_to(&state.handles)?;
        self.reorder_bodies(&order)?;
        let b = &mut self.bodies;
        b.position.clone_from(&state.position);
        b.orientation.clone_from(&state.orientation);
        b.velocity.clone_from(&state.velocity);
        b.angular_velocity.clone_from(&state.angular_velocity);
        b.force.clone_from(&state.force);
        b.torque.clone_from(&state.torque);
        self.ledger = state.ledger;
        self.set_clock(state.clock)?;
        self.restore_guard_memory(state.guard)?;
        self.accept_overlaps();
        Ok(())
    }
}

impl WorldState {
    /// Checks the state against `world` before anything is changed: one value per body in
    /// every column, the same handles, finite values, unit orientations, a valid clock.
    fn check(&self, world: &World) -> Result<()> {
        let n = world.bodies.len();
        let invalid = |field, value: String, expected| Err(CoreError::InvalidWorld { field, value, expected });
        let lengths = [
            ("handles", self.handles.len()),
            ("position", self.position.len()),
            ("orientation", self.orientation.len()),
            ("velocity", self.velocity.len()),
            ("angular velocity", self.angular_velocity.len()),
            ("force", self.force.len()),
            ("torque", self.torque.len()),
        ];
        if let Some((field, len)) = lengths.into_iter().find(|&(_, len)| len != n) {
            return invalid(field, format!("{len} values for {n} bodies"), "one value per body of the world");
        }
        if let Some(&h) = self.handles.iter().find(|&&h| world.bodies.index(h).is_err()) {
            return Err(CoreError::NoSuchBody { handle: h });
        }
        let vectors = [
            ("position", &self.position),
            ("velocity", &self.velocity),
            ("angular_velocity", &self.angular_velocity),
            ("force", &self.force),
            ("torque", &self.torque),
        ];
        for (field, column) in vectors {
            if let Some(i) = column.iter().position(|v| !v.is_finite()) {
                let body = BodyRef::Handle(self.handles[i]);
                return Err(CoreError::invalid_body(body, field, column[i], "finite"));
            }
        }
        if let Some(i) = self.orientation.iter().position(|q| !(q.is_finite() && (q.length() - 1.0).abs() < 1e-9)) {
            let body = BodyRef::Handle(self.handles[i]);
            return Err(CoreError::invalid_body(body, "orientation", self.orientation[i], "a unit quaternion"));
        }
        let l = &self.ledger;
        if !(l.dissipated.total().is_finite() && l.stored_elastic.is_finite() && l.external_work.is_finite()) {
            return invalid("ledger", format!("{l:?}"), "finite accounts");
        }
        let c: &Clock = &self.clock;
        if !(c.base_time.is_finite() && c.dt.is_finite() && c.dt >= 0.0 && c.base_step <= c.step) {
            return invalid("clock", format!("{c:?}"), "a finite base time and time step >= 0, base step <= step");
        }
        Ok(())
    }
}
