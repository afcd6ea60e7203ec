//! Checkpoints of planar runs, MD and contact dynamics: a run interrupted at arbitrary steps
//! and resumed from its checkpoint file ends with the same bits and the same output files as
//! the run that was never interrupted.

use granula_run::planar::{is_planar_checkpoint, PlanarRun, PlanarScene, PlanarSolver, PLANAR_CHECKPOINT_FILE};
use granula_run::ExistingOutput;
use std::path::{Path, PathBuf};

/// The 002 shear cell scene shortened to 2 s of simulated time (about 1800 steps), with a
/// VTK frame every 500 steps.
fn scene_text() -> String {
    include_str!("../../../../examples/scenes/shear_cell_2d.toml")
        .replace("duration = 120.0", "duration = 2.0")
        .replace("vtk_every = 2000", "vtk_every = 500")
}

fn folder(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("granula-planar-ckpt-{name}-{}", std::process::id()))
}

/// Runs `run` until it is done or has made `until` steps.
fn advance(run: &mut PlanarRun, until: u64) {
    while !run.is_done() && run.scene.solver.steps() < until {
        run.step().unwrap();
    }
}

/// The final simulation state and the two output files of the run in `dir`.
fn outputs(run: &mut PlanarRun, dir: &Path) -> (Vec<u8>, String, String) {
    // The final checkpoint also flushes the series.
    let ckpt = run.checkpoint().unwrap();
    assert!(is_planar_checkpoint(&ckpt));
    let state = match &run.scene.solver {
        PlanarSolver::Md(sim) => sim.save_state(),
        PlanarSolver::Nscd { solver, .. } => solver.save_state(),
    };
    let series = std::fs::read_to_string(dir.join("series.csv")).unwrap();
    let pvd = std::fs::read_to_string(dir.join("bodies.pvd")).unwrap();
    (state, series, pvd)
}

#[test]
fn an_interrupted_planar_run_resumes_to_the_same_bits_and_files() {
    let text = scene_text();
    let whole_dir = folder("whole");
    let scene = PlanarScene::parse("shear_cell_2d.toml", &text).unwrap();
    let total = scene.steps;
    assert!(total > 1500, "{total} steps");
    let mut whole = PlanarRun::start(scene, &whole_dir, ExistingOutput::Overwrite).unwrap();
    advance(&mut whole, u64::MAX);
    let expected = outputs(&mut whole, &whole_dir);

    // Interrupted at step 737 (between two series rows and two frames), resumed, interrupted
    // again at 1291, resumed from the file each time, and finished.
    let dir = folder("parts");
    let scene = PlanarScene::parse("shear_cell_2d.toml", &text).unwrap();
    let mut run = PlanarRun::start(scene, &dir, ExistingOutput::Overwrite).unwrap();
    advance(&mut run, 737);
    let ckpt = run.checkpoint().unwrap();
    assert_eq!(ckpt, dir.join(PLANAR_CHECKPOINT_FILE));
    // Dropping the run is the interruption.
    drop(run);
    let mut run = PlanarRun::resume(&ckpt, None).unwrap();
    assert_eq!(run.scene.solver.steps(), 737);
    advance(&mut run, 1291);
    let ckpt = run.checkpoint().unwrap();
    // Rows written after a checkpoint are cut on resume: step on past it first.
    advance(&mut run, 1400);
    drop(run);
    let mut run = PlanarRun::resume(&ckpt, None).unwrap();
    assert_eq!(run.scene.solver.steps(), 1291);
    advance(&mut run, u64::MAX);
    let got = outputs(&mut run, &dir);
    assert!(got.0 == expected.0, "the final states differ");
    assert_eq!(got.1, expected.1, "series.csv differs");
    assert_eq!(got.2, expected.2, "bodies.pvd differs");

    // Bad input: a file that is not a planar checkpoint, and a truncated one.
    let not = dir.join("series.csv");
    assert!(!is_planar_checkpoint(&not));
    let e = PlanarRun::resume(&not, None).err().expect("a CSV file is not a checkpoint");
    assert!(e.to_string().contains("not a planar checkpoint"), "{e}");
    let bytes = std::fs::read(&ckpt).unwrap();
    let cut = dir.join("cut.planar");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = PlanarRun::resume(&cut, None).err().expect("a truncated checkpoint is refused");
    assert!(e.to_string().contains("truncated or corrupt"), "{e}");
    let _ = std::fs::remove_dir_all(&whole_dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The contact dynamics scene: a column of squares and 30 polygons falling into a box, 1000
/// steps of 1 ms with warm-started Gauss-Seidel. Interrupted while the polygons fall (step
/// 333) and while they land and pile up (step 777): the warm start of the step after each
/// resume must come from the checkpoint, or the sweeps (and the bits) differ.
#[test]
fn an_interrupted_planar_contact_dynamics_run_resumes_to_the_same_bits_and_files() {
    let text = include_str!("../../../../examples/scenes/polygon_column_nscd_2d.toml");
    let whole_dir = folder("cd-whole");
    let scene = PlanarScene::parse("polygon_column_nscd_2d.toml", text).unwrap();
    assert_eq!(scene.steps, 1000);
    let mut whole = PlanarRun::start(scene, &whole_dir, ExistingOutput::Overwrite).unwrap();
    advance(&mut whole, u64::MAX);
    let expected = outputs(&mut whole, &whole_dir);
    // The pile must have formed, so that the resumed steps have contacts to warm-start.
    assert!(whole.scene.solver.contact_count() > 30, "{} contacts", whole.scene.solver.contact_count());

    let dir = folder("cd-parts");
    let mut done = 0;
    for stop in [333, 777] {
        let mut run = if done == 0 {
            let scene = PlanarScene::parse("polygon_column_nscd_2d.toml", text).unwrap();
            PlanarRun::start(scene, &dir, ExistingOutput::Overwrite).unwrap()
        } else {
            PlanarRun::resume(&dir.join(PLANAR_CHECKPOINT_FILE), None).unwrap()
        };
        assert_eq!(run.scene.solver.steps(), done);
        advance(&mut run, stop);
        run.checkpoint().unwrap();
        // Rows written after the checkpoint are cut on resume.
        advance(&mut run, stop + 50);
        done = stop;
    }
    let mut run = PlanarRun::resume(&dir.join(PLANAR_CHECKPOINT_FILE), None).unwrap();
    assert_eq!(run.scene.solver.steps(), 777);
    advance(&mut run, u64::MAX);
    let got = outputs(&mut run, &dir);
    assert!(got.0 == expected.0, "the final states differ");
    assert_eq!(got.1, expected.1, "series.csv differs");
    assert_eq!(got.2, expected.2, "bodies.pvd differs");

    // An MD state does not fit a contact dynamics scene: refused, naming the field.
    let md = PlanarScene::parse("shear_cell_2d.toml", &scene_text()).unwrap();
    let md_state = md.solver.md().unwrap().save_state();
    let mut cd = PlanarScene::parse("polygon_column_nscd_2d.toml", text).unwrap();
    let PlanarSolver::Nscd { solver, .. } = &mut cd.solver else { panic!("an NSCD scene") };
    let e = solver.restore_state(&md_state).expect_err("an MD state is refused");
    assert!(e.to_string().contains("header"), "{e}");
    let _ = std::fs::remove_dir_all(&whole_dir);
    let _ = std::fs::remove_dir_all(&dir);
}
