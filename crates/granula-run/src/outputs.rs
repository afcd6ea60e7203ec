//! The output folder of a run: which files are written at which step.

use crate::sim_solver::SimSolver;
use glam::DVec3;
use granula_core::{BodyHandle, StepReport, World};
use granula_io::output::{
    is_wall, loaded_contacts, love_weber_stress, open_csv, write_contact_list, write_contacts, write_particles,
    write_shapes, write_wall_loads, write_walls, ContactHistory, ContactRecord, PvdCollection, SeriesRow, WallDisplay,
    SERIES_HEADER, WALL_LOADS_HEADER,
};
use granula_io::scene::spec::OutputSpec;
use granula_io::scene::Scene;
use granula_io::{IoError, Result};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// What the outputs must remember across a checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OutputState {
    /// Frames of `particles.pvd`, `contacts.pvd`, `walls.pvd`, and `shapes.pvd` (the faces
    /// of polyhedra and other custom shapes) when the world has such bodies.
    pub collections: Vec<PvdCollection>,
    /// Per body handle: has its centre crossed the flow plane.
    pub passed: Vec<bool>,
    /// Mass that crossed the flow plane (kg).
    pub passed_mass: f64,
    /// Spheres that crossed the flow plane.
    pub passed_count: u64,
}

/// A followed body: its name and handle number.
type NamedBody = (String, u32);

/// A wall of `wall_loads.csv`: its label and handle.
type LabelledWall = (String, BodyHandle);

/// Open output files and their state.
pub struct Outputs {
    dir: PathBuf,
    spec: OutputSpec,
    state: OutputState,
    series: Option<BufWriter<File>>,
    trajectories: Option<(BufWriter<File>, Vec<NamedBody>)>,
    stress: Vec<BufWriter<File>>,
    flow: Option<BufWriter<File>>,
    wall_loads: Option<(BufWriter<File>, Vec<LabelledWall>)>,
    display: WallDisplay,
    records: Vec<ContactRecord>,
    contact_history: Option<ContactHistory>,
}

fn err(p: &Path) -> impl FnOnce(std::io::Error) -> IoError + '_ {
    move |e| IoError::file(p, e)
}

impl Outputs {
    /// Creates the folder and opens the files. With `resume`, files are appended to and
    /// collections continue.
    pub fn create(dir: &Path, scene: &Scene, resume: Option<OutputState>) -> Result<Self> {
        let spec = scene.spec.output.clone();
        let append = resume.is_some();
        std::fs::create_dir_all(dir).map_err(|e| IoError::file(dir, e))?;
        let mut state = resume.unwrap_or_default();
        if spec.vtk.is_some() {
            let vtk = dir.join("vtk");
            std::fs::create_dir_all(&vtk).map_err(|e| IoError::file(&vtk, e))?;
            if state.collections.is_empty() {
                state.collections = ["particles", "contacts", "walls"]
                    .iter()
                    .map(|n| PvdCollection::new(dir.join(format!("{n}.pvd"))))
                    .collect();
            }
        }
        if spec.contacts.is_some() {
            let c = dir.join("contacts");
            std::fs::create_dir_all(&c).map_err(|e| IoError::file(&c, e))?;
        }
        if state.passed.is_empty() {
            state.passed = vec![false; scene.bodies.len()];
        }
        let series = match spec.series {
            Some(_) => Some(open_csv(&dir.join("series.csv"), SERIES_HEADER, append)?),
            None => None,
        };
        let trajectories = match &spec.trajectories {
            Some(_) => {
                let ids = scene.trajectory_bodies();
                let header = "time,body,x,y,z,vx,vy,vz,wx,wy,wz";
                Some((open_csv(&dir.join("trajectories.csv"), header, append)?, ids))
            }
            None => None,
        };
        let header = "time,sxx,sxy,sxz,syx,syy,syz,szx,szy,szz,pressure,packing_fraction,particles";
        let stress = spec
            .stress
            .iter()
            .map(|s| open_csv(&dir.join(format!("stress_{}.csv", s.name)), header, append))
            .collect::<Result<_>>()?;
        let flow = match spec.flow {
            Some(_) => Some(open_csv(&dir.join("flow.csv"), "time,passed_mass,passed_count,bodies_left", append)?),
            None => None,
        };
        let wall_loads = match spec.wall_loads {
            Some(_) => Some((open_csv(&dir.join("wall_loads.csv"), WALL_LOADS_HEADER, append)?, scene_walls(scene))),
            None => None,
        };
        let contact_history = match (&spec.contact_history, scene.contact_filter()) {
            (Some(h), Some(filter)) => {
                let names: Vec<Option<String>> = scene.bodies.iter().map(|b| b.name.clone()).collect();
                Some(ContactHistory::create(dir, filter, &names, h.every, append)?)
            }
            _ => None,
        };
        Ok(Outputs {
            contact_history,
            dir: dir.to_path_buf(),
            spec,
            state,
            series,
            trajectories,
            stress,
            flow,
            wall_loads,
            display: WallDisplay { half_size: scene_extent(scene), segments: 48 },
            records: Vec::new(),
        })
    }

    /// The state to put in a checkpoint.
    pub fn state(&self) -> &OutputState {
        &self.state
    }

    /// Counts spheres whose centre went below the flow plane since the last call.
    pub fn count_flow(&mut self, world: &World) {
        let Some(f) = &self.spec.flow else { return };
        let b = &world.bodies;
        for i in 0..b.len() {
            let h = b.handle[i].0 as usize;
            if b.inv_mass[i] > 0.0 && b.shape[i].sphere_radius().is_some() && b.position[i].z < f.z {
                if let Some(p) = self.state.passed.get_mut(h) {
                    if !*p {
                        *p = true;
                        self.state.passed_mass += b.mass[i];
                        self.state.passed_count += 1;
                    }
                }
            }
        }
    }

    /// Whether something written at `step` reads the published contacts (the contact history
    /// reads them at every step).
    pub fn needs_contacts(&self, step: u64) -> bool {
        self.contact_history.is_some() || self.needs_contact_records(step)
    }

    /// Whether something written at `step` reads the records of all contacts.
    fn needs_contact_records(&self, step: u64) -> bool {
        let due = |e: Option<u64>| e.is_some_and(|e| step.is_multiple_of(e));
        due(self.spec.vtk.map(|e| e.every))
            || due(self.spec.series.map(|e| e.every))
            || due(self.spec.contacts.map(|e| e.every))
            || self.spec.stress.iter().any(|s| step.is_multiple_of(s.every))
    }

    /// Writes everything due at the world's current step.
    pub fn write(&mut self, world: &World, report: &StepReport, solver: &dyn SimSolver, dt: f64) -> Result<()> {
        // The driver turned publishing on for every step whose outputs read contacts; the
        // other steps write nothing from them.
        self.write_published(world, report, solver.contacts().unwrap_or(&[]), dt)
    }

    /// [`Outputs::write`] from the contacts published for the step (body indices of
    /// `world`) instead of a solver's: a distributed run gathers them from its ranks.
    pub fn write_published(
        &mut self,
        world: &World,
        report: &StepReport,
        published: &[ContactRecord],
        dt: f64,
    ) -> Result<()> {
        let step = world.step_count();
        let due = |e: Option<u64>| e.is_some_and(|e| step.is_multiple_of(e));
        if self.needs_contact_records(step) {
            loaded_contacts(world, published, &mut self.records);
        }
        if let Some(h) = &mut self.contact_history {
            h.observe(world, published, dt)?;
        }
        let t = world.time();
        if due(self.spec.series.map(|e| e.every)) {
            let row = SeriesRow::gather(world, report, &self.records);
            if let Some(w) = &mut self.series {
                writeln!(w, "{}", row.to_csv()).map_err(err(&self.dir.join("series.csv")))?;
                w.flush().map_err(err(&self.dir.join("series.csv")))?;
            }
        }
        if due(self.spec.vtk.map(|e| e.every)) {
            let names = ["particles", "contacts", "walls"];
            for (k, name) in names.iter().enumerate() {
                let rel = format!("vtk/{name}_{step:09}.vtp");
                let path = self.dir.join(&rel);
                match k {
                    0 => write_particles(&path, world)?,
                    1 => write_contacts(&path, world, &self.records)?,
                    _ => write_walls(&path, world, &self.display)?,
                }
                self.state.collections[k].push(t, &rel)?;
            }
            // Custom shapes (polyhedra) are drawn by their faces in a fourth collection,
            // opened at the first frame whose world has one (a checkpoint keeps it).
            let has_shapes = world.bodies.shape.iter().any(|s| matches!(s, granula_core::Shape::Custom(_)));
            if has_shapes && self.state.collections.len() == 3 {
                self.state.collections.push(PvdCollection::new(self.dir.join("shapes.pvd")));
            }
            if self.state.collections.len() > 3 {
                let rel = format!("vtk/shapes_{step:09}.vtp");
                write_shapes(&self.dir.join(&rel), world, &self.records)?;
                self.state.collections[3].push(t, &rel)?;
            }
        }
        if due(self.spec.contacts.map(|e| e.every)) {
            write_contact_list(&self.dir.join(format!("contacts/contacts_{step:09}.csv")), world, &self.records)?;
        }
        if let (Some((w, ids)), Some(tr)) = (&mut self.trajectories, &self.spec.trajectories) {
            if step.is_multiple_of(tr.every) {
                let b = &world.bodies;
                for (name, h) in ids.iter() {
                    let Ok(i) = b.index(granula_core::BodyHandle(*h)) else { continue };
                    let (x, v, o) = (b.position[i], b.velocity[i], b.angular_velocity[i]);
                    writeln!(
                        w,
                        "{t:?},{name},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?}",
                        x.x, x.y, x.z, v.x, v.y, v.z, o.x, o.y, o.z
                    )
                    .map_err(err(&self.dir.join("trajectories.csv")))?;
                }
                w.flush().map_err(err(&self.dir.join("trajectories.csv")))?;
            }
        }
        for (s, w) in self.spec.stress.iter().zip(self.stress.iter_mut()) {
            if step.is_multiple_of(s.every) {
                let r = love_weber_stress(world, &self.records, DVec3::from_array(s.min), DVec3::from_array(s.max));
                let m = r.sigma.transpose().to_cols_array();
                let path = self.dir.join(format!("stress_{}.csv", s.name));
                writeln!(
                    w,
                    "{t:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{}",
                    m[0],
                    m[1],
                    m[2],
                    m[3],
                    m[4],
                    m[5],
                    m[6],
                    m[7],
                    m[8],
                    r.pressure(world.planar),
                    r.packing_fraction,
                    r.particles
                )
                .map_err(err(&path))?;
                w.flush().map_err(err(&path))?;
            }
        }
        if let (Some((w, walls)), Some(e)) = (&mut self.wall_loads, &self.spec.wall_loads) {
            if step.is_multiple_of(e.every) {
                let path = self.dir.join("wall_loads.csv");
                write_wall_loads(w, world, walls).map_err(err(&path))?;
                w.flush().map_err(err(&path))?;
            }
        }
        if let (Some(w), Some(f)) = (&mut self.flow, &self.spec.flow) {
            if step.is_multiple_of(f.every) {
                let path = self.dir.join("flow.csv");
                writeln!(w, "{t:?},{:?},{},{}", self.state.passed_mass, self.state.passed_count, world.bodies.len())
                    .map_err(err(&path))?;
                w.flush().map_err(err(&path))?;
            }
        }
        Ok(())
    }
}

/// The walls of the scene (planes, cylinders, mesh walls) with their labels: the name, or
/// where the scene defines them (`planes[0]`); handles are the scene's body order.
fn scene_walls(scene: &Scene) -> Vec<LabelledWall> {
    let walls = scene.bodies.iter().enumerate().filter(|(_, b)| is_wall(&b.body.shape));
    walls.map(|(i, b)| (b.name.clone().unwrap_or_else(|| b.origin.clone()), BodyHandle(i as u32))).collect()
}

/// The largest extent of the scene's spheres (at least 10 radii): half-size of drawn walls.
fn scene_extent(scene: &Scene) -> f64 {
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    let mut r_max: f64 = 0.0;
    for b in &scene.bodies {
        if let Some(r) = b.body.shape.sphere_radius() {
            lo = lo.min(b.body.state.position - DVec3::splat(r));
            hi = hi.max(b.body.state.position + DVec3::splat(r));
            r_max = r_max.max(r);
        }
    }
    if r_max == 0.0 {
        return 1.0;
    }
    (hi - lo).max_element().max(10.0 * r_max)
}
