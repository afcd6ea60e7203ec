//! A self-contained integrator for one isolated pair: two spheres, or a sphere and a wall.
//!
//! Velocity Verlet with rotation for spheres (isotropic inertia I = 2/5 m r², so Euler's
//! equations reduce to I ω̇ = T and no orientation is needed):
//!
//! 1. v ← v + ½ Δt F/m, ω ← ω + ½ Δt T/I (forces of the previous step);
//! 2. x ← x + Δt v;
//! 3. contact geometry at the new positions, kinematics with the predicted full-step
//!    velocities v + ½ Δt F_old/m, ω + ½ Δt T_old/I (𝒱 = v₂ + ω₂×l₂ − v₁ − ω₁×l₁,
//!    000 eq. 3), one call of the law. Predicting the velocity keeps the error of
//!    velocity-dependent forces at O(Δt²) (with the half-step velocity the viscous force
//!    lags by ½Δt and the energy ledger drifts by O(Δt));
//!    The rotation increments since the previous call (002 eq. 15) are the exact ones of
//!    this scheme, θ = ω Δt with the half-step ω (the orientation turns at constant ω
//!    during the drift);
//! 4. v ← v + ½ Δt F/m, ω ← ω + ½ Δt T/I with the new forces.
//!
//! The wall is body 1: a fixed plane through `point` with unit normal `normal` towards the
//! sphere; R* is the sphere's radius and m* its mass (the core's conventions).

use glam::DVec3;
use granula_core::narrowphase::sphere_sphere;
use granula_core::{ContactForce, ContactGeometry, ContactKinematics, ContactLaw, Dissipation, PairMaterial};

/// A sphere of the pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// Centre (m).
    pub position: DVec3,
    /// Velocity (m/s).
    pub velocity: DVec3,
    /// Angular velocity (rad/s).
    pub angular_velocity: DVec3,
    /// Radius (m).
    pub radius: f64,
    /// Mass (kg).
    pub mass: f64,
}

impl Sphere {
    /// Moment of inertia 2/5 m r².
    #[inline]
    pub fn inertia(&self) -> f64 {
        0.4 * self.mass * self.radius * self.radius
    }

    /// Kinetic energy ½ m v² + ½ I ω² (J).
    pub fn kinetic_energy(&self) -> f64 {
        0.5 * self.mass * self.velocity.length_squared() + 0.5 * self.inertia() * self.angular_velocity.length_squared()
    }

    fn predicted(&self, f: DVec3, t: DVec3, half_dt: f64) -> (DVec3, DVec3) {
        (self.velocity + f * (half_dt / self.mass), self.angular_velocity + t * (half_dt / self.inertia()))
    }

    fn kick(&mut self, f: DVec3, t: DVec3, half_dt: f64) {
        self.velocity += f * (half_dt / self.mass);
        self.angular_velocity += t * (half_dt / self.inertia());
    }
}

/// Body 1 of the pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum First {
    /// A dynamic sphere.
    Sphere(Sphere),
    /// A fixed plane.
    Wall {
        /// A point of the plane.
        point: DVec3,
        /// Unit normal, pointing towards the sphere.
        normal: DVec3,
    },
}

/// An isolated pair under a contact law `L`, with its contact history and energy accounts.
#[derive(Clone, Debug)]
pub struct IsolatedPair<L: ContactLaw> {
    /// Body 1.
    pub first: First,
    /// Body 2.
    pub second: Sphere,
    /// The pair's material values.
    pub material: PairMaterial,
    /// The law's own parameters for the pair's materials ([`ContactLaw::Pair`]).
    pub pair: L::Pair,
    /// The contact history.
    pub history: L::History,
    /// Total dissipated so far.
    pub dissipated: Dissipation,
    /// Energy stored in the contact now.
    pub stored: f64,
    /// The law's output of the last step (zero when out of range).
    pub last: ContactForce,
    /// Normal and overlap of the last step.
    pub last_normal: DVec3,
    /// Overlap δ of the last step (negative: gap).
    pub last_overlap: f64,
    loads: [DVec3; 4],
}

impl<L: ContactLaw<Pair = ()>> IsolatedPair<L> {
    /// A pair at rest in its history, under a law without pair parameters of its own.
    pub fn new(first: First, second: Sphere, material: PairMaterial) -> Self {
        Self::with_pair(first, second, material, ())
    }
}

impl<L: ContactLaw> IsolatedPair<L> {
    /// A pair at rest in its history, the law seeing `pair` as its own pair parameter.
    pub fn with_pair(first: First, second: Sphere, material: PairMaterial, pair: L::Pair) -> Self {
        IsolatedPair {
            first,
            second,
            material,
            pair,
            history: L::History::default(),
            dissipated: Dissipation::default(),
            stored: 0.0,
            last: ContactForce::default(),
            last_normal: DVec3::ZERO,
            last_overlap: f64::NEG_INFINITY,
            loads: [DVec3::ZERO; 4],
        }
    }

    /// Kinetic energy of both bodies (J).
    pub fn kinetic_energy(&self) -> f64 {
        let k1 = match &self.first {
            First::Sphere(s) => s.kinetic_energy(),
            First::Wall { .. } => 0.0,
        };
        k1 + self.second.kinetic_energy()
    }

    /// Kinetic + stored energy (J).
    pub fn mechanical_energy(&self) -> f64 {
        self.kinetic_energy() + self.stored
    }

    /// Linear momentum of the dynamic bodies (kg m/s).
    pub fn momentum(&self) -> DVec3 {
        let p1 = match &self.first {
            First::Sphere(s) => s.mass * s.velocity,
            First::Wall { .. } => DVec3::ZERO,
        };
        p1 + self.second.mass * self.second.velocity
    }

    fn kick(&mut self, half_dt: f64) {
        let [f1, t1, f2, t2] = self.loads;
        if let First::Sphere(s) = &mut self.first {
            s.kick(f1, t1, half_dt);
        }
        self.second.kick(f2, t2, half_dt);
    }

    /// One velocity-Verlet step of size `dt` (see the module doc).
    pub fn step(&mut self, law: &L, dt: f64) {
        self.kick(0.5 * dt);
        if let First::Sphere(s) = &mut self.first {
            s.position += s.velocity * dt;
        }
        self.second.position += self.second.velocity * dt;
        let b = self.second;
        let [f1, t1, f2, t2] = self.loads;
        let (vb, wb) = b.predicted(f2, t2, 0.5 * dt);
        // Geometry: normal from 1 to 2, gap, branch vectors to the middle of the overlap
        // (the core's sphere-sphere narrowphase for two spheres).
        let (g, motion1, m_eff, theta1) = match &self.first {
            First::Sphere(a) => {
                let g = sphere_sphere(a.position, a.radius, b.position, b.radius, f64::INFINITY)
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| concentric(a.position, a.radius, b.radius));
                let m_eff = a.mass * b.mass / (a.mass + b.mass);
                (g, a.predicted(f1, t1, 0.5 * dt), m_eff, a.angular_velocity * dt)
            }
            First::Wall { point, normal } => {
                let gap = (b.position - *point).dot(*normal) - b.radius;
                let contact = b.position - *normal * (b.radius + 0.5 * gap);
                let g = ContactGeometry {
                    point: contact,
                    normal: *normal,
                    gap,
                    branch1: contact - *point,
                    branch2: contact - b.position,
                    effective_radius: b.radius,
                    feature: 0,
                    overlap_volume: 0.0,
                    twist_arm: 0.0,
                };
                (g, (DVec3::ZERO, DVec3::ZERO), b.mass, DVec3::ZERO)
            }
        };
        let l1 = g.branch1;
        let l2 = g.branch2;
        self.last_normal = g.normal;
        self.last_overlap = -g.gap;
        let out = if g.gap <= law.range(&self.material) {
            let mut k =
                ContactKinematics::from_motion(&g, motion1, (vb, wb), m_eff, &self.material, dt).with_pair(&self.pair);
            k.rotation1 = theta1;
            k.rotation2 = b.angular_velocity * dt;
            law.force(&k, &mut self.history)
        } else {
            self.history = L::History::default();
            ContactForce::default()
        };
        self.last = out;
        self.dissipated += out.dissipated;
        self.stored = out.stored;
        self.loads = [-out.force, -l1.cross(out.force) - out.torque, out.force, l2.cross(out.force) + out.torque];
        self.kick(0.5 * dt);
    }
}

/// Two concentric spheres (no normal): an overlap of the full radii along +z, so that a
/// law still sees a finite contact.
fn concentric(x: DVec3, r1: f64, r2: f64) -> ContactGeometry {
    let gap = -(r1 + r2);
    ContactGeometry {
        point: x,
        normal: DVec3::Z,
        gap,
        branch1: DVec3::ZERO,
        branch2: DVec3::ZERO,
        effective_radius: r1 * r2 / (r1 + r2),
        feature: 0,
        overlap_volume: 0.0,
        twist_arm: 0.0,
    }
}
