//! Command line, progress bar and Ctrl-C handling around `granula_io::run::Run`.

mod cli;
mod progress;

use clap::Parser;
use cli::{Cli, Command};
use granula_io::run::{Run, RunEnd};
use granula_io::{IoError, Scene};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The default scene of `cargo run --release` with no arguments.
const DEFAULT_SCENE: &str = include_str!("../../examples/scenes/settling_box_md.toml");
/// Its name in messages.
const DEFAULT_SCENE_NAME: &str = "examples/scenes/settling_box_md.toml (built in)";

/// Exit status when a run was interrupted and checkpointed.
const INTERRUPTED: i32 = 130;

/// Runs the command line; returns the process exit status.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let result = match cli.command {
        None => {
            let out = PathBuf::from("granula-out/settling_box_md");
            println!("granula: no scene given, running the default scene {DEFAULT_SCENE_NAME}");
            Scene::parse(DEFAULT_SCENE_NAME, DEFAULT_SCENE).and_then(|s| start(s, &out, false))
        }
        Some(Command::Run { scene, out, quiet }) => {
            let out = out.unwrap_or_else(|| default_out(&scene));
            Scene::load(&scene).and_then(|s| start(s, &out, quiet))
        }
        Some(Command::Resume { checkpoint, out, quiet }) => {
            Run::resume(&checkpoint, out.as_deref()).and_then(|run| drive(run, quiet))
        }
        Some(Command::Check { scene }) => Scene::load(&scene).map(|s| {
            println!(
                "{}: valid; {} bodies, {} materials, {} steps of {} s",
                s.file,
                s.bodies.len(),
                s.materials.len(),
                s.steps,
                s.dt()
            );
            for load in &s.loads {
                let name = s.bodies[load.body.0 as usize].name.as_deref().unwrap_or("?");
                println!(
                    "load on {name}: force {} N, torque {} N m, from {} s to {} s, ramp {} s",
                    load.force, load.torque, load.start, load.end, load.ramp
                );
            }
            if let Some(e) = granula_io::scene::sweeps::sweep_estimate(&s) {
                println!("{}", e.message());
            }
            0
        }),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

/// `granula-out/<scene file stem>`.
fn default_out(scene: &Path) -> PathBuf {
    let stem = scene.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    PathBuf::from("granula-out").join(stem)
}

fn start(scene: Scene, out: &Path, quiet: bool) -> Result<i32, IoError> {
    let run = Run::start(scene, out)?;
    drive(run, quiet)
}

fn drive(mut run: Run, quiet: bool) -> Result<i32, IoError> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    // A second handler cannot be installed (resume after run in one process does not
    // happen); failing to install one only loses the clean Ctrl-C exit.
    if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)) {
        eprintln!("warning: Ctrl-C handler not installed ({e}); Ctrl-C will stop without a checkpoint");
    }
    println!("scene   {}", run.scene.file);
    println!("solver  {}", run.solver.describe());
    println!(
        "bodies  {}   steps {} to {} of {} s",
        run.world.bodies.len(),
        run.world.step,
        run.scene.steps,
        run.scene.dt()
    );
    println!("output  {}", run.out_dir.display());
    let bar = progress::Bar::new(run.scene.steps, run.world.step, quiet);
    let started = std::time::Instant::now();
    let end = run.run_until_done(&stop, |p| bar.update(p))?;
    bar.finish();
    let wall = started.elapsed().as_secs_f64();
    for line in run.warnings.lines() {
        println!("{line}");
    }
    match end {
        RunEnd::Finished(ckpt) => {
            println!("done: t = {:.6} s after {} steps in {:.1} s of wall time", run.world.time, run.world.step, wall);
            println!("results in {}/ (series.csv, *.pvd for ParaView, ...)", run.out_dir.display());
            println!("final checkpoint {}", ckpt.display());
            Ok(0)
        }
        RunEnd::Interrupted(ckpt) => {
            println!("interrupted at step {} (t = {:.6} s)", run.world.step, run.world.time);
            println!("checkpoint written: continue with `granula resume {}`", ckpt.display());
            Ok(INTERRUPTED)
        }
    }
}
