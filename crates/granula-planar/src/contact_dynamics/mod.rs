//! Contact dynamics in 2D (non-smooth contact dynamics, NSCD): rigid discs and convex
//! polygons, Moreau-Jean time stepping with the θ-method (004 §2.3.3.1), contacts detected
//! with a gap at the intermediate configuration (004 §2.3.3.2), the 2×2 Delassus blocks
//! (004 §2.3.3.3), and a nonlinear Gauss-Seidel over the contacts whose local problem is
//! solved exactly by the coupled 2D graph intersection of 004 §2.3.3.4.
//!
//! One step of Δt = h (004 §2.3.3.3's time loop):
//!
//! 1. free velocity: v_free = vᵢ + h M⁻¹ (F_ext + m g) (the loads are constant over the
//!    step, so both ends of the θ-rule agree; 000 eq. 14);
//! 2. intermediate configuration q_m = qᵢ + h (1 − θ) vᵢ (004 §2.3.3.1-2);
//! 3. detection at q_m: every contact point whose gap g is below the alert distance
//!    d = margin + 2h max_k(|v_k| + |ω_k| R_k) (R_k the bounding radius), so that no contact
//!    that can close within the step is missed ([`geometry`]);
//! 4. per contact the Delassus block W_αα and the law's shift of the normal velocity: the
//!    gap treatment of 000 eqs. 33-34, g_pos = max(g, 0): a contact constrains
//!    U_n⁺ ≥ −g_pos/(θh), so a gap closes exactly at the end of the step and an existing
//!    overlap is not pushed apart (no energy injected); with Newton's restitution e > 0 a
//!    contact that closes within the step (U_n + g_pos/(θh) < 0) obeys instead
//!    U_n⁺ + e min(U_n⁻, 0) ≥ 0, U_n⁻ its normal velocity at the start of the step;
//! 5. nonlinear Gauss-Seidel sweeps (004 §2.3.3.4, the exchange local-global strategy):
//!    for each contact in turn b = U_α − W_αα P_α (its velocity without its own impulse,
//!    from the bodies' current velocities), the local solve ([`local`]), and the bodies'
//!    velocities updated with M⁻¹ H_α ΔP_α; stopped when the sweep changes the impulses by
//!    less than ε of their size, Σ|ΔP_α| ≤ ε Σ|P_α| (000 eq. 36), or at the cap;
//! 6. v_{i+1} = v_free + M⁻¹ H P, q_{i+1} = q_m + hθ v_{i+1}.
//!
//! Contacts are swept in their detection order (body pairs by (i, j), then walls), on one
//! thread: the result does not depend on any thread count. Impulses are carried from step
//! to step by the key (pair or wall, i, j, point) as the warm start.

pub mod geometry;
pub mod local;
mod state;

use crate::bodies::{Bodies, BodyBuilder};
use crate::domain::Domain;
use crate::error::{non_negative, positive, PlanarError, Result};
use crate::simulation::{Cells, HalfPlane, Pair};
use geometry::{ContactPoint, ContactPoints};
use glam::DVec2;
pub use local::LocalStatus;
use local::{cross, Delassus};

/// Settings of [`ContactDynamics`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CdConfig {
    /// Time step h (s).
    pub dt: f64,
    /// Gravity (m/s²).
    pub gravity: DVec2,
    /// θ of the θ-method, in [0.5, 1] (004 §2.3.3.1). Default 1 (implicit Euler, 000 eqs.
    /// 1-2), as in 3D.
    pub theta: f64,
    /// Coulomb coefficient μ of every contact. Default 0.
    pub friction: f64,
    /// Newton's normal restitution e in [0, 1] (0: perfectly inelastic, 000 eq. 34).
    pub restitution: f64,
    /// ε of the convergence test Σ|ΔP| ≤ ε Σ|P| (000 eq. 36). Default 1e-4, as in 3D.
    pub tolerance: f64,
    /// Cap on the Gauss-Seidel sweeps of a step (000 eq. 37's N_I as an upper bound).
    /// Default 1000, as in 3D.
    pub max_sweeps: u32,
    /// Extra detection margin (m) on top of the automatic 2h v_max. Default 0.
    pub margin: f64,
    /// Start each step's sweeps from the previous step's impulses. Default on.
    pub warm_start: bool,
}

impl Default for CdConfig {
    fn default() -> Self {
        CdConfig {
            dt: 1e-3,
            gravity: DVec2::ZERO,
            theta: 1.0,
            friction: 0.0,
            restitution: 0.0,
            tolerance: 1e-4,
            max_sweeps: 1000,
            margin: 0.0,
            warm_start: true,
        }
    }
}

impl CdConfig {
    /// `Ok` when every field is in its domain, else the field named.
    pub fn check(&self) -> Result<()> {
        positive("dt", self.dt)?;
        if !self.gravity.is_finite() {
            return Err(PlanarError::BadParameter { name: "gravity", value: self.gravity.x, expected: "finite" });
        }
        if !(0.5..=1.0).contains(&self.theta) {
            return Err(PlanarError::BadParameter {
                name: "theta",
                value: self.theta,
                expected: "a number in [0.5, 1]",
            });
        }
        non_negative("friction", self.friction)?;
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(PlanarError::BadParameter {
                name: "restitution",
                value: self.restitution,
                expected: "a number in [0, 1]",
            });
        }
        positive("tolerance", self.tolerance)?;
        if self.max_sweeps == 0 {
            return Err(PlanarError::BadParameter { name: "max_sweeps", value: 0.0, expected: "at least 1" });
        }
        non_negative("margin", self.margin)
    }
}

/// What the Gauss-Seidel loop of one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveReport {
    /// Sweeps done.
    pub sweeps: u32,
    /// The last sweep's relative change Σ|ΔP_α| / Σ|P_α| (0 when no impulse changed).
    pub residual: f64,
    /// The residual met the tolerance.
    pub converged: bool,
    /// The cap was reached before the tolerance.
    pub cap_reached: bool,
    /// Contact points detected (within the alert distance).
    pub contacts: usize,
    /// Contacts with a non-zero impulse at the end.
    pub active: usize,
    /// Of those, contacts sliding.
    pub sliding: usize,
    /// Largest overlap −g at the end of the step, g = g_m + θh U_n⁺ (m; 0 if none).
    pub max_overlap: f64,
}

/// One contact point of the last step, with its impulse.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpulseContact {
    /// Body i, or the wall index for a wall contact.
    pub i: u32,
    /// Body j.
    pub j: u32,
    /// Whether `i` is a [`HalfPlane`] index.
    pub wall: bool,
    /// Which of the pair's (up to two) points.
    pub point_index: u8,
    /// x_j(image) − x_i at the intermediate configuration (for a wall, x_j minus the wall's
    /// point) (m).
    pub separation: DVec2,
    /// Velocity of j's image minus j's (Lees-Edwards) (m/s).
    pub velocity_shift: DVec2,
    /// Contact point relative to x_i (for a wall, to the wall's point) (m).
    pub branch_i: DVec2,
    /// Contact point relative to x_j's image (m).
    pub branch_j: DVec2,
    /// Unit normal from i to j.
    pub normal: DVec2,
    /// Gap at the intermediate configuration (m).
    pub gap: f64,
    /// Impulse on j in the local frame, (P_t, P_n), t = (−n_y, n_x) (N s).
    pub impulse: DVec2,
    /// Status of the last local solve.
    pub status: LocalStatus,
    w: Delassus,
    gap_velocity: f64,
    newton: f64,
}

impl ImpulseContact {
    /// The impulse on j in the world frame (N s); on i the opposite.
    pub fn world_impulse(&self) -> DVec2 {
        self.normal.perp() * self.impulse.x + self.normal * self.impulse.y
    }
}

/// Builder of [`ContactDynamics`].
#[derive(Clone, Debug, Default)]
pub struct ContactDynamicsBuilder {
    domain: Domain,
    config: CdConfig,
    bodies: Vec<BodyBuilder>,
    walls: Vec<HalfPlane>,
}

impl ContactDynamicsBuilder {
    /// The domain (default open).
    pub fn domain(mut self, domain: Domain) -> Self {
        self.domain = domain;
        self
    }
    /// All settings at once.
    pub fn config(mut self, config: CdConfig) -> Self {
        self.config = config;
        self
    }
    /// Time step h (s).
    pub fn dt(mut self, dt: f64) -> Self {
        self.config.dt = dt;
        self
    }
    /// Gravity (m/s²).
    pub fn gravity(mut self, g: DVec2) -> Self {
        self.config.gravity = g;
        self
    }
    /// θ of the θ-method (004 §2.3.3.1).
    pub fn theta(mut self, theta: f64) -> Self {
        self.config.theta = theta;
        self
    }
    /// Coulomb's μ.
    pub fn friction(mut self, mu: f64) -> Self {
        self.config.friction = mu;
        self
    }
    /// Newton's restitution e.
    pub fn restitution(mut self, e: f64) -> Self {
        self.config.restitution = e;
        self
    }
    /// Tolerance ε (000 eq. 36).
    pub fn tolerance(mut self, eps: f64) -> Self {
        self.config.tolerance = eps;
        self
    }
    /// Sweep cap.
    pub fn max_sweeps(mut self, n: u32) -> Self {
        self.config.max_sweeps = n;
        self
    }
    /// Extra detection margin (m).
    pub fn margin(mut self, margin: f64) -> Self {
        self.config.margin = margin;
        self
    }
    /// Adds a body (a prescribed body moves at its velocity and has infinite mass).
    pub fn body(mut self, body: BodyBuilder) -> Self {
        self.bodies.push(body);
        self
    }
    /// Adds a straight wall, fixed or translating ([`HalfPlane::moving`]).
    pub fn wall(mut self, wall: HalfPlane) -> Self {
        self.walls.push(wall);
        self
    }

    /// The checked solver: settings, bodies (errors name them), unit wall normals, the
    /// domain against the largest body.
    pub fn build(self) -> Result<ContactDynamics> {
        self.config.check()?;
        let bodies = crate::simulation::checked_bodies(self.bodies, &self.walls, &self.domain)?;
        Ok(ContactDynamics {
            bodies,
            walls: self.walls,
            domain: self.domain,
            config: self.config,
            time: 0.0,
            steps: 0,
            contacts: Vec::new(),
            previous: Vec::new(),
            report: SolveReport::default(),
            cells: Cells::default(),
            pairs: Vec::new(),
            candidates: Vec::new(),
            vel: Vec::new(),
            spin: Vec::new(),
            rot: Vec::new(),
            verts_i: Vec::new(),
            verts_j: Vec::new(),
        })
    }
}

/// The 2D contact dynamics solver: bodies, walls, domain, settings, the contacts of the
/// last step and its report.
#[derive(Clone, Debug)]
pub struct ContactDynamics {
    /// The bodies; `force` and `torque` hold the contact impulses of the last step over h.
    pub bodies: Bodies,
    walls: Vec<HalfPlane>,
    domain: Domain,
    config: CdConfig,
    time: f64,
    steps: u64,
    contacts: Vec<ImpulseContact>,
    previous: Vec<ImpulseContact>,
    report: SolveReport,
    cells: Cells,
    pairs: Vec<Pair>,
    candidates: Vec<u32>,
    vel: Vec<DVec2>,
    spin: Vec<f64>,
    rot: Vec<DVec2>,
    verts_i: Vec<DVec2>,
    verts_j: Vec<DVec2>,
}

const WALL: usize = usize::MAX;

impl ContactDynamics {
    /// A builder with default settings.
    pub fn builder() -> ContactDynamicsBuilder {
        ContactDynamicsBuilder::default()
    }

    /// Time (s).
    pub fn time(&self) -> f64 {
        self.time
    }
    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }
    /// Time step h (s).
    pub fn dt(&self) -> f64 {
        self.config.dt
    }
    /// The settings.
    pub fn config(&self) -> &CdConfig {
        &self.config
    }
    /// Changes the sweep cap and tolerance between steps (`Err` naming the field if out of
    /// its domain).
    pub fn set_convergence(&mut self, tolerance: f64, max_sweeps: u32) -> Result<()> {
        let c = CdConfig { tolerance, max_sweeps, ..self.config };
        c.check()?;
        self.config = c;
        Ok(())
    }
    /// The domain.
    pub fn domain(&self) -> &Domain {
        &self.domain
    }
    /// The straight walls.
    pub fn walls(&self) -> &[HalfPlane] {
        &self.walls
    }
    /// The contact points of the last step, body pairs by (i, j) first, then walls.
    pub fn contacts(&self) -> &[ImpulseContact] {
        &self.contacts
    }
    /// The report of the last step.
    pub fn report(&self) -> &SolveReport {
        &self.report
    }
    /// Body `i`'s centre mapped into the periodic box.
    pub fn wrapped_position(&self, i: usize) -> DVec2 {
        self.domain.wrap(self.bodies.position[i], self.time)
    }

    /// The mean force of wall `w` on the bodies over the last step (N): the sum of the
    /// impulses it gave, over h (the load it carries is the opposite).
    pub fn wall_reaction(&self, w: usize) -> DVec2 {
        self.contacts.iter().filter(|c| c.wall && c.i as usize == w).map(|c| c.world_impulse()).sum::<DVec2>()
            / self.config.dt
    }

    /// The Love-Weber stress of the body-body contacts, σ = −(1/A) Σ f ⊗ d with f the mean
    /// force on body i over the step and d = x_j − x_i (minimum image); compression positive.
    pub fn stress(&self, area: f64) -> [[f64; 2]; 2] {
        let mut s = [[0.0; 2]; 2];
        for c in self.contacts.iter().filter(|c| !c.wall) {
            let f = -c.world_impulse() / self.config.dt;
            let d = c.separation;
            s[0][0] -= f.x * d.x / area;
            s[0][1] -= f.x * d.y / area;
            s[1][0] -= f.y * d.x / area;
            s[1][1] -= f.y * d.y / area;
        }
        s
    }

    /// Runs `n` steps; `Err` on a non-finite state. Capped steps are not errors: read
    /// [`ContactDynamics::report`] after each step (or use [`ContactDynamics::step`]).
    pub fn run(&mut self, n: usize) -> Result<()> {
        for _ in 0..n {
            self.step()?;
        }
        Ok(())
    }

    /// One Moreau-Jean step (see the module documentation) and its report.
    pub fn step(&mut self) -> Result<SolveReport> {
        let h = self.config.dt;
        let theta = self.config.theta;
        let n = self.bodies.len();
        let b = &mut self.bodies;
        // 1-2: free velocities and the intermediate configuration.
        self.vel.clear();
        self.spin.clear();
        self.rot.clear();
        let mut vmax: f64 = 0.0;
        for i in 0..n {
            let v0 = b.velocity[i];
            let w0 = b.angular_velocity[i];
            let v =
                if b.is_dynamic(i) { v0 + (b.external_force[i] * b.inv_mass[i] + self.config.gravity) * h } else { v0 };
            vmax = vmax.max(v.length() + w0.abs() * b.circumradius[i]).max(v0.length());
            self.vel.push(v);
            self.spin.push(w0);
            b.position[i] += v0 * (h * (1.0 - theta));
            b.angle[i] += w0 * (h * (1.0 - theta));
            self.rot.push(DVec2::from_angle(b.angle[i]));
            b.force[i] = DVec2::ZERO;
            b.torque[i] = 0.0;
        }
        let t_m = self.time + h * (1.0 - theta);
        let alert = self.config.margin + 2.0 * h * vmax;
        // 3: detection.
        std::mem::swap(&mut self.previous, &mut self.contacts);
        self.contacts.clear();
        self.cells.margin = alert;
        self.cells.build(&self.bodies, &self.domain, t_m);
        self.pairs.clear();
        self.cells.find_pairs(&self.bodies, &self.domain, t_m, 0..n, &mut self.candidates, &mut self.pairs);
        for k in 0..self.pairs.len() {
            let p = self.pairs[k];
            let (i, j) = (p.i as usize, p.j as usize);
            let d = p.image.separation;
            let points = self.pair_points(i, j, d, alert);
            self.push_points(points, p.i, p.j, false, d, p.image.velocity_shift);
        }
        for w in 0..self.walls.len() {
            let wall = self.walls[w];
            for j in 0..n {
                if !self.bodies.is_dynamic(j) {
                    continue;
                }
                let rel = self.bodies.position[j] - wall.point_at(t_m);
                if rel.dot(wall.normal) > self.bodies.circumradius[j] + alert {
                    continue;
                }
                let points = match &self.bodies.shape[j] {
                    crate::Shape2::Disc { radius } => geometry::wall_disc(wall.normal, rel, *radius, alert),
                    crate::Shape2::Polygon(poly) => {
                        self.verts_j.clear();
                        let r = self.rot[j];
                        self.verts_j.extend(poly.vertices().iter().map(|v| rel + r.rotate(*v)));
                        geometry::wall_polygon(wall.normal, &self.verts_j, alert)
                    }
                };
                // The wall's velocity enters as the velocity shift: U = v_j − v_wall + ω_j × l_j.
                self.push_points(points, w as u32, j as u32, true, rel, -wall.velocity);
            }
        }
        // 4: Delassus blocks, law shifts, warm start.
        self.prepare(h, theta);
        // 5: sweeps.
        let report = self.sweeps(h, theta);
        // 6: new velocities and configuration; forces for reading.
        let b = &mut self.bodies;
        for i in 0..n {
            if b.is_dynamic(i) {
                b.velocity[i] = self.vel[i];
                b.angular_velocity[i] = self.spin[i];
            }
            b.position[i] += b.velocity[i] * (h * theta);
            b.angle[i] += b.angular_velocity[i] * (h * theta);
        }
        for c in &self.contacts {
            let p = c.world_impulse() / h;
            let j = c.j as usize;
            b.force[j] += p;
            b.torque[j] += cross(c.branch_j, p);
            if !c.wall {
                let i = c.i as usize;
                b.force[i] -= p;
                b.torque[i] -= cross(c.branch_i, p);
            }
        }
        self.time += h;
        self.steps += 1;
        self.report = report;
        for i in 0..n {
            let b = &self.bodies;
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
        Ok(report)
    }

    /// Contact points of bodies i and j (j's image at `d` from i).
    fn pair_points(&mut self, i: usize, j: usize, d: DVec2, alert: f64) -> ContactPoints {
        use crate::Shape2::{Disc, Polygon};
        let b = &self.bodies;
        let (ri, rj) = (self.rot[i], self.rot[j]);
        match (&b.shape[i], &b.shape[j]) {
            (Disc { radius: a }, Disc { radius: c }) => geometry::disc_disc(*a, d, *c, alert),
            (Polygon(p), Disc { radius }) => {
                self.verts_i.clear();
                self.verts_i.extend(p.vertices().iter().map(|v| ri.rotate(*v)));
                geometry::polygon_disc(&self.verts_i, d, *radius, alert)
            }
            (Disc { radius }, Polygon(p)) => {
                // Computed from j's side (its centre at the origin), then moved to i's.
                self.verts_j.clear();
                self.verts_j.extend(p.vertices().iter().map(|v| rj.rotate(*v)));
                let mut pts = geometry::polygon_disc(&self.verts_j, -d, *radius, alert);
                for q in pts.points.iter_mut().flatten() {
                    *q = ContactPoint { point: q.point + d, normal: -q.normal, gap: q.gap };
                }
                pts
            }
            (Polygon(p), Polygon(q)) => {
                self.verts_i.clear();
                self.verts_i.extend(p.vertices().iter().map(|v| ri.rotate(*v)));
                self.verts_j.clear();
                self.verts_j.extend(q.vertices().iter().map(|v| d + rj.rotate(*v)));
                geometry::polygon_polygon(&self.verts_i, &self.verts_j, alert)
            }
        }
    }

    fn push_points(&mut self, points: ContactPoints, i: u32, j: u32, wall: bool, d: DVec2, dv: DVec2) {
        for (k, p) in points.points.iter().enumerate() {
            let Some(p) = p else { continue };
            self.contacts.push(ImpulseContact {
                i,
                j,
                wall,
                point_index: k as u8,
                separation: d,
                velocity_shift: dv,
                branch_i: p.point,
                branch_j: p.point - d,
                normal: p.normal,
                gap: p.gap,
                impulse: DVec2::ZERO,
                status: LocalStatus::Open,
                w: Delassus::default(),
                gap_velocity: 0.0,
                newton: 0.0,
            });
        }
    }

    /// The local velocity (U_t, U_n) of contact `c` from the current body velocities.
    #[inline]
    fn local_velocity(vel: &[DVec2], spin: &[f64], c: &ImpulseContact) -> DVec2 {
        let j = c.j as usize;
        let mut u = vel[j] + c.velocity_shift + c.branch_j.perp() * spin[j];
        if !c.wall {
            let i = c.i as usize;
            u -= vel[i] + c.branch_i.perp() * spin[i];
        }
        DVec2::new(u.dot(c.normal.perp()), u.dot(c.normal))
    }

    /// Adds M⁻¹ H_α ΔP to the bodies' velocities (ΔP local).
    #[inline]
    fn apply(b: &Bodies, vel: &mut [DVec2], spin: &mut [f64], c: &ImpulseContact, dp: DVec2) {
        let world = c.normal.perp() * dp.x + c.normal * dp.y;
        let j = c.j as usize;
        vel[j] += world * b.inv_mass[j];
        spin[j] += cross(c.branch_j, world) * b.inv_inertia[j];
        if !c.wall {
            let i = c.i as usize;
            vel[i] -= world * b.inv_mass[i];
            spin[i] -= cross(c.branch_i, world) * b.inv_inertia[i];
        }
    }

    fn prepare(&mut self, h: f64, theta: f64) {
        let b = &self.bodies;
        let e = self.config.restitution;
        let mut k = 0;
        let key = |c: &ImpulseContact| (c.wall, c.i, c.j, c.point_index);
        for c in self.contacts.iter_mut() {
            let (j, i) = (c.j as usize, if c.wall { WALL } else { c.i as usize });
            let (mi, ii) = if i == WALL { (0.0, 0.0) } else { (b.inv_mass[i], b.inv_inertia[i]) };
            c.w = Delassus::new(c.normal, [mi, b.inv_mass[j]], [ii, b.inv_inertia[j]], [c.branch_i, c.branch_j]);
            c.gap_velocity = c.gap.max(0.0) / (theta * h);
            // U_n⁻: the normal velocity at the start of the step, at q_m's geometry.
            let mut u = b.velocity[j] + c.velocity_shift + c.branch_j.perp() * b.angular_velocity[j];
            if i != WALL {
                u -= b.velocity[i] + c.branch_i.perp() * b.angular_velocity[i];
            }
            c.newton = e * u.dot(c.normal).min(0.0);
            if self.config.warm_start {
                while k < self.previous.len() && key(&self.previous[k]) < key(c) {
                    k += 1;
                }
                if k < self.previous.len() && key(&self.previous[k]) == key(c) {
                    c.impulse = self.previous[k].impulse;
                }
            }
        }
        for c in &self.contacts {
            if c.impulse != DVec2::ZERO {
                Self::apply(b, &mut self.vel, &mut self.spin, c, c.impulse);
            }
        }
    }

    fn sweeps(&mut self, h: f64, theta: f64) -> SolveReport {
        let mu = self.config.friction;
        let newton = self.config.restitution > 0.0;
        let mut report = SolveReport { contacts: self.contacts.len(), ..Default::default() };
        let b = &self.bodies;
        while report.sweeps < self.config.max_sweeps {
            let (mut change, mut size) = (0.0, 0.0);
            for c in self.contacts.iter_mut() {
                let u = Self::local_velocity(&self.vel, &self.spin, c);
                let p = c.impulse;
                let mut rhs = DVec2::new(u.x - (c.w.tt * p.x + c.w.tn * p.y), u.y - (c.w.tn * p.x + c.w.nn * p.y));
                let (new, status) = if newton {
                    if rhs.y + c.gap_velocity >= 0.0 {
                        (DVec2::ZERO, LocalStatus::Open)
                    } else {
                        rhs.y += c.newton;
                        local::solve(&c.w, mu, rhs)
                    }
                } else {
                    rhs.y += c.gap_velocity;
                    local::solve(&c.w, mu, rhs)
                };
                let dp = new - p;
                if dp != DVec2::ZERO {
                    Self::apply(b, &mut self.vel, &mut self.spin, c, dp);
                }
                c.impulse = new;
                c.status = status;
                change += dp.x.abs() + dp.y.abs();
                size += new.x.abs() + new.y.abs();
            }
            report.sweeps += 1;
            report.residual = if size > 0.0 {
                change / size
            } else if change > 0.0 {
                1.0
            } else {
                0.0
            };
            if report.residual <= self.config.tolerance {
                report.converged = true;
                break;
            }
        }
        report.cap_reached = !report.converged;
        for c in &self.contacts {
            if c.impulse != DVec2::ZERO {
                report.active += 1;
                if c.status == LocalStatus::Sliding {
                    report.sliding += 1;
                }
            }
            let u = Self::local_velocity(&self.vel, &self.spin, c);
            report.max_overlap = report.max_overlap.max(-(c.gap + theta * h * u.y));
        }
        report
    }
}
