//! `granula run` and `granula check` of a planar scene (`dimension = 2`, the 2D mode of
//! seed 002, MD or contact dynamics): no checkpoints; progress as a line every tenth of the
//! run; contact dynamics steps that stopped at the sweep cap are announced once and
//! summarised at the end, as in 3D runs.

use super::console::{say, Console};
use granula_io::IoError;
use granula_run::planar::{PlanarRun, PlanarScene, PlanarSolver};
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
    let kind = match run.scene.solver {
        PlanarSolver::Md(_) => "MD",
        PlanarSolver::Nscd { .. } => "contact dynamics",
    };
    say!(
        console,
        "granula: planar scene {} ({kind}), {} bodies, {} steps, output in {}",
        path.display(),
        run.scene.solver.bodies().len(),
        total,
        run.dir().display()
    );
    let tenth = (total / 10).max(1);
    while !run.is_done() {
        if run.step()? {
            if let Some(line) = run.warnings.first_line() {
                say!(console, "{line}");
            }
        }
        let n = run.scene.solver.steps();
        if !quiet && n.is_multiple_of(tenth) {
            say!(
                console,
                "step {n}/{total}, t = {:.6e} s, E_k = {:.6e} J, {} contacts",
                run.scene.solver.time(),
                run.scene.solver.bodies().kinetic_energy(),
                run.scene.solver.contact_count()
            );
        }
    }
    for line in run.warnings.lines() {
        say!(console, "{line}");
    }
    say!(console, "done: {} steps, t = {} s", run.scene.solver.steps(), run.scene.solver.time());
    Ok(0)
}

/// Checks the planar scene at `path` and summarises it.
pub fn check(path: &Path, console: &mut Console) -> Result<i32, IoError> {
    let s = PlanarScene::load(path)?;
    let dt = s.solver.dt();
    let timing = match (s.contact_time, &s.solver) {
        (Some(tc), _) => format!("t_c = {tc:.4e} s, Δt/t_c = {:.3e}", dt / tc),
        (None, PlanarSolver::Nscd { solver, .. }) => {
            let c = solver.config();
            format!(
                "contact dynamics, θ = {}, tolerance {:.1e}, at most {} sweeps per step",
                c.theta, c.tolerance, c.max_sweeps
            )
        }
        (None, PlanarSolver::Md(_)) => String::new(),
    };
    say!(
        console,
        "{}: valid planar scene; {} bodies, {} steps of {} s ({timing})",
        s.file,
        s.solver.bodies().len(),
        s.steps,
        dt
    );
    Ok(0)
}
