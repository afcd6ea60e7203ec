//! A file written under the system's temporary folder for a test, removed when dropped:
//! the mesh-file tests (`files.rs`, `hostile_meshes.rs`) read real files through the
//! library's readers.

use std::path::PathBuf;

/// A file under `<temp>/granula-polyhedra-<process id>/`, removed when dropped.
pub struct TempFile(pub PathBuf);

impl TempFile {
    /// Writes `contents` to a file called `name` in this process's folder.
    pub fn new(name: &str, contents: &[u8]) -> Self {
        let dir = std::env::temp_dir().join(format!("granula-polyhedra-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, contents).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
