//! `granula run`, `granula resume` and `granula check` of a planar scene (`dimension = 2`,
//! the 2D mode of seed 002, MD or contact dynamics): progress as a line every tenth of the
//! run; contact dynamics steps that stopped at the sweep cap are announced once and
//! summarised at the end, as in 3D runs. Runs of both solvers write a checkpoint at the end
//! and when interrupted (SIGINT, SIGTERM, SIGHUP), which `granula resume` continues.

use super::console::{say, Console};
use granula_io::IoError;
use granula_run::planar::{PlanarRun, PlanarScene, PlanarSolver};
use granula_run::ExistingOutput;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Runs the planar scene at `path` into `out`.
pub fn run(
    path: &Path,
    out: &Path,
    quiet: bool,
    existing: ExistingOutput,
    console: &mut Console,
) -> Result<i32, IoError> {
    let scene = PlanarScene::load(path)?;
    let run = PlanarRun::start(scene, out, existing)?;
    drive(run, quiet, console)
}

/// Continues the planar run saved in `checkpoint` (into `out`, default its folder).
pub fn resume(checkpoint: &Path, out: Option<&Path>, quiet: bool, console: &mut Console) -> Result<i32, IoError> {
    let run = PlanarRun::resume(checkpoint, out)?;
    drive(run, quiet, console)
}

/// Steps `run` to its end or to a signal, then checkpoints it and reports.
fn drive(mut run: PlanarRun, quiet: bool, console: &mut Console) -> Result<i32, IoError> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let md = matches!(run.scene.solver, PlanarSolver::Md(_));
    if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)) {
        say!(console, "warning: signal handler not installed ({e}); Ctrl-C will stop without a checkpoint");
    }
    let total = run.scene.steps;
    let kind = if md { "MD" } else { "contact dynamics" };
    say!(
        console,
        "granula: planar scene {} ({kind}), {} bodies, steps {} to {}, output in {}",
        run.scene.file,
        run.scene.solver.bodies().len(),
        run.scene.solver.steps(),
        total,
        run.dir().display()
    );
    let tenth = (total / 10).max(1);
    while !run.is_done() {
        if stop.load(Ordering::SeqCst) {
            let n = run.scene.solver.steps();
            say!(console, "interrupted at step {n} (t = {:.6} s)", run.scene.solver.time());
            let ckpt = run.checkpoint()?;
            say!(console, "checkpoint written: continue with `granula resume {}`", ckpt.display());
            return Ok(super::INTERRUPTED);
        }
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
    let ckpt = run.checkpoint()?;
    say!(console, "final checkpoint {}", ckpt.display());
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
