//! Checkpoints of a distributed run, independent of the rank count: rank 0 gathers every
//! body (with the integrator's memory for it), every contact history keyed by global ids
//! and the shared bodies' state; any number of ranks resumes from the file by the same
//! redistribution as a run's first one, without a fresh start of the solvers.
//!
//! The runner's file ([`DistributedCheckpointFile`], `checkpoint.bin` in the output folder
//! as for one process) adds the output folder and the outputs' state. Layout
//! (little-endian): the 8 bytes [`DISTRIBUTED_CHECKPOINT_MAGIC`], a CRC-32 (`u32`, IEEE, of
//! the payload), the payload's length (`u64`), the payload (bincode). A one-process
//! checkpoint starts with its format number instead, so each reader recognises the other's
//! file and says so.

use super::{empty_world, DistributedRun, SHARED};
use crate::communicator::Communicator;
use crate::decomposition::Decomposition;
use crate::error::DistributedError;
use crate::record::{decode, encode, BodyRecord, HistoryRecord};
use granula_core::{Clock, DVec3, EnergyLedger, GuardAccounts, MotionKind};
use granula_io::{IoError, Scene};
use granula_run::OutputState;
pub use granula_run::DISTRIBUTED_CHECKPOINT_MAGIC;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Bytes before the payload: magic (8), CRC-32 (4), payload length (8).
const HEADER: usize = 20;

/// What one rank contributes to a checkpoint.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Part {
    bodies: Vec<BodyRecord>,
    histories: Vec<HistoryRecord>,
}

/// A distributed run's checkpoint.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DistributedCheckpoint {
    /// The scene file's name.
    pub scene_file: String,
    /// The scene's text: a checkpoint resumes only the scene it was written from.
    pub scene_text: String,
    /// The world's clock.
    pub clock: Clock,
    /// Every dynamic body, sorted by global id.
    pub bodies: Vec<BodyRecord>,
    /// Every contact history, sorted by pair and feature.
    pub histories: Vec<HistoryRecord>,
    /// State of the shared bodies (walls, fixed and kinematic ones), by global id.
    pub shared: Vec<BodyRecord>,
    /// The integrator's name and scalar memory.
    pub integrator: (String, Vec<f64>),
    /// The run's energy ledger (summed over the ranks).
    pub ledger: EnergyLedger,
    /// The kinematic bodies' power at the end of the step (W, summed over the ranks): the
    /// first end of the next step's trapezoid.
    pub kinematic_power: f64,
    /// The runaway-energy guard's accounts at its last check.
    pub guard: Option<GuardAccounts>,
}

/// The checkpoint file the runner writes: the run's checkpoint, its output folder and the
/// state of its outputs (the frames of the `.pvd` collections).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DistributedCheckpointFile {
    /// The output folder, absolute.
    pub out_dir: PathBuf,
    /// The outputs' state.
    pub outputs: OutputState,
    /// The run.
    pub run: DistributedCheckpoint,
}

impl DistributedCheckpointFile {
    /// The file's bytes (see the module documentation for the layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = encode(self);
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(&DISTRIBUTED_CHECKPOINT_MAGIC);
        out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// Reads the bytes of a file; `path` names it in the errors: a file that is not a
    /// distributed checkpoint, and one whose length, checksum or content does not hold
    /// together, are refused.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Self, DistributedError> {
        let damaged = |problem: String| IoError::CheckpointDamaged { path: path.to_path_buf(), problem };
        if !bytes.starts_with(&DISTRIBUTED_CHECKPOINT_MAGIC) {
            return Err(IoError::Checkpoint {
                path: path.to_path_buf(),
                problem: "not the checkpoint of a distributed run (one process's checkpoints resume with \
                          `granula resume` without mpirun)"
                    .into(),
            }
            .into());
        }
        if bytes.len() < HEADER {
            return Err(damaged(format!("{} bytes, shorter than the {HEADER}-byte header", bytes.len())).into());
        }
        let mut word = [0; 4];
        word.copy_from_slice(&bytes[8..12]);
        let stored = u32::from_le_bytes(word);
        let mut length = [0; 8];
        length.copy_from_slice(&bytes[12..20]);
        let length = u64::from_le_bytes(length);
        let payload = &bytes[HEADER..];
        if length != payload.len() as u64 {
            return Err(damaged(format!(
                "the header announces {length} bytes of content, the file has {}",
                payload.len()
            ))
            .into());
        }
        let computed = crc32fast::hash(payload);
        if computed != stored {
            return Err(damaged(format!("checksum {computed:08x} of the content, {stored:08x} recorded")).into());
        }
        bincode::deserialize(payload).map_err(|e| damaged(format!("content unreadable: {e}")).into())
    }

    /// Writes the file (through a temporary file and a rename).
    pub fn save(&self, path: &Path) -> Result<(), DistributedError> {
        Ok(granula_io::output::write_atomic_bytes(path, &self.to_bytes())?)
    }
}

impl<C: Communicator> DistributedRun<C> {
    /// The checkpoint of the current step as bytes at rank 0, `None` on the other ranks
    /// (collective).
    pub fn checkpoint(&mut self) -> Result<Option<Vec<u8>>, DistributedError> {
        Ok(self.checkpoint_state()?.map(|c| encode(&c)))
    }

    /// The checkpoint of the current step at rank 0, `None` on the other ranks
    /// (collective).
    pub fn checkpoint_state(&mut self) -> Result<Option<DistributedCheckpoint>, DistributedError> {
        let rank = self.comm.rank();
        let me = rank as u32;
        let histories =
            self.distributed().export_histories().map_err(|source| DistributedError::Core { rank, source })?;
        let state = self.distributed().integrator_state();
        // Collective, before the gather: every rank takes part.
        let ledger = self.energies()?.ledger;
        let power = self.distributed().kinematic_power();
        let kinematic_power = self.comm.all_gather(power).iter().sum();
        let memory = super::MemoryView::new(&state);
        let b = &self.world.bodies;
        let mut part = Part::default();
        for i in (0..b.len()).filter(|&i| self.owner[i] == me) {
            part.bodies.push(self.record(i, Some(&memory)));
        }
        for h in histories {
            let (Ok(i), Ok(j)) = (b.index(h.key.body1), b.index(h.key.body2)) else {
                continue;
            };
            let first = if self.owner[i] != SHARED { i } else { j };
            if self.owner[first] == me {
                part.histories.push(HistoryRecord {
                    body1: self.gid[i],
                    body2: self.gid[j],
                    feature: h.key.feature,
                    history: h.history,
                    stored: h.stored,
                });
            }
        }
        let Some(parts) = self.comm.gather_to_root(encode(&part)) else {
            return Ok(None);
        };
        let mut all = Part::default();
        for (from, bytes) in parts.iter().enumerate() {
            let p: Part = decode(bytes, rank, from)?;
            all.bodies.extend(p.bodies);
            all.histories.extend(p.histories);
        }
        all.bodies.sort_by_key(|r| r.gid);
        all.histories.sort_by_key(|h| (h.body1, h.body2, h.feature));
        let shared = (0..b.len()).filter(|&i| self.owner[i] == SHARED).map(|i| self.record(i, None)).collect();
        let checkpoint = DistributedCheckpoint {
            scene_file: self.scene.file.clone(),
            scene_text: self.scene.text.clone(),
            clock: self.world.clock(),
            bodies: all.bodies,
            histories: all.histories,
            shared,
            integrator: (state.name.clone(), state.scalars.clone()),
            ledger,
            kinematic_power,
            guard: self.guard_accounts,
        };
        Ok(Some(checkpoint))
    }

    /// Resumes on the ranks of `comm` (any number) from checkpoint bytes read from `path`
    /// (collective; every rank reads the same bytes). A checkpoint of another scene, or
    /// bytes that do not decode, are refused with the file's name.
    pub fn resume(
        comm: C,
        scene: Scene,
        bytes: &[u8],
        path: &str,
        config: super::DistributedConfig,
    ) -> Result<Self, DistributedError> {
        let c: DistributedCheckpoint =
            bincode::deserialize(bytes).map_err(|e| DistributedError::CheckpointMismatch {
                path: path.into(),
                found: format!("unreadable bytes ({e})"),
                expected: "a distributed checkpoint".into(),
            })?;
        Self::resume_from(comm, scene, c, path, config)
    }

    /// [`DistributedRun::resume`] from a decoded checkpoint.
    pub fn resume_from(
        comm: C,
        scene: Scene,
        c: DistributedCheckpoint,
        path: &str,
        config: super::DistributedConfig,
    ) -> Result<Self, DistributedError> {
        if c.scene_text != scene.text {
            return Err(DistributedError::CheckpointMismatch {
                path: path.into(),
                found: format!("scene {}", c.scene_file),
                expected: format!("scene {} (the same text)", scene.file),
            });
        }
        let mut run = DistributedRun::new(comm, scene, config)?;
        // Throw away the start's set-up: redistribute the checkpoint's bodies.
        let t = &run.template.bodies;
        let dynamic = (0..t.len()).filter(|&i| t.motion[i] == MotionKind::Dynamic).count();
        if c.bodies.len() != dynamic || c.bodies.iter().any(|r| r.gid as usize >= t.len()) {
            return Err(DistributedError::CheckpointMismatch {
                path: path.into(),
                found: format!("{} bodies", c.bodies.len()),
                expected: format!("the scene's {dynamic} dynamic bodies"),
            });
        }
        let positions: Vec<DVec3> = c.bodies.iter().map(|r| r.position).collect();
        let periodic = run.template.periodic;
        run.decomposition =
            Decomposition::grid_over(positions.iter().copied(), &periodic, run.comm.size(), run.cutoff)?;
        let rank = run.comm.rank();
        let mut owned = Vec::new();
        let mut ghosts = Vec::new();
        for r in &c.bodies {
            let o = run.decomposition.owner(r.position);
            if o == rank {
                owned.push(r.clone());
            } else if run.decomposition.halo(r.position, o, run.cutoff).any(|q| q == rank) {
                ghosts.push((o as u32, r.clone()));
            }
        }
        let owner_of = |g: u32| {
            c.bodies.binary_search_by_key(&g, |r| r.gid).ok().map(|k| run.decomposition.owner(c.bodies[k].position))
        };
        let histories: Vec<HistoryRecord> = c
            .histories
            .iter()
            .filter(|h| owner_of(h.body1) == Some(rank) || owner_of(h.body2) == Some(rank))
            .cloned()
            .collect();
        // The shared bodies with the checkpoint's state.
        let mut shared = run.shared_from(&run.template);
        for (gid, body, force, torque) in &mut shared {
            if let Ok(k) = c.shared.binary_search_by_key(gid, |r| r.gid) {
                let r = &c.shared[k];
                body.state.position = r.position;
                body.state.orientation = r.orientation;
                body.state.velocity = r.velocity;
                body.state.angular_velocity = r.angular_velocity;
                *force = r.force;
                *torque = r.torque;
            }
        }
        let mut clock_world = empty_world();
        clock_world.set_clock(c.clock).map_err(|source| DistributedError::Core { rank, source })?;
        run.world = clock_world;
        run.fresh = false;
        let cutoff = run.cutoff;
        run.install(shared, owned, ghosts, histories, Some(c.integrator), cutoff)?;
        // The run's ledger and kinematic power go on as rank 0's parts (energies.rs).
        let first = rank == 0;
        run.world.ledger = if first { c.ledger } else { EnergyLedger::default() };
        run.distributed().set_kinematic_power(if first { c.kinematic_power } else { 0.0 });
        run.guard_accounts = c.guard;
        Ok(run)
    }
}
