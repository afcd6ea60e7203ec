//! `granula run` and `granula check` of a planar scene (`dimension = 2`, the 2D mode of
//! seed 002): no checkpoints; progress as a line every tenth of the run.

use super::console::{say, Console};
use granula_io::IoError;
use granula_run::planar::{PlanarRun, PlanarScene};
use granula_run::ExistingOutput;
use std::path::Path;

/// Runs the planar scene at `path` into `out`.
pub fn run(
    path: &Path,
    out: &Path,
    quiet: bool,
    existing: ExistingOutput,
    console: &mut Console,
) -> Result<i32, IoError> {
    let scene = PlanarScene::load(path)?;
    let total = scene.steps;
    let mut run = PlanarRun::start(scene, out, existing)?;
    say!(
        console,
        "granula: planar scene {}, {} bodies, {} steps, output in {}",
        path.display(),
        run.scene.sim.bodies.len(),
        total,
        run.dir().display()
    );
    let tenth = (total / 10).max(1);
    while !run.is_done() {
        run.step()?;
        let n = run.scene.sim.steps();
        if !quiet && n.is_multiple_of(tenth) {
            say!(
                console,
                "step {n}/{total}, t = {:.6e} s, E_k = {:.6e} J, {} contacts",
                run.scene.sim.time(),
                run.scene.sim.bodies.kinetic_energy(),
                run.scene.sim.contacts().len()
            );
        }
    }
    say!(console, "done: {} steps, t = {} s", run.scene.sim.steps(), run.scene.sim.time());
    Ok(0)
}

/// Checks the planar scene at `path` and summarises it.
pub fn check(path: &Path, console: &mut Console) -> Result<i32, IoError> {
    let s = PlanarScene::load(path)?;
    say!(
        console,
        "{}: valid planar scene; {} bodies, {} steps of {} s (t_c = {:.4e} s, Δt/t_c = {:.3e})",
        s.file,
        s.sim.bodies.len(),
        s.steps,
        s.sim.dt(),
        s.contact_time,
        s.sim.dt() / s.contact_time
    );
    Ok(0)
}
