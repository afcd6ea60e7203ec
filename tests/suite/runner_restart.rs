//! Exact restart through the `granula` binary, as a user meets it: a run stopped by SIGINT
//! (Ctrl-C) or SIGTERM (a scheduler, `kill`) at whatever step the signal lands, then
//! `granula resume`, ends with the same state and the same output files, byte for byte, as
//! the same scene run without interruption. Both signals write the checkpoint and exit with
//! status 130.

use crate::cli_common;

use crate::cli_common::{granula, wait_for_rows};
use granula_run::Checkpoint;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn tmp(name: &str) -> PathBuf {
    cli_common::tmp("cli-restart", name)
}

/// A bed of 147 touching spheres and 151 more poured on it, with contact springs, rolling
/// resistance and Gear-5 (several hundred candidate pairs: several blocks in the force
/// pass), every output the format has (series, VTK, trajectories, contacts, stress) at
/// intervals that no interruption step is likely to divide. `solver` adds lines to
/// `[solver]`.
fn scene(steps: u64, solver: &str) -> String {
    format!(
        r#"
[simulation]
dt = 5e-6
steps = {steps}

[solver]
kind = "md"
integrator = "gear5"
rolling = true
{solver}

[[materials]]
name = "glass"
rolling_friction = 0.0001

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]

[[spheres]]
name = "probe"
radius = 0.001
position = [0.0075, 0.0075, 0.026]

[[lattices]]
origin = [0.001, 0.001, 0.001]
counts = [7, 7, 3]
spacing = 0.002
radius = 0.001

[[packings]]
count = 150
seed = 4
region = {{ shape = "box", min = [0.0, 0.0, 0.0062], max = [0.015, 0.015, 0.024] }}
size = {{ distribution = "uniform", min = 0.0009, max = 0.0011 }}

[output]
series = {{ every = 97 }}
vtk = {{ every = 4999 }}
trajectories = {{ every = 101, bodies = ["probe"] }}
contacts = {{ every = 7001 }}

[[output.stress]]
name = "bed"
min = [0.0, 0.0, 0.0]
max = [0.015, 0.015, 0.005]
every = 503
"#
    )
}

/// Sends `signal` (`"INT"`, `"TERM"`) once the series has grown by `rows` lines from `from`
/// lines; returns the step at which the run stopped, from its checkpoint.
fn interrupt(child: Child, signal: &str, out: &Path, from: usize, rows: usize) -> u64 {
    wait_for_rows(&out.join("series.csv"), from + rows, Duration::from_secs(120));
    let status = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(130), "SIG{signal}: {stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("checkpoint written: continue with `granula resume"), "{stdout}");
    Checkpoint::load(&out.join("checkpoint.bin")).unwrap().world.clock.step
}

/// Every file under `dir` but the final checkpoint, relative path → bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != "checkpoint.bin") {
                out.push((p.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The final checkpoint's bytes with the output folder's name taken out (the two runs
/// write to two folders): every bit of the state, ledger, outputs and solver state.
fn final_state(out: &Path) -> Vec<u8> {
    let mut c = Checkpoint::load(&out.join("checkpoint.bin")).unwrap();
    c.out_dir = PathBuf::new();
    for col in &mut c.outputs.collections {
        col.path = col.path.strip_prefix(out).unwrap().to_path_buf();
    }
    c.to_bytes()
}

/// Runs `steps` straight into one folder; into another, stops the run with each signal of
/// `signals` in turn (each once the series has grown by `gap` rows) and resumes it;
/// compares the final state and every output file.
/// Returns whether the run's final order of the bodies is not their insertion order.
fn assert_interrupted_run_matches(name: &str, steps: u64, signals: &[&str], gap: usize, solver: &str) -> bool {
    let d = tmp(name);
    let file = d.join("s.toml");
    std::fs::write(&file, scene(steps, solver)).unwrap();

    let straight = d.join("straight");
    let o = granula().arg("run").arg(&file).arg("--out").arg(&straight).arg("--quiet").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let out = d.join("interrupted");
    let child =
        granula().arg("run").arg(&file).arg("--out").arg(&out).arg("--quiet").stdout(Stdio::piped()).spawn().unwrap();
    let mut stops = vec![interrupt(child, signals[0], &out, 0, gap)];
    for signal in &signals[1..] {
        let lines = std::fs::read_to_string(out.join("series.csv")).unwrap().lines().count();
        let child = granula()
            .arg("resume")
            .arg(out.join("checkpoint.bin"))
            .arg("--quiet")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        stops.push(interrupt(child, signal, &out, lines, gap));
    }
    // At least 5000 steps after the last resume: a VTK frame (every 4999 steps) and the
    // contact frame at step 7001 are written by the resumed run.
    assert!(stops.windows(2).all(|w| w[0] < w[1]) && stops.last().unwrap() + 5000 <= steps, "{stops:?}");
    let o = granula().arg("resume").arg(out.join("checkpoint.bin")).arg("--quiet").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    assert!(final_state(&straight) == final_state(&out), "final states differ (stops at {stops:?})");
    let (a, b) = (files(&straight), files(&out));
    let names = |f: &[(PathBuf, Vec<u8>)]| f.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    assert!(a.len() > 10, "{:?}", names(&a));
    for ((p, x), (_, y)) in a.iter().zip(&b) {
        if x != y {
            let (x, y) = (String::from_utf8_lossy(x), String::from_utf8_lossy(y));
            let line = x.lines().zip(y.lines()).position(|(u, v)| u != v);
            panic!("{} differs from line {line:?} (stops at {stops:?})", p.display());
        }
    }
    let order: Vec<u32> =
        Checkpoint::load(&straight.join("checkpoint.bin")).unwrap().world.handles.iter().map(|h| h.0).collect();
    let _ = std::fs::remove_dir_all(d);
    order.windows(2).any(|w| w[0] > w[1])
}

/// Steps of every run (60 ms): the stops land after a few series rows (97 steps each),
/// typically before step 2000, and at least 5000 steps follow the last one, in which the
/// poured spheres land on the bed (contacts open and close, the candidate list is rebuilt).
const STEPS: u64 = 12_000;

#[test]
fn sigint_then_resume_gives_the_uninterrupted_run() {
    assert!(!assert_interrupted_run_matches("int", STEPS, &["INT"], 4, ""));
}

/// SIGTERM behaves as Ctrl-C: checkpoint, status 130, and the resumed run is exact; here
/// after a first stop by SIGINT and a resume. On one solver thread (the SIGINT test above
/// runs on the default threads): the same bits, without handing each short step's loops
/// to a second thread and back.
#[test]
fn sigterm_behaves_as_ctrl_c_and_both_resume_exactly() {
    assert!(!assert_interrupted_run_matches("term", STEPS, &["INT", "TERM"], 8, "threads = 1"));
}

/// Bodies stored in cell order at every rebuild of the candidate list (the poured spheres
/// make it rebuild often): the checkpoint carries the dense order and the reorder counters,
/// so the resumed run reorders at the same steps and ends with the same bits. On one solver
/// thread, as the SIGTERM test.
#[test]
fn bodies_in_cell_order_resume_exactly() {
    assert!(assert_interrupted_run_matches("reorder", STEPS, &["INT"], 6, "reorder_every = 1\nthreads = 1"));
}
