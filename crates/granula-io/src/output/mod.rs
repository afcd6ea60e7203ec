//! Outputs: VTK frames for ParaView with `.pvd` collections, the CSV time series, body
//! trajectories, contact-force lists, per-contact time series and contact events, the
//! Love-Weber stress of a region, and the loads on the walls.

mod contact_history;
mod contacts;
mod pvd;
mod series;
mod stress;
mod vtk;
mod vtp;
mod wall_loads;

pub use contact_history::{
    body_label, ContactEvent, ContactFilter, ContactHistory, ContactSample, CONTACT_EVENTS_HEADER,
    CONTACT_HISTORY_HEADER,
};
pub use contacts::{loaded_contacts, status_name, write_contact_list, ContactRecord};
pub use pvd::PvdCollection;
pub use series::{SeriesRow, SERIES_HEADER};
pub use stress::{love_weber_stress, RegionStress};
pub use vtk::{write_contacts, write_particles, write_shapes, write_walls, WallDisplay};
pub use vtp::{PolyData, VtkArray};
pub use wall_loads::{is_wall, wall_loads, write_wall_loads, WallLoad, WALL_LOADS_HEADER};

use crate::error::{IoError, Result};
use std::path::Path;

/// Writes `text` to `path` through a temporary file and a rename, so that a reader never
/// sees a half-written file. On an error the temporary file is removed.
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    write_atomic_bytes(path, text.as_bytes())
}

/// [`write_atomic`] for bytes: writes `<path without extension>.tmp~`, then renames it onto
/// `path`; when the write or the rename fails, the temporary file is removed and the error
/// names the file that failed.
pub fn write_atomic_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(TMP_EXTENSION);
    if let Err(e) = std::fs::write(&tmp, bytes) {
        remove_tmp(&tmp);
        return Err(IoError::file(&tmp, e));
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        remove_tmp(&tmp);
        return Err(IoError::file(path, e));
    }
    Ok(())
}

/// Extension of the temporary files of [`write_atomic`].
pub const TMP_EXTENSION: &str = "tmp~";

/// Removes a temporary file left by a failed write, if it is a file (a folder of that name
/// is not ours to remove); a failure to remove it is not reported over the write's error.
fn remove_tmp(tmp: &Path) {
    if tmp.symlink_metadata().is_ok_and(|m| m.is_file()) {
        let _ = std::fs::remove_file(tmp);
    }
}

/// Opens a CSV file for a run: truncated with its `header` line for a new run, or opened
/// for appending when a resumed run continues it (the header is written only when the file
/// does not exist yet).
pub fn open_csv(path: &Path, header: &str, append: bool) -> Result<std::io::BufWriter<std::fs::File>> {
    use std::io::Write;
    let exists = path.exists();
    let f = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(path)
        .map_err(|e| IoError::file(path, e))?;
    let mut w = std::io::BufWriter::new(f);
    if !(append && exists) {
        writeln!(w, "{header}").map_err(|e| IoError::file(path, e))?;
    }
    Ok(w)
}
