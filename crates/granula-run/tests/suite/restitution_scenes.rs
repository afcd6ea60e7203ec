//! Single impacts run from scene text: a Hertz sphere on a plane with the damping calibrated
//! from the material's restitution e, over materials, speeds, walls and the phase of the
//! first touch within a step, at Δt = t_c/100 of the elastic impact.
//!
//! The scene path once gave its dashpots the half-step velocities (the runner did not pass
//! the integrator's velocity offsets on): a stiff ceramic on a rigid plane at e = 0.2 came
//! back 1.08 % too slow with `"calibrated_impulse"`, whose documented error is 0.1 %. These
//! tests hold the scene path to the library's figures (docs/contact-laws.md).

use crate::common;

use granula_core::DVec3;
use granula_io::Scene;
use granula_run::Run;

/// A material: name for messages, Young's modulus (Pa), Poisson's ratio, density (kg/m³).
struct Solid {
    name: &'static str,
    young: f64,
    poisson: f64,
    density: f64,
}

/// A stiff ceramic (silicon carbide) and a soft, rubber-like solid: 4.6 decades of modulus.
const SOLIDS: [Solid; 2] = [
    Solid { name: "silicon carbide", young: 410e9, poisson: 0.14, density: 3210.0 },
    Solid { name: "soft", young: 1e7, poisson: 0.45, density: 1100.0 },
];

const RADIUS: f64 = 1e-3;

/// Undamped Hertz contact time of the sphere on the plane at `speed` (Hertz theory:
/// t_c = 2.868 (m²/(R E*² v))^{1/5}), with E* of a rigid wall, E/(1 − ν²), or of a wall of
/// the same solid, E/(2(1 − ν²)).
fn contact_time(s: &Solid, speed: f64, rigid: bool) -> f64 {
    let m = s.density * 4.0 / 3.0 * std::f64::consts::PI * RADIUS.powi(3);
    let e_star = s.young / (1.0 - s.poisson * s.poisson) / if rigid { 1.0 } else { 2.0 };
    2.868 * (m * m / (RADIUS * e_star * e_star * speed)).powf(0.2)
}

/// The restitution of one impact: the sphere starts `phase` steps of travel above the
/// plane at `speed`, and the run goes on for three contact times.
fn restitution(s: &Solid, speed: f64, rigid: bool, e: f64, damping: &str, phase: f64) -> f64 {
    let dt = contact_time(s, speed, rigid) / 100.0;
    let wall = if rigid { "rigid = true".to_string() } else { solid_keys(s) };
    let text = format!(
        r#"
[simulation]
dt = {dt:e}
steps = 350
gravity = [0.0, 0.0, 0.0]

[solver]
kind = "md"
normal = "hertz"
damping = "{damping}"
tangential = "none"
broadphase = "brute_force"

[[materials]]
name = "ball"
{ball}
restitution = {e}
friction = 0.0

[[materials]]
name = "wall"
{wall}
restitution = {e}
friction = 0.0

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "wall"

[[spheres]]
radius = {RADIUS:e}
position = [0.0, 0.0, {z:e}]
velocity = [0.0, 0.0, {v:e}]
material = "ball"
"#,
        ball = solid_keys(s),
        z = RADIUS + phase * speed * dt,
        v = -speed,
    );
    let scene = Scene::parse("impact.toml", &text).unwrap_or_else(|err| panic!("{err}"));
    let out = common::tmp("restitution-scenes", &format!("{}-{speed}-{rigid}-{e}-{damping}-{phase}", s.name));
    let mut run = Run::start(scene, &out).unwrap_or_else(|err| panic!("{err}"));
    while !run.is_done() {
        run.step().unwrap_or_else(|err| panic!("{err}"));
    }
    let b = &run.world.bodies;
    let ball = (0..b.len()).find(|&i| b.radius[i].is_finite()).expect("the sphere");
    let v = b.velocity[ball];
    drop(run);
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(v.truncate(), DVec3::ZERO.truncate(), "a head-on impact stays on its axis");
    v.z / speed
}

/// The elastic keys of a solid.
fn solid_keys(s: &Solid) -> String {
    format!("young_modulus = {:e}\npoisson_ratio = {}\ndensity = {}", s.young, s.poisson, s.density)
}

/// Eight onset phases, the midpoints of eight equal parts of a step.
fn phases() -> impl Iterator<Item = f64> {
    (0..8).map(|k| (k as f64 + 0.5) / 8.0)
}

#[test]
fn with_the_integrated_dashpot_every_impact_is_within_0_2_percent() {
    // The reduced equation of a calibrated impact depends on e and Δt/t_c alone (the
    // module doc of `clamped_calibration`), so the errors are the same for every solid,
    // speed and wall: measured −0.090 % to −0.079 % at e = 0.1, −0.076 % to −0.066 % at 0.2,
    // −0.040 % to −0.031 % at 0.5 and −0.005 % to −0.001 % at 0.95 (second order in Δt).
    // Tolerance: 0.2 % per impact, the target set for single impacts at t_c/100.
    for s in &SOLIDS {
        for speed in [0.1, 10.0] {
            for rigid in [true, false] {
                for e in [0.1, 0.2, 0.5, 0.95] {
                    for phase in phases() {
                        let err = restitution(s, speed, rigid, e, "calibrated_impulse", phase) / e - 1.0;
                        assert!(
                            err.abs() < 2e-3,
                            "{} at {speed} m/s, rigid wall {rigid}, e = {e}, phase {phase}: error {err:+.3e}",
                            s.name
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn with_the_sampled_dashpot_the_mean_over_onset_phases_is_within_0_15_percent() {
    // The sampled Tsuji dashpot (`"calibrated"`, the default) misses part of the first
    // steps' impulse by an amount that depends on the onset phase, ∝ Δt^{5/4}, with zero
    // mean over the phase (docs/contact-laws.md): per impact −0.71 % to +1.09 % at e = 0.1.
    // What is left in the mean over eight phases is the integrator's second-order error,
    // the same as the integrated dashpot's, and the eight-point quadrature of the phase
    // term: measured −0.083 % at e = 0.1, −0.072 % at 0.2, −0.036 % at 0.5, −0.003 % at
    // 0.95; tolerance 0.15 % (a first-order error, as with the half-step velocities, is
    // −2.2 % at e = 0.1). Each impact stays within the documented band: measured −0.71 %
    // to +0.94 % at e = 0.1, tolerance 1.1 %.
    for s in &SOLIDS {
        for e in [0.1, 0.2, 0.5, 0.95] {
            let errors: Vec<f64> =
                phases().map(|phase| restitution(s, 1.0, true, e, "calibrated", phase) / e - 1.0).collect();
            let mean = errors.iter().sum::<f64>() / errors.len() as f64;
            assert!(mean.abs() < 1.5e-3, "{}, e = {e}: mean error {mean:+.3e} over {errors:?}", s.name);
            assert!(errors.iter().all(|err| err.abs() < 1.1e-2), "{}, e = {e}: {errors:?}", s.name);
        }
    }
}
