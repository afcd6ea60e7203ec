//! The slow-shear cell of 002 §3 (Fig. 2) as a planar world of the core: polygons between
//! two rough walls of glued particles that move in opposite directions, periodic along x,
//! with the walls' height fixed (no dilation).
//!
//! The packing: a triangular lattice of `columns` × (`rows` + 2) random convex polygons
//! (5 to 8 vertices, random orientation, seeded), the bottom and top rows glued into the
//! walls (kinematic bodies that do not turn). The lattice spacing is `spacing` × 2R for
//! polygons of radius R (vertices on a circle of radius R before centring), below 1 so that
//! neighbours overlap at their corners and the packing is confined from the start; the
//! walls start at rest, and a run first relaxes the packing before [`Cell::start_shear`]
//! sets them moving. 002 gives neither the particle size nor the preparation: these are
//! our choices. The same seed gives the same bodies as the 2D engine this cell was first
//! built on, so results carry over.
//!
//! The solver is the caller's: any MD law of the planar world (002's area law with
//! Cundall's spring or the predictor-based elongation) and any integrator.

use granula_core::narrowphase::Narrowphase;
use granula_core::{Axis, BodyHandle, CoreError, DVec3, Prescribed, RigidBodyBuilder, Shape, World};
use granula_polygons::{register_all_areal, shapes, PolygonBodyError, PolygonBuilder, PolygonError};
use std::ops::Range;
use std::sync::Arc;

/// Why a cell could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ShearCellError {
    /// A parameter out of its range.
    #[error("shear cell: {name} = {value} must be {expected}")]
    BadParameter {
        /// The parameter.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What it must be.
        expected: &'static str,
    },
    /// A random outline could not be drawn.
    #[error("shear cell: the outline of body {body}: {source}")]
    Outline {
        /// Lattice index of the body.
        body: usize,
        /// The cause.
        source: PolygonError,
    },
    /// A body was refused.
    #[error("shear cell: body {body}: {source}")]
    Body {
        /// Lattice index of the body.
        body: usize,
        /// The cause.
        source: PolygonBodyError,
    },
    /// The world was refused.
    #[error("shear cell: {0}")]
    Core(#[from] CoreError),
}

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
    /// Areal density (kg/m² over the unit thickness).
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

/// A built cell: the world and where its parts are (dense indices, in insertion order).
/// Build the same cell again and restore a saved `WorldState` into it to fork a run.
#[derive(Debug)]
pub struct Cell {
    /// The world, walls at rest, no gravity, periodic along x.
    pub world: World,
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

fn bad(name: &'static str, value: f64, expected: &'static str) -> ShearCellError {
    ShearCellError::BadParameter { name, value, expected }
}

impl ShearCell {
    fn check(&self) -> Result<(), ShearCellError> {
        for (name, v) in [("radius", self.radius), ("density", self.density)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(bad(name, v, "finite and positive"));
            }
        }
        if !self.shear_rate.is_finite() {
            return Err(bad("shear_rate", self.shear_rate, "finite"));
        }
        if !(self.spacing > 0.5 && self.spacing <= 1.5) {
            return Err(bad("spacing", self.spacing, "in (0.5, 1.5]"));
        }
        if self.columns < 4 || self.rows < 1 {
            return Err(bad("columns/rows", self.columns.min(self.rows) as f64, "at least 4 columns and 1 row"));
        }
        Ok(())
    }

    /// Builds the cell: checks the sizes (at least 4 columns and one row, spacing in
    /// (0.5, 1.5]) and every body. The walls are kinematic bodies at rest, rotation locked.
    pub fn build(&self) -> Result<Cell, ShearCellError> {
        self.check()?;
        let s = self.spacing * 2.0 * self.radius;
        let row_step = s * 3f64.sqrt() / 2.0;
        let width = self.columns as f64 * s;
        let rows = self.rows + 2;
        let mut narrowphase = Narrowphase::new();
        register_all_areal(&mut narrowphase)?;
        let mut world = World::builder()
            .planar(true)
            .gravity(DVec3::ZERO)
            .periodic(Axis::X, 0.0, width)
            .narrowphase(narrowphase)
            .build()?;
        let mut rng = self.seed ^ 0x5DEE_CE66;
        for r in 0..rows {
            for c in 0..self.columns {
                let index = r * self.columns + c;
                let position = glam::DVec2::new((c as f64 + 0.5 + 0.5 * (r % 2) as f64) * s, r as f64 * row_step);
                let polygon = match self.particles {
                    Particles::Polygons => {
                        let n = 5 + (next(&mut rng) % 4) as usize;
                        let p = shapes::random_convex(n, self.radius, 1.0, next(&mut rng))
                            .map_err(|source| ShearCellError::Outline { body: index, source })?;
                        Some(Arc::new(p))
                    }
                    Particles::Discs => None,
                };
                let angle = uniform(&mut rng) * std::f64::consts::TAU;
                let wall = r == 0 || r == rows - 1;
                let body = match polygon {
                    Some(p) => {
                        let b = PolygonBuilder::new(p, position).angle(angle).density(self.density);
                        let b = if wall { b.kinematic(glam::DVec2::ZERO, 0.0) } else { b };
                        b.build().map_err(|source| ShearCellError::Body { body: index, source })?
                    }
                    None => {
                        let b = RigidBodyBuilder::new(Shape::Sphere { radius: self.radius }, position.extend(0.0))
                            .orientation(glam::DQuat::from_rotation_z(angle))
                            .density(self.density);
                        let b = if wall {
                            b.kinematic(Prescribed::Constant(DVec3::ZERO), Prescribed::Constant(DVec3::ZERO))
                        } else {
                            b
                        };
                        b.build()?
                    }
                };
                world.insert(body)?;
            }
        }
        // The lattice is packed below contact on purpose (the cell starts confined).
        world.accept_overlaps();
        let n = self.columns;
        Ok(Cell {
            world,
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
    /// Sets the walls moving in opposite directions at ±γ̇ H/2 (bottom −x, top +x).
    pub fn start_shear(&mut self) -> Result<(), CoreError> {
        self.set_wall_speed(0.5 * self.shear_rate * self.height)
    }

    /// Sets the walls' speed from now on: bottom at −`v` along x, top at +`v` (m/s).
    pub fn set_wall_speed(&mut self, v: f64) -> Result<(), CoreError> {
        let time = self.world.time();
        for (range, sign) in [(self.bottom.clone(), -1.0), (self.top.clone(), 1.0)] {
            for i in range {
                let h = self.world.bodies.handle[i];
                let linear = Prescribed::Constant(DVec3::new(sign * v, 0.0, 0.0));
                self.world.bodies.set_drive(h, linear, Prescribed::default(), time)?;
            }
        }
        Ok(())
    }

    /// Handles of the free particles.
    pub fn free_handles(&self) -> Vec<BodyHandle> {
        self.free.clone().map(|i| self.world.bodies.handle[i]).collect()
    }

    /// Kinetic energy of the free particles, translation and rotation (002 eq. 11) (J).
    pub fn kinetic_energy(&self) -> f64 {
        let b = &self.world.bodies;
        self.free
            .clone()
            .map(|i| {
                let (v, w) = (b.velocity[i], b.angular_velocity[i]);
                0.5 * b.mass[i] * v.length_squared() + 0.5 * w.z * w.z * b.inertia[i].z
            })
            .sum()
    }

    /// Shear stress and pressure on the walls (N/m, forces per unit length in 2D), each the
    /// mean of the two walls: τ = (F_x,bottom − F_x,top) / 2W and p = (F_y,top − F_y,bottom)
    /// / 2W, F the contact forces on the wall particles of the last step.
    pub fn wall_stress(&self) -> (f64, f64) {
        let sum = |r: Range<usize>| -> DVec3 { r.map(|i| self.world.bodies.force[i]).sum() };
        let (fb, ft) = (sum(self.bottom.clone()), sum(self.top.clone()));
        ((fb.x - ft.x) / (2.0 * self.width), (ft.y - fb.y) / (2.0 * self.width))
    }
}
