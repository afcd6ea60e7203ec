//! Checkpoints of planar runs, MD and contact dynamics: the whole run in one file, so that `granula resume`
//! continues an interrupted run and ends with the same bits, and the same output files, as
//! the uninterrupted run.
//!
//! A checkpoint holds the scene's text (the run is rebuilt from it, so a changed or moved
//! scene file does not matter), the simulation's evolving state
//! ([`granula_planar::Simulation::save_state`]: clock, bodies, Gear derivatives, contacts
//! with their histories; [`granula_planar::ContactDynamics::save_state`]: clock, bodies,
//! the last step's contacts with the impulses that warm-start the next), the length of `series.csv` at that step (rows written after it
//! are cut on resume), the VTK frames written so far and the warning summary. It is
//! bincode behind an 8-byte tag, written atomically.

use super::run::PlanarRun;
use super::{PlanarScene, PlanarSolver};
use crate::warnings::WarningSummary;
use granula_io::output::{open_csv, write_atomic_bytes, PvdCollection};
use granula_io::{IoError, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The first bytes of a planar checkpoint file.
pub const PLANAR_CHECKPOINT_TAG: &[u8; 8] = b"GRPLCK01";

/// The checkpoint's file name in the run's folder.
pub const PLANAR_CHECKPOINT_FILE: &str = "checkpoint.planar";

/// What a checkpoint holds (module doc).
#[derive(Serialize, Deserialize)]
struct Saved {
    scene_file: String,
    scene_text: String,
    series_bytes: u64,
    frames: Vec<(f64, String)>,
    warnings: WarningSummary,
    state: Vec<u8>,
}

/// `true` when `path` is a regular file that starts with the planar checkpoint's tag
/// (unreadable files and other kinds of file, such as a FIFO that would block the read:
/// `false`, the 3D reader then reports them).
pub fn is_planar_checkpoint(path: &Path) -> bool {
    use std::io::Read;
    let mut tag = [0u8; 8];
    granula_io::is_regular_file(path)
        && std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut tag)).is_ok()
        && &tag == PLANAR_CHECKPOINT_TAG
}

impl PlanarRun {
    /// Writes the run's checkpoint into its folder and returns its path. Series rows are
    /// flushed first, so the recorded length covers every row of the steps done. Errors:
    /// files that cannot be written.
    pub fn checkpoint(&mut self) -> Result<PathBuf> {
        let series_bytes = self.flush_series()?;
        let state = match &self.scene.solver {
            PlanarSolver::Md(sim) => sim.save_state(),
            PlanarSolver::Nscd { solver, .. } => solver.save_state(),
        };
        let saved = Saved {
            scene_file: self.scene.file.clone(),
            scene_text: self.scene.text.clone(),
            series_bytes,
            frames: self.pvd_frames(),
            warnings: self.warnings,
            state,
        };
        let mut bytes = PLANAR_CHECKPOINT_TAG.to_vec();
        bincode::serialize_into(&mut bytes, &saved).map_err(|e| IoError::Solver(format!("checkpoint: {e}")))?;
        let path = self.dir().join(PLANAR_CHECKPOINT_FILE);
        write_atomic_bytes(&path, &bytes)?;
        Ok(path)
    }

    /// Continues the run saved in `checkpoint`, writing into `out` (default: the folder
    /// holding the checkpoint, whose `series.csv` is cut back to the checkpoint's step).
    /// Errors name the file: not a planar checkpoint, truncated or corrupt, a scene that
    /// no longer parses, a state that does not fit it, a missing or short `series.csv`.
    pub fn resume(checkpoint: &Path, out: Option<&Path>) -> Result<PlanarRun> {
        let bytes = granula_io::read_input(checkpoint, granula_io::MAX_CHECKPOINT_BYTES)?;
        let bad = |what: String| IoError::Solver(format!("{}: {what}", checkpoint.display()));
        let body = bytes
            .strip_prefix(PLANAR_CHECKPOINT_TAG.as_slice())
            .ok_or_else(|| bad("not a planar checkpoint (wrong tag)".into()))?;
        let saved: Saved =
            bincode::deserialize(body).map_err(|e| bad(format!("truncated or corrupt checkpoint: {e}")))?;
        let mut scene = PlanarScene::parse(&saved.scene_file, &saved.scene_text)?;
        let restored = match &mut scene.solver {
            PlanarSolver::Md(sim) => sim.restore_state(&saved.state),
            PlanarSolver::Nscd { solver, .. } => solver.restore_state(&saved.state),
        };
        restored.map_err(|e| bad(format!("state does not fit the scene: {e}")))?;
        let dir = match out {
            Some(d) => d.to_path_buf(),
            None => checkpoint.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        std::fs::create_dir_all(&dir).map_err(|e| IoError::file(&dir, e))?;
        // Locked before anything in it changes.
        let lock = crate::folder::FolderLock::acquire(&dir)?;
        let series_path = dir.join("series.csv");
        cut_series(&series_path, saved.series_bytes)?;
        let series = open_csv(&series_path, "", true)?;
        let pvd = scene.vtk_every.map(|_| PvdCollection { path: dir.join("bodies.pvd"), frames: saved.frames.clone() });
        Ok(PlanarRun::resumed(scene, (dir, lock), series, pvd, saved.warnings))
    }
}

/// Cuts `series.csv` back to `len` bytes, the rows of the steps up to the checkpoint. A
/// missing or shorter series is refused, so that no rows are silently lost (a run resumed
/// into another folder needs its `series.csv` copied there), as is one that is a symbolic
/// link.
fn cut_series(path: &Path, len: u64) -> Result<()> {
    // Never through a link: its target is not the run's file.
    if path.symlink_metadata().is_ok_and(|m| !m.is_file()) {
        return Err(IoError::OutputFolder {
            path: path.to_path_buf(),
            problem: "is a symbolic link or not a regular file; granula writes its outputs only as its own files"
                .into(),
        });
    }
    let f = std::fs::OpenOptions::new().write(true).open(path).map_err(|e| IoError::file(path, e))?;
    let have = f.metadata().map_err(|e| IoError::file(path, e))?.len();
    if have < len {
        return Err(IoError::Solver(format!(
            "{}: {have} bytes, shorter than the {len} the checkpoint recorded: rows are missing",
            path.display()
        )));
    }
    f.set_len(len).map_err(|e| IoError::file(path, e))
}
