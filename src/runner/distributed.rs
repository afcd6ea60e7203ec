//! `granula run SCENE` and `granula resume CHECKPOINT` under `mpirun` (cargo feature `mpi`):
//! when the launcher started more than one rank, the MD scene runs distributed
//! (`granula-mpi`); rank 0 gathers the bodies and the contacts and writes the outputs the
//! scene asks for, and the checkpoints, in the same folder layout as one process. A
//! distributed checkpoint also resumes on one process (no launcher): the same run on one
//! rank.

use super::console::{say, Console};
use super::INTERRUPTED;
use granula_core::World;
use granula_io::{IoError, Scene};
use granula_mpi::{
    Communicator, DistributedCheckpointFile, DistributedConfig, DistributedError, DistributedRun, Mpi, SingleProcess,
};
use granula_run::{ExistingOutput, Outputs, CHECKPOINT_FILE, DISTRIBUTED_CHECKPOINT_MAGIC};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The number of ranks the MPI launcher reports in the environment (OpenMPI, or the
/// PMI/PMIx variables of other launchers); `None` outside a launcher.
fn launched_ranks() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"]
        .iter()
        .find_map(|v| std::env::var(v).ok().and_then(|s| s.parse().ok()))
}

/// Whether more than one rank was launched.
fn launched() -> bool {
    launched_ranks().is_some_and(|n| n > 1)
}

fn io(e: DistributedError) -> IoError {
    match e {
        DistributedError::Io(e) => e,
        e => IoError::Solver(e.to_string()),
    }
}

fn init() -> Result<Mpi, IoError> {
    Mpi::init().ok_or_else(|| IoError::Solver("MPI could not be initialised".into()))
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
    if !launched() {
        return Ok(None);
    }
    let comm = init()?;
    let scene = granula_run::load_scene(scene)?;
    // Rank 0 writes: the folder, the writers and a world of every body to gather into.
    let writer = if comm.rank() == 0 { new_writer(&scene, out, existing).map(Some) } else { Ok(None) };
    let writer = agree(&comm, writer)?;
    let run = DistributedRun::new(comm, scene, DistributedConfig::default()).map_err(io)?;
    drive(run, writer, true, quiet, console).map(Some)
}

/// Continues a distributed checkpoint, or any checkpoint under a launcher of more than one
/// rank (a one-process checkpoint is then refused by name): `Some(status)`; `None` for a
/// one-process checkpoint outside a launcher (the caller resumes it on one process).
pub fn resume_if_distributed(
    checkpoint: &Path,
    out: Option<&Path>,
    quiet: bool,
    console: &mut Console,
) -> Result<Option<i32>, IoError> {
    if launched() {
        return resume(init()?, checkpoint, out, quiet, console).map(Some);
    }
    let mut head = [0u8; 8];
    let distributed = granula_io::is_regular_file(checkpoint)
        && std::fs::File::open(checkpoint)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok_and(|()| head == DISTRIBUTED_CHECKPOINT_MAGIC);
    if !distributed {
        return Ok(None);
    }
    resume(SingleProcess, checkpoint, out, quiet, console).map(Some)
}

/// Resumes a distributed checkpoint on the ranks of `comm`: rank 0 reads the file and
/// sends its bytes to the others.
fn resume<C: Communicator>(
    comm: C,
    path: &Path,
    out: Option<&Path>,
    quiet: bool,
    console: &mut Console,
) -> Result<i32, IoError> {
    let read =
        if comm.rank() == 0 { granula_io::read_input(path, granula_io::MAX_CHECKPOINT_BYTES) } else { Ok(Vec::new()) };
    let read = agree(&comm, read)?;
    let bytes = comm.broadcast(read);
    let file = DistributedCheckpointFile::from_bytes(&bytes, path).map_err(io)?;
    let scene = granula_run::parse_scene(&file.run.scene_file, &file.run.scene_text)?;
    let writer = if comm.rank() == 0 { resumed_writer(&file, &scene, out, path).map(Some) } else { Ok(None) };
    let writer = agree(&comm, writer)?;
    let shown = path.display().to_string();
    let run = DistributedRun::resume_from(comm, scene, file.run, &shown, DistributedConfig::default()).map_err(io)?;
    drive(run, writer, false, quiet, console)
}

/// Rank 0's writer of a new run: the folder prepared as for one process.
fn new_writer(scene: &Scene, out: &Path, existing: ExistingOutput) -> Result<Writer, IoError> {
    let (dir, lock) = granula_run::prepare_new(out, existing)?;
    let outputs = Outputs::create(&dir, scene, None)?;
    Ok(Writer { mirror: scene.build_world()?, outputs, dir, _lock: lock })
}

/// Rank 0's writer of a resumed run: in the run's own folder, the outputs rewound to the
/// checkpoint's step and continued; another folder must be empty or new, and gets only the
/// frames written from now on (as `granula resume` on one process).
fn resumed_writer(
    file: &DistributedCheckpointFile,
    scene: &Scene,
    out: Option<&Path>,
    path: &Path,
) -> Result<Writer, IoError> {
    let own = &file.out_dir;
    let same = match out {
        None => true,
        Some(d) => d == own || matches!((d.canonicalize(), own.canonicalize()), (Ok(a), Ok(b)) if a == b),
    };
    let mut state = file.outputs.clone();
    let clock = file.run.clock;
    let (dir, lock) = if same {
        std::fs::create_dir_all(own).map_err(|e| IoError::file(own, e))?;
        let dir = std::fs::canonicalize(own).map_err(|e| IoError::file(own, e))?;
        // Locked before anything in it changes.
        let lock = granula_run::FolderLock::acquire(&dir)?;
        for col in &mut state.collections {
            if let Some(name) = col.path.file_name() {
                col.path = dir.join(name);
            }
        }
        granula_run::rewind(&dir, &scene.spec.output, clock.step, clock.time(), &state.collections)?;
        (dir, lock)
    } else {
        state.collections.clear();
        granula_run::prepare_new(out.unwrap_or(own), ExistingOutput::Refuse)?
    };
    let outputs = Outputs::create(&dir, scene, Some(state))?;
    let mirror = scene.build_world().map_err(|e| IoError::CheckpointDamaged {
        path: path.to_path_buf(),
        problem: format!("its scene does not build: {e}"),
    })?;
    Ok(Writer { dir, outputs, mirror, _lock: lock })
}

/// Rank 0's side of the outputs: the folder, the writers and a world of every body
/// (dense index = global id) to gather into, and the folder's lock, held while the run
/// lives.
struct Writer {
    dir: PathBuf,
    outputs: Outputs,
    mirror: World,
    _lock: granula_run::FolderLock,
}

/// `result` on every rank if it is `Ok` on every rank; otherwise an error on every rank
/// (the failing rank's own, or one naming that rank), so that no rank waits in a
/// collective call for a partner that stopped (collective).
fn agree<C: Communicator, T>(comm: &C, result: Result<T, IoError>) -> Result<T, IoError> {
    let flags = comm.all_gather(if result.is_err() { 1.0 } else { 0.0 });
    let value = result?;
    match flags.iter().position(|&f| f != 0.0) {
        Some(r) => Err(IoError::Solver(format!("rank {r} failed (its message is above); every rank stops"))),
        None => Ok(value),
    }
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

/// Gathers the bodies and the contacts at rank 0 and writes what is due at the current
/// step (collective).
fn write_outputs<C: Communicator>(run: &mut DistributedRun<C>, writer: &mut Option<Writer>) -> Result<(), IoError> {
    if !output_due(&run.scene, run.world.step_count()) {
        return Ok(());
    }
    let contacts = run.gather_contacts().map_err(io)?;
    run.gather_into(writer.as_mut().map(|w| &mut w.mirror)).map_err(io)?;
    let energies = run.energies().map_err(io)?;
    let dt = run.scene.dt();
    let written = match (writer.as_mut(), contacts) {
        (Some(w), Some(g)) => {
            // The stored energy summed in key order (the same bits on any rank count), the
            // dissipation and the work summed over the ranks' parts.
            w.mirror.ledger = granula_core::EnergyLedger { stored_elastic: g.stored_elastic, ..energies.ledger };
            w.outputs.write_published(&w.mirror, &g.report, &g.contacts, dt)
        }
        _ => Ok(()),
    };
    agree(run.comm(), written)
}

/// Writes the checkpoint to `<out>/checkpoint.bin` at rank 0 (collective); its path on
/// rank 0.
fn save_checkpoint<C: Communicator>(
    run: &mut DistributedRun<C>,
    writer: &Option<Writer>,
) -> Result<Option<PathBuf>, IoError> {
    let state = run.checkpoint_state().map_err(io)?;
    let saved = match (writer, state) {
        (Some(w), Some(c)) => {
            let path = w.dir.join(CHECKPOINT_FILE);
            let file = DistributedCheckpointFile { out_dir: w.dir.clone(), outputs: w.outputs.state().clone(), run: c };
            file.save(&path).map(|()| Some(path)).map_err(io)
        }
        _ => Ok(None),
    };
    agree(run.comm(), saved)
}

/// Steps between two reductions of the ranks' stop flags: a stop asked by a signal takes
/// effect within this many steps (milliseconds), and the reduction, one all-gather of one
/// number, adds 1/16 of a collective call per step to the four a distributed step makes.
const STOP_CHECK_EVERY: u64 = 16;

/// Steps the run to its end, writing the outputs and the checkpoints (at the scene's
/// interval and at the end); stops with a checkpoint once any rank got SIGINT, SIGTERM or
/// SIGHUP: the flags are reduced with a maximum every [`STOP_CHECK_EVERY`] steps, so every
/// rank stops after the same step. `fresh`: a new run, whose initial state is written.
fn drive<C: Communicator>(
    mut run: DistributedRun<C>,
    mut writer: Option<Writer>,
    fresh: bool,
    quiet: bool,
    console: &mut Console,
) -> Result<i32, IoError> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)) {
        say!(console, "warning: signal handler not installed ({e}); Ctrl-C and SIGTERM will stop without a checkpoint");
    }
    let size = run.comm().size();
    if let Some(w) = &writer {
        say!(console, "scene   {}", run.scene.file);
        say!(
            console,
            "ranks   {size} (MPI), steps {} to {} of {} s",
            run.world.step_count(),
            run.scene.steps,
            run.scene.dt()
        );
        say!(console, "output  {}", w.dir.display());
    }
    if fresh {
        write_outputs(&mut run, &mut writer)?;
    }
    let started = std::time::Instant::now();
    let mut next_report = 0.0;
    let every = run.scene.spec.output.checkpoint.map(|c| c.every);
    while !run.is_done() {
        // Every rank is at the same step, so every rank asks at the same steps.
        let asked = if stop.load(Ordering::SeqCst) { 1.0 } else { 0.0 };
        if run.world.step_count().is_multiple_of(STOP_CHECK_EVERY) && run.comm().max(asked) > 0.0 {
            let path = save_checkpoint(&mut run, &writer)?;
            if let Some(path) = path {
                say!(console, "interrupted at step {} (t = {:.6} s)", run.world.step_count(), run.world.time());
                say!(console, "checkpoint written: continue with `granula resume {}`", path.display());
            }
            return Ok(INTERRUPTED);
        }
        run.publish_contacts(output_due(&run.scene, run.world.step_count() + 1));
        run.step().map_err(io)?;
        write_outputs(&mut run, &mut writer)?;
        if every.is_some_and(|e| run.world.step_count().is_multiple_of(e)) {
            save_checkpoint(&mut run, &writer)?;
        }
        let elapsed = started.elapsed().as_secs_f64();
        if writer.is_some() && !quiet && elapsed >= next_report {
            next_report = elapsed + 10.0;
            say!(console, "step {} of {} (t = {:.6} s)", run.world.step_count(), run.scene.steps, run.world.time());
        }
    }
    let path = save_checkpoint(&mut run, &writer)?;
    if let (Some(w), Some(path)) = (&writer, path) {
        let s = run.stats();
        say!(
            console,
            "done: t = {:.6} s after {} steps on {size} ranks in {:.1} s of wall time ({} redistributions, {} migrations, {} rebalances)",
            run.world.time(),
            run.world.step_count(),
            started.elapsed().as_secs_f64(),
            s.redistributions,
            s.migrations,
            s.rebalances
        );
        say!(console, "results in {}/ (series.csv, *.pvd for ParaView, ...)", w.dir.display());
        say!(console, "final checkpoint {}", path.display());
    }
    Ok(0)
}
