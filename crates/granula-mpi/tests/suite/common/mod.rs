//! What the multi-rank tests share: launching `mpirun` on the `granula-mpi-check` binary
//! and reading what it prints and writes. MPI starts once per process, so each case
//! launches its own job. Run as root, OpenMPI needs `OMPI_ALLOW_RUN_AS_ROOT=1
//! OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1` (set here for the child); `--oversubscribe` lets 4 ranks
//! run on a 2-core machine.
// Each test file uses its own subset.
#![allow(dead_code)]

use granula_mpi::BodyRecord;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A scene of `tests/scenes`.
pub fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes").join(name)
}

/// The MPI launcher and its options: `GRANULA_MPIRUN` if set (e.g. `mpirun.mpich` to test
/// against MPICH with a build made with `MPI_PKG_CONFIG=mpich`), else `mpirun`; OpenMPI's
/// gets `--oversubscribe` (MPICH's Hydra oversubscribes without being asked and refuses
/// the option).
pub fn launcher() -> (String, Vec<&'static str>) {
    let program = std::env::var("GRANULA_MPIRUN").unwrap_or_else(|_| "mpirun".into());
    let version = Command::new(&program).arg("--version").output().expect("an MPI launcher on the PATH");
    let open_mpi = String::from_utf8_lossy(&version.stdout).contains("Open MPI");
    (program, if open_mpi { vec!["--oversubscribe"] } else { Vec::new() })
}

/// Held while a test's `mpirun` job runs.
static LAUNCH: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `granula-mpi-check SCENE OUT EXTRA...` on `ranks` ranks; returns its standard output
/// and the bytes rank 0 wrote to OUT.
pub fn mpirun(ranks: usize, scene: &Path, extra: &[&str]) -> (String, Vec<u8>) {
    // One launch at a time: OpenMPI's ranks busy-wait, and two jobs of 2 and 4 ranks on a
    // 2-core machine would mostly wait for each other.
    let _one_at_a_time = LAUNCH.lock().unwrap_or_else(|e| e.into_inner());
    // The arguments in the name (paths among them reduced to their letters and digits), so
    // that two jobs of one test binary never share a file.
    let tag: String = extra.concat().chars().filter(char::is_ascii_alphanumeric).collect();
    let out = std::env::temp_dir().join(format!(
        "granula-mpi-{}-{}-{}-{tag}.bin",
        std::process::id(),
        ranks,
        scene.file_stem().unwrap().to_string_lossy(),
    ));
    let (program, options) = launcher();
    let output = Command::new(program)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(options)
        .args(["-np", &ranks.to_string()])
        .arg(env!("CARGO_BIN_EXE_granula-mpi-check"))
        .arg(scene)
        .arg(&out)
        .args(extra)
        .output()
        .expect("mpirun (OpenMPI) on the PATH");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "mpirun -np {ranks} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bytes = std::fs::read(&out).expect("rank 0's output");
    let _ = std::fs::remove_file(&out);
    (stdout, bytes)
}

/// [`mpirun`] when rank 0 writes the gathered final state.
pub fn mpirun_state(ranks: usize, scene: &Path, extra: &[&str]) -> (String, Vec<BodyRecord>) {
    let (stdout, bytes) = mpirun(ranks, scene, extra);
    (stdout, bincode::deserialize(&bytes).unwrap())
}

/// The value after `key` in the check binary's output.
pub fn figure(stdout: &str, key: &str) -> f64 {
    let mut words = stdout.split_whitespace();
    while let Some(w) = words.next() {
        if w == key {
            return words.next().and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
        }
    }
    panic!("{key} not in {stdout}");
}
