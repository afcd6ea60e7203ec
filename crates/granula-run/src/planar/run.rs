//! The run of a planar scene: steps, the CSV time series and the VTK series of the bodies
//! as polygons.

use super::{PlanarScene, PositionFrame};
use crate::folder::{prepare_new, ExistingOutput};
use glam::DVec2;
use granula_io::output::{open_csv, write_atomic, PolyData, PvdCollection, VtkArray};
use granula_io::{IoError, Result};
use granula_planar::{Shape2, Simulation};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Header of a planar run's `series.csv`: time (s), kinetic energy of the dynamic bodies
/// (J per unit thickness), the Love-Weber stress components (N/m, compression positive),
/// the number of contacts (body-body and body-wall).
pub const PLANAR_SERIES_HEADER: &str = "time,kinetic_energy,sigma_xx,sigma_xy,sigma_yx,sigma_yy,contacts";

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
}

impl PlanarRun {
    /// Prepares the output folder (`existing` says what to do with an earlier run's
    /// results) and writes the frame and row of time 0.
    pub fn start(scene: PlanarScene, dir: &Path, existing: ExistingOutput) -> Result<PlanarRun> {
        let dir = prepare_new(dir, existing)?;
        let series = open_csv(&dir.join("series.csv"), PLANAR_SERIES_HEADER, false)?;
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
        let mut run = PlanarRun { scene, dir, series, pvd, frames: 0, pool };
        run.write_row()?;
        run.write_frame()?;
        Ok(run)
    }

    /// The output folder (absolute).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `true` when every step of the scene is taken.
    pub fn is_done(&self) -> bool {
        self.scene.sim.steps() >= self.scene.steps
    }

    /// One step, and the outputs due after it.
    pub fn step(&mut self) -> Result<()> {
        let sim = &mut self.scene.sim;
        let stepped = match &self.pool {
            Some(pool) => pool.install(|| sim.step()),
            None => sim.step(),
        };
        stepped.map_err(|e| IoError::Solver(e.to_string()))?;
        let n = self.scene.sim.steps();
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
        Ok(())
    }

    fn write_row(&mut self) -> Result<()> {
        let sim = &self.scene.sim;
        let s = sim.stress(self.scene.stress_area);
        writeln!(
            self.series,
            "{:?},{:?},{:?},{:?},{:?},{:?},{}",
            sim.time(),
            sim.bodies.kinetic_energy(),
            s[0][0],
            s[0][1],
            s[1][0],
            s[1][1],
            sim.contacts().len()
        )
        .map_err(|e| IoError::file(self.dir.join("series.csv"), e))
    }

    fn write_frame(&mut self) -> Result<()> {
        let Some(pvd) = self.pvd.as_mut() else { return Ok(()) };
        let name = format!("bodies_{:06}.vtp", self.frames);
        let data = polygons(&self.scene.sim, self.scene.positions);
        write_atomic(&self.dir.join(&name), &data.to_xml())?;
        pvd.push(self.scene.sim.time(), &name)?;
        self.frames += 1;
        Ok(())
    }
}

/// The bodies as VTK PolyData: one polygon cell per body (its outline in the world frame;
/// a disc as a regular polygon of 24 sides), with cell arrays `id`, `velocity` (z = 0),
/// `angular_velocity`, `angle` and `prescribed` (1 for the walls' glued particles).
/// `positions` chooses the centres: wrapped into the periodic box or unwrapped.
pub fn polygons(sim: &Simulation, positions: PositionFrame) -> PolyData {
    let b = &sim.bodies;
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
