//! The slow-shear cell of 002 §3 (Fig. 2): polygons between two rough walls of glued
//! particles that move in opposite directions, periodic along x, with the walls' height
//! fixed (no dilation).
//!
//! The packing: a triangular lattice of `columns` × (`rows` + 2) random convex polygons
//! (5 to 8 vertices, random orientation, seeded), the bottom and top rows glued into the
//! walls (prescribed bodies that do not turn). The lattice spacing is `spacing` × 2R for
//! polygons of radius R (vertices on a circle of radius R before centring), below 1 so
//! that neighbours overlap at their corners and the packing is confined from the start;
//! [`ShearCell::build`] returns it at rest, and a run first relaxes it with the walls
//! still ([`Cell::relax`]) before they move ([`Cell::start_shear`]). 002 gives
//! neither the particle size nor the preparation: these are our choices.

use crate::bodies::BodyBuilder;
use crate::domain::Domain;
use crate::error::{positive, PlanarError, Result};
use crate::law::ContactLaw;
use crate::shape::Shape2;
use crate::simulation::Simulation;
use glam::DVec2;
use granula_polygons::shapes;
use std::ops::Range;
use std::sync::Arc;

/// The shape of the cell's particles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Particles {
    /// Random convex polygons of 5 to 8 vertices (002's particles).
    Polygons,
    /// Discs of radius R (for comparison and benchmarks).
    Discs,
}

/// Builder of the shear cell.
#[derive(Clone, Copy, Debug)]
pub struct ShearCell {
    /// Particles per row (the period is `columns` × lattice spacing).
    pub columns: usize,
    /// Rows of free particles (002: 16 × 16 = 256).
    pub rows: usize,
    /// Particle radius R (m).
    pub radius: f64,
    /// Lattice spacing over 2R.
    pub spacing: f64,
    /// Areal density (kg/m²).
    pub density: f64,
    /// Shear rate γ̇ (1/s): the walls move at ±γ̇ H/2 with H the distance between the
    /// walls' centre lines.
    pub shear_rate: f64,
    /// Seed of the shapes and orientations.
    pub seed: u64,
    /// Polygons or discs.
    pub particles: Particles,
}

impl Default for ShearCell {
    /// 002 §3: 256 polygons (16 × 16), γ̇ = 1.25e-5 1/s; R = 1 cm and 1000 kg/m² are ours.
    fn default() -> Self {
        ShearCell {
            columns: 16,
            rows: 16,
            radius: 0.01,
            spacing: 0.9,
            density: 1000.0,
            shear_rate: 1.25e-5,
            seed: 2,
            particles: Particles::Polygons,
        }
    }
}

/// A built cell: the simulation and where its parts are.
#[derive(Clone, Debug)]
pub struct Cell {
    /// The simulation (walls at rest).
    pub sim: Simulation,
    /// Indices of the bottom wall's particles.
    pub bottom: Range<usize>,
    /// Indices of the top wall's particles.
    pub top: Range<usize>,
    /// Indices of the free particles.
    pub free: Range<usize>,
    /// Period along x (m).
    pub width: f64,
    /// Distance between the walls' centre lines (m).
    pub height: f64,
    /// Shear rate γ̇ (1/s).
    pub shear_rate: f64,
}

/// Splitmix64: a fixed, portable sequence for the cell's shapes and angles.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn uniform(state: &mut u64) -> f64 {
    (next(state) >> 11) as f64 / (1u64 << 53) as f64
}

impl ShearCell {
    /// Builds the cell with `law`, time step `dt`: checks the sizes (at least 4 columns
    /// and one row, spacing in (0.5, 1.5]) and every body.
    pub fn build(&self, law: ContactLaw, dt: f64) -> Result<Cell> {
        positive("radius", self.radius)?;
        positive("density", self.density)?;
        if !self.shear_rate.is_finite() {
            return Err(PlanarError::BadParameter { name: "shear_rate", value: self.shear_rate, expected: "finite" });
        }
        if !(self.spacing > 0.5 && self.spacing <= 1.5) {
            return Err(PlanarError::BadParameter { name: "spacing", value: self.spacing, expected: "in (0.5, 1.5]" });
        }
        if self.columns < 4 || self.rows < 1 {
            return Err(PlanarError::BadParameter {
                name: "columns/rows",
                value: self.columns.min(self.rows) as f64,
                expected: "at least 4 columns and 1 row",
            });
        }
        let s = self.spacing * 2.0 * self.radius;
        let row_step = s * 3f64.sqrt() / 2.0;
        let width = self.columns as f64 * s;
        let rows = self.rows + 2;
        // Odd row counts would break the periodicity of the shifted rows only if the
        // lattice were periodic in y; it is not (walls), so any row count works.
        let mut builder = Simulation::builder(law).domain(Domain::periodic_x(0.0, width)).dt(dt);
        let mut rng = self.seed ^ 0x5DEE_CE66;
        for r in 0..rows {
            for c in 0..self.columns {
                let x = (c as f64 + 0.5 + 0.5 * (r % 2) as f64) * s;
                let y = r as f64 * row_step;
                let shape = match self.particles {
                    Particles::Polygons => {
                        let n = 5 + (next(&mut rng) % 4) as usize;
                        let p = shapes::random_convex(n, self.radius, 1.0, next(&mut rng))
                            .map_err(|source| PlanarError::BadPolygon { body: r * self.columns + c, source })?;
                        Shape2::Polygon(Arc::new(p))
                    }
                    Particles::Discs => Shape2::Disc { radius: self.radius },
                };
                let angle = uniform(&mut rng) * std::f64::consts::TAU;
                let body = match shape {
                    Shape2::Disc { radius } => BodyBuilder::disc(radius),
                    Shape2::Polygon(p) => BodyBuilder::polygon(p),
                };
                let body = body.position(DVec2::new(x, y)).angle(angle).density(self.density);
                let body = if r == 0 || r == rows - 1 { body.prescribed(DVec2::ZERO) } else { body };
                builder = builder.body(body);
            }
        }
        let sim = builder.build()?;
        let n = self.columns;
        Ok(Cell {
            sim,
            bottom: 0..n,
            free: n..n * (rows - 1),
            top: n * (rows - 1)..n * rows,
            width,
            height: (rows - 1) as f64 * row_step,
            shear_rate: self.shear_rate,
        })
    }
}

impl Cell {
    /// Runs `steps` steps with the walls at rest.
    pub fn relax(&mut self, steps: usize) -> Result<()> {
        self.set_wall_speed(0.0)?;
        self.sim.run(steps)
    }

    /// Sets the walls moving in opposite directions at ±γ̇ H/2 (bottom −x, top +x).
    pub fn start_shear(&mut self) -> Result<()> {
        self.set_wall_speed(0.5 * self.shear_rate * self.height)
    }

    fn set_wall_speed(&mut self, v: f64) -> Result<()> {
        for i in self.bottom.clone() {
            self.sim.bodies.set_prescribed_velocity(i, DVec2::new(-v, 0.0))?;
        }
        for i in self.top.clone() {
            self.sim.bodies.set_prescribed_velocity(i, DVec2::new(v, 0.0))?;
        }
        Ok(())
    }

    /// Kinetic energy of the free particles (002 eq. 11) (J).
    pub fn kinetic_energy(&self) -> f64 {
        self.sim.bodies.kinetic_energy()
    }

    /// Shear stress and pressure on the walls (N/m, forces per unit length in 2D), each
    /// the mean of the two walls: τ = (F_x,bottom − F_x,top) / 2W and
    /// p = (F_y,top − F_y,bottom) / 2W with F the contact forces on the wall particles.
    pub fn wall_stress(&self) -> (f64, f64) {
        let sum = |r: Range<usize>| -> DVec2 { r.map(|i| self.sim.bodies.force[i]).sum() };
        let (fb, ft) = (sum(self.bottom.clone()), sum(self.top.clone()));
        ((fb.x - ft.x) / (2.0 * self.width), (ft.y - fb.y) / (2.0 * self.width))
    }

    /// Shear strain γ̇ t since the shear started at `start` (s).
    pub fn strain(&self, start: f64) -> f64 {
        self.shear_rate * (self.sim.time() - start)
    }
}
