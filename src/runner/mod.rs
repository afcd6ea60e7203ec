//! Command line, progress bar and signal handling (Ctrl-C, SIGTERM) around
//! `granula_run::Run`.

mod cli;
mod console;
#[cfg(feature = "mpi")]
mod distributed;
mod energy_plot;
mod progress;

use clap::Parser;
use cli::{Cli, Command};
use console::{say, Console};
use granula_io::{IoError, Scene};
use granula_run::{ExistingOutput, Run, RunEnd};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The default scene of `cargo run --release` with no arguments.
const DEFAULT_SCENE: &str = include_str!("../../examples/scenes/settling_box_md.toml");
/// Its name in messages.
const DEFAULT_SCENE_NAME: &str = "examples/scenes/settling_box_md.toml (built in)";

/// Exit status when a run was interrupted (SIGINT, SIGTERM or SIGHUP) and checkpointed:
/// 128 + 2, the shell's status for Ctrl-C, whichever of the three signals stopped it (the
/// handler is told that a stop was asked, not by which signal).
const INTERRUPTED: i32 = 130;

/// Runs the command line; returns the process exit status: 0 when the work is done (also
/// when standard output was closed early, e.g. by `| head`), 1 on an error (a message on
/// standard error), 130 when a run was interrupted and checkpointed.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let mut console = Console::new();
    match command(cli, &mut console) {
        Ok(code) => code,
        Err(e) => {
            // Nothing is left to report to if standard error is closed too.
            let _ = writeln!(std::io::stderr(), "error: {e}");
            1
        }
    }
}

fn command(cli: Cli, console: &mut Console) -> Result<i32, IoError> {
    match cli.command {
        None => {
            // The demo of `cargo run --release` replaces its own earlier results.
            let out = PathBuf::from("granula-out/settling_box_md");
            say!(console, "granula: no scene given, running the default scene {DEFAULT_SCENE_NAME}");
            let scene = granula_run::parse_scene(DEFAULT_SCENE_NAME, DEFAULT_SCENE)?;
            start(scene, &out, false, ExistingOutput::Overwrite, console)
        }
        Some(Command::Run { scene, out, quiet, overwrite }) => {
            let out = out.unwrap_or_else(|| default_out(&scene));
            let existing = if overwrite { ExistingOutput::Overwrite } else { ExistingOutput::Refuse };
            #[cfg(feature = "mpi")]
            if let Some(code) = distributed::run_if_launched(&scene, &out, quiet, existing, console)? {
                return Ok(code);
            }
            start(granula_run::load_scene(&scene)?, &out, quiet, existing, console)
        }
        Some(Command::Resume { checkpoint, out, quiet }) => {
            #[cfg(feature = "mpi")]
            if let Some(code) = distributed::resume_if_distributed(&checkpoint, out.as_deref(), quiet, console)? {
                return Ok(code);
            }
            let run = Run::resume(&checkpoint, out.as_deref())?;
            drive(run, quiet, console)
        }
        Some(Command::Check { scene }) => {
            let s = granula_run::load_scene(&scene)?;
            say!(
                console,
                "{}: valid; {} bodies, {} materials, {} steps of {} s",
                s.file,
                s.bodies.len(),
                s.materials.len(),
                s.steps,
                s.dt()
            );
            // Polyhedra (custom shapes with a surface that are not walls): how many, and
            // their faces; mesh walls: their triangles.
            let surfaces = |walls: bool| -> Vec<usize> {
                s.bodies
                    .iter()
                    .filter_map(|p| match &p.body.shape {
                        granula_core::Shape::Custom(c) if c.is_wall() == walls => {
                            c.surface().map(|m| m.triangles.len())
                        }
                        _ => None,
                    })
                    .collect()
            };
            let faces = surfaces(false);
            let walls = surfaces(true);
            if !walls.is_empty() {
                say!(console, "mesh walls: {} ({} triangles)", walls.len(), walls.iter().sum::<usize>());
            }
            if let (Some(lo), Some(hi)) = (faces.iter().min(), faces.iter().max()) {
                say!(
                    console,
                    "{} polyhedra: {} to {} triangular faces, {:.1} on average",
                    faces.len(),
                    lo,
                    hi,
                    faces.iter().sum::<usize>() as f64 / faces.len() as f64
                );
            }
            for load in &s.loads {
                let name = s.bodies[load.body.0 as usize].name.as_deref().unwrap_or("?");
                say!(
                    console,
                    "load on {name}: force {} N, torque {} N m, from {} s to {} s, ramp {} s",
                    load.force,
                    load.torque,
                    load.start,
                    load.end,
                    load.ramp
                );
            }
            for f in &s.feeds {
                let rate = match f.rate {
                    granula_feed::FeedRate::Count(n) => format!("{n} spheres/s"),
                    granula_feed::FeedRate::Mass(m) => format!("{m} kg/s"),
                };
                say!(
                    console,
                    "feed {}: {rate} into {:e} m³, a batch every {} steps",
                    f.name,
                    f.region.volume(false),
                    f.every
                );
            }
            for o in &s.outlets {
                say!(console, "outlet {}: removes every {} steps", o.name, o.every);
            }
            for note in s.notes() {
                say!(console, "{note}");
            }
            if let Some(e) = granula_io::scene::sweep_estimate(&s) {
                say!(console, "{}", e.message());
            }
            if let Some(e) = granula_run::time_step::time_step_estimate(&s)? {
                say!(console, "{}", e.message());
            }
            Ok(0)
        }
    }
}

/// `granula-out/<scene file stem>`.
fn default_out(scene: &Path) -> PathBuf {
    let stem = scene.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    PathBuf::from("granula-out").join(stem)
}

fn start(
    scene: Scene,
    out: &Path,
    quiet: bool,
    existing: ExistingOutput,
    console: &mut Console,
) -> Result<i32, IoError> {
    let run = Run::start_with(scene, out, existing)?;
    drive(run, quiet, console)
}

fn drive(mut run: Run, quiet: bool, console: &mut Console) -> Result<i32, IoError> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    // One handler for SIGINT (Ctrl-C), SIGTERM (schedulers, `kill`) and SIGHUP (terminal
    // closed): each stops the run after the current step, with a checkpoint. A second
    // handler cannot be installed (resume after run in one process does not happen);
    // failing to install one only loses the clean exit.
    if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)) {
        let _ = writeln!(
            std::io::stderr(),
            "warning: signal handler not installed ({e}); Ctrl-C and SIGTERM will stop without a checkpoint"
        );
    }
    say!(console, "scene   {}", run.scene.file);
    say!(console, "solver  {}", run.solver.describe());
    say!(
        console,
        "bodies  {}   steps {} to {} of {} s",
        run.world.bodies.len(),
        run.world.step_count(),
        run.scene.steps,
        run.scene.dt()
    );
    say!(console, "output  {}", run.out_dir.display());
    for note in run.scene.notes() {
        say!(console, "{note}");
    }
    // A time step that does not resolve the contacts is worth a line before the run starts.
    if let Some(e) = granula_run::time_step::time_step_estimate(&run.scene)?.filter(|e| e.too_large()) {
        say!(console, "{}", e.message());
    }
    let bar = progress::Bar::new(run.scene.steps, run.world.step_count(), quiet);
    let started = std::time::Instant::now();
    let end = run.run_until_done(&stop, |p| bar.update(p))?;
    bar.finish();
    let wall = started.elapsed().as_secs_f64();
    for line in run.warnings.lines() {
        say!(console, "{line}");
    }
    for (name, c) in run.feed_counts() {
        say!(
            console,
            "feed {name}: {} spheres ({:e} kg) inserted in {} batches",
            c.inserted,
            c.inserted_mass,
            c.batches
        );
        if c.not_placed > 0 {
            say!(
                console,
                "warning: feed {name} could not place {} spheres ({:e} kg): its region was full (feeds.csv)",
                c.not_placed,
                c.not_placed_mass
            );
        }
    }
    for (name, c) in run.outlet_counts() {
        say!(console, "outlet {name}: {} bodies ({:e} kg) removed", c.removed, c.removed_mass);
    }
    match end {
        RunEnd::Finished(ckpt) => {
            say!(
                console,
                "done: t = {:.6} s after {} steps in {:.1} s of wall time",
                run.world.time(),
                run.world.step_count(),
                wall
            );
            say!(console, "results in {}/ (series.csv, *.pvd for ParaView, ...)", run.out_dir.display());
            match energy_plot::write(&run.out_dir, &format!("Energy ledger: {}", run.scene.file)) {
                Ok(Some([svg, png])) => say!(console, "energy plot {} and {}", svg.display(), png.display()),
                Ok(None) => {}
                // The run's results are complete without the figure: say why it is missing.
                Err(e) => say!(console, "warning: energy plot not written: {e}"),
            }
            say!(console, "final checkpoint {}", ckpt.display());
            Ok(0)
        }
        RunEnd::Interrupted(ckpt) => {
            say!(console, "interrupted at step {} (t = {:.6} s)", run.world.step_count(), run.world.time());
            say!(console, "checkpoint written: continue with `granula resume {}`", ckpt.display());
            Ok(INTERRUPTED)
        }
    }
}
