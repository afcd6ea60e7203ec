//! Checkpoints: the complete restorable state of a run in one binary file (bincode, so
//! every f64 round-trips bit-exactly): bodies, time, ledger, outputs and the solver's own
//! state, so that a resumed run continues bit-identically.
//!
//! File layout (little-endian): the format (`u32`), a CRC-32 (`u32`, IEEE, of every other
//! byte of the file), the payload's length in bytes (`u64`), then the payload, the bincode
//! of [`Checkpoint`]. A file whose length, checksum or content does not hold together is
//! refused with [`IoError::CheckpointDamaged`]; a file of another format with an error
//! that names both formats.

use crate::feeding::FeedingState;
use crate::outputs::OutputState;
use crate::warnings::WarningSummary;
use bincode::Options;
use granula_core::{BodyHandle, World, WorldState};
use granula_io::scene::spec::ShapeSpec;
use granula_io::{IoError, Result, Scene};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Format version written in every checkpoint. Format 3 added, to the MD solver's state,
/// each body's orientation at the last force evaluation (the rotation increments of
/// 002 eq. 15) and the rotation history of the predictor elongation. Format 4 added the MD
/// solver's candidate-pair list (in its order), the skin layer's reference boxes and
/// counters, the positions at the last rebuild and whether the solver was primed, so that
/// the resumed run rebuilds its list at the same steps as the uninterrupted one, and the
/// file header with the CRC-32 of the content (see the module documentation). Format 5
/// gives the MD solver one candidate per pair (feature 0) and saves the contact points of
/// the pairs that are not two spheres, each with its feature, history and stored energy.
/// Format 6 adds the MD solver's reorder counters (`MdState::last_reorder`, `reorders`)
/// and the bodies' dense order (`dense_order`). Format 7 adds the hash of each mesh file
/// the scene's polyhedra are read from (`meshes`), checked on resume. Format 8 keeps the
/// world's state as the core's [`WorldState`] (`world`: the same clock, ledger, guard
/// memory, dense order and body columns as before, in one place). Format 9 adds the
/// feeds' and outlets' state (`feeding`: random streams, totals, the spheres inserted).
/// Files of another format are refused with an error that names both formats.
pub const CHECKPOINT_FORMAT: u32 = 9;

/// The first bytes of the checkpoint file of a distributed run (crate `granula-mpi`, which
/// writes and reads it); a one-process checkpoint starts with its format number. Read here
/// so that a one-process resume of such a file says what it is.
pub const DISTRIBUTED_CHECKPOINT_MAGIC: [u8; 8] = *b"GRNLMPI1";

/// Bytes of the file header: format (`u32`), CRC-32 (`u32`), payload length (`u64`).
const HEADER: usize = 16;

/// CRC-32 of a checkpoint file's bytes, all but the checksum's own (bytes 4 to 7).
fn checksum(bytes: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&bytes[..4]);
    h.update(&bytes[8..]);
    h.finalize()
}

/// The state of a run at the end of a step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// [`CHECKPOINT_FORMAT`] of the writer.
    pub format: u32,
    /// The scene's file name.
    pub scene_file: String,
    /// The scene's text (the checkpoint needs no other file but the scene's mesh files).
    pub scene_text: String,
    /// The mesh files of the scene's polyhedra and mesh walls (OBJ, STL), as the scene names them, each
    /// with the 64-bit FNV-1a hash of its bytes when the run started: a resume refuses
    /// files that changed since ([`Checkpoint::check_meshes`]).
    pub meshes: Vec<(String, u64)>,
    /// The run's output folder, absolute (so that a resume from another working directory
    /// writes to the same folder).
    pub out_dir: PathBuf,
    /// The run's account of step warnings so far.
    pub warnings: WarningSummary,
    /// Handles of removed bodies, in removal order (replayed on the world built from the
    /// scene before the state is restored).
    pub removed: Vec<u32>,
    /// The world's state ([`World::save_state`]): clock, energy ledger, guard memory, and
    /// the bodies' columns in their dense order (the MD solver may store the bodies in cell
    /// order, `[solver] reorder_every`).
    pub world: WorldState,
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
    /// The feeds and outlets (`[[feeds]]`, `[[outlets]]`): their states and the spheres
    /// the feeds inserted, which a resume inserts again under the same handles before it
    /// replays the removals.
    pub feeding: FeedingState,
}

/// The 64-bit FNV-1a hash of `bytes`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The FNV-1a hash of the mesh file `file` of the scene `scene_file` (relative to the
/// scene's folder, as the scene reader takes it), read as the mesh reader reads it.
fn mesh_hash(scene_file: &str, file: &str) -> Result<u64> {
    let base = Path::new(scene_file).parent().map(Path::to_path_buf).unwrap_or_default();
    let bytes = granula_io::read_input(&base.join(file), granula_polyhedra::MAX_MESH_FILE_BYTES)?;
    Ok(fnv1a(&bytes))
}

/// The mesh files of `scene`'s polyhedra, then of its mesh walls, each once in the order
/// of first use, as the scene names them, with the FNV-1a hash of its bytes.
pub(crate) fn mesh_digests(scene: &Scene) -> Result<Vec<(String, u64)>> {
    let mut out: Vec<(String, u64)> = Vec::new();
    for p in &scene.spec.polyhedra {
        let (ShapeSpec::Obj { file, .. } | ShapeSpec::Stl { file, .. }) = &p.shape else { continue };
        if !out.iter().any(|(f, _)| f == file) {
            out.push((file.clone(), mesh_hash(&scene.file, file)?));
        }
    }
    for m in &scene.spec.meshes {
        if !out.iter().any(|(f, _)| f == &m.file) {
            out.push((m.file.clone(), mesh_hash(&scene.file, &m.file)?));
        }
    }
    Ok(out)
}

impl Checkpoint {
    /// Checks that every mesh file of the checkpoint's scene has the bytes it had when the
    /// run started: a file edited between an interruption and the resume would silently
    /// change the bodies' shapes and masses. The error names the file and the checkpoint.
    pub fn check_meshes(&self, path: &Path) -> Result<()> {
        for (file, hash) in &self.meshes {
            let now = mesh_hash(&self.scene_file, file).map_err(|e| IoError::Checkpoint {
                path: path.to_path_buf(),
                problem: format!("its scene's mesh file {file} cannot be read: {e}"),
            })?;
            if now != *hash {
                return Err(IoError::Checkpoint {
                    path: path.to_path_buf(),
                    problem: format!(
                        "its scene's mesh file {file} changed since the run started (FNV-1a hash {now:016x}, \
                         {hash:016x} recorded): the resumed run would not continue the same bodies; restore the \
                         file or rerun the scene"
                    ),
                });
            }
        }
        Ok(())
    }

    /// Checks what the world's own check cannot know, against the scene whose run takes
    /// `steps` steps of `dt`: a step within the run, a time consistent with the step count,
    /// a finite ledger and output state. `path` names the file in the error, which says the
    /// file is damaged (no run writes such a state). The columns are checked by
    /// [`Checkpoint::apply`].
    pub fn validate(&self, steps: u64, dt: f64, path: &Path) -> Result<()> {
        let damaged = |problem: String| Err(IoError::CheckpointDamaged { path: path.to_path_buf(), problem });
        let (step, time) = (self.world.clock.step, self.world.clock.time());
        if !(time.is_finite() && time >= 0.0) {
            return damaged(format!("time {time}"));
        }
        if step > steps {
            return damaged(format!("step {step} beyond the scene's {steps} steps"));
        }
        // The clock computes the time as k Δt from the step count (one rounding); 1e-6
        // relative refuses a time that belongs to another step or another Δt.
        let expected = step as f64 * dt;
        if (time - expected).abs() > 1e-6 * expected.max(dt) {
            return damaged(format!("time {time} s after {step} steps of {dt} s (expected {expected} s)"));
        }
        let l = &self.world.ledger;
        let d = &l.dissipated;
        let ledger =
            [l.stored_elastic, l.external_work, d.normal, d.sliding, d.rolling, d.twisting, d.cohesion, d.body_damping];
        if ledger.iter().any(|e| !e.is_finite()) {
            return damaged(format!("non-finite energy in the ledger {l:?}"));
        }
        let o = &self.outputs;
        if !(o.passed_mass.is_finite() && o.passed_mass >= 0.0) || o.passed_count > o.passed.len() as u64 {
            return damaged(format!(
                "flow count of {} spheres and {} kg among {} bodies",
                o.passed_count,
                o.passed_mass,
                o.passed.len()
            ));
        }
        Ok(())
    }

    /// Restores the world state into a world built from the same scene with the removals
    /// replayed ([`World::restore_state`]: the bodies put back in the saved order, their
    /// columns, clock, ledger and guard memory). A state that does not fit (a column of the
    /// wrong length, an unknown handle, a non-finite value, an orientation that is not a
    /// unit quaternion, a clock no run writes) is refused as damaged, naming what is wrong;
    /// the world is then unchanged.
    pub fn apply(&self, world: &mut World, path: &Path) -> Result<()> {
        let removed = match self.removed.len() {
            0 => String::new(),
            r => format!(" (after the {r} removals it records)"),
        };
        world.restore_state(&self.world).map_err(|e| IoError::CheckpointDamaged {
            path: path.to_path_buf(),
            problem: format!("its world state does not fit the scene's {} bodies{removed}: {e}", world.bodies.len()),
        })
    }

    /// Replays the recorded removals on a world freshly built from the scene; an unknown or
    /// repeated handle means a damaged file.
    pub fn replay_removals(&self, world: &mut World, path: &Path) -> Result<()> {
        for &h in &self.removed {
            world.remove(BodyHandle(h)).map_err(|e| IoError::CheckpointDamaged {
                path: path.to_path_buf(),
                problem: format!("it records the removal of body {h}, which the scene cannot remove ({e})"),
            })?;
        }
        Ok(())
    }

    /// Serialises to the file's bytes: header (format, checksum, payload length) and payload.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Serialising plain data into a Vec cannot fail.
        let payload = bincode::serialize(self).unwrap_or_default();
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(&self.format.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&payload);
        let crc = checksum(&out);
        out[4..8].copy_from_slice(&crc.to_le_bytes());
        out
    }

    /// Deserialises the bytes of a file; `path` names the source in errors. Refuses a file
    /// of another format (naming both), and as damaged a file that is too short, whose
    /// length or checksum does not match, or whose payload does not decode.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Self> {
        let damaged = |problem: String| IoError::CheckpointDamaged { path: path.to_path_buf(), problem };
        let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        if bytes.len() < 4 {
            return Err(damaged(format!("{} bytes, too short for a checkpoint", bytes.len())));
        }
        if bytes.starts_with(&DISTRIBUTED_CHECKPOINT_MAGIC) {
            return Err(IoError::Checkpoint {
                path: path.to_path_buf(),
                problem: "written by a distributed run (granula under mpirun); resume it with a granula built \
                          with the cargo feature `mpi`"
                    .into(),
            });
        }
        let format = word(0);
        if format != CHECKPOINT_FORMAT {
            let why = if format < CHECKPOINT_FORMAT {
                "written by an earlier version of granula; rerun the scene to continue it"
            } else {
                "written by a later version of granula, or damaged"
            };
            return Err(IoError::Checkpoint {
                path: path.to_path_buf(),
                problem: format!("format {format} but this build reads {CHECKPOINT_FORMAT} ({why})"),
            });
        }
        if bytes.len() < HEADER {
            return Err(damaged(format!("{} bytes, shorter than the {HEADER}-byte header", bytes.len())));
        }
        let stored = word(4);
        let mut length = [0; 8];
        length.copy_from_slice(&bytes[8..16]);
        let length = u64::from_le_bytes(length);
        let actual = (bytes.len() - HEADER) as u64;
        if length != actual {
            return Err(damaged(format!("the header announces {length} bytes of content, the file has {actual}")));
        }
        let computed = checksum(bytes);
        if computed != stored {
            return Err(damaged(format!("checksum {computed:08x} of the content, {stored:08x} recorded")));
        }
        // The limit bounds what a length field inside can make the decoder read.
        let c: Checkpoint = bincode::DefaultOptions::new()
            .with_fixint_encoding()
            .allow_trailing_bytes()
            .with_limit(actual)
            .deserialize(&bytes[HEADER..])
            .map_err(|e| damaged(format!("content unreadable: {e}")))?;
        if c.format != format {
            return Err(damaged(format!("format {} inside, {format} in the header", c.format)));
        }
        Ok(c)
    }

    /// Writes to a file (through a temporary file and a rename; the temporary file is
    /// removed if either fails).
    pub fn save(&self, path: &Path) -> Result<()> {
        granula_io::output::write_atomic_bytes(path, &self.to_bytes())
    }

    /// Reads a file: a regular file of at most
    /// [`MAX_CHECKPOINT_BYTES`](granula_io::MAX_CHECKPOINT_BYTES) (a FIFO or a
    /// device is refused by name, [`IoError::InputFile`]).
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = granula_io::read_input(path, granula_io::MAX_CHECKPOINT_BYTES)?;
        Checkpoint::from_bytes(&bytes, path)
    }
}
