//! The `granula` binary: `run`, `check`, errors for malformed scenes, Ctrl-C with a
//! checkpoint, and `resume`; output folders (refused when not empty, `--overwrite`, a
//! resume after SIGKILL, from another directory); standard output closed or full; a planar
//! (2D) scene through `check`, `run` and `resume`.

use crate::cli_common;

use crate::cli_common::{granula, wait_for_rows};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn tmp(name: &str) -> PathBuf {
    cli_common::tmp("cli", name)
}

fn scene(steps: u64) -> String {
    format!(
        r#"
[simulation]
dt = 5e-6
steps = {steps}

[solver]
kind = "md"

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]

[[packings]]
count = 150
seed = 4
region = {{ shape = "box", min = [0.0, 0.0, 0.0], max = [0.015, 0.015, 0.02] }}
size = {{ distribution = "uniform", min = 0.0009, max = 0.0011 }}

[output]
series = {{ every = 100 }}
vtk = {{ every = 1000 }}
"#
    )
}

#[test]
fn run_writes_outputs_and_says_where() {
    let d = tmp("run");
    let file = d.join("s.toml");
    std::fs::write(&file, scene(300)).unwrap();
    let out = d.join("out");
    let o = granula().args(["run"]).arg(&file).arg("--out").arg(&out).arg("--quiet").output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    // The folder as stored: absolute and canonical.
    let shown = std::fs::canonicalize(&out).unwrap();
    assert!(stdout.contains(&format!("results in {}", shown.display())), "{stdout}");
    let series = std::fs::read_to_string(out.join("series.csv")).unwrap();
    // Header plus steps 0, 100, 200, 300.
    assert_eq!(series.lines().count(), 5);
    let pvd = std::fs::read_to_string(out.join("particles.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 1);
    assert!(out.join("checkpoint.bin").exists());
    // The run ends with the figure of its energy ledger: the SVG carries the title and the
    // legend of every account, and the PNG is a real image (its 8-byte signature).
    let svg = std::fs::read_to_string(out.join("energy.svg")).unwrap();
    for text in ["Energy ledger", "kinetic", "stored elastic", "dissipated", "external work", "time (s)"] {
        assert!(svg.contains(text), "energy.svg lacks {text:?}");
    }
    let png = std::fs::read(out.join("energy.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1000, "energy.png: {} bytes", png.len());
    assert!(stdout.contains("energy plot"), "{stdout}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_malformed_scene_fails_with_file_key_and_line_and_writes_nothing() {
    let d = tmp("bad");
    let file = d.join("bad.toml");
    std::fs::write(&file, scene(10).replace("min = 0.0009", "min = -0.0009")).unwrap();
    let out = d.join("out");
    let o = granula().args(["run"]).arg(&file).arg("--out").arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.toml:") && err.contains("packings[0].size.min") && err.contains("> 0"), "{err}");
    assert!(!out.exists());
    let o = granula().args(["check"]).arg(&file).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn ctrl_c_writes_a_checkpoint_and_resume_finishes() {
    let d = tmp("ctrlc");
    let file = d.join("s.toml");
    // Long enough (many seconds) that the interrupt lands mid-run.
    std::fs::write(&file, scene(400_000)).unwrap();
    let out = d.join("out");
    let child = granula()
        .args(["run"])
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_rows(&out.join("series.csv"), 3, Duration::from_secs(60));
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(130), "{stdout}");
    assert!(stdout.contains("granula resume"), "{stdout}");
    let ckpt = out.join("checkpoint.bin");
    assert!(ckpt.exists());
    let rows_before = std::fs::read_to_string(out.join("series.csv")).unwrap().lines().count();

    // Resume: it continues from the step it stopped at, appending to the same series; then
    // interrupt it again.
    let child = granula().args(["resume"]).arg(&ckpt).arg("--quiet").stdout(Stdio::piped()).spawn().unwrap();
    wait_for_rows(&out.join("series.csv"), rows_before + 2, Duration::from_secs(60));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let series = std::fs::read_to_string(out.join("series.csv")).unwrap();
    let steps: Vec<u64> = series.lines().skip(1).map(|l| l.split(',').nth(1).unwrap().parse().unwrap()).collect();
    // One header, and steps strictly increasing by the interval across the resume.
    assert_eq!(series.matches("time,step").count(), 1);
    assert!(steps.windows(2).all(|w| w[1] == w[0] + 100), "{steps:?}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_folder_with_results_is_refused_and_overwrite_replaces_them() {
    let d = tmp("again");
    let file = d.join("s.toml");
    std::fs::write(&file, scene(300)).unwrap();
    let out = d.join("out");
    let run = |extra: &[&str]| {
        granula().args(["run"]).arg(&file).arg("--out").arg(&out).arg("--quiet").args(extra).output().unwrap()
    };
    assert!(run(&[]).status.success());
    // A stale frame of some earlier, longer run.
    std::fs::write(out.join("vtk/particles_000009000.vtp"), "stale").unwrap();
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("not empty") && err.contains("--overwrite"), "{err}");
    assert!(out.join("vtk/particles_000009000.vtp").exists(), "a refused run touches nothing");
    let o = run(&["--overwrite"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.join("vtk/particles_000009000.vtp").exists());
    assert_eq!(std::fs::read_to_string(out.join("series.csv")).unwrap().lines().count(), 5);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_closed_standard_output_is_not_a_panic() {
    let d = tmp("pipe");
    let file = d.join("s.toml");
    std::fs::write(&file, scene(300)).unwrap();
    // The reading end is closed before granula writes its first line (as `| head -0`
    // would): the run still finishes and exits 0 without a word on standard error.
    let mut child = granula()
        .args(["run"])
        .arg(&file)
        .arg("--out")
        .arg(d.join("out"))
        .arg("--quiet")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(d.join("out/checkpoint.bin").exists(), "the run finished");
    let mut child = granula().args(["check"]).arg(&file).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_full_standard_output_is_an_error() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    let d = tmp("full");
    let file = d.join("s.toml");
    std::fs::write(&file, scene(300)).unwrap();
    let o = granula().args(["check"]).arg(&file).stdout(std::fs::File::create(full).unwrap()).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("standard output") && !err.contains("panicked"), "{err}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn resume_from_another_directory_writes_to_the_same_folder() {
    let d = tmp("cwd");
    std::fs::create_dir_all(d.join("a")).unwrap();
    std::fs::create_dir_all(d.join("b")).unwrap();
    std::fs::write(d.join("a/s.toml"), scene(400_000)).unwrap();
    // A relative --out, from directory a.
    let child = granula()
        .current_dir(d.join("a"))
        .args(["run", "s.toml", "--out", "out", "--quiet"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let series = d.join("a/out/series.csv");
    wait_for_rows(&series, 3, Duration::from_secs(60));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(130));
    let rows = std::fs::read_to_string(&series).unwrap().lines().count();
    // Resumed from directory b: the results continue in a/out, nothing appears in b.
    let child = granula()
        .current_dir(d.join("b"))
        .args(["resume", "../a/out/checkpoint.bin", "--quiet"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_rows(&series, rows + 2, Duration::from_secs(60));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(130));
    assert_eq!(std::fs::read_dir(d.join("b")).unwrap().count(), 0, "nothing written in b");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn resume_after_sigkill_does_not_duplicate_rows() {
    let d = tmp("sigkill");
    let file = d.join("s.toml");
    // A periodic checkpoint every 1000 steps, rows every 100.
    let text = scene(400_000).replace("vtk = { every = 1000 }", "vtk = { every = 500 }\ncheckpoint = { every = 1000 }");
    std::fs::write(&file, text).unwrap();
    let out = d.join("out");
    let child = granula()
        .args(["run"])
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let series = out.join("series.csv");
    // Past the checkpoint at step 1000, and not on one.
    wait_for_rows(&series, 16, Duration::from_secs(60));
    Command::new("kill").args(["-KILL", &child.id().to_string()]).status().unwrap();
    let _ = child.wait_with_output().unwrap();
    let ckpt = out.join("checkpoint.bin");
    let child = granula().args(["resume"]).arg(&ckpt).arg("--quiet").stdout(Stdio::piped()).spawn().unwrap();
    let rows = std::fs::read_to_string(&series).unwrap().lines().count();
    wait_for_rows(&series, rows + 3, Duration::from_secs(60));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(130));
    let text = std::fs::read_to_string(&series).unwrap();
    let steps: Vec<u64> = text.lines().skip(1).map(|l| l.split(',').nth(1).unwrap().parse().unwrap()).collect();
    assert_eq!(text.matches("time,step").count(), 1);
    assert!(steps.windows(2).all(|w| w[1] == w[0] + 100), "{steps:?}");
    // Each frame on disk is listed once in the collection.
    let pvd = std::fs::read_to_string(out.join("particles.pvd")).unwrap();
    let listed = pvd.matches("<DataSet").count();
    let on_disk = std::fs::read_dir(out.join("vtk"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("particles_"))
        .count();
    assert_eq!(listed, on_disk, "{pvd}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_planar_scene_runs_checks_and_resumes_from_the_command_line() {
    // The shipped 2D shear cell, cut to 400 steps: `check` validates it as any scene,
    // `run` writes the series (a row every 100 steps plus the start) and the polygons'
    // VTK series; a checkpoint taken at step 200 by the library and continued by
    // `granula resume` ends with the same series, byte for byte.
    let d = tmp("planar");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/scenes/shear_cell_2d.toml");
    let text = std::fs::read_to_string(shipped).unwrap();
    assert!(text.contains("end_time = 120.0"), "the scene as documented");
    let text = text.replace("end_time = 120.0", "steps = 400");
    let file = d.join("cell.toml");
    std::fs::write(&file, &text).unwrap();
    let o = granula().arg("check").arg(&file).output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && stdout.contains("valid; 288 bodies"), "{stdout}");
    let out = d.join("out");
    let o = granula().arg("run").arg(&file).arg("--out").arg(&out).arg("--quiet").output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("after 400 steps"), "{stdout}");
    let series = std::fs::read_to_string(out.join("series.csv")).unwrap();
    assert_eq!(series.lines().count(), 1 + 5, "header and steps 0, 100, 200, 300, 400:\n{series}");
    let pvd = std::fs::read_to_string(out.join("shapes.pvd")).unwrap();
    assert!(pvd.matches("<DataSet").count() >= 1, "{pvd}");
    // Stopped at step 200 by the library, continued by the binary.
    let half = d.join("half");
    let scene = granula_run::load_scene(&file).unwrap();
    let mut run = granula_run::Run::start(scene, &half).unwrap();
    for _ in 0..200 {
        run.step().unwrap();
    }
    let ckpt = run.save_checkpoint().unwrap();
    drop(run);
    let o = granula().arg("resume").arg(&ckpt).arg("--quiet").output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && stdout.contains("after 400 steps"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(std::fs::read_to_string(half.join("series.csv")).unwrap(), series);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn the_command_and_the_library_give_the_same_bits_at_steps_stopped_by_the_cap() {
    // Stones poured into a V of two planes under contact dynamics: some of the 1300 steps
    // reach the cap of 1000 sweeps (checked below), where the impulses come from a sweep that is not the
    // step's solution and amplify any difference of a bit. The `granula` command and a
    // program built on the library (`granula_run::Run`) are two binaries; they must
    // write the same series.csv to the byte.
    let d = tmp("capped");
    let file = d.join("s.toml");
    let text = r#"
[simulation]
dt = 1e-4
steps = 1300
gravity = [0.0, 0.0, -9.81]

[solver]
kind = "nscd"

[[materials]]
name = "stone"
density = 2500.0
friction = 0.5

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.7071067811865476, 0.0, 0.7071067811865476]
[[planes]]
point = [0.0, 0.0, 0.0]
normal = [-0.7071067811865476, 0.0, 0.7071067811865476]
[[planes]]
point = [0.0, -0.05, 0.0]
normal = [0.0, 1.0, 0.0]
[[planes]]
point = [0.0, 0.05, 0.0]
normal = [0.0, -1.0, 0.0]

[[packings]]
count = 20
seed = 5
region = { shape = "box", min = [-0.02, -0.04, 0.05], max = [0.02, 0.04, 0.08] }
size = { distribution = "uniform", min = 0.004, max = 0.005 }
polyhedra = { points = 12 }

[[polyhedra]]
shape = { kind = "cube", size = 0.008 }
position = [0.0, -0.02, 0.09]
rotation = [0.3, 0.2, 0.1]

[output]
series = { every = 1 }
"#;
    std::fs::write(&file, text).unwrap();
    let (by_command, by_library) = (d.join("command"), d.join("library"));
    let o = granula().args(["run"]).arg(&file).arg("--out").arg(&by_command).arg("--quiet").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut run = granula_run::Run::start(granula_run::load_scene(&file).unwrap(), &by_library).unwrap();
    let end = run.run_until_done(&std::sync::atomic::AtomicBool::new(false), |_| {}).unwrap();
    assert!(run.warnings.capped_steps > 0, "the scene has steps stopped by the cap: {:?}", run.warnings);
    drop((run, end));
    let series = |o: &Path| std::fs::read(o.join("series.csv")).unwrap();
    assert!(series(&by_command) == series(&by_library), "the two binaries' series.csv differ");
    let _ = std::fs::remove_dir_all(d);
}
