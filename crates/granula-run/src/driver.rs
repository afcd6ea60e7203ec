//! The run driver: scene → world + solver → steps with outputs, sink, checkpoints and a
//! stop flag.

use crate::checkpoint::{mesh_digests, Checkpoint, CHECKPOINT_FORMAT};
use crate::compose::build_solver;
use crate::feeding::Feeding;
use crate::folder::{prepare_new, rewind, ExistingOutput, FolderLock, CHECKPOINT_FILE};
use crate::outputs::Outputs;
use crate::sim_solver::SimSolver;
use crate::warnings::WarningSummary;
use granula_core::{BodyHandle, StepReport, World};
use granula_io::scene::apply_loads;
use granula_io::scene::Scene;
use granula_io::{IoError, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What a progress callback sees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Steps taken.
    pub step: u64,
    /// Steps to take in all.
    pub steps: u64,
    /// Simulated time (s).
    pub time: f64,
    /// Contacts in the last step.
    pub contacts: usize,
    /// Steps per wall-clock second since this run (or resume) started.
    pub steps_per_second: f64,
    /// The warnings of the steps so far.
    pub warnings: WarningSummary,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum RunEnd {
    /// All steps done; the final checkpoint is at this path.
    Finished(PathBuf),
    /// Stopped by the stop flag; the checkpoint is at this path.
    Interrupted(PathBuf),
}

/// A running simulation.
pub struct Run {
    /// The scene.
    pub scene: Scene,
    /// The world.
    pub world: World,
    /// The solver.
    pub solver: Box<dyn SimSolver>,
    /// The output folder.
    pub out_dir: PathBuf,
    /// Handles removed by the sink, in order.
    pub removed: Vec<u32>,
    /// The last step's report.
    pub last_report: StepReport,
    /// The warnings of the steps of this run (or resume), counted.
    pub warnings: WarningSummary,
    outputs: Outputs,
    /// The scene's mesh files with the hashes of their bytes, for the checkpoints.
    meshes: Vec<(String, u64)>,
    /// The scene's feeds and outlets.
    feeding: Feeding,
    /// The output folder's lock, held while the run lives.
    _lock: FolderLock,
}

impl Run {
    /// Builds everything from a validated scene, then creates the output folder and writes
    /// the initial outputs. Nothing is written if the world or solver cannot be built. A
    /// folder that is not empty is refused ([`ExistingOutput::Refuse`]); see
    /// [`Run::start_with`] to overwrite it.
    pub fn start(scene: Scene, out_dir: &Path) -> Result<Run> {
        Run::start_with(scene, out_dir, ExistingOutput::Refuse)
    }

    /// [`Run::start`], with the choice of what to do with a folder that already holds
    /// files. The run keeps (and its checkpoints store) the folder's absolute path.
    pub fn start_with(scene: Scene, out_dir: &Path, existing: ExistingOutput) -> Result<Run> {
        let world = scene.build_world()?;
        check_finite(&world, &scene)?;
        let solver = build_solver(&scene)?;
        let meshes = mesh_digests(&scene)?;
        let mut feeding = Feeding::new(&scene)?;
        let (out_dir, lock) = prepare_new(out_dir, existing)?;
        let outputs = Outputs::create(&out_dir, &scene, None)?;
        feeding.open(&out_dir, false)?;
        let warnings = WarningSummary::for_scene(&scene);
        let mut run = Run {
            scene,
            world,
            solver,
            out_dir,
            removed: Vec::new(),
            last_report: StepReport::default(),
            warnings,
            outputs,
            meshes,
            feeding,
            _lock: lock,
        };
        run.outputs.write(&run.world, &run.last_report, run.solver.as_ref(), run.scene.dt())?;
        Ok(run)
    }

    /// Continues from a checkpoint, writing to `out_dir` or, by default, the checkpoint's
    /// own output folder (its absolute path as stored; a relative one, from an older
    /// checkpoint, is taken as the checkpoint file's folder).
    ///
    /// In the run's own folder, the outputs are first rewound to the checkpoint's step
    /// ([`rewind`]): rows and frames written after it (by a run killed after its last
    /// periodic checkpoint) are removed, so none is duplicated. Another folder must be
    /// empty or new, and gets only the frames written from now on.
    pub fn resume(path: &Path, out_dir: Option<&Path>) -> Result<Run> {
        let c = Checkpoint::load(path)?;
        c.check_meshes(path)?;
        let scene = crate::polyhedra::parse_scene(&c.scene_file, &c.scene_text)?;
        let mut world = scene.build_world()?;
        let mut feeding = Feeding::new(&scene)?;
        feeding.restore(&c.feeding, &mut world, path)?;
        c.replay_removals(&mut world, path)?;
        c.validate(scene.steps, scene.dt(), path)?;
        c.apply(&mut world, path)?;
        let mut solver = build_solver(&scene)?;
        solver
            .restore_state(&c.solver_state, &world)
            .map_err(|problem| IoError::CheckpointDamaged { path: path.to_path_buf(), problem })?;
        if c.outputs.passed.len() != scene.bodies.len() {
            return Err(IoError::CheckpointDamaged {
                path: path.to_path_buf(),
                problem: format!(
                    "flow flags for {} bodies, the scene has {}",
                    c.outputs.passed.len(),
                    scene.bodies.len()
                ),
            });
        }
        let own = if c.out_dir.is_absolute() {
            c.out_dir.clone()
        } else {
            path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf()
        };
        let same = match out_dir {
            None => true,
            Some(d) => d == own || same_folder(d, &own),
        };
        let mut state = c.outputs.clone();
        let (out, lock) = if same {
            std::fs::create_dir_all(&own).map_err(|e| IoError::file(&own, e))?;
            let out = std::fs::canonicalize(&own).map_err(|e| IoError::file(&own, e))?;
            // Locked before anything in it changes.
            let lock = FolderLock::acquire(&out)?;
            // The collections name their .pvd by the folder's path when they were saved:
            // point them at the folder as it is now.
            for col in &mut state.collections {
                if let Some(name) = col.path.file_name() {
                    col.path = out.join(name);
                }
            }
            rewind(&out, &scene.spec.output, c.world.clock.step, c.world.clock.time(), &state.collections)?;
            (out, lock)
        } else {
            // The earlier frames stay in the old folder: the new folder's collections list
            // only the frames written there.
            state.collections.clear();
            prepare_new(out_dir.unwrap_or(&own), ExistingOutput::Refuse)?
        };
        let outputs = Outputs::create(&out, &scene, Some(state))?;
        feeding.open(&out, same)?;
        // The summary carries on from the interrupted run's.
        let warnings = c.warnings;
        Ok(Run {
            scene,
            world,
            solver,
            out_dir: out,
            removed: c.removed,
            last_report: StepReport::default(),
            warnings,
            outputs,
            meshes: c.meshes,
            feeding,
            _lock: lock,
        })
    }

    /// The checkpoint of the current state; fails only if the solver's state cannot be
    /// serialised ([`SimSolver::save_state`]).
    pub fn checkpoint(&self) -> Result<Checkpoint> {
        let c = Checkpoint {
            format: CHECKPOINT_FORMAT,
            scene_file: self.scene.file.clone(),
            scene_text: self.scene.text.clone(),
            meshes: self.meshes.clone(),
            out_dir: self.out_dir.clone(),
            warnings: self.warnings,
            removed: self.removed.clone(),
            world: self.world.save_state(),
            outputs: self.outputs.state().clone(),
            solver_state: self.solver.save_state()?,
            exact: self.solver.restarts_exactly(),
            feeding: self.feeding.state(),
        };
        Ok(c)
    }

    /// Fails with [`IoError::NonFinite`] when an energy the outputs write (kinetic,
    /// potential, stored, dissipated, external work) is not finite, naming the step, the
    /// quantity and the body with the largest energy. [`Run::start`] calls it on the
    /// initial state; after every step the world's own guards (`World::step`) check the
    /// same energies, so a run never writes a non-finite one. It costs a few sums over the
    /// bodies.
    pub fn check_finite(&self) -> Result<()> {
        check_finite(&self.world, &self.scene)
    }

    /// Writes the checkpoint to `<out>/checkpoint.bin` and returns its path.
    pub fn save_checkpoint(&self) -> Result<PathBuf> {
        let p = self.out_dir.join(CHECKPOINT_FILE);
        self.checkpoint()?.save(&p)?;
        Ok(p)
    }

    /// `true` when every step of the scene is done.
    pub fn is_done(&self) -> bool {
        self.world.step_count() >= self.scene.steps
    }

    /// One step, then the sink, the flow count and the outputs due.
    pub fn step(&mut self) -> Result<&StepReport> {
        self.step_publishing(false)
    }

    /// [`Run::step`], with the solver asked to publish the step's contacts
    /// (`run.solver.contacts()` reads them after it) when `contacts` is true, even if no
    /// output of that step needs them: for a host that looks at the contacts between steps.
    /// Publishing copies the records and changes no result.
    pub fn step_publishing(&mut self, contacts: bool) -> Result<&StepReport> {
        let dt = self.scene.dt();
        self.solver.publish_contacts(contacts || self.outputs.needs_contacts(self.world.step_count() + 1));
        if !self.scene.loads.is_empty() {
            apply_loads(&self.scene.loads, &self.scene.bodies, &mut self.world);
        }
        self.last_report = self.solver.step(&mut self.world, dt)?;
        self.warnings.record(&self.last_report, self.world.step_count(), self.world.time());
        if let Some(f) = self.scene.spec.output.flow.clone() {
            if self.world.step_count().is_multiple_of(f.every) {
                self.outputs.count_flow(&self.world);
                if let Some(z) = f.remove_below {
                    self.sink(z)?;
                }
            }
        }
        if !self.feeding.is_empty() {
            self.feeding.after_step(&mut self.world, &mut self.removed)?;
        }
        self.outputs.write(&self.world, &self.last_report, self.solver.as_ref(), dt)?;
        if let Some(c) = self.scene.spec.output.checkpoint {
            if self.world.step_count().is_multiple_of(c.every) {
                self.save_checkpoint()?;
            }
        }
        Ok(&self.last_report)
    }

    /// The totals of the scene's feeds (`[[feeds]]`), by name, in scene order: spheres and
    /// mass inserted and not placed, batches.
    pub fn feed_counts(&self) -> Vec<(String, granula_feed::FeedCounts)> {
        self.feeding.feed_counts()
    }

    /// The totals of the scene's outlets (`[[outlets]]`), by name, in scene order: bodies
    /// and mass removed.
    pub fn outlet_counts(&self) -> Vec<(String, granula_feed::OutletCounts)> {
        self.feeding.outlet_counts()
    }

    /// Removes the dynamic spheres whose centre is below `z`, in handle order.
    fn sink(&mut self, z: f64) -> Result<()> {
        let b = &self.world.bodies;
        let mut gone: Vec<BodyHandle> = (0..b.len())
            .filter(|&i| b.inv_mass[i] > 0.0 && b.shape[i].sphere_radius().is_some() && b.position[i].z < z)
            .map(|i| b.handle[i])
            .collect();
        gone.sort();
        for h in gone {
            self.world.remove(h)?;
            self.removed.push(h.0);
        }
        Ok(())
    }

    /// Runs until the end or until `stop` is set; calls `progress` about ten times a second
    /// of wall time and at the end. Writes a checkpoint when it stops either way.
    pub fn run_until_done(&mut self, stop: &AtomicBool, mut progress: impl FnMut(&Progress)) -> Result<RunEnd> {
        let start = Instant::now();
        let first = self.world.step_count();
        let mut last_call = Instant::now();
        let report = |run: &Run| Progress {
            step: run.world.step_count(),
            steps: run.scene.steps,
            time: run.world.time(),
            contacts: run.last_report.contacts,
            steps_per_second: (run.world.step_count() - first) as f64 / start.elapsed().as_secs_f64().max(1e-9),
            warnings: run.warnings,
        };
        while !self.is_done() {
            if stop.load(Ordering::SeqCst) {
                let p = self.save_checkpoint()?;
                progress(&report(self));
                return Ok(RunEnd::Interrupted(p));
            }
            let warned = self.warnings.warned();
            self.step()?;
            // The first warning is reported at once.
            if last_call.elapsed().as_millis() >= 100 || (warned == 0 && self.warnings.warned() > 0) {
                progress(&report(self));
                last_call = Instant::now();
            }
        }
        progress(&report(self));
        Ok(RunEnd::Finished(self.save_checkpoint()?))
    }
}

/// `true` when both paths exist and are the same folder.
fn same_folder(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// [`Run::check_finite`] of a world built from `scene`: the body named is the one with the
/// largest kinetic plus gravitational energy (a non-finite one first).
fn check_finite(world: &World, scene: &Scene) -> Result<()> {
    let l = &world.ledger;
    let quantities = [
        ("kinetic energy (translational)", world.kinetic_energy_translational()),
        ("kinetic energy (rotational)", world.kinetic_energy_rotational()),
        ("potential energy", world.potential_energy()),
        ("elastic energy stored in contacts", l.stored_elastic),
        ("dissipated energy", l.dissipated.total()),
        ("external work", l.external_work),
    ];
    let Some(&(quantity, value)) = quantities.iter().find(|q| !q.1.is_finite()) else { return Ok(()) };
    let b = &world.bodies;
    let energy = |i: usize| {
        // Rotational energy about the principal axes (a locked axis, 1/I = 0, has none).
        let w = b.orientation[i].inverse() * b.angular_velocity[i];
        let inv = b.inv_inertia[i];
        let rot: f64 = (0..3).filter(|&k| inv[k] > 0.0).map(|k| 0.5 * w[k] * w[k] / inv[k]).sum();
        let e = 0.5 * b.mass[i] * b.velocity[i].length_squared()
            + rot
            + (b.mass[i] * world.gravity.dot(b.position[i])).abs();
        if e.is_finite() {
            e
        } else {
            f64::INFINITY
        }
    };
    let worst = (0..b.len()).filter(|&i| b.inv_mass[i] > 0.0).max_by(|&i, &j| energy(i).total_cmp(&energy(j)));
    let body = match worst {
        Some(i) => {
            let h = b.handle[i].0 as usize;
            let plan = scene.bodies.get(h);
            // The name (if any) and the key the body comes from; vectors in exponent form, so
            // that a value like 1e308 reads as such.
            let name = match plan {
                Some(p) => match &p.name {
                    Some(n) => format!("{n}, {}", p.origin),
                    None => p.origin.clone(),
                },
                None => String::new(),
            };
            let v = |x: glam::DVec3| format!("[{:e}, {:e}, {:e}]", x.x, x.y, x.z);
            format!(
                "body {h} ({name}) has the largest energy: velocity {}, angular velocity {}, position {}",
                v(b.velocity[i]),
                v(b.angular_velocity[i]),
                v(b.position[i])
            )
        }
        None => "no dynamic body".to_string(),
    };
    Err(IoError::NonFinite { step: world.step_count(), time: world.time(), quantity, value, body })
}
