//! The planar MD solver: Gear predictor-corrector (002 Appendix A), cell-list broadphase
//! with periodic and Lees-Edwards images, the 002 contact law per pair, rough walls of
//! prescribed particles and straight walls.

use crate::bodies::{Bodies, BodyBuilder, Motion};
use crate::domain::{Domain, Image};
use crate::error::{positive, PlanarError, Result};
use crate::law::{ContactLaw, ContactState, PairForce, PairKinematics};
use crate::narrowphase::{pair_overlap, wall_overlap, Rotation};
use glam::DVec2;
use granula_integrators::GearCoefficients;
use granula_polygons::OverlapScratch;
use rayon::prelude::*;
use std::cell::RefCell;

/// A straight wall: the half-plane behind the line through `point` with unit `normal`
/// pointing to the free side, fixed or translating at a constant `velocity` (a belt, a
/// piston, the plates of a shear cell): at time t the line passes through
/// `point + velocity · t`. Infinite mass, no rotation. Its contacts use l_c = 2r of the body
/// (as against an equal particle: the same force per overlap area as between two equal
/// bodies), the body's mass as reduced mass, and the body's velocity relative to the wall.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfPlane {
    /// A point of the line at t = 0 (m).
    pub point: DVec2,
    /// Unit normal to the free side.
    pub normal: DVec2,
    /// Translation velocity (m/s); zero for a fixed wall.
    pub velocity: DVec2,
}

impl HalfPlane {
    /// A fixed wall through `point` with unit `normal` towards the free side.
    pub fn new(point: DVec2, normal: DVec2) -> Self {
        HalfPlane { point, normal, velocity: DVec2::ZERO }
    }

    /// The same wall translating at `velocity` (m/s).
    pub fn moving(self, velocity: DVec2) -> Self {
        HalfPlane { velocity, ..self }
    }

    /// A point of the line at time `t` (s): `point + velocity · t`.
    pub fn point_at(&self, t: f64) -> DVec2 {
        self.point + self.velocity * t
    }
}

/// One contact (a pair with a non-empty overlap), as published after a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Body i (the lower index), or the wall index for a wall contact.
    pub i: u32,
    /// Body j.
    pub j: u32,
    /// Whether `i` is a [`HalfPlane`] index.
    pub wall: bool,
    /// The minimum image: x_j(image) − x_i and the image's velocity shift.
    pub image: Image,
    /// Contact point (overlap centroid) relative to x_i (m).
    pub branch_i: DVec2,
    /// Unit normal from i to j.
    pub normal: DVec2,
    /// Overlap area A (m²).
    pub area: f64,
    /// Forces of the contact (on i; on j the opposite).
    pub force: PairForce,
    /// The history carried to the next step.
    pub state: ContactState,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Pair {
    pub(crate) i: u32,
    pub(crate) j: u32,
    pub(crate) image: Image,
    state: ContactState,
    result: Option<(DVec2, DVec2, f64, PairForce)>,
}

/// Run-time settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// Time step Δt (s).
    pub dt: f64,
    /// Gravity (m/s²).
    pub gravity: DVec2,
    /// Gear corrector weights (002 Appendix A: [`GearCoefficients::SIX`]).
    pub gear: GearCoefficients,
    /// Pairs evaluated in parallel (rayon) when there are at least this many; the
    /// reduction is serial in pair order, so results are the same bits on any number of
    /// threads.
    pub parallel_threshold: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config { dt: 1e-4, gravity: DVec2::ZERO, gear: GearCoefficients::SIX, parallel_threshold: 512 }
    }
}

/// Builder of a [`Simulation`].
#[derive(Clone, Debug)]
pub struct SimulationBuilder {
    law: ContactLaw,
    domain: Domain,
    config: Config,
    bodies: Vec<BodyBuilder>,
    walls: Vec<HalfPlane>,
}

impl SimulationBuilder {
    /// The domain (default open).
    pub fn domain(mut self, domain: Domain) -> Self {
        self.domain = domain;
        self
    }

    /// Time step Δt (s).
    pub fn dt(mut self, dt: f64) -> Self {
        self.config.dt = dt;
        self
    }

    /// Gravity (m/s²).
    pub fn gravity(mut self, g: DVec2) -> Self {
        self.config.gravity = g;
        self
    }

    /// Gear corrector (default [`GearCoefficients::SIX`], 002 Appendix A).
    pub fn gear(mut self, gear: GearCoefficients) -> Self {
        self.config.gear = gear;
        self
    }

    /// Minimum number of pairs for a parallel evaluation.
    pub fn parallel_threshold(mut self, n: usize) -> Self {
        self.config.parallel_threshold = n;
        self
    }

    /// Adds a body.
    pub fn body(mut self, body: BodyBuilder) -> Self {
        self.bodies.push(body);
        self
    }

    /// Adds a straight wall, fixed or translating ([`HalfPlane::moving`]).
    pub fn wall(mut self, wall: HalfPlane) -> Self {
        self.walls.push(wall);
        self
    }

    /// The checked simulation: every body (errors name it), Δt > 0, finite gravity,
    /// unit wall normals, and the domain against the largest body.
    pub fn build(self) -> Result<Simulation> {
        positive("dt", self.config.dt)?;
        if !self.config.gravity.is_finite() {
            return Err(PlanarError::BadParameter {
                name: "gravity",
                value: self.config.gravity.x,
                expected: "finite",
            });
        }
        let bodies = checked_bodies(self.bodies, &self.walls, &self.domain)?;
        Ok(Simulation {
            bodies,
            walls: self.walls,
            domain: self.domain,
            law: self.law,
            config: self.config,
            time: 0.0,
            steps: 0,
            started: 0,
            contacts: Vec::new(),
            pairs: Vec::new(),
            cells: Cells::default(),
            chunk_pairs: Vec::new(),
            rotations: Vec::new(),
            old_walls: Vec::new(),
            scratch: OverlapScratch::default(),
        })
    }
}

/// The bodies of `builders` (errors name the body), after checking that every wall has a
/// unit normal and a finite point and that the domain's periods hold the largest body:
/// what the MD and the contact dynamics builders share.
pub(crate) fn checked_bodies(builders: Vec<BodyBuilder>, walls: &[HalfPlane], domain: &Domain) -> Result<Bodies> {
    let mut bodies = Bodies::default();
    for b in builders {
        b.add_to(&mut bodies)?;
    }
    for w in walls {
        if !(w.point.is_finite() && (w.normal.length() - 1.0).abs() < 1e-9) {
            return Err(PlanarError::BadParameter {
                name: "wall.normal",
                value: w.normal.length(),
                expected: "a unit normal and a finite point",
            });
        }
        if !w.velocity.is_finite() {
            return Err(PlanarError::BadParameter {
                name: "wall.velocity",
                value: w.velocity.length(),
                expected: "a finite velocity",
            });
        }
    }
    let max_r = bodies.circumradius.iter().cloned().fold(0.0, f64::max);
    domain.check(max_r)?;
    Ok(bodies)
}

/// A planar MD simulation: bodies, walls, domain, law and the Gear state.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// The bodies (public columns; edit velocities or prescribed velocities between steps).
    pub bodies: Bodies,
    pub(crate) walls: Vec<HalfPlane>,
    pub(crate) domain: Domain,
    pub(crate) law: ContactLaw,
    pub(crate) config: Config,
    pub(crate) time: f64,
    pub(crate) steps: u64,
    pub(crate) started: usize,
    pub(crate) contacts: Vec<Contact>,
    pub(crate) pairs: Vec<Pair>,
    pub(crate) cells: Cells,
    pub(crate) chunk_pairs: Vec<(Vec<u32>, Vec<Pair>)>,
    pub(crate) rotations: Vec<Rotation>,
    pub(crate) old_walls: Vec<Contact>,
    pub(crate) scratch: OverlapScratch,
}

/// Bodies per broadphase chunk.
const BROADPHASE_CHUNK: usize = 256;

thread_local! {
    static SCRATCH: RefCell<OverlapScratch> = RefCell::new(OverlapScratch::default());
}

const PASCAL: [[f64; 6]; 6] = [
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 2.0, 1.0, 0.0, 0.0, 0.0],
    [1.0, 3.0, 3.0, 1.0, 0.0, 0.0],
    [1.0, 4.0, 6.0, 4.0, 1.0, 0.0],
    [1.0, 5.0, 10.0, 10.0, 5.0, 1.0],
];

/// Taylor predictor of the scaled values r₀ … r_{n−1}: r_kᵖ = Σ_{j ≥ k} C(j, k) r_j.
#[inline]
fn taylor<T: Copy + std::ops::Add<Output = T> + std::ops::Mul<f64, Output = T>>(r: &mut [T; 6], n: usize) {
    for k in 0..n {
        let mut p = r[k];
        for j in k + 1..n {
            p = p + r[j] * PASCAL[j][k];
        }
        r[k] = p;
    }
}

impl Simulation {
    /// A builder with the contact law; every other setting has a default.
    pub fn builder(law: ContactLaw) -> SimulationBuilder {
        SimulationBuilder {
            law,
            domain: Domain::default(),
            config: Config::default(),
            bodies: Vec::new(),
            walls: Vec::new(),
        }
    }

    /// Adds a body between steps; its Gear scheme starts from its acceleration at the
    /// next step's start. Returns its index.
    pub fn add_body(&mut self, body: BodyBuilder) -> Result<usize> {
        let i = body.add_to(&mut self.bodies)?;
        let max_r = self.bodies.circumradius.iter().cloned().fold(0.0, f64::max);
        if let Err(e) = self.domain.check(max_r) {
            // Undo: the body would break the periodic box.
            self.truncate_bodies(i);
            return Err(e);
        }
        Ok(i)
    }

    fn truncate_bodies(&mut self, n: usize) {
        let b = &mut self.bodies;
        b.position.truncate(n);
        b.angle.truncate(n);
        b.velocity.truncate(n);
        b.angular_velocity.truncate(n);
        b.force.truncate(n);
        b.torque.truncate(n);
        b.external_force.truncate(n);
        b.mass.truncate(n);
        b.inertia.truncate(n);
        b.inv_mass.truncate(n);
        b.inv_inertia.truncate(n);
        b.shape.truncate(n);
        b.equivalent_radius.truncate(n);
        b.circumradius.truncate(n);
        b.motion.truncate(n);
        b.gear_linear.truncate(n);
        b.gear_angular.truncate(n);
    }

    /// The time (s).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The time step Δt (s).
    pub fn dt(&self) -> f64 {
        self.config.dt
    }

    /// Changes Δt: the Gear scaled derivatives are rescaled, r_k ← r_k (Δt'/Δt)^k.
    pub fn set_dt(&mut self, dt: f64) -> Result<()> {
        positive("dt", dt)?;
        let q = dt / self.config.dt;
        for i in 0..self.bodies.len() {
            let mut f = q * q;
            for k in 0..4 {
                self.bodies.gear_linear[i][k] *= f;
                self.bodies.gear_angular[i][k] *= f;
                f *= q;
            }
        }
        self.config.dt = dt;
        Ok(())
    }

    /// Body `i`'s centre mapped into the periodic box at the current time (for output in
    /// the box; the state keeps the unwrapped trajectory, `bodies.position`).
    pub fn wrapped_position(&self, i: usize) -> DVec2 {
        self.domain.wrap(self.bodies.position[i], self.time)
    }

    /// The domain.
    pub fn domain(&self) -> &Domain {
        &self.domain
    }

    /// The contact law.
    pub fn law(&self) -> &ContactLaw {
        &self.law
    }

    /// Sets the minimum number of pairs for a parallel evaluation (0: always parallel).
    pub fn set_parallel_threshold(&mut self, n: usize) {
        self.config.parallel_threshold = n;
    }

    /// Replaces the contact law between steps; the contact histories are kept (a spring
    /// beyond the new Coulomb limit is capped at the next evaluation).
    pub fn set_law(&mut self, law: ContactLaw) {
        self.law = law;
    }

    /// The contacts of the last force evaluation, sorted by (i, j), body pairs first,
    /// then wall contacts.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// The straight walls.
    pub fn walls(&self) -> &[HalfPlane] {
        &self.walls
    }

    /// Runs `n` steps.
    pub fn run(&mut self, n: usize) -> Result<()> {
        for _ in 0..n {
            self.step()?;
        }
        Ok(())
    }

    /// One Gear step (002 Appendix A): predict every body's position, angle and
    /// derivatives by their Taylor series, evaluate the contact forces at the predicted
    /// state (t + Δt), correct with Δ = r̈ Δt²/2 − r₂ᵖ, r_k = r_kᵖ + α_k Δ.
    pub fn step(&mut self) -> Result<()> {
        let dt = self.config.dt;
        if self.started < self.bodies.len() {
            self.start_new_bodies();
        }
        let n = self.config.gear.values.min(6);
        let b = &mut self.bodies;
        for i in 0..b.len() {
            match b.motion[i] {
                Motion::Prescribed { velocity } => {
                    b.position[i] += velocity * dt;
                    b.velocity[i] = velocity;
                }
                Motion::Dynamic => {
                    let g = b.gear_linear[i];
                    let mut r = [b.position[i], b.velocity[i] * dt, g[0], g[1], g[2], g[3]];
                    taylor(&mut r, n);
                    b.position[i] = r[0];
                    b.velocity[i] = r[1] / dt;
                    b.gear_linear[i] = [r[2], r[3], r[4], r[5]];
                    if b.inv_inertia[i] > 0.0 {
                        let g = b.gear_angular[i];
                        let mut r = [b.angle[i], b.angular_velocity[i] * dt, g[0], g[1], g[2], g[3]];
                        taylor(&mut r, n);
                        b.angle[i] = r[0];
                        b.angular_velocity[i] = r[1] / dt;
                        b.gear_angular[i] = [r[2], r[3], r[4], r[5]];
                    }
                }
            }
        }
        self.evaluate(self.time + dt, dt, true);
        let alpha = self.config.gear.alpha;
        let half = 0.5 * dt * dt;
        let gravity = self.config.gravity;
        let b = &mut self.bodies;
        for i in 0..b.len() {
            if !b.is_dynamic(i) {
                continue;
            }
            let a = (b.force[i] + b.external_force[i]) * b.inv_mass[i] + gravity;
            let g = &mut b.gear_linear[i];
            let delta = a * half - g[0];
            b.position[i] += delta * alpha[0];
            b.velocity[i] += delta * (alpha[1] / dt);
            for k in 0..n - 2 {
                g[k] += delta * alpha[k + 2];
            }
            if b.inv_inertia[i] > 0.0 {
                let ga = &mut b.gear_angular[i];
                let delta = b.torque[i] * b.inv_inertia[i] * half - ga[0];
                b.angle[i] += delta * alpha[0];
                b.angular_velocity[i] += delta * (alpha[1] / dt);
                for k in 0..n - 2 {
                    ga[k] += delta * alpha[k + 2];
                }
            }
        }
        self.time += dt;
        self.steps += 1;
        self.check_finite()
    }

    fn check_finite(&self) -> Result<()> {
        let b = &self.bodies;
        for i in 0..b.len() {
            let field = if !b.position[i].is_finite() {
                "position"
            } else if !b.velocity[i].is_finite() {
                "velocity"
            } else if !(b.angle[i].is_finite() && b.angular_velocity[i].is_finite()) {
                "angle"
            } else {
                continue;
            };
            return Err(PlanarError::NonFinite { body: i, field, step: self.steps });
        }
        Ok(())
    }

    /// Gear start-up of bodies added since the last step: r₂ = r̈ Δt²/2 from the forces at
    /// the current state (evaluated without touching the contact histories), higher
    /// derivatives zero.
    fn start_new_bodies(&mut self) {
        let saved = std::mem::take(&mut self.contacts);
        self.evaluate(self.time, self.config.dt, false);
        self.contacts = saved;
        let half = 0.5 * self.config.dt * self.config.dt;
        let g = self.config.gravity;
        let b = &mut self.bodies;
        for i in self.started..b.len() {
            if b.is_dynamic(i) {
                b.gear_linear[i] = [
                    ((b.force[i] + b.external_force[i]) * b.inv_mass[i] + g) * half,
                    DVec2::ZERO,
                    DVec2::ZERO,
                    DVec2::ZERO,
                ];
                b.gear_angular[i] = [b.torque[i] * b.inv_inertia[i] * half, 0.0, 0.0, 0.0];
            }
        }
        self.started = b.len();
    }

    /// Contact forces and torques at the current positions (time `time`): broadphase,
    /// overlap and law per pair (in parallel above the threshold), serial reduction in
    /// pair order. With `keep`, the new contact list (with histories) replaces the old.
    fn evaluate(&mut self, time: f64, dt: f64, keep: bool) {
        let b = &mut self.bodies;
        b.force.iter_mut().for_each(|f| *f = DVec2::ZERO);
        b.torque.iter_mut().for_each(|t| *t = 0.0);
        self.cells.build(b, &self.domain, time);
        self.pairs.clear();
        // Fixed chunks of bodies (their number does not depend on the threads), each with
        // its own pair buffer, concatenated in chunk order: the same list on any pool.
        let n = b.len();
        let chunks = n.div_ceil(BROADPHASE_CHUNK).max(1);
        if self.chunk_pairs.len() < chunks {
            self.chunk_pairs.resize_with(chunks, Default::default);
        }
        {
            let (cells, domain, bodies) = (&self.cells, &self.domain, &*b);
            let work = |(k, (candidates, out)): (usize, &mut (Vec<u32>, Vec<Pair>))| {
                out.clear();
                let range = k * BROADPHASE_CHUNK..((k + 1) * BROADPHASE_CHUNK).min(n);
                cells.find_pairs(bodies, domain, time, range, candidates, out);
            };
            if n >= 2 * BROADPHASE_CHUNK && self.config.parallel_threshold <= n {
                self.chunk_pairs[..chunks].par_iter_mut().enumerate().for_each(work);
            } else {
                self.chunk_pairs[..chunks].iter_mut().enumerate().for_each(work);
            }
        }
        for (_, out) in &self.chunk_pairs[..chunks] {
            self.pairs.extend_from_slice(out);
        }
        // Carry the histories over by key (both lists are sorted by (i, j)).
        let mut k = 0;
        for p in self.pairs.iter_mut() {
            while k < self.contacts.len()
                && !self.contacts[k].wall
                && (self.contacts[k].i, self.contacts[k].j) < (p.i, p.j)
            {
                k += 1;
            }
            if k < self.contacts.len()
                && !self.contacts[k].wall
                && (self.contacts[k].i, self.contacts[k].j) == (p.i, p.j)
            {
                p.state = self.contacts[k].state;
            }
        }
        self.rotations.clear();
        self.rotations.extend(b.angle.iter().map(|&a| Rotation::new(a)));
        let rotations = &self.rotations;
        let law = &self.law;
        let bodies = &*b;
        let eval = |p: &mut Pair, scratch: &mut OverlapScratch| {
            let (i, j) = (p.i as usize, p.j as usize);
            p.result = pair_overlap(
                &bodies.shape[i],
                rotations[i],
                &bodies.shape[j],
                p.image.separation,
                rotations[j],
                scratch,
            )
            .map(|o| {
                let kin = PairKinematics {
                    reduced_mass: reduced_mass(bodies.inv_mass[i], bodies.inv_mass[j]),
                    length: bodies.equivalent_radius[i] + bodies.equivalent_radius[j],
                    separation: p.image.separation,
                    velocity_i: bodies.velocity[i],
                    velocity_j: bodies.velocity[j] + p.image.velocity_shift,
                    spin_i: bodies.angular_velocity[i],
                    spin_j: bodies.angular_velocity[j],
                    angle_i: bodies.angle[i],
                    angle_j: bodies.angle[j],
                };
                let f = law.evaluate(&o, &kin, &mut p.state, dt);
                (o.centroid, o.normal, o.area, f)
            });
        };
        if self.pairs.len() >= self.config.parallel_threshold {
            self.pairs.par_iter_mut().for_each(|p| SCRATCH.with(|s| eval(p, &mut s.borrow_mut())));
        } else {
            for p in self.pairs.iter_mut() {
                eval(p, &mut self.scratch);
            }
        }
        let mut old_walls = std::mem::take(&mut self.old_walls);
        old_walls.clear();
        if keep {
            old_walls.extend(self.contacts.iter().filter(|c| c.wall).copied());
        }
        if keep {
            self.contacts.clear();
        }
        let b = &mut self.bodies;
        for p in &self.pairs {
            if let Some((c, n, area, f)) = p.result {
                let (i, j) = (p.i as usize, p.j as usize);
                b.force[i] += f.force_i;
                b.force[j] -= f.force_i;
                b.torque[i] += f.torque_i;
                b.torque[j] += f.torque_j;
                if keep {
                    self.contacts.push(Contact {
                        i: p.i,
                        j: p.j,
                        wall: false,
                        image: p.image,
                        branch_i: c,
                        normal: n,
                        area,
                        force: f,
                        state: p.state,
                    });
                }
            }
        }
        // Straight walls: every dynamic body against every wall (walls are few).
        let mut k = 0;
        for (w, wall) in self.walls.iter().enumerate() {
            for j in 0..b.len() {
                if !b.is_dynamic(j) {
                    continue;
                }
                let rel = b.position[j] - wall.point_at(time);
                if rel.dot(wall.normal) >= b.circumradius[j] {
                    continue;
                }
                let Some(o) = wall_overlap(wall.normal, &b.shape[j], rel, b.angle[j], &mut self.scratch) else {
                    continue;
                };
                let key = (w as u32, j as u32);
                while k < old_walls.len() && (old_walls[k].i, old_walls[k].j) < key {
                    k += 1;
                }
                let mut state = if k < old_walls.len() && (old_walls[k].i, old_walls[k].j) == key {
                    old_walls[k].state
                } else {
                    ContactState::default()
                };
                let kin = PairKinematics {
                    reduced_mass: b.mass[j],
                    length: 2.0 * b.equivalent_radius[j],
                    separation: rel,
                    velocity_i: wall.velocity,
                    velocity_j: b.velocity[j],
                    spin_i: 0.0,
                    spin_j: b.angular_velocity[j],
                    angle_i: 0.0,
                    angle_j: b.angle[j],
                };
                let f = self.law.evaluate(&o, &kin, &mut state, dt);
                b.force[j] -= f.force_i;
                b.torque[j] += f.torque_j;
                if keep {
                    self.contacts.push(Contact {
                        i: w as u32,
                        j: j as u32,
                        wall: true,
                        image: Image { separation: rel, velocity_shift: DVec2::ZERO },
                        branch_i: o.centroid,
                        normal: o.normal,
                        area: o.area,
                        force: f,
                        state,
                    });
                }
            }
        }
        self.old_walls = old_walls;
    }

    /// The Love-Weber stress tensor σ_αβ = −(1/A) Σ_c f_α d_β (Pa·m in 2D, N/m) of the
    /// body-body contacts, with f the force on body i and d = x_j − x_i through the
    /// minimum image: compression positive. Each contact is in the list once, a bond across
    /// a periodic boundary included, so it counts once. `area` is the region's area (the
    /// periodic box's for a fully periodic domain).
    pub fn stress(&self, area: f64) -> [[f64; 2]; 2] {
        let mut s = [[0.0; 2]; 2];
        for c in self.contacts.iter().filter(|c| !c.wall) {
            let f = c.force.force_i;
            let d = c.image.separation;
            s[0][0] -= f.x * d.x;
            s[0][1] -= f.x * d.y;
            s[1][0] -= f.y * d.x;
            s[1][1] -= f.y * d.y;
        }
        for row in &mut s {
            for v in row.iter_mut() {
                *v /= area;
            }
        }
        s
    }

    /// Elastic energy stored in the tangential springs, Σ ½ k_t ξ² (J).
    pub fn spring_energy(&self) -> f64 {
        let kt = self.law.tangential_stiffness;
        self.contacts.iter().map(|c| 0.5 * kt * c.state.xi * c.state.xi).sum()
    }
}

#[inline]
fn reduced_mass(inv_i: f64, inv_j: f64) -> f64 {
    // Prescribed bodies have 1/m = 0: the reduced mass is the dynamic body's mass.
    1.0 / (inv_i + inv_j)
}

/// The cell list: bodies binned by their wrapped centre into square-ish cells at least
/// one interaction range (twice the largest bounding radius) wide.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cells {
    /// Extra reach (m) added to the bounding discs: two bodies whose bounding discs are
    /// closer than this are a pair (0 for MD, the alert distance for contact dynamics).
    pub(crate) margin: f64,
    origin: DVec2,
    width: DVec2,
    range: f64,
    nx: usize,
    ny: usize,
    start: Vec<u32>,
    next: Vec<u32>,
    items: Vec<u32>,
    cell_of: Vec<u32>,
    wrapped: Vec<DVec2>,
}

impl Cells {
    pub(crate) fn build(&mut self, b: &Bodies, domain: &Domain, time: f64) {
        let n = b.len();
        let max_r = b.circumradius.iter().cloned().fold(0.0, f64::max);
        self.range = (2.0 * max_r + self.margin).max(f64::MIN_POSITIVE);
        self.wrapped.clear();
        self.wrapped.extend(b.position.iter().map(|&p| domain.wrap(p, time)));
        let (mut lo, mut hi) = (DVec2::splat(f64::MAX), DVec2::splat(f64::MIN));
        for p in &self.wrapped {
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
        if n == 0 {
            lo = DVec2::ZERO;
            hi = DVec2::ZERO;
        }
        let axis = |period: Option<(f64, f64)>, lo: f64, hi: f64| -> (f64, f64, usize) {
            match period {
                Some((min, len)) => {
                    let k = ((len / self.range).floor() as usize).max(1);
                    (min, len / k as f64, k)
                }
                None => {
                    let k = (((hi - lo) / self.range).floor() as usize + 1).min(1 << 20);
                    (lo, self.range, k)
                }
            }
        };
        let (ox, wx, nx) = axis(domain.x_period(), lo.x, hi.x);
        let (oy, wy, ny) = axis(domain.y_period(), lo.y, hi.y);
        // Keep the grid to about 4 cells per body at most (a body far from the others on an
        // open axis would otherwise stretch it): widen the open axes' cells, never below
        // the interaction range.
        let budget = 4 * n + 16;
        let (open_x, open_y) = (domain.x_period().is_none(), domain.y_period().is_none());
        let (nx, ny, wx, wy) = if nx.saturating_mul(ny) <= budget {
            (nx, ny, wx, wy)
        } else if open_x && open_y {
            let s = (((hi - lo).x * (hi - lo).y / (2 * n + 8) as f64).sqrt()).max(self.range);
            let s = s.max((hi - lo).x.max((hi - lo).y) / 4096.0);
            (((hi - lo).x / s).floor() as usize + 1, ((hi - lo).y / s).floor() as usize + 1, s, s)
        } else if open_y {
            let ny = (budget / nx).max(1);
            (nx, ny, wx, ((hi - lo).y / ny as f64).max(self.range) * (1.0 + 1e-12))
        } else if open_x {
            let nx = (budget / ny).max(1);
            (nx, ny, ((hi - lo).x / nx as f64).max(self.range) * (1.0 + 1e-12), wy)
        } else {
            (nx, ny, wx, wy)
        };
        self.origin = DVec2::new(ox, oy);
        self.width = DVec2::new(wx, wy);
        self.nx = nx;
        self.ny = ny;
        self.cell_of.clear();
        for p in &self.wrapped {
            let cx = (((p.x - ox) / wx).floor().max(0.0) as usize).min(nx - 1);
            let cy = (((p.y - oy) / wy).floor().max(0.0) as usize).min(ny - 1);
            self.cell_of.push((cy * nx + cx) as u32);
        }
        self.start.clear();
        self.start.resize(nx * ny + 1, 0);
        for &c in &self.cell_of {
            self.start[c as usize + 1] += 1;
        }
        for c in 0..nx * ny {
            self.start[c + 1] += self.start[c];
        }
        self.items.clear();
        self.items.resize(n, 0);
        let mut fill: Vec<u32> = Vec::new();
        std::mem::swap(&mut fill, &mut self.cell_of);
        self.next.clear();
        self.next.extend_from_slice(&self.start);
        for (i, &c) in fill.iter().enumerate() {
            self.items[self.next[c as usize] as usize] = i as u32;
            self.next[c as usize] += 1;
        }
        std::mem::swap(&mut fill, &mut self.cell_of);
    }

    /// Pairs (i < j, not both prescribed) whose bounding discs overlap through the minimum
    /// image, sorted by (i, j).
    pub(crate) fn find_pairs(
        &self,
        b: &Bodies,
        domain: &Domain,
        time: f64,
        bodies: std::ops::Range<usize>,
        candidates: &mut Vec<u32>,
        pairs: &mut Vec<Pair>,
    ) {
        let periodic_x = domain.x_period().is_some();
        let periodic_y = domain.y_period().is_some();
        let offset = domain.shear_offset(time);
        let (nx, ny) = (self.nx as i64, self.ny as i64);
        for i in bodies {
            let p = self.wrapped[i];
            let cy = (self.cell_of[i] as i64) / nx;
            candidates.clear();
            let mut rows = [(0i64, 0i64); 3];
            let mut nrows = 0;
            for dy in -1..=1 {
                let r = cy + dy;
                let (row, k) = if periodic_y {
                    (r.rem_euclid(ny), r.div_euclid(ny))
                } else if r < 0 || r >= ny {
                    continue;
                } else {
                    (r, 0)
                };
                if !rows[..nrows].contains(&(row, k)) {
                    rows[nrows] = (row, k);
                    nrows += 1;
                }
            }
            for &(row, k) in &rows[..nrows] {
                // A body in a row reached across the y period has its image shifted by
                // k × offset along x: look around x_i − k × offset.
                let xs = p.x - k as f64 * offset;
                let c0 = ((xs - self.range - self.origin.x) / self.width.x).floor() as i64;
                let c1 = ((xs + self.range - self.origin.x) / self.width.x).floor() as i64;
                let mut cols = [0i64; 8];
                let mut ncols = 0;
                for c in c0..=c1 {
                    let col = if periodic_x {
                        c.rem_euclid(nx)
                    } else if c < 0 || c >= nx {
                        continue;
                    } else {
                        c
                    };
                    if ncols < cols.len() && !cols[..ncols].contains(&col) {
                        cols[ncols] = col;
                        ncols += 1;
                    }
                }
                for &col in &cols[..ncols] {
                    let cell = (row * nx + col) as usize;
                    for &j in &self.items[self.start[cell] as usize..self.start[cell + 1] as usize] {
                        if j as usize > i {
                            candidates.push(j);
                        }
                    }
                }
            }
            candidates.sort_unstable();
            candidates.dedup();
            let dyn_i = b.is_dynamic(i);
            for &j in candidates.iter() {
                let ju = j as usize;
                if !dyn_i && !b.is_dynamic(ju) {
                    continue;
                }
                let image = domain.minimum_image(b.position[ju] - b.position[i], time);
                let reach = b.circumradius[i] + b.circumradius[ju] + self.margin;
                if image.separation.length_squared() < reach * reach {
                    pairs.push(Pair { i: i as u32, j, image, state: ContactState::default(), result: None });
                }
            }
        }
    }
}
