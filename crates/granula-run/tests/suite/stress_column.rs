//! Love-Weber stress of a column of spheres at rest, from the NSCD solver's contact forces,
//! against the analytic value; and a sphere rolling down an incline (MD) against
//! a = (5/7) g sin α.

use crate::common;

use glam::DVec3;
use granula_io::output::{loaded_contacts, love_weber_stress};
use granula_io::Scene;
use granula_run::Run;

fn tmp(name: &str) -> std::path::PathBuf {
    common::tmp("phys", name)
}

/// A simple cubic stack of 3 × 3 × 6 touching spheres (r = 1 cm) on a floor, between
/// frictionless side walls that touch it, converged tightly at every step.
const COLUMN: &str = r#"
[simulation]
dt = 1e-3
steps = 5

[solver]
kind = "nscd"
criterion = "local"
tolerance = 1e-10
cutoff = 1e-14
max_iterations = 20000
sweep = "forward"

[[materials]]
name = "smooth"
friction = 0.0

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
[[planes]]
point = [0.0, 0.0, 0.0]
normal = [1.0, 0.0, 0.0]
[[planes]]
point = [0.06, 0.0, 0.0]
normal = [-1.0, 0.0, 0.0]
[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
[[planes]]
point = [0.0, 0.06, 0.0]
normal = [0.0, -1.0, 0.0]

[[lattices]]
origin = [0.01, 0.01, 0.01]
counts = [3, 3, 6]
spacing = 0.02
radius = 0.01
"#;

#[test]
fn column_stress_matches_the_weight_profile() {
    let scene = Scene::parse("column.toml", COLUMN).unwrap();
    let dir = tmp("column");
    let mut run = Run::start(scene, &dir).unwrap();
    for _ in 0..4 {
        run.step().unwrap();
    }
    // The scene writes no contacts, so ask for the forces of the last step.
    // (The run's own step publishes only for the outputs due, so step the solver directly:
    // the scene has no loads and no outputs, nothing else happens in a run's step.)
    run.solver.publish_contacts(true);
    let dt = run.scene.dt();
    let report = run.solver.step(&mut run.world, dt).unwrap();
    // At rest the floor carries the whole weight (the walls are frictionless): the step's
    // global balance is the column's change of momentum, nothing at 1e-10 convergence
    // (1e-8 leaves room for the round-off of 54 bodies' weights and the floor's 9 forces).
    let balance = report.support_imbalance().expect("gravity is a load");
    assert!(balance < 1e-8, "support imbalance {balance}");
    // The load is the 54 spheres' weight, pointing down (the supports receive it).
    let weight = 54.0 * run.world.bodies.mass[5] * 9.81;
    assert!((report.applied_load.z + weight).abs() < 1e-12 * weight, "load {}", report.applied_load);
    assert!((report.support_force.z + weight).abs() < 1e-8 * weight, "supports {}", report.support_force);
    let mut recs = Vec::new();
    loaded_contacts(&run.world, run.solver.contacts().expect("published"), &mut recs);
    // The box holding the whole column: 6 cm × 6 cm × 12 cm.
    let s = love_weber_stress(&run.world, &recs, DVec3::ZERO, DVec3::new(0.06, 0.06, 0.12));
    let m = run.world.bodies.mass[5];
    let (layers, per_layer, r, g) = (6.0, 9.0, 0.01, 9.81);
    // Layer k from the top (k = 0..L-1) carries k m g from above and (k+1) m g from below,
    // each at arm r: σ_zz V = n m g r Σ (2k + 1) = n m g r L², V = A (2 r L).
    let v = 0.06 * 0.06 * 0.12;
    let expected = per_layer * m * g * r * layers * layers / v;
    // Converged to a relative 1e-10 per contact; the positions moved by at most g Δt² per
    // step (~1e-5 m) against r = 1e-2 m in the arms: 1e-6 relative covers both.
    assert!((s.sigma.z_axis.z - expected).abs() < 1e-6 * expected, "σ_zz {} vs {expected}", s.sigma.z_axis.z);
    // Frictionless walls and a vertical load: no shear, and no horizontal stress in a
    // simple cubic stack.
    for (i, j) in [(0, 1), (0, 2), (1, 2), (0, 0), (1, 1)] {
        assert!(s.sigma.col(j)[i].abs() < 1e-6 * expected, "σ_{i}{j} = {}", s.sigma.col(j)[i]);
    }
    // 54 spheres of radius r in V: φ = 54 (4/3 π r³) / V = π/6 for simple cubic.
    assert!((s.packing_fraction - std::f64::consts::PI / 6.0).abs() < 1e-12);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn incline_scene_rolls_without_slipping() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/incline_md.toml");
    let scene = Scene::load(&path).unwrap();
    let dir = tmp("incline");
    let mut run = Run::start(scene, &dir).unwrap();
    let ball = run.scene.body_named("ball").unwrap();
    let x0 = run.world.bodies.position[ball];
    // 0.1 s = 10 000 steps of 10 µs.
    for _ in 0..10_000 {
        run.step().unwrap();
    }
    let alpha = 30f64.to_radians();
    let down = DVec3::new(-alpha.cos(), 0.0, -alpha.sin());
    let s = (run.world.bodies.position[ball] - x0).dot(down);
    let t = run.world.time();
    let expected = 0.5 * 5.0 / 7.0 * 9.81 * alpha.sin() * t * t;
    // Rolling without slip (μ = 0.5 > (2/7) tan 30° = 0.165): the Hertz contact settles in
    // the first few contact times and its micro-slip of the tangential spring costs ~1e-4
    // of the distance; 1e-3 is the budget.
    assert!((s - expected).abs() < 1e-3 * expected, "s = {s}, (5/14) g sin α t² = {expected}");
    // The spin matches v / r (no slip). The contact's tangential spring keeps oscillating
    // (it is released at rest and barely damped), so the contact point's velocity
    // ω r − v swings by ~1e-3 m/s around zero (0.4 % of v at 0.1 s): 1 % is the budget.
    let v = run.world.bodies.velocity[ball].dot(down);
    let w = run.world.bodies.angular_velocity[ball].y.abs();
    assert!((w * 0.01 - v).abs() < 1e-2 * v, "ω r = {} vs v = {v}", w * 0.01);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn rolling_resistance_decelerates_at_five_sevenths_mu_r_g_over_r() {
    // 001 eqs. 1.40-1.42: a couple μ_r F_n opposes rolling; with rolling without slip,
    // (m + I/r²) a = μ_r m g / r, so a = (5/7) μ_r g / r for a solid sphere.
    let text = r#"
[simulation]
dt = 1e-5
steps = 5000

[solver]
kind = "md"
rolling = true

[[materials]]
name = "m"
young_modulus = 1e8
friction = 0.5
rolling_friction = 1e-3

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]

[[spheres]]
name = "ball"
radius = 0.01
position = [0.0, 0.0, 0.01]
velocity = [0.1, 0.0, 0.0]
angular_velocity = [0.0, 10.0, 0.0]
"#;
    let scene = Scene::parse("rolling.toml", text).unwrap();
    let dir = tmp("rolling");
    let mut run = Run::start(scene, &dir).unwrap();
    // Only the rolling resistance was asked for.
    let law = run.solver.describe();
    assert!(law.contains("rolling_resistance") && !law.contains("twisting") && !law.contains("cohesion"), "{law}");
    // Let the contact settle (a few contact times, ~1e-4 s each), then measure.
    for _ in 0..1000 {
        run.step().unwrap();
    }
    let (t1, v1) = (run.world.time(), run.world.bodies.velocity[0].x);
    for _ in 0..4000 {
        run.step().unwrap();
    }
    let (t2, v2) = (run.world.time(), run.world.bodies.velocity[0].x);
    let a = (v1 - v2) / (t2 - t1);
    let expected = 5.0 / 7.0 * 1e-3 * 9.81 / 0.01;
    // The rolling spring oscillates about its cap and the Hertz overlap shortens the lever
    // arm by δ/r ~ 1e-4: 2 % covers the oscillation's residue over 0.04 s.
    assert!((a - expected).abs() < 0.02 * expected, "a = {a}, (5/7) μ_r g / r = {expected}");
    let _ = std::fs::remove_dir_all(dir);
}
