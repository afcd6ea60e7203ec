//! The run of a planar scene: steps, the CSV time series and the VTK series of the bodies
//! as polygons.

use super::{OnCap, PlanarScene, PlanarSolver, PositionFrame};
use crate::folder::{prepare_new, ExistingOutput, FolderLock};
use crate::warnings::WarningSummary;
use glam::DVec2;
use granula_core::{StepReport, StepWarning};
use granula_io::output::{open_csv, write_atomic, PolyData, PvdCollection, VtkArray};
use granula_io::{IoError, Result};
use granula_planar::Shape2;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Header of a planar run's `series.csv`: time (s), kinetic energy of the dynamic bodies
/// (J per unit thickness), the Love-Weber stress components (N/m, compression positive),
/// the number of contacts (body-body and body-wall).
pub const PLANAR_SERIES_HEADER: &str = "time,kinetic_energy,sigma_xx,sigma_xy,sigma_yx,sigma_yy,contacts";

/// Header of a contact dynamics run's `series.csv`: as [`PLANAR_SERIES_HEADER`] (contacts
/// are the contact points carrying an impulse), then the Gauss-Seidel sweeps of the last
/// step and its residual Σ|ΔP|/Σ|P| (000 eq. 36).
pub const PLANAR_NSCD_SERIES_HEADER: &str =
    "time,kinetic_energy,sigma_xx,sigma_xy,sigma_yx,sigma_yy,contacts,sweeps,residual";

/// Segments of the outline written for a disc.
const DISC_SEGMENTS: usize = 24;

/// A planar scene being run: the simulation and its outputs in a folder.
pub struct PlanarRun {
    /// The scene (its simulation advances).
    pub scene: PlanarScene,
    dir: PathBuf,
    series: std::io::BufWriter<std::fs::File>,
    pvd: Option<PvdCollection>,
    frames: usize,
    /// The pool of the pair evaluation when the scene sets `threads` (rayon's global pool
    /// otherwise).
    pool: Option<rayon::ThreadPool>,
    /// The steps that stopped at the contact solver's sweep cap (contact dynamics), as a 3D
    /// run counts them.
    pub warnings: WarningSummary,
    /// The output folder's lock, held while the run lives.
    _lock: FolderLock,
}

impl PlanarRun {
    /// Prepares the output folder (`existing` says what to do with an earlier run's
    /// results) and writes the frame and row of time 0.
    pub fn start(scene: PlanarScene, dir: &Path, existing: ExistingOutput) -> Result<PlanarRun> {
        let (dir, lock) = prepare_new(dir, existing)?;
        let (header, tolerance) = match &scene.solver {
            PlanarSolver::Md(_) => (PLANAR_SERIES_HEADER, None),
            PlanarSolver::Nscd { solver, .. } => (PLANAR_NSCD_SERIES_HEADER, Some(solver.config().tolerance)),
        };
        let series = open_csv(&dir.join("series.csv"), header, false)?;
        let pvd = scene.vtk_every.map(|_| PvdCollection::new(dir.join("bodies.pvd")));
        let pool = match scene.threads {
            Some(n) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| IoError::Solver(format!("simulation.threads = {n}: {e}")))?,
            ),
            None => None,
        };
        let warnings = WarningSummary::new(tolerance);
        let mut run = PlanarRun { scene, dir, series, pvd, frames: 0, pool, warnings, _lock: lock };
        run.write_row()?;
        run.write_frame()?;
        Ok(run)
    }

    /// A run continued from a checkpoint: `series` open for appending after the saved
    /// rows, `pvd` holding the frames written before, `lock` the folder's.
    pub(super) fn resumed(
        scene: PlanarScene,
        (dir, lock): (PathBuf, FolderLock),
        series: std::io::BufWriter<std::fs::File>,
        pvd: Option<PvdCollection>,
        warnings: WarningSummary,
    ) -> PlanarRun {
        let frames = pvd.as_ref().map_or(0, |p| p.frames.len());
        // The pool is rebuilt as at the start; its size does not change the bits.
        let pool = scene.threads.and_then(|n| rayon::ThreadPoolBuilder::new().num_threads(n).build().ok());
        PlanarRun { scene, dir, series, pvd, frames, pool, warnings, _lock: lock }
    }

    /// Flushes `series.csv` and returns its length in bytes.
    pub(super) fn flush_series(&mut self) -> Result<u64> {
        let path = self.dir.join("series.csv");
        self.series.flush().map_err(|e| IoError::file(&path, e))?;
        Ok(std::fs::metadata(&path).map_err(|e| IoError::file(&path, e))?.len())
    }

    /// The VTK frames written so far (time, file name).
    pub(super) fn pvd_frames(&self) -> Vec<(f64, String)> {
        self.pvd.as_ref().map_or_else(Vec::new, |p| p.frames.clone())
    }

    /// The output folder (absolute).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `true` when every step of the scene is taken.
    pub fn is_done(&self) -> bool {
        self.scene.solver.steps() >= self.scene.steps
    }

    /// One step, and the outputs due after it. Returns `true` when the step brought the
    /// run's first warning (a contact dynamics step that stopped at its sweep cap; the
    /// line to show is [`WarningSummary::first_line`]).
    pub fn step(&mut self) -> Result<bool> {
        let solver = &mut self.scene.solver;
        let stepped = match &self.pool {
            Some(pool) => pool.install(|| solver.step()),
            None => solver.step(),
        };
        let report = stepped.map_err(|e| IoError::Solver(e.to_string()))?;
        let n = self.scene.solver.steps();
        let time = self.scene.solver.time();
        let mut first = false;
        if let Some(r) = report {
            let mut step_report = StepReport::default();
            if r.cap_reached {
                step_report
                    .warnings
                    .push(StepWarning::IterationCapReached { iterations: r.sweeps, residual: r.residual });
                if let PlanarSolver::Nscd { on_cap: OnCap::Error, solver } = &self.scene.solver {
                    return Err(IoError::Solver(format!(
                        "step {n} (t = {time} s): the contact solver stopped at its cap of {} sweeps with residual {:.3e} > tolerance {:.1e} (solver.on_cap = \"error\")",
                        r.sweeps,
                        r.residual,
                        solver.config().tolerance
                    )));
                }
            }
            first = self.warnings.record(&step_report, n, time);
        }
        if n.is_multiple_of(self.scene.series_every) || self.is_done() {
            self.write_row()?;
        }
        if let Some(every) = self.scene.vtk_every {
            if n.is_multiple_of(every) || self.is_done() {
                self.write_frame()?;
            }
        }
        if self.is_done() {
            self.series.flush().map_err(|e| IoError::file(self.dir.join("series.csv"), e))?;
        }
        Ok(first)
    }

    fn write_row(&mut self) -> Result<()> {
        let sim = &self.scene.solver;
        let s = sim.stress(self.scene.stress_area);
        write!(
            self.series,
            "{:?},{:?},{:?},{:?},{:?},{:?},{}",
            sim.time(),
            sim.bodies().kinetic_energy(),
            s[0][0],
            s[0][1],
            s[1][0],
            s[1][1],
            sim.contact_count()
        )
        .and_then(|_| match sim.nscd() {
            Some(cd) => writeln!(self.series, ",{},{:?}", cd.report().sweeps, cd.report().residual),
            None => writeln!(self.series),
        })
        .map_err(|e| IoError::file(self.dir.join("series.csv"), e))
    }

    fn write_frame(&mut self) -> Result<()> {
        let Some(pvd) = self.pvd.as_mut() else { return Ok(()) };
        let name = format!("bodies_{:06}.vtp", self.frames);
        let data = polygons(&self.scene.solver, self.scene.positions);
        write_atomic(&self.dir.join(&name), &data.to_xml())?;
        pvd.push(self.scene.solver.time(), &name)?;
        self.frames += 1;
        Ok(())
    }
}

/// The bodies as VTK PolyData: one polygon cell per body (its outline in the world frame;
/// a disc as a regular polygon of 24 sides), with cell arrays `id`, `velocity` (z = 0),
/// `angular_velocity`, `angle` and `prescribed` (1 for the walls' glued particles).
/// `positions` chooses the centres: wrapped into the periodic box or unwrapped.
pub fn polygons(sim: &PlanarSolver, positions: PositionFrame) -> PolyData {
    let b = sim.bodies();
    let mut data = PolyData::default();
    let mut outline = Vec::new();
    for i in 0..b.len() {
        let centre = match positions {
            PositionFrame::Wrapped => sim.wrapped_position(i),
            PositionFrame::Unwrapped => b.position[i],
        };
        let rot = DVec2::from_angle(b.angle[i]);
        outline.clear();
        match &b.shape[i] {
            Shape2::Disc { radius } => outline.extend(
                (0..DISC_SEGMENTS)
                    .map(|k| DVec2::from_angle(std::f64::consts::TAU * k as f64 / DISC_SEGMENTS as f64) * *radius),
            ),
            Shape2::Polygon(p) => outline.extend_from_slice(p.vertices()),
        }
        let first = data.points.len() as i64;
        data.points.extend(outline.iter().map(|v| {
            let w = centre + rot.rotate(*v);
            [w.x, w.y, 0.0]
        }));
        data.polys.push((first..first + outline.len() as i64).collect());
    }
    data.cell_data = vec![
        VtkArray::Ids("id", (0..b.len() as i64).collect()),
        VtkArray::Vectors("velocity", b.velocity.iter().map(|v| [v.x, v.y, 0.0]).collect()),
        VtkArray::Scalars("angular_velocity", b.angular_velocity.clone()),
        VtkArray::Scalars("angle", b.angle.clone()),
        VtkArray::Ids("prescribed", (0..b.len()).map(|i| i64::from(!b.is_dynamic(i))).collect()),
    ];
    data
}
