//! The run driver: scene → world + solver → steps with outputs, sink, checkpoints and a
//! stop flag.

use super::checkpoint::{Checkpoint, CHECKPOINT_FORMAT};
use super::outputs::Outputs;
use super::sim_solver::{build_solver, SimSolver};
use super::warnings::WarningSummary;
use crate::error::{IoError, Result};
use crate::scene::loads;
use crate::scene::Scene;
use granula_core::{BodyHandle, StepReport, World};
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
}

impl Run {
    /// Builds everything from a validated scene, then creates the output folder and writes
    /// the initial outputs. Nothing is written if the world or solver cannot be built.
    pub fn start(scene: Scene, out_dir: &Path) -> Result<Run> {
        let world = scene.build_world()?;
        let solver = build_solver(&scene)?;
        let outputs = Outputs::create(out_dir, &scene, None)?;
        let warnings = WarningSummary::for_scene(&scene);
        let mut run = Run {
            scene,
            world,
            solver,
            out_dir: out_dir.to_path_buf(),
            removed: Vec::new(),
            last_report: StepReport::default(),
            warnings,
            outputs,
        };
        run.outputs.write(&run.world, &run.last_report, run.solver.as_ref(), run.scene.dt())?;
        Ok(run)
    }

    /// Continues from a checkpoint, writing to `out_dir` or, by default, the checkpoint's
    /// own output folder.
    pub fn resume(path: &Path, out_dir: Option<&Path>) -> Result<Run> {
        let c = Checkpoint::load(path)?;
        let scene = Scene::parse(&c.scene_file, &c.scene_text)?;
        let mut world = scene.build_world()?;
        for &h in &c.removed {
            world.remove(BodyHandle(h))?;
        }
        c.apply(&mut world, path)?;
        let mut solver = build_solver(&scene)?;
        solver
            .restore_state(&c.solver_state, &world)
            .map_err(|problem| IoError::Checkpoint { path: path.to_path_buf(), problem })?;
        let out = out_dir.map_or(c.out_dir.clone(), Path::to_path_buf);
        let mut state = c.outputs.clone();
        if out != c.out_dir {
            // The earlier frames stay in the old folder: the new folder's collections list
            // only the frames written there.
            state.collections.clear();
        }
        let outputs = Outputs::create(&out, &scene, Some(state))?;
        let warnings = WarningSummary::for_scene(&scene);
        Ok(Run {
            scene,
            world,
            solver,
            out_dir: out,
            removed: c.removed,
            last_report: StepReport::default(),
            warnings,
            outputs,
        })
    }

    /// The checkpoint of the current state.
    pub fn checkpoint(&self) -> Checkpoint {
        let mut c = Checkpoint {
            format: CHECKPOINT_FORMAT,
            scene_file: self.scene.file.clone(),
            scene_text: self.scene.text.clone(),
            out_dir: self.out_dir.clone(),
            time: 0.0,
            step: 0,
            removed: self.removed.clone(),
            position: Vec::new(),
            orientation: Vec::new(),
            velocity: Vec::new(),
            angular_velocity: Vec::new(),
            force: Vec::new(),
            torque: Vec::new(),
            ledger: Default::default(),
            outputs: self.outputs.state().clone(),
            solver_state: self.solver.save_state(),
            exact: self.solver.restarts_exactly(),
        };
        c.capture(&self.world);
        c
    }

    /// Writes the checkpoint to `<out>/checkpoint.bin` and returns its path.
    pub fn save_checkpoint(&self) -> Result<PathBuf> {
        let p = self.out_dir.join("checkpoint.bin");
        self.checkpoint().save(&p)?;
        Ok(p)
    }

    /// `true` when every step of the scene is done.
    pub fn is_done(&self) -> bool {
        self.world.step >= self.scene.steps
    }

    /// One step, then the sink, the flow count and the outputs due.
    pub fn step(&mut self) -> Result<&StepReport> {
        let dt = self.scene.dt();
        self.solver.record_contact_forces(self.outputs.needs_contacts(self.world.step + 1));
        if !self.scene.loads.is_empty() {
            loads::apply(&self.scene.loads, &self.scene.bodies, &mut self.world);
        }
        self.last_report = self.solver.step(&mut self.world, dt)?;
        self.warnings.record(&self.last_report, self.world.step, self.world.time);
        if let Some(f) = self.scene.spec.output.flow.clone() {
            if self.world.step.is_multiple_of(f.every) {
                self.outputs.count_flow(&self.world);
                if let Some(z) = f.remove_below {
                    self.sink(z)?;
                }
            }
        }
        self.outputs.write(&self.world, &self.last_report, self.solver.as_ref(), dt)?;
        if let Some(c) = self.scene.spec.output.checkpoint {
            if self.world.step.is_multiple_of(c.every) {
                self.save_checkpoint()?;
            }
        }
        Ok(&self.last_report)
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
        let first = self.world.step;
        let mut last_call = Instant::now();
        let report = |run: &Run| Progress {
            step: run.world.step,
            steps: run.scene.steps,
            time: run.world.time,
            contacts: run.last_report.contacts,
            steps_per_second: (run.world.step - first) as f64 / start.elapsed().as_secs_f64().max(1e-9),
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
