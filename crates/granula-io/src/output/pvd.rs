//! `.pvd` collections: ParaView's list of frames over time.

use super::write_atomic;
use crate::error::Result;
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::PathBuf;

/// The frames of one series (e.g. particles), rewritten whole after every frame so that
/// the file on disk always lists every frame written so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PvdCollection {
    /// The `.pvd` file.
    pub path: PathBuf,
    /// (time, file name relative to the `.pvd`) of each frame.
    pub frames: Vec<(f64, String)>,
}

impl PvdCollection {
    /// An empty collection written to `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        PvdCollection { path: path.into(), frames: Vec::new() }
    }

    /// Adds a frame (its path relative to the `.pvd`'s folder) and rewrites the `.pvd`.
    pub fn push(&mut self, time: f64, relative: &str) -> Result<()> {
        self.frames.push((time, relative.to_string()));
        write_atomic(&self.path, &self.to_xml())
    }

    /// The XML text.
    pub fn to_xml(&self) -> String {
        let mut s =
            String::from("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n");
        for (t, f) in &self.frames {
            let _ = writeln!(s, "    <DataSet timestep=\"{t:?}\" group=\"\" part=\"0\" file=\"{f}\"/>");
        }
        s.push_str("  </Collection>\n</VTKFile>\n");
        s
    }
}
