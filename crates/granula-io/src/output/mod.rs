//! Outputs: VTK frames for ParaView with `.pvd` collections, the CSV time series, body
//! trajectories, contact-force lists, per-contact time series and contact events, and the
//! Love-Weber stress of a region.

mod contact_history;
mod contacts;
mod pvd;
mod series;
mod stress;
mod vtk;
mod vtp;

pub use contact_history::{
    body_label, ContactEvent, ContactFilter, ContactHistory, ContactSample, CONTACT_EVENTS_HEADER,
    CONTACT_HISTORY_HEADER,
};
pub use contacts::{contact_records, write_contact_list, ContactRecord};
pub use pvd::PvdCollection;
pub use series::{SeriesRow, SERIES_HEADER};
pub use stress::{love_weber_stress, RegionStress};
pub use vtk::{write_contacts, write_particles, write_walls, WallDisplay};
pub use vtp::{PolyData, VtkArray};

use crate::error::{IoError, Result};
use std::path::Path;

/// Writes `text` to `path` through a temporary file and a rename, so that a reader never
/// sees a half-written file.
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, text).map_err(|e| IoError::file(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| IoError::file(path, e))
}
