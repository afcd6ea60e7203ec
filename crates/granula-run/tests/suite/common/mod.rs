//! What granula-run's test files share.

use std::path::PathBuf;

/// The path `granula-<prefix>-<name>-<pid>` in the system's temporary folder, with anything
/// an earlier run left there removed (the folder itself is not created: runs create their
/// output folders and refuse non-empty ones).
pub fn tmp(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("granula-{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}
