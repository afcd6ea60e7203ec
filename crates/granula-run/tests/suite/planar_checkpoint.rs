//! Checkpoints of planar polygon runs through the one driver, MD and contact dynamics: a
//! run interrupted at arbitrary steps, written to disk and resumed from the file ends with
//! the same bits and the same output files as the run never interrupted; the periodic
//! checkpoint key writes checkpoints a resume continues from.

use crate::common;

use granula_run::{Checkpoint, Run, CHECKPOINT_FILE};
use std::path::{Path, PathBuf};

/// The 002 shear cell shortened to 1500 steps, a VTK frame every 500.
fn shear_cell() -> String {
    include_str!("../../../../examples/scenes/shear_cell_2d.toml")
        .replace("end_time = 120.0", "steps = 1500")
        .replace("vtk = { every = 2000 }", "vtk = { every = 500 }")
}

/// Every file under `dir` but checkpoints, relative path → bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.to_string_lossy().ends_with(".bin") && !p.ends_with(granula_run::LOCK_FILE) {
                out.push((p.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The final state of a run as bytes: positions, orientations, velocities, the ledger,
/// the solver's own state.
fn state(c: &Checkpoint) -> Vec<u8> {
    let mut v = bincode::serialize(&(&c.world.position, &c.world.orientation, &c.world.velocity)).unwrap();
    v.extend(bincode::serialize(&(&c.world.angular_velocity, &c.world.ledger, c.world.clock.time())).unwrap());
    v.extend(&c.solver_state);
    v
}

/// Runs `text` straight through and again with a stop (checkpoint to disk, everything
/// dropped, resumed from the file) after each step of `stops`; the final states and every
/// output file must be equal.
fn assert_exact_restart(name: &str, text: &str, stops: &[u64]) {
    let scene = granula_run::parse_scene(&format!("{name}.toml"), text).unwrap();
    let dir_a = common::tmp("planar-ckpt", &format!("{name}-a"));
    let mut a = Run::start(scene.clone(), &dir_a).unwrap();
    while !a.is_done() {
        a.step().unwrap();
    }
    assert!(a.last_report.contacts > 0, "{name}: contacts at the end");
    let ca = a.checkpoint().unwrap();
    drop(a);
    let dir_b = common::tmp("planar-ckpt", &format!("{name}-b"));
    let mut b = Run::start(scene, &dir_b).unwrap();
    for &stop in stops {
        while b.world.step_count() < stop {
            b.step().unwrap();
        }
        let path = b.save_checkpoint().unwrap();
        // Rows written after the checkpoint are cut on resume: step on past it first.
        for _ in 0..37 {
            b.step().unwrap();
        }
        drop(b);
        b = Run::resume(&path, None).unwrap();
        assert_eq!(b.world.step_count(), stop);
    }
    while !b.is_done() {
        b.step().unwrap();
    }
    let cb = b.checkpoint().unwrap();
    drop(b);
    assert!(state(&ca) == state(&cb), "{name}: the final states differ");
    let (fa, fb) = (files(&dir_a), files(&dir_b));
    assert_eq!(fa.iter().map(|f| &f.0).collect::<Vec<_>>(), fb.iter().map(|f| &f.0).collect::<Vec<_>>());
    for ((p, x), (_, y)) in fa.iter().zip(&fb) {
        assert!(x == y, "{name}: {} differs", p.display());
    }
    let _ = std::fs::remove_dir_all(&dir_a);
    let _ = std::fs::remove_dir_all(&dir_b);
}

#[test]
fn an_interrupted_planar_md_run_resumes_to_the_same_bits_and_files() {
    assert_exact_restart("shear_cell_2d", &shear_cell(), &[737, 1291]);
}

/// The contact dynamics scene: the column of squares and 30 polygons falling into a box,
/// interrupted while the polygons fall (step 333) and while they land (step 777): the warm
/// start of the step after each resume comes from the checkpoint, or the bits differ.
#[test]
fn an_interrupted_planar_contact_dynamics_run_resumes_to_the_same_bits_and_files() {
    let text = include_str!("../../../../examples/scenes/polygon_column_nscd_2d.toml");
    assert_exact_restart("polygon_column_nscd_2d", text, &[333, 777]);
}

/// `[output] checkpoint = { every = 200 }` writes the checkpoint at steps 200 and 400 of a
/// 450-step planar run; a resume from it continues at step 400 and ends as the run did.
#[test]
fn the_periodic_checkpoint_key_works_in_a_planar_run() {
    let text = shear_cell()
        .replace("steps = 1500", "steps = 450")
        .replace("vtk = { every = 500 }", "vtk = { every = 500 }\ncheckpoint = { every = 200 }");
    let scene = granula_run::parse_scene("cell.toml", &text).unwrap();
    let dir = common::tmp("planar-ckpt", "periodic");
    let mut run = Run::start(scene, &dir).unwrap();
    while run.world.step_count() < 420 {
        run.step().unwrap();
    }
    let path = dir.join(CHECKPOINT_FILE);
    let c = Checkpoint::load(&path).unwrap();
    assert_eq!(c.world.clock.step, 400, "the last periodic checkpoint");
    while !run.is_done() {
        run.step().unwrap();
    }
    let end = run.checkpoint().unwrap();
    drop(run);
    let again = common::tmp("planar-ckpt", "periodic-again");
    std::fs::create_dir_all(&again).unwrap();
    std::fs::write(again.join("c.bin"), c.to_bytes()).unwrap();
    let mut resumed = Run::resume(&again.join("c.bin"), Some(&again.join("out"))).unwrap();
    assert_eq!(resumed.world.step_count(), 400);
    while !resumed.is_done() {
        resumed.step().unwrap();
    }
    assert!(state(&resumed.checkpoint().unwrap()) == state(&end));
    drop(resumed);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&again);
}
