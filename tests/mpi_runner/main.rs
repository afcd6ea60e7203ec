//! `granula run` and `granula resume` under `mpirun` (cargo feature `mpi` only: `cargo test
//! --release --features mpi --test mpi_runner`): the outputs that read contacts are
//! gathered over the ranks, and a distributed run checkpoints on a signal and resumes on any
//! rank count, also on one process without `mpirun`.
//!
//! Run as root, OpenMPI needs `OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1`
//! (set here for the child); `--oversubscribe` lets 4 ranks run on a 2-core machine.
#![cfg(feature = "mpi")]

#[path = "../suite/cli_common/mod.rs"]
mod cli_common;

use crate::cli_common::{granula, tmp, wait_for_rows};
use granula_mpi::DistributedCheckpointFile;
use granula_run::Checkpoint;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// `granula ARGS` under `mpirun -np RANKS`.
fn mpirun(ranks: usize) -> Command {
    let mut c = Command::new("mpirun");
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["--oversubscribe", "-np", &ranks.to_string()])
        .arg(env!("CARGO_BIN_EXE_granula"));
    c
}

fn check(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The settling box of `examples/scenes/settling_box_md.toml` with 150 beads poured from
/// 8 mm for 4000 steps (20 ms): the lower beads land on the floor and on each other, so
/// the outputs have contacts with the walls and between beads across the rank faces.
fn settling_scene(dir: &Path, extra_output: &str) -> PathBuf {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/scenes/settling_box_md.toml"))
            .unwrap()
            .replace("end_time = 0.25", "end_time = 0.02")
            .replace("count = 800", "count = 150")
            .replace("max = [0.02, 0.02, 0.05]", "max = [0.02, 0.02, 0.008]")
            .replace("series = { every = 500 }", "series = { every = 250 }")
            .replace("vtk = { every = 2500 }", "vtk = { every = 1000 }")
            .replace("every = 2500 }]", &format!("every = 1000 }}]\n{extra_output}"));
    let path = dir.join("settling.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The rows of a CSV file as fields.
fn rows(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().skip(1).map(|l| l.split(',').map(str::to_string).collect()).collect()
}

/// The number of line cells (contacts) of a `.vtp` file.
fn vtp_lines(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let k = text.find("NumberOfLines=\"").expect("a NumberOfLines attribute") + "NumberOfLines=\"".len();
    text[k..].split('"').next().unwrap().parse().unwrap()
}

#[test]
fn contact_outputs_are_gathered_on_2_and_4_ranks() {
    let dir = tmp("mpi-runner", "gathered");
    let scene = settling_scene(&dir, "");
    let run = |ranks: usize| -> PathBuf {
        let out = dir.join(format!("np{ranks}"));
        let mut c = if ranks == 1 { granula() } else { mpirun(ranks) };
        let o = c.args(["run", "--quiet", "--out"]).arg(&out).arg(&scene).output().unwrap();
        check(&o, &format!("granula run on {ranks} ranks"));
        out
    };
    let one = run(1);
    let series = rows(&one.join("series.csv"));
    let stress = rows(&one.join("stress_bottom.csv"));
    // The run must have contacts for the comparison to show anything.
    let contacts_at_end: usize = series.last().unwrap()[8].parse().unwrap();
    assert!(contacts_at_end > 30, "only {contacts_at_end} contacts at the end");
    let mut by_ranks = Vec::new();
    for ranks in [2, 4] {
        let out = run(ranks);
        let s = rows(&out.join("series.csv"));
        assert_eq!(s.len(), series.len(), "{ranks} ranks: rows of series.csv");
        for (a, b) in s.iter().zip(&series) {
            // time, step, kinetic (2), potential, contacts, coordination, largest overlap:
            // the bodies' states are bit-identical in this loose phase (each body has at
            // most a few contacts, see docs/distributed.md), the contacts are counted once
            // each and the overlap is a maximum, so these are the same digits.
            for k in [0, 1, 2, 3, 4, 8, 9, 10] {
                assert_eq!(a[k], b[k], "{ranks} ranks, step {}: column {k}", b[1]);
            }
            // Stored elastic energy: the same positive terms summed in key order instead of
            // the solver's candidate order; dissipated energy and external work: each pair
            // and body booked by one rank and the ranks' parts summed (docs/distributed.md):
            // at most n ε relative for n terms (n < 10⁴ terms, ε = 1.1e-16), so 1e-12 of
            // the value.
            for (k, name) in [(5, "stored"), (6, "dissipated"), (7, "external work")] {
                let (x, y): (f64, f64) = (a[k].parse().unwrap(), b[k].parse().unwrap());
                assert!((x - y).abs() <= 1e-12 * y.abs(), "{ranks} ranks, step {}: {name} {x} vs {y}", b[1]);
            }
            let dissipated: f64 = b[6].parse().unwrap();
            assert!(dissipated.is_finite() && dissipated >= 0.0, "dissipated {dissipated}");
        }
        let t = rows(&out.join("stress_bottom.csv"));
        assert_eq!(t.len(), stress.len());
        let mut loaded = 0;
        for (a, b) in t.iter().zip(&stress) {
            let a: Vec<f64> = a.iter().map(|v| v.parse().unwrap()).collect();
            let b: Vec<f64> = b.iter().map(|v| v.parse().unwrap()).collect();
            // σ is a sum over the contacts of terms of both signs, in another order: each
            // component within 1e-12 of the tensor's largest component (n ε with n < 1000
            // terms); the packing fraction and the particle count are sums over the same
            // bodies in the same order: equal.
            let scale = b[1..10].iter().fold(0.0f64, |m, v| m.max(v.abs()));
            loaded += usize::from(scale > 0.0);
            for k in 1..11 {
                assert!((a[k] - b[k]).abs() <= 1e-12 * scale, "{ranks} ranks, t = {}: column {k}", b[0]);
            }
            assert_eq!((a[11], a[12]), (b[11], b[12]));
        }
        assert!(loaded >= 3, "stress in {loaded} rows only: the comparison shows nothing");
        for step in [1000, 2000, 3000, 4000] {
            let name = format!("vtk/contacts_{step:09}.vtp");
            assert_eq!(vtp_lines(&out.join(&name)), vtp_lines(&one.join(&name)), "{ranks} ranks: {name}");
        }
        by_ranks.push(rows(&out.join("series.csv")));
    }
    // Rank count independence: the gathered figures are summed in one order; the ledger's
    // sums over the ranks (columns 6 and 7) are grouped by rank, compared above.
    for (a, b) in by_ranks[0].iter().zip(&by_ranks[1]) {
        for k in (0..a.len()).filter(|k| ![6, 7].contains(k)) {
            assert_eq!(a[k], b[k], "series.csv differs between 2 and 4 ranks, step {}: column {k}", a[1]);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The dynamic bodies of a checkpoint file (one process's or a distributed run's) of
/// `scene`: position and velocity bits by body.
fn final_state(path: &Path, scene: &Path) -> Vec<[u64; 6]> {
    let bytes = std::fs::read(path).unwrap();
    let bits = |p: granula_core::DVec3, v: granula_core::DVec3| {
        [p.x.to_bits(), p.y.to_bits(), p.z.to_bits(), v.x.to_bits(), v.y.to_bits(), v.z.to_bits()]
    };
    match DistributedCheckpointFile::from_bytes(&bytes, path) {
        Ok(f) => f.run.bodies.iter().map(|r| bits(r.position, r.velocity)).collect(),
        Err(_) => {
            let c = Checkpoint::from_bytes(&bytes, path).unwrap();
            let world = granula_run::load_scene(scene).unwrap().build_world().unwrap();
            let b = &world.bodies;
            (0..b.len())
                .filter(|&i| b.motion[i] == granula_core::MotionKind::Dynamic)
                .map(|i| bits(c.world.position[i], c.world.velocity[i]))
                .collect()
        }
    }
}

#[test]
fn a_run_interrupted_on_4_ranks_resumes_on_1_and_2_with_the_uninterrupted_bits() {
    let dir = tmp("mpi-runner", "resume");
    // The stacked pair crossing a face, 600000 steps (4 ranks take about 9 s of a quiet
    // 2-core machine, so the signal lands long before the end; 60000 steps took 0.9 s and
    // ended before it), series every 100 steps.
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/granula-mpi/tests/scenes/sliding_pair.toml"),
    )
    .unwrap();
    let text = text.replace("end_time = 0.012", "end_time = 3.0");
    let text = if text.contains("[output]") { text } else { format!("{text}\n[output]\n") };
    let text = text.replace("[output]\n", "[output]\nseries = { every = 100 }\n");
    let scene = dir.join("pair.toml");
    std::fs::write(&scene, text).unwrap();
    let straight = dir.join("straight");
    let o = granula().args(["run", "--quiet", "--out"]).arg(&straight).arg(&scene).output().unwrap();
    check(&o, "the uninterrupted run");
    let reference = final_state(&straight.join("checkpoint.bin"), &scene);
    assert_eq!(reference.len(), 4);
    // Interrupted on 4 ranks by SIGINT to mpirun (which forwards SIGTERM to the ranks)
    // once the series has 10 rows; resumed on 1 rank (no mpirun) and on 2 ranks from a copy.
    let stopped = dir.join("stopped");
    let child = mpirun(4)
        .args(["run", "--quiet", "--out"])
        .arg(&stopped)
        .arg(&scene)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_rows(&stopped.join("series.csv"), 10, Duration::from_secs(120));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let o = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(stdout.contains("interrupted at step"), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    let copy = dir.join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    let checkpoint = stopped.join("checkpoint.bin");
    assert!(final_state(&checkpoint, &scene) != reference, "the run was not stopped before its end");
    std::fs::copy(&checkpoint, copy.join("checkpoint.bin")).unwrap();
    let o = granula().args(["resume", "--quiet"]).arg(&checkpoint).output().unwrap();
    check(&o, "resume on one process");
    assert_eq!(final_state(&checkpoint, &scene), reference, "resumed on 1 rank");
    let elsewhere = dir.join("elsewhere");
    let o = mpirun(2)
        .args(["resume", "--quiet", "--out"])
        .arg(&elsewhere)
        .arg(copy.join("checkpoint.bin"))
        .output()
        .unwrap();
    check(&o, "resume on 2 ranks");
    assert_eq!(final_state(&elsewhere.join("checkpoint.bin"), &scene), reference, "resumed on 2 ranks");
    // The series of the run resumed in its own folder has each step once.
    let steps: Vec<u64> = rows(&stopped.join("series.csv")).iter().map(|r| r[1].parse().unwrap()).collect();
    assert_eq!(steps, (0..=6000).map(|k| 100 * k).collect::<Vec<u64>>(), "each step once");
    // A one-process checkpoint under mpirun is refused by name.
    let o = mpirun(2).args(["resume", "--quiet"]).arg(straight.join("checkpoint.bin")).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && stderr.contains("not the checkpoint of a distributed run"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
