//! What the tests of the `granula` binary share: the binary, a fresh folder per test, and
//! waiting for a running binary's series to grow.

#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The `granula` binary built for this test run.
pub fn granula() -> Command {
    Command::new(env!("CARGO_BIN_EXE_granula"))
}

/// An empty folder `granula-<prefix>-<name>-<pid>` in the system's temporary folder.
pub fn tmp(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("granula-{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Waits until `series` has more than `rows` lines, or panics after `limit`.
pub fn wait_for_rows(series: &Path, rows: usize, limit: Duration) {
    let t = Instant::now();
    while t.elapsed() < limit {
        if std::fs::read_to_string(series).map(|s| s.lines().count() > rows).unwrap_or(false) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the run did not write {rows} rows in {limit:?}");
}
