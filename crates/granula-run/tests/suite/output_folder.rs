//! The output folder never loses, duplicates or mixes data: a non-empty folder is refused
//! unless overwritten, a resume after a hard kill rewinds every appended file and the
//! frames to its checkpoint, the folder is stored absolute, and failed writes leave no
//! temporary file.

use crate::common;

use granula_io::output::write_atomic;
use granula_io::{IoError, Scene};
use granula_run::{Checkpoint, ExistingOutput, Run};
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    common::tmp("outdir", name)
}

/// A small NSCD scene (its restart is bit-identical) writing every kind of output, with a
/// periodic checkpoint every 20 steps.
const SCENE: &str = r#"
[simulation]
dt = 1e-4
steps = 100

[solver]
kind = "nscd"
sweep = "forward"
tolerance = 1e-6
max_iterations = 200

[[spheres]]
name = "tracer"
radius = 0.001
position = [0.006, 0.006, 0.011]

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]

[[lattices]]
origin = [0.002, 0.002, 0.001]
counts = [5, 5, 1]
spacing = 0.002
radius = 0.001

[[packings]]
count = 20
seed = 3
region = { shape = "box", min = [0.0, 0.0, 0.0025], max = [0.012, 0.012, 0.009] }
size = { distribution = "uniform", min = 0.0008, max = 0.0010 }

[output]
series = { every = 5 }
vtk = { every = 10 }
contacts = { every = 10 }
trajectories = { bodies = ["tracer"], every = 5 }
stress = [{ name = "bottom", min = [0.0, 0.0, 0.0], max = [0.012, 0.012, 0.003], every = 5 }]
flow = { z = 0.004, every = 5 }
checkpoint = { every = 20 }
"#;

fn scene() -> Scene {
    Scene::parse("folder.toml", SCENE).unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every file under `dir` (relative path, content), sorted, the checkpoint left out.
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().unwrap() != "checkpoint.bin" {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                // The .pvd collections name frames relative to their folder: comparable.
                out.push((rel, read(&p)));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_folder_that_is_not_empty_is_refused_unless_overwritten() {
    let d = tmp("refuse");
    std::fs::create_dir_all(d.join("vtk")).unwrap();
    std::fs::write(d.join("series.csv"), "old\n").unwrap();
    std::fs::write(d.join("vtk/particles_000009990.vtp"), "stale").unwrap();
    std::fs::write(d.join("notes.txt"), "mine").unwrap();
    let e = Run::start(scene(), &d).err().expect("refused");
    assert!(matches!(e, IoError::OutputFolder { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.contains("not empty") && msg.contains("--overwrite"), "{msg}");
    assert_eq!(read(&d.join("series.csv")), "old\n", "nothing touched");

    let mut run = Run::start_with(scene(), &d, ExistingOutput::Overwrite).unwrap();
    run.step().unwrap();
    assert!(!d.join("vtk/particles_000009990.vtp").exists(), "stale frames are gone");
    assert!(read(&d.join("series.csv")).starts_with("time,step,"));
    assert_eq!(read(&d.join("notes.txt")), "mine", "files granula does not write stay");
    let pvd = read(&d.join("particles.pvd"));
    let frames = std::fs::read_dir(d.join("vtk")).unwrap().count();
    assert_eq!(frames, 3 * pvd.matches("<DataSet").count(), "every frame on disk is listed");
    // An empty folder is fine.
    let e = tmp("empty");
    std::fs::create_dir_all(&e).unwrap();
    Run::start(scene(), &e).unwrap();
    let _ = std::fs::remove_dir_all(d);
    let _ = std::fs::remove_dir_all(e);
}

#[test]
fn resume_after_a_hard_kill_rewinds_every_output_to_the_checkpoint() {
    // Straight through: 100 steps.
    let a = tmp("straight");
    let mut run = Run::start(scene(), &a).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    drop(run);
    // Killed at step 57: the last periodic checkpoint is step 40, and the files hold rows
    // and frames up to 55 (dropping the run without a checkpoint is what SIGKILL leaves).
    let b = tmp("killed");
    let mut run = Run::start(scene(), &b).unwrap();
    for _ in 0..57 {
        run.step().unwrap();
    }
    drop(run);
    let ckpt = b.join("checkpoint.bin");
    assert_eq!(Checkpoint::load(&ckpt).unwrap().world.clock.step, 40);
    assert!(read(&b.join("series.csv")).contains(",55,"));
    let mut run = Run::resume(&ckpt, None).unwrap();
    assert_eq!(run.world.step_count(), 40);
    // Rewound before any step: nothing after step 40 (t = 4e-3 s) is left.
    let series = read(&b.join("series.csv"));
    let last = series.lines().last().unwrap();
    assert_eq!(last.split(',').nth(1), Some("40"), "{last}");
    assert!(!b.join("vtk/particles_000000050.vtp").exists() && !b.join("contacts/contacts_000000050.csv").exists());
    assert!(b.join("vtk/particles_000000040.vtp").exists());
    assert_eq!(read(&b.join("particles.pvd")).matches("<DataSet").count(), 5, "frames 0, 10, ..., 40");
    while !run.is_done() {
        run.step().unwrap();
    }
    drop(run);
    // Every file is the uninterrupted run's, byte for byte: no row or frame lost,
    // duplicated or left over.
    let (ta, tb) = (tree(&a), tree(&b));
    assert_eq!(ta.iter().map(|f| &f.0).collect::<Vec<_>>(), tb.iter().map(|f| &f.0).collect::<Vec<_>>());
    for (fa, fb) in ta.iter().zip(&tb) {
        assert!(fa.1 == fb.1, "{} differs after the resume", fa.0);
    }
    let _ = std::fs::remove_dir_all(a);
    let _ = std::fs::remove_dir_all(b);
}

#[test]
fn a_row_cut_short_by_the_kill_is_removed_too() {
    let b = tmp("torn");
    let mut run = Run::start(scene(), &b).unwrap();
    for _ in 0..23 {
        run.step().unwrap();
    }
    drop(run);
    // A half-written last row, as a kill in the middle of a write leaves it.
    let mut s = read(&b.join("series.csv"));
    s.push_str("0.0025,25,1.5e-");
    std::fs::write(b.join("series.csv"), &s).unwrap();
    let run = Run::resume(&b.join("checkpoint.bin"), None).unwrap();
    assert_eq!(run.world.step_count(), 20);
    let series = read(&b.join("series.csv"));
    assert!(series.ends_with('\n') && series.lines().last().unwrap().split(',').nth(1) == Some("20"), "{series}");
    let _ = std::fs::remove_dir_all(b);
}

#[test]
fn the_output_folder_is_stored_absolute() {
    let d = tmp("absolute");
    let run = Run::start(scene(), &d).unwrap();
    assert!(run.out_dir.is_absolute());
    let c = run.checkpoint().unwrap();
    assert!(c.out_dir.is_absolute(), "{}", c.out_dir.display());
    assert_eq!(c.out_dir, std::fs::canonicalize(&d).unwrap());
    assert!(c.outputs.collections.iter().all(|p| p.path.is_absolute()));
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn resuming_into_another_folder_refuses_one_with_results() {
    let d = tmp("first");
    let mut run = Run::start(scene(), &d).unwrap();
    for _ in 0..20 {
        run.step().unwrap();
    }
    drop(run);
    let other = tmp("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("series.csv"), "someone else's\n").unwrap();
    let e = Run::resume(&d.join("checkpoint.bin"), Some(&other)).err().expect("refused");
    assert!(e.to_string().contains("not empty"), "{e}");
    let _ = std::fs::remove_dir_all(d);
    let _ = std::fs::remove_dir_all(other);
}

#[test]
fn a_failed_write_leaves_no_temporary_file() {
    let d = tmp("tmpfile");
    // A non-empty folder where the file should go: the temporary file is written, the
    // rename onto the folder fails.
    std::fs::create_dir_all(d.join("particles.pvd/inside")).unwrap();
    let e = write_atomic(&d.join("particles.pvd"), "<xml/>").unwrap_err();
    assert!(e.to_string().contains("particles.pvd"), "{e}");
    assert!(!d.join("particles.tmp~").exists(), "the temporary file is removed");
    // The same for a checkpoint.
    std::fs::create_dir_all(d.join("checkpoint.bin/inside")).unwrap();
    let run = Run::start(scene(), &d.join("run")).unwrap();
    let e = run.checkpoint().unwrap().save(&d.join("checkpoint.bin")).unwrap_err();
    assert!(e.to_string().contains("checkpoint.bin"), "{e}");
    assert!(!d.join("checkpoint.tmp~").exists());
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_non_finite_energy_stops_the_run_before_it_is_written() {
    // A force of 1e300 N on a 4 mg sphere: its kinetic energy overflows within a few steps
    // while its position and velocity stay finite.
    let text = "[simulation]\ndt = 1e-4\nsteps = 100\ngravity = [0.0, 0.0, 0.0]\n\n[solver]\nkind = \"md\"\n\n\
                [[spheres]]\nname = \"rocket\"\nradius = 0.001\nposition = [0.0, 0.0, 0.0]\nforce = [1e300, 0.0, 0.0]\n\n\
                [output]\nseries = { every = 1 }\n";
    let d = tmp("nonfinite");
    let mut run = Run::start(Scene::parse("inf.toml", text).unwrap(), &d).unwrap();
    let e = (0..100).find_map(|_| run.step().err()).expect("stopped");
    let msg = e.to_string();
    // The world's own guards see the runaway first (the sphere's travel in one step, or its
    // kinetic energy, overflows); the runner's check of every energy before a row is
    // written is the net behind them. Either way the error names the step and the body.
    match &e {
        IoError::NonFinite { .. } => assert!(msg.contains("kinetic energy") && msg.contains("rocket"), "{msg}"),
        IoError::Core(_) | IoError::Solver(_) => assert!(msg.contains("body #0"), "{msg}"),
        _ => panic!("unexpected error: {msg}"),
    }
    assert!(msg.contains("step "), "{msg}");
    let series = read(&d.join("series.csv"));
    assert!(!series.contains("inf") && !series.contains("NaN"), "{series}");
    // Infinite from the start: refused before the folder is created.
    let text = text.replace("force = [1e300, 0.0, 0.0]", "velocity = [1e300, 0.0, 0.0]");
    let d2 = tmp("nonfinite0");
    let e = Run::start(Scene::parse("inf0.toml", &text).unwrap(), &d2).err().expect("refused");
    assert!(e.to_string().contains("step 0"), "{e}");
    assert!(!d2.exists());
    let _ = std::fs::remove_dir_all(d);
}

/// A second run on a folder that a run is still writing is refused, `--overwrite` or not,
/// naming the folder and the process that holds it; the first run's files are untouched.
/// The lock goes with the run.
#[test]
fn a_folder_in_use_by_a_run_is_refused_to_a_second_run() {
    let d = tmp("locked");
    let mut first = Run::start(scene(), &d).unwrap();
    first.step().unwrap();
    let series = read(&d.join("series.csv"));
    for existing in [ExistingOutput::Overwrite, ExistingOutput::Refuse] {
        let e = Run::start_with(scene(), &d, existing).err().expect("the folder is in use");
        let msg = e.to_string();
        assert!(matches!(&e, IoError::OutputFolder { path, .. } if *path == d), "{msg}");
        assert!(msg.contains("in use") && msg.contains(&format!("({})", std::process::id())), "{msg}");
        assert!(msg.contains(granula_run::LOCK_FILE), "{msg}");
    }
    // A resume into the folder is refused the same way.
    let ckpt = first.save_checkpoint().unwrap();
    let e = Run::resume(&ckpt, None).err().expect("the folder is in use");
    assert!(matches!(e, IoError::OutputFolder { .. }) && e.to_string().contains("in use"), "{e}");
    assert_eq!(read(&d.join("series.csv")), series, "the first run's files are untouched");
    first.step().unwrap();
    drop(first);
    assert!(!d.join(granula_run::LOCK_FILE).exists(), "the lock goes with the run");
    let run = Run::start_with(scene(), &d, ExistingOutput::Overwrite).unwrap();
    assert!(d.join(granula_run::LOCK_FILE).exists());
    drop(run);
    assert!(!d.join(granula_run::LOCK_FILE).exists());
}

/// A lock left by a process that no longer runs (a run killed by SIGKILL) is stale: on
/// Linux it is taken over. A lock that names no process keeps the folder locked.
#[cfg(target_os = "linux")]
#[test]
fn a_stale_lock_of_a_dead_process_is_taken_over() {
    let d = tmp("stale");
    std::fs::create_dir_all(&d).unwrap();
    // The id of a process that has ended.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    std::fs::write(d.join(granula_run::LOCK_FILE), format!("{dead}\n")).unwrap();
    // The folder holds only the lock: it counts as empty.
    let run = Run::start(scene(), &d).unwrap();
    assert_eq!(read(&d.join(granula_run::LOCK_FILE)).trim(), std::process::id().to_string());
    drop(run);
    std::fs::write(d.join(granula_run::LOCK_FILE), "garbage").unwrap();
    let e = Run::start_with(scene(), &d, ExistingOutput::Overwrite).err().expect("held");
    assert!(e.to_string().contains("does not name its process"), "{e}");
}

/// `--overwrite` never follows a symbolic link out of the folder: a link with the name of
/// an output (a CSV file, a frame folder) is removed, and the files it points to survive
/// unchanged. A resume refuses an output that is a link instead of writing through it.
#[cfg(unix)]
#[test]
fn overwriting_removes_links_never_their_targets() {
    use std::os::unix::fs::symlink;
    let d = tmp("links");
    let outside = tmp("links-outside");
    std::fs::create_dir_all(outside.join("frames")).unwrap();
    std::fs::write(outside.join("precious.csv"), "keep me\n").unwrap();
    std::fs::write(outside.join("frames/particles_000000010.vtp"), "keep me too").unwrap();
    std::fs::create_dir_all(&d).unwrap();
    symlink(outside.join("precious.csv"), d.join("series.csv")).unwrap();
    symlink(outside.join("frames"), d.join("vtk")).unwrap();
    // A dangling link: writing through it would create a file outside.
    symlink(outside.join("created.csv"), d.join("flow.csv")).unwrap();
    let mut run = Run::start_with(scene(), &d, ExistingOutput::Overwrite).unwrap();
    run.step().unwrap();
    assert_eq!(read(&outside.join("precious.csv")), "keep me\n");
    assert_eq!(read(&outside.join("frames/particles_000000010.vtp")), "keep me too");
    assert_eq!(std::fs::read_dir(outside.join("frames")).unwrap().count(), 1, "no frame written outside");
    assert!(!outside.join("created.csv").exists());
    for name in ["series.csv", "vtk", "flow.csv"] {
        assert!(!d.join(name).symlink_metadata().unwrap().file_type().is_symlink(), "{name} is the run's own");
    }
    let ckpt = run.save_checkpoint().unwrap();
    drop(run);
    // A link put in the folder before a resume is refused, naming it.
    std::fs::remove_file(d.join("series.csv")).unwrap();
    symlink(outside.join("precious.csv"), d.join("series.csv")).unwrap();
    let e = Run::resume(&ckpt, None).err().expect("refused");
    assert!(matches!(e, IoError::OutputFolder { .. }) && e.to_string().contains("series.csv"), "{e}");
    assert!(e.to_string().contains("symbolic link"), "{e}");
    assert_eq!(read(&outside.join("precious.csv")), "keep me\n");
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::remove_dir_all(&outside);
}
