//! The conformance kit: a checker any [`ContactLaw`], built-in or user-written, can be run
//! through.
//!
//! [`check_law`] time-steps isolated pairs with its own velocity-Verlet pair integrator
//! ([`pair`]) and checks:
//! - energy never increases (kinetic + stored, head-on, oblique and grazing impacts on a
//!   wall and between two spheres), and the ledger kinetic + stored + dissipated stays at its
//!   initial value;
//! - friction never exceeds the Coulomb limit μ_s (f_n + F_C) of the pair material;
//! - momentum is conserved in sphere-sphere impacts;
//! - objectivity: the same impact in a rigidly rotated frame gives the rotated result;
//! - symmetry: swapping the labels of the two bodies changes nothing physical;
//! - a wall is the limit of a sphere of huge radius and mass;
//! - the restitution the law claims (if any) is the one it produces head-on.
//!
//! The time step is found by the kit: it measures the head-on contact time and uses
//! Δt = t_c / `steps_per_contact`.

pub mod pair;
mod report;
pub mod scenario;

pub use report::{CheckResult, ConformanceReport};

use crate::error::{positive, LawError};
use glam::DQuat;
use granula_core::{ContactLaw, Material, PairMaterial, PairParameters};
use scenario::{run, Impact, Outcome, Scale, Target};

/// Set-up and tolerances of [`check_law`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConformanceSetup {
    /// The pair material the law sees.
    pub material: PairMaterial,
    /// Projectile radius (m).
    pub radius: f64,
    /// Density (kg/m³).
    pub density: f64,
    /// Impact speed (m/s).
    pub speed: f64,
    /// Time steps per head-on contact duration.
    pub steps_per_contact: f64,
    /// The restitution the law claims, checked head-on between two spheres.
    pub claimed_restitution: Option<f64>,
    /// Largest |e_measured − e_claimed|.
    pub restitution_tolerance: f64,
    /// Largest relative energy rise and ledger error. Velocity Verlet at Δt = t_c/200 has
    /// a relative energy error of order (π/200)² ≈ 2.5e-4 during a contact.
    pub energy_tolerance: f64,
    /// Largest relative difference for objectivity and swap symmetry (round-off over a
    /// few thousand steps).
    pub invariance_tolerance: f64,
    /// Largest relative difference between a wall and a sphere `huge_ratio` times larger
    /// (and `huge_ratio`² heavier).
    pub wall_tolerance: f64,
    /// Size ratio of the huge sphere.
    pub huge_ratio: f64,
}

impl Default for ConformanceSetup {
    /// 1 mm glass-like spheres (the core's default material) at 0.5 m/s, 200 steps per
    /// contact, energy tolerance 1e-3 (4× the Verlet error estimate), invariance 1e-9,
    /// wall limit 1e-4 with a 1e6 times larger sphere (R* and m* differ by 1e-6 and 1e-12,
    /// so 100× margin), restitution 0.01.
    fn default() -> Self {
        let m = Material::default();
        ConformanceSetup {
            material: PairMaterial::mix(&m, &m),
            radius: 1e-3,
            density: 2500.0,
            speed: 0.5,
            steps_per_contact: 200.0,
            claimed_restitution: None,
            restitution_tolerance: 0.01,
            energy_tolerance: 1e-3,
            invariance_tolerance: 1e-9,
            wall_tolerance: 1e-4,
            huge_ratio: 1e6,
        }
    }
}

/// Relative difference of two vectors against a scale.
fn rel(a: glam::DVec3, b: glam::DVec3, scale: f64) -> f64 {
    (a - b).length() / scale
}

/// Runs every check on `law`; errors when the set-up is invalid or the law never touches.
/// The law's pair parameter ([`ContactLaw::Pair`]) is computed from two default materials
/// ([`Material::default`], which has no user property); a law that reads properties is
/// checked with [`check_law_between`].
pub fn check_law<L: ContactLaw>(law: &L, setup: &ConformanceSetup) -> Result<ConformanceReport, LawError> {
    let m = Material::default();
    check_law_between(law, setup, &m, &m)
}

/// [`check_law`] with the law's pair parameter computed from materials `a` (body 1) and `b`
/// (body 2) and the set-up's pair values: `L::Pair::from_materials(a, b, &setup.material)`
/// (set `setup.material` to `PairMaterial::mix(a, b)` for the mixed values of the same
/// materials). Its error is [`LawError::PairParameters`].
pub fn check_law_between<L: ContactLaw>(
    law: &L,
    setup: &ConformanceSetup,
    a: &Material,
    b: &Material,
) -> Result<ConformanceReport, LawError> {
    let pair = L::Pair::from_materials(a, b, &setup.material).map_err(|reason| LawError::PairParameters {
        material1: a.name.clone(),
        material2: b.name.clone(),
        reason,
    })?;
    let pair = &pair;
    positive("conformance", "radius", setup.radius)?;
    positive("conformance", "density", setup.density)?;
    positive("conformance", "speed", setup.speed)?;
    positive("conformance", "steps_per_contact", setup.steps_per_contact)?;
    positive("conformance", "huge_ratio", setup.huge_ratio)?;
    setup.material.validate("conformance")?;
    let m = &setup.material;
    let scale = Scale { radius: setup.radius, density: setup.density, speed: setup.speed };
    let plain = |target, angle, spin| Impact { target, angle, spin, swapped: false, frame: DQuat::IDENTITY };
    // Find Δt: shrink a probe step until a head-on wall contact spans ≥ 20 steps.
    let mut dt = 0.05 * setup.radius / setup.speed;
    let mut probe = run(law, (m, pair), &scale, &plain(Target::Wall, 0.0, 0.0), dt, 2_000_000);
    let mut tries = 0;
    while probe.contact_time < 20.0 * dt {
        dt /= 10.0;
        tries += 1;
        if tries > 10 {
            return Err(LawError::InvalidParameter {
                model: "conformance",
                param: "contact_time",
                value: probe.contact_time,
                expected: "a law that produces a contact of finite duration",
            });
        }
        probe = run(law, (m, pair), &scale, &plain(Target::Wall, 0.0, 0.0), dt, 2_000_000);
    }
    dt = probe.contact_time / setup.steps_per_contact;
    let max_steps = (50.0 * setup.steps_per_contact) as usize + 100_000;
    let go = |imp: &Impact| run(law, (m, pair), &scale, imp, dt, max_steps);

    let mut checks = Vec::new();
    let angles = [("head-on", 0.0), ("oblique", std::f64::consts::FRAC_PI_4), ("grazing", 80f64.to_radians())];
    let mut head_on_sphere: Option<Outcome> = None;
    for (target, tname) in [(Target::Wall, "wall"), (Target::Sphere, "sphere")] {
        for (aname, angle) in angles {
            let o = go(&plain(target, angle, 0.5));
            let tag = format!("({aname}, {tname})");
            checks.push(CheckResult::at_most(
                format!("energy never increases {tag}"),
                o.max_energy_rise,
                setup.energy_tolerance,
            ));
            checks.push(CheckResult::at_most(format!("ledger closes {tag}"), o.ledger_error, setup.energy_tolerance));
            // ≤ 1e-12: the cap is enforced by a rescale, exact up to round-off.
            checks.push(CheckResult::at_most(format!("|f_t| <= mu (f_n + F_C) {tag}"), o.coulomb_excess, 1e-12));
            if target == Target::Sphere {
                checks.push(CheckResult::at_most(
                    format!("momentum conserved {tag}"),
                    o.momentum_error,
                    setup.invariance_tolerance,
                ));
                if angle == 0.0 {
                    head_on_sphere = Some(go(&plain(target, angle, 0.0)));
                }
            }
        }
    }

    // Objectivity and swap symmetry on an oblique spinning sphere-sphere impact.
    let base_imp = plain(Target::Sphere, 0.6, 0.7);
    let base = go(&base_imp);
    let v = setup.speed;
    let w = setup.speed / setup.radius;
    let diff = |a: &Outcome, b: &Outcome| -> f64 {
        let (ta, tb) = (a.target.expect("sphere target"), b.target.expect("sphere target"));
        rel(a.projectile.velocity, b.projectile.velocity, v)
            .max(rel(ta.velocity, tb.velocity, v))
            .max(rel(a.projectile.angular_velocity, b.projectile.angular_velocity, w))
            .max(rel(ta.angular_velocity, tb.angular_velocity, w))
    };
    let q = DQuat::from_axis_angle(glam::DVec3::new(0.3, -0.5, 0.8).normalize(), 1.1);
    let rotated = go(&Impact { frame: q, ..base_imp });
    checks.push(CheckResult::at_most("objectivity (rotated frame)", diff(&base, &rotated), setup.invariance_tolerance));
    let swapped = go(&Impact { swapped: true, ..base_imp });
    checks.push(CheckResult::at_most("symmetry (bodies swapped)", diff(&base, &swapped), setup.invariance_tolerance));

    // Wall as the limit of a huge sphere: oblique spinning impact.
    let wall = go(&plain(Target::Wall, 0.6, 0.7));
    let huge = go(&plain(Target::HugeSphere(setup.huge_ratio), 0.6, 0.7));
    let d = rel(wall.projectile.velocity, huge.projectile.velocity, v).max(rel(
        wall.projectile.angular_velocity,
        huge.projectile.angular_velocity,
        w,
    ));
    checks.push(CheckResult::at_most("wall = limit of a huge sphere", d, setup.wall_tolerance));

    if let (Some(e), Some(o)) = (setup.claimed_restitution, head_on_sphere) {
        checks.push(CheckResult::at_most(
            format!("restitution claimed {e:.4} vs produced {:.4}", o.restitution),
            (o.restitution - e).abs(),
            setup.restitution_tolerance,
        ));
    }
    Ok(ConformanceReport { law: law.name(), dt, contact_time: probe.contact_time, checks })
}
