//! A contact law written here, outside the library, run through granula-laws's conformance
//! kit and plugged into the MD solver without touching the library.
//!
//! Two ways to write a law:
//! 1. implement `granula::core::ContactLaw` directly (`SpringCoulomb` below: a linear spring
//!    with viscous damping and a Coulomb-capped tangential spring, about 60 lines);
//! 2. write one sub-model and compose it with built-in ones (`QuadraticSpring` below, a
//!    normal force F = K δ² used inside `Composed`).
//!
//! A law may also carry parameters of its own per pair of materials (`MaterialSpring`
//! below: each material's `"stiffness"` property, mixed as two springs in series into a
//! `SeriesStiffness` that the solver computes once per material pair).
//!
//! The same law runs unchanged in a planar world (a square dropped flat on a floor): a law
//! whose physics does not depend on the dimension works in 2D as in 3D.
//!
//! Run: `cargo run --release --example custom_law`. The test suite runs it small
//! (`tests/suite/md_examples.rs`).

use granula::core::{
    ContactForce, ContactKinematics, ContactLaw, ContactStatus, DVec3, Dissipation, Material, Narrowphase,
    PairMaterial, PairParameters, PlaneBuilder, RigidBody, SphereBuilder, World, WorldBuilder,
};
use granula::laws::conformance::{check_law, check_law_between, ConformanceReport, ConformanceSetup};
use granula::laws::*;
use granula::polygons::{register_all_areal, shapes, DVec2, PolygonBuilder};
use granula::prelude::{BruteForce, Gear, MdConfig, MdSolver};
use std::sync::Arc;

/// Linear spring k_n, dashpot γ_n, tangential spring k_t capped at μ F_n.
#[derive(Clone, Copy, Debug)]
pub struct SpringCoulomb {
    /// Normal stiffness (N/m).
    pub kn: f64,
    /// Normal damping (N s/m).
    pub gamma_n: f64,
    /// Tangential stiffness (N/m).
    pub kt: f64,
}

impl ContactLaw for SpringCoulomb {
    type History = DVec3;
    type Pair = ();

    fn name(&self) -> String {
        "example_spring_coulomb".into()
    }

    fn force(&self, k: &ContactKinematics<'_>, xi: &mut DVec3) -> ContactForce {
        let n = k.normal;
        if k.overlap <= 0.0 {
            *xi = DVec3::ZERO;
            return ContactForce { status: ContactStatus::Open, ..Default::default() };
        }
        let rate = -k.relative_velocity.dot(n);
        let elastic = self.kn * k.overlap;
        // No attraction: the dashpot may only reduce the push to zero.
        let fn_ = (elastic + self.gamma_n * rate).max(0.0);
        let damping = fn_ - elastic;
        // Tangential spring, kept in the tangent plane with its length.
        let vt = k.relative_velocity + rate * n;
        let len = xi.length();
        let mut s = *xi - xi.dot(n) * n;
        if s.length() > 0.0 {
            s *= len / s.length();
        }
        let before = 0.5 * self.kt * s.length_squared();
        s += vt * k.dt;
        let cap = k.material.friction * fn_;
        let sliding = self.kt * s.length() > cap;
        if sliding {
            s *= cap / (self.kt * s.length());
        }
        *xi = s;
        let ft = -self.kt * s;
        let stored_t = 0.5 * self.kt * s.length_squared();
        ContactForce {
            force: fn_ * n + ft,
            torque: DVec3::ZERO,
            dissipated: Dissipation {
                normal: damping * rate * k.dt,
                sliding: before - ft.dot(vt) * k.dt - stored_t,
                ..Default::default()
            },
            stored: 0.5 * self.kn * k.overlap * k.overlap + stored_t,
            // The law knows its regime: the solver counts and publishes it as given.
            status: if fn_ <= 0.0 {
                ContactStatus::Open
            } else if sliding {
                ContactStatus::Sliding
            } else {
                ContactStatus::Sticking
            },
        }
    }
}

/// The normal stiffness of a pair of materials: each material's `"stiffness"` property
/// (N/m), the two surfaces acting as springs in series, k = k₁ k₂ / (k₁ + k₂) (the law's
/// own mixing rule; a material against itself gets half its stiffness).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesStiffness {
    /// The pair's stiffness k (N/m).
    pub k: f64,
}

impl PairParameters for SeriesStiffness {
    fn from_materials(a: &Material, b: &Material, _mixed: &PairMaterial) -> Result<Self, String> {
        let stiffness = |m: &Material| match m.property("stiffness") {
            Some(k) if k > 0.0 => Ok(k),
            Some(k) => Err(format!("property 'stiffness' of material '{}' is {k}, expected > 0", m.name)),
            None => Err(format!("material '{}' has no property 'stiffness'", m.name)),
        };
        let (ka, kb) = (stiffness(a)?, stiffness(b)?);
        Ok(SeriesStiffness { k: ka * kb / (ka + kb) })
    }
}

/// A frictionless linear spring whose stiffness is the materials' own: F = k δ along the
/// normal, with k the pair's [`SeriesStiffness`], read from the kinematics (`k.pair`).
#[derive(Clone, Copy, Debug)]
pub struct MaterialSpring;

impl ContactLaw for MaterialSpring {
    type History = ();
    type Pair = SeriesStiffness;

    fn name(&self) -> String {
        "example_material_spring".into()
    }

    fn force(&self, k: &ContactKinematics<'_, SeriesStiffness>, _: &mut ()) -> ContactForce {
        let overlap = k.overlap.max(0.0);
        let stiffness = k.pair.k;
        ContactForce {
            force: stiffness * overlap * k.normal,
            stored: 0.5 * stiffness * overlap * overlap,
            status: if overlap > 0.0 { ContactStatus::Sticking } else { ContactStatus::Open },
            ..Default::default()
        }
    }
}

/// A user sub-model: F = K δ², composed with built-in damping and friction.
#[derive(Clone, Copy, Debug)]
pub struct QuadraticSpring {
    /// K (N/m²).
    pub k: f64,
}

impl NormalModel for QuadraticSpring {
    fn name(&self) -> &'static str {
        "example_quadratic"
    }
    fn elastic(&self, c: &ContactKinematics<'_>) -> NormalElastic {
        let d = c.overlap;
        NormalElastic { force: self.k * d * d, stiffness: 2.0 * self.k * d, stored: self.k * d * d * d / 3.0 }
    }
    fn contact_time(&self, _: &PairMaterial, m_eff: f64, _: f64, v: f64) -> f64 {
        granula::laws::params::power_law_contact_time(self.k, 2.0, m_eff, v)
    }
    fn check_pair(&self, _: &PairMaterial, _: f64, _: f64) -> Result<(), LawError> {
        Ok(())
    }
}

/// What the example found.
pub struct Outcome {
    /// Conformance of the hand-written law.
    pub direct: ConformanceReport,
    /// Conformance of the composition with the user sub-model.
    pub composed: ConformanceReport,
    /// Conformance of the law with its own pair parameter, between two materials of
    /// different stiffness.
    pub material_pair: ConformanceReport,
    /// Relative ledger error after the solver run.
    pub ledger_error: f64,
    /// Largest height of the bouncing sphere after its first bounce divided by the drop
    /// height.
    pub rebound_ratio: f64,
    /// The same from theory: e² with e the clamped dashpot's restitution
    /// (`params::linear_clamped_collision`).
    pub rebound_theory: f64,
    /// [`Outcome::ledger_error`] of the same law dropping a square in a planar world.
    pub planar_ledger_error: f64,
    /// [`Outcome::rebound_ratio`] of the square.
    pub planar_rebound_ratio: f64,
    /// [`Outcome::rebound_theory`] at the square's mass.
    pub planar_rebound_theory: f64,
}

/// Runs the kit on both laws and drops a sphere on a floor with the MD solver for `steps`
/// steps.
pub fn run(steps: usize) -> Outcome {
    let material = Material::default();
    let pair = PairMaterial::mix(&material, &material);
    let m_eff = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-9 * 0.5;
    let c = params::LinearCollision::from_collision(2e-4, 0.5, m_eff).expect("valid");
    let law = SpringCoulomb { kn: c.stiffness, gamma_n: c.damping, kt: 0.5 * c.stiffness };
    let direct = check_law(&law, &ConformanceSetup { material: pair, ..Default::default() }).expect("kit runs");
    let quad = Composed::new(QuadraticSpring { k: 1e8 }, HertzViscous::from_material(), CundallStrack::from_material());
    let composed = check_law(&quad, &ConformanceSetup { material: pair, ..Default::default() }).expect("kit runs");
    let (soft, hard) = stiffness_materials();
    let setup = ConformanceSetup { material: PairMaterial::mix(&soft, &hard), ..Default::default() };
    let material_pair = check_law_between(&MaterialSpring, &setup, &soft, &hard).expect("kit runs");

    // The same hand-written law in the MD solver: a sphere (r = 1 mm) dropped from 5 mm on a
    // floor, and in a planar world a square (side 2 mm) dropped flat from the same height.
    let r = 1e-3;
    let sphere = SphereBuilder::new(r, DVec3::new(0.0, 0.0, r + H0)).build().expect("sphere");
    let (ledger_error, rebound_ratio, rebound_theory) = drop(World::builder(), sphere, DVec3::Z, r, steps);
    let mut narrowphase = Narrowphase::new();
    register_all_areal(&mut narrowphase).expect("polygon pairs");
    let planar = World::builder().planar(true).gravity(DVec3::new(0.0, -9.81, 0.0)).narrowphase(narrowphase);
    let square = Arc::new(shapes::rectangle(2.0 * r, 2.0 * r).expect("square"));
    let square = PolygonBuilder::new(square, DVec2::new(0.0, r + H0)).build().expect("polygon");
    let (planar_ledger_error, planar_rebound_ratio, planar_rebound_theory) = drop(planar, square, DVec3::Y, r, steps);
    Outcome {
        direct,
        composed,
        material_pair,
        ledger_error,
        rebound_ratio,
        rebound_theory,
        planar_ledger_error,
        planar_rebound_ratio,
        planar_rebound_theory,
    }
}

/// Drop height (m) of [`drop`].
const H0: f64 = 5e-3;

/// Drops `body` (its lowest point `half` below its centre) from [`H0`] above a floor of
/// normal `up` in the world of `builder`, with [`SpringCoulomb`] set for a 0.2 ms contact
/// of restitution 0.5 at the body's mass, for `steps` steps of t_c/200 under Gear: the
/// ledger's relative error, the first rebound's apex over H0, and e² of the clamped
/// dashpot (`params::linear_clamped_collision`). Wall contact: m* = m. A flat face on the
/// floor has the overlap area A = w δ over its chord L = w, so the law's overlap is the depth
/// δ in the plane as in 3D: the same law, the same restitution.
fn drop(builder: WorldBuilder, body: RigidBody, up: DVec3, half: f64, steps: usize) -> (f64, f64, f64) {
    let mut world = builder.material(Material::default()).build().expect("valid world");
    world.insert(PlaneBuilder::new(DVec3::ZERO, up).build().expect("plane")).expect("insert");
    world.insert(body).expect("insert");
    let m = world.bodies.mass[1];
    let c = params::LinearCollision::from_collision(2e-4, 0.5, m).expect("valid");
    let law = SpringCoulomb { kn: c.stiffness, gamma_n: c.damping, kt: 0.5 * c.stiffness };
    let mut solver =
        MdSolver::new(law, Gear::six(), BruteForce, MdConfig { skin: 1e-4, ..Default::default() }).expect("solver");
    let e0 = world.kinetic_energy() + world.potential_energy();
    let dt = 2e-4 / 200.0;
    let rebound_theory = params::linear_clamped_collision(c.stiffness, c.damping, m).0.powi(2);
    let (mut bounced, mut apex) = (false, 0.0f64);
    for _ in 0..steps {
        let report = world.step(&mut solver, dt).expect("step");
        let height = world.bodies.position[1].dot(up) - half;
        if report.contacts > 0 && world.bodies.velocity[1].dot(up) > 0.0 {
            bounced = true;
        }
        if bounced && report.contacts == 0 {
            apex = apex.max(height);
        }
    }
    let l = &world.ledger;
    let e1 = world.kinetic_energy() + world.potential_energy() + l.stored_elastic + l.dissipated.total();
    ((e1 - e0).abs() / e0, apex / H0, rebound_theory)
}

/// Two materials for [`MaterialSpring`]: "soft" (stiffness 2e4 N/m) and "hard" (6e4 N/m),
/// whose pair stiffnesses are 1e4 (soft-soft), 1.5e4 (soft-hard) and 3e4 N/m (hard-hard).
pub fn stiffness_materials() -> (Material, Material) {
    (Material::named("soft").with_property("stiffness", 2e4), Material::named("hard").with_property("stiffness", 6e4))
}

fn main() {
    let o = run(60_000);
    println!("{}", o.direct);
    println!("{}", o.composed);
    println!("{}", o.material_pair);
    println!("MD solver (Gear, 6 values), sphere dropped on a floor with the hand-written law:");
    println!("  rebound height / drop height = {:.4} (theory e² = {:.4})", o.rebound_ratio, o.rebound_theory);
    println!("  ledger |E + stored + dissipated − E0| / E0 = {:.3e}", o.ledger_error);
    println!("The same law in a planar world, a square dropped flat on a floor:");
    println!(
        "  rebound height / drop height = {:.4} (theory e² = {:.4})",
        o.planar_rebound_ratio, o.planar_rebound_theory
    );
    println!("  ledger |E + stored + dissipated − E0| / E0 = {:.3e}", o.planar_ledger_error);
}
