//! Checkpoints: the complete restorable state of a run in one binary file (bincode, so
//! every f64 round-trips bit-exactly): bodies, time, ledger, outputs and the solver's own
//! state, so that a resumed run continues bit-identically.

use super::outputs::OutputState;
use crate::error::{IoError, Result};
use glam::{DQuat, DVec3};
use granula_core::{Clock, EnergyLedger, World};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Format version written in every checkpoint. Format 3 added, to the MD solver's state,
/// each body's orientation at the last force evaluation (the rotation increments of
/// 002 eq. 15) and the rotation history of the predictor elongation; files of an earlier
/// format are refused with an error that names both formats.
pub const CHECKPOINT_FORMAT: u32 = 3;

/// The state of a run at the end of a step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// [`CHECKPOINT_FORMAT`] of the writer.
    pub format: u32,
    /// The scene's file name.
    pub scene_file: String,
    /// The scene's text (the checkpoint needs no other file).
    pub scene_text: String,
    /// The run's output folder.
    pub out_dir: PathBuf,
    /// Simulated time (s).
    pub time: f64,
    /// Steps taken.
    pub step: u64,
    /// The world's clock ([`World::clock`]): the time step and the base the time is
    /// computed from, so the resumed run's times equal the uninterrupted run's bit for bit.
    pub clock: Clock,
    /// Handles of removed bodies, in removal order (replayed to get the same dense order).
    pub removed: Vec<u32>,
    /// Positions, by dense index.
    pub position: Vec<DVec3>,
    /// Orientations.
    pub orientation: Vec<DQuat>,
    /// Velocities.
    pub velocity: Vec<DVec3>,
    /// Angular velocities.
    pub angular_velocity: Vec<DVec3>,
    /// Contact forces of the last step.
    pub force: Vec<DVec3>,
    /// Contact torques of the last step.
    pub torque: Vec<DVec3>,
    /// Energy accounts.
    pub ledger: EnergyLedger,
    /// Output collections and counters.
    pub outputs: OutputState,
    /// The solver's own state, bincode bytes from
    /// [`SimSolver::save_state`](super::SimSolver::save_state): contact histories or
    /// warm-start impulses, integrator memory, random stream.
    pub solver_state: Vec<u8>,
    /// Whether the solver restarts bit-identically from this state (see
    /// [`SimSolver::restarts_exactly`](super::SimSolver::restarts_exactly)); true for every
    /// built-in solver since format 2.
    pub exact: bool,
}

impl Checkpoint {
    /// Copies the world's state into `self`'s body columns.
    pub fn capture(&mut self, world: &World) {
        let b = &world.bodies;
        self.time = world.time;
        self.step = world.step;
        self.clock = world.clock();
        self.position = b.position.clone();
        self.orientation = b.orientation.clone();
        self.velocity = b.velocity.clone();
        self.angular_velocity = b.angular_velocity.clone();
        self.force = b.force.clone();
        self.torque = b.torque.clone();
        self.ledger = world.ledger;
    }

    /// Writes the world state back into a world built from the same scene with the same
    /// removals replayed.
    pub fn apply(&self, world: &mut World, path: &Path) -> Result<()> {
        let n = world.bodies.len();
        let columns = [self.orientation.len(), self.velocity.len(), self.angular_velocity.len(), self.force.len()];
        if self.position.len() != n || columns.iter().any(|&c| c != n) || self.torque.len() != n {
            return Err(IoError::Checkpoint {
                path: path.to_path_buf(),
                problem: format!("holds {} bodies, the scene gives {n}", self.position.len()),
            });
        }
        let b = &mut world.bodies;
        b.position.copy_from_slice(&self.position);
        b.orientation.copy_from_slice(&self.orientation);
        b.velocity.copy_from_slice(&self.velocity);
        b.angular_velocity.copy_from_slice(&self.angular_velocity);
        b.force.copy_from_slice(&self.force);
        b.torque.copy_from_slice(&self.torque);
        // The restored state comes from a run: its soft contacts overlap by design.
        world.accept_overlaps();
        if self.clock.step != self.step || self.clock.time().to_bits() != self.time.to_bits() {
            return Err(IoError::Checkpoint {
                path: path.to_path_buf(),
                problem: format!(
                    "its clock (step {}, t = {} s) disagrees with its step {} and time {} s",
                    self.clock.step,
                    self.clock.time(),
                    self.step,
                    self.time
                ),
            });
        }
        world
            .set_clock(self.clock)
            .map_err(|e| IoError::Checkpoint { path: path.to_path_buf(), problem: e.to_string() })?;
        world.ledger = self.ledger;
        Ok(())
    }

    /// Serialises to bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Serialising plain data into a Vec cannot fail.
        bincode::serialize(self).unwrap_or_default()
    }

    /// Deserialises; `path` names the source in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Self> {
        let c: Checkpoint = bincode::deserialize(bytes)
            .map_err(|e| IoError::Checkpoint { path: path.to_path_buf(), problem: format!("unreadable: {e}") })?;
        if c.format != CHECKPOINT_FORMAT {
            return Err(IoError::Checkpoint {
                path: path.to_path_buf(),
                problem: format!("format {} but this build reads {CHECKPOINT_FORMAT}", c.format),
            });
        }
        Ok(c)
    }

    /// Writes to a file (through a temporary file and a rename).
    pub fn save(&self, path: &Path) -> Result<()> {
        let tmp = path.with_extension("tmp~");
        std::fs::write(&tmp, self.to_bytes()).map_err(|e| IoError::file(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| IoError::file(path, e))
    }

    /// Reads a file.
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| IoError::file(path, e))?;
        Checkpoint::from_bytes(&bytes, path)
    }
}
