//! `granula run SCENE` under `mpirun` (cargo feature `mpi`): when the launcher started more
//! than one rank, the MD scene runs distributed (`granula-mpi`); rank 0 gathers the bodies
//! and writes the outputs the scene asks for, in the same folder layout as one process.

use super::console::{say, Console};
use granula_io::{IoError, Scene};
use granula_mpi::{Communicator, DistributedConfig, DistributedError, DistributedRun, Mpi};
use granula_run::ExistingOutput;
use std::path::Path;

/// The number of ranks the MPI launcher reports in the environment (OpenMPI, or the
/// PMI/PMIx variables of other launchers); `None` outside a launcher.
fn launched_ranks() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"]
        .iter()
        .find_map(|v| std::env::var(v).ok().and_then(|s| s.parse().ok()))
}

fn io(e: DistributedError) -> IoError {
    match e {
        DistributedError::Io(e) => e,
        e => IoError::Solver(e.to_string()),
    }
}

/// Runs `scene` distributed if the process was launched by `mpirun` with more than one
/// rank: `Some(status)`; `None` otherwise (the caller runs it on one process).
pub fn run_if_launched(
    scene: &Path,
    out: &Path,
    quiet: bool,
    existing: ExistingOutput,
    console: &mut Console,
) -> Result<Option<i32>, IoError> {
    if launched_ranks().is_none_or(|n| n < 2) {
        return Ok(None);
    }
    let comm = Mpi::init().ok_or_else(|| IoError::Solver("MPI could not be initialised".into()))?;
    let scene = granula_run::load_scene(scene)?;
    run(comm, scene, out, quiet, existing, console).map(Some)
}

/// Whether the scene writes something at `step` (the same answer on every rank).
fn output_due(scene: &Scene, step: u64) -> bool {
    let o = &scene.spec.output;
    let due = |every: Option<u64>| every.is_some_and(|e| step.is_multiple_of(e));
    due(o.vtk.map(|e| e.every))
        || due(o.series.map(|e| e.every))
        || due(o.contacts.map(|e| e.every))
        || o.stress.iter().any(|s| step.is_multiple_of(s.every))
}

fn run(
    comm: Mpi,
    scene: Scene,
    out: &Path,
    quiet: bool,
    existing: ExistingOutput,
    console: &mut Console,
) -> Result<i32, IoError> {
    let (rank, size) = (comm.rank(), comm.size());
    let dt = scene.dt();
    // Rank 0 writes: the folder, the writers and a world of every body to gather into.
    let mut writer = if rank == 0 {
        let dir = granula_run::prepare_new(out, existing)?;
        let outputs = granula_run::Outputs::create(&dir, &scene, None)?;
        let mirror = scene.build_world()?;
        let solver = granula_run::build_solver(&scene)?;
        Some((dir, outputs, mirror, solver))
    } else {
        None
    };
    let mut run = DistributedRun::new(comm, scene, DistributedConfig::default()).map_err(io)?;
    if let Some((dir, ..)) = &writer {
        say!(console, "scene   {}", run.scene.file);
        say!(console, "ranks   {size} (MPI), subdomains {:?}", run.decomposition().subdomains.len());
        say!(console, "output  {}", dir.display());
    }
    let started = std::time::Instant::now();
    let mut next_report = 0.0;
    loop {
        if output_due(&run.scene, run.world.step) {
            run.gather_into(writer.as_mut().map(|w| &mut w.2)).map_err(io)?;
            if let Some((_, outputs, mirror, solver)) = &mut writer {
                outputs.write(mirror, &run.last_report, solver.as_ref(), dt)?;
            }
        }
        if run.is_done() {
            break;
        }
        run.step().map_err(io)?;
        let elapsed = started.elapsed().as_secs_f64();
        if rank == 0 && !quiet && elapsed >= next_report {
            next_report = elapsed + 10.0;
            say!(console, "step {} of {} (t = {:.6} s)", run.world.step, run.scene.steps, run.world.time);
        }
    }
    if let Some((dir, ..)) = &writer {
        let s = run.stats();
        say!(
            console,
            "done: t = {:.6} s after {} steps on {size} ranks in {:.1} s of wall time ({} redistributions, {} migrations, {} rebalances)",
            run.world.time,
            run.world.step,
            started.elapsed().as_secs_f64(),
            s.redistributions,
            s.migrations,
            s.rebalances
        );
        say!(console, "results in {}/ (series.csv, *.pvd for ParaView, ...)", dir.display());
    }
    Ok(0)
}
