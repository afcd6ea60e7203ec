//! A sphere on an incline with the MD solver and granula-laws's laws: rolling without slip at
//! a = (5/7) g sin α when μ is large, sliding at g (sin α − μ cos α) when μ is small, and a
//! sphere with locked rotation resting on a slope with μ > tan α under Brendel-Dippel
//! friction (003 eqs. 5-6) for 1e5 steps.

use granula::broadphase::BruteForce;
use granula::core::{DVec3, Dofs, Material, PlaneBuilder, SphereBuilder, World};
use granula::integrators::Gear;
use granula::laws::{
    hertz_mindlin, BrendelDippel, Composed, Friction, Hertz, HertzViscous, TangentialDamping, TangentialStiffness,
};
use granula::md::{MdConfig, MdSolver};

const R: f64 = 0.005;
const G: f64 = 9.81;

/// Gravity tilted by α instead of a tilted floor; the sphere starts resting on the floor at
/// its static Hertz overlap so that no impact perturbs the start.
fn incline_world(alpha: f64, mu: f64, lock_rotation: bool) -> (World, usize) {
    let material = Material { friction: mu, young_modulus: 1e8, restitution: 0.5, ..Material::default() };
    let mut w = World::builder()
        .gravity(DVec3::new(G * alpha.sin(), 0.0, -G * alpha.cos()))
        .material(material)
        .build()
        .unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    // Static Hertz overlap: m g cos α = (4/3) E* √R δ^{3/2}, E* = E / (2 (1 − ν²)) for two
    // identical materials (the wall's material is the sphere's).
    let mass = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * R.powi(3);
    let e_star = 1e8 / (2.0 * (1.0 - 0.09));
    let delta = (mass * G * alpha.cos() / (4.0 / 3.0 * e_star * R.sqrt())).powf(2.0 / 3.0);
    let mut b = SphereBuilder::new(R, DVec3::new(0.0, 0.0, R - delta));
    if lock_rotation {
        b = b.lock(Dofs::ROTATION);
    }
    w.insert(b.build().unwrap()).unwrap();
    (w, 1)
}

fn slope_acceleration(alpha: f64, mu: f64) -> (f64, f64) {
    let (mut w, i) = incline_world(alpha, mu, false);
    let mut s =
        MdSolver::new(hertz_mindlin(), Gear::six(), BruteForce, MdConfig { skin: 1e-3, ..Default::default() }).unwrap();
    let dt = 2e-6;
    let steps = 50_000;
    for _ in 0..steps {
        w.step(&mut s, dt).unwrap();
    }
    let t = steps as f64 * dt;
    (w.bodies.velocity[i].x / t, w.bodies.angular_velocity[i].y * R / t)
}

#[test]
fn rolls_without_slip_when_friction_is_large() {
    let alpha = 25f64.to_radians();
    let (a, a_roll) = slope_acceleration(alpha, 0.5);
    let expected = 5.0 / 7.0 * G * alpha.sin();
    // Over 0.1 s the tangential spring's start-up oscillation (period ~1e-4 s, damped)
    // averages out to well below 0.5 % of the mean acceleration.
    assert!((a - expected).abs() < 5e-3 * expected, "a = {a}, expected {expected}");
    assert!((a_roll - a).abs() < 5e-3 * expected, "slip: ω R / t = {a_roll} vs a = {a}");
}

#[test]
fn slides_when_friction_is_small() {
    let alpha = 25f64.to_radians();
    let mu = 0.1;
    let (a, a_roll) = slope_acceleration(alpha, mu);
    let expected = G * (alpha.sin() - mu * alpha.cos());
    // Sliding from the start: only the first loading of the spring differs, < 0.5 %.
    assert!((a - expected).abs() < 5e-3 * expected, "a = {a}, expected {expected}");
    // Spin-up by the friction torque: α = μ m g cos α R / I = (5/2) μ g cos α / R.
    let spin = 2.5 * mu * G * alpha.cos();
    assert!((a_roll - spin).abs() < 5e-3 * spin, "ω R / t = {a_roll}, expected {spin}");
}

#[test]
fn rests_on_a_slope_with_brendel_dippel_friction() {
    // μ = 0.5 > tan 20° = 0.364, rotation locked (a free sphere rolls whatever μ).
    let alpha = 20f64.to_radians();
    let (mut w, i) = incline_world(alpha, 0.5, true);
    // Tangential damping γ_t = γ_n damps the spring's elastic oscillation, which would
    // otherwise persist (normal damping does not act on it) and be mistaken for creep.
    let tangential =
        BrendelDippel::new(TangentialStiffness::FromNormal, TangentialDamping::Ratio(1.0), Friction::from_material())
            .unwrap();
    let law = Composed::new(Hertz::from_material(), HertzViscous::from_material(), tangential);
    let mut s = MdSolver::new(law, Gear::six(), BruteForce, MdConfig { skin: 1e-4, ..Default::default() }).unwrap();
    let dt = 2e-6;
    // Let the tangential spring take its static load (its elastic deflection is not drift).
    for _ in 0..20_000 {
        w.step(&mut s, dt).unwrap();
    }
    let x0 = w.bodies.position[i];
    for _ in 0..100_000 {
        w.step(&mut s, dt).unwrap();
    }
    let drift = (w.bodies.position[i] - x0).length();
    assert!(drift < 1e-6 * R, "crept by {drift} m over 1e5 steps");
}
