//! Time-dependent loads (`[[loads]]`): the impulse they deliver against the analytic value,
//! and the errors for loads that cannot act.

use crate::common;

use granula_io::{IoError, Scene};
use granula_run::Run;

fn tmp(name: &str) -> std::path::PathBuf {
    common::tmp("loads", name)
}

/// A free 0.01 kg ball without gravity under `load` (a `[[loads]]` table body). Δt = 2⁻¹⁴ s
/// and the times below are multiples of it, so every step starts at an exact time.
fn scene(load: &str) -> String {
    format!(
        r#"
[simulation]
dt = 6.103515625e-5
steps = 640
gravity = [0.0, 0.0, 0.0]

[solver]
kind = "md"

[[spheres]]
name = "ball"
radius = 0.01
mass = 0.01
position = [0.0, 0.0, 0.0]

[[loads]]
body = "ball"
{load}
"#
    )
}

/// The ball's velocity along x after the scene's 640 steps (0.0390625 s).
fn final_velocity(load: &str) -> f64 {
    let s = Scene::parse("load.toml", &scene(load)).unwrap();
    let dir = tmp("run");
    let mut run = Run::start(s, &dir).unwrap();
    for _ in 0..640 {
        run.step().unwrap();
    }
    let _ = std::fs::remove_dir_all(dir);
    run.world.bodies.velocity[0].x
}

#[test]
fn loads_deliver_their_impulse_to_round_off() {
    let (f, m, dt) = (0.02, 0.01, 6.103515625e-5);
    // On from 2⁻⁷ s to 3·2⁻⁷ s: 256 steps. The momentum gained is F (end − start); velocity
    // Verlet with a load that is constant over each step gives it to round-off (the two
    // half kicks around each switch add up to one step). Round-off: at most 640 additions
    // of about 1e-16 relative each, so 1e-12 relative.
    let v = final_velocity("force = [0.02, 0.0, 0.0]\nstart = 0.0078125\nend = 0.0234375");
    let expected = f * (0.0234375 - 0.0078125) / m;
    assert!((v - expected).abs() <= 1e-12 * expected, "v = {v}, F (end − start)/m = {expected}");
    // The same with a ramp of 2⁻⁸ s (64 steps). The ramp is sampled at the step starts,
    // j/64 for j = 0…63: a left Riemann sum of a linear ramp, which falls short of its
    // integral F ramp/2 by exactly F Δt/2. So the impulse is F (end − start − ramp/2 − Δt/2),
    // again to round-off.
    let v = final_velocity("force = [0.02, 0.0, 0.0]\nstart = 0.0078125\nend = 0.0234375\nramp = 0.00390625");
    let expected = f * (0.0234375 - 0.0078125 - 0.5 * 0.00390625 - 0.5 * dt) / m;
    assert!((v - expected).abs() <= 1e-12 * expected, "v = {v}, expected {expected}");
    // A load that stays (no end) is still acting when the run stops. Velocity Verlet's
    // two half kicks follow the load as if it had switched on half a step late, so after
    // T = 640 Δt the velocity is F (T − start − Δt/2)/m; its last half kick would come at
    // the next step.
    let v = final_velocity("force = [0.02, 0.0, 0.0]\nstart = 0.0078125");
    let expected = f * (640.0 * dt - 0.0078125 - 0.5 * dt) / m;
    assert!((v - expected).abs() <= 1e-12 * expected, "v = {v}, expected {expected}");
}

#[test]
fn loads_that_cannot_act_are_rejected_by_key() {
    let cases = [
        ("body = \"nobody\"", "loads[0].body", "names no body"),
        ("force = [1.0, 0.0, 0.0]\nstart = 0.5\nend = 0.5", "loads[0].end", "> start"),
        ("force = [1.0, 0.0, 0.0]\nstart = -1.0", "loads[0].start", ""),
        ("force = [1.0, 0.0, 0.0]\nramp = -0.1", "loads[0].ramp", ""),
    ];
    for (load, key, problem) in cases {
        // The unknown-body case replaces the `body` line; the others add keys after it.
        let text = if load.starts_with("body") { scene("").replace("body = \"ball\"", load) } else { scene(load) };
        let err = Scene::parse("bad.toml", &text).expect_err("rejected");
        let msg = err.to_string();
        assert!(matches!(err, IoError::Invalid { .. }), "{msg}");
        assert!(msg.contains(key) && msg.contains(problem), "{key}: {msg}");
    }
    // A fixed wall cannot be moved by a load.
    let text = scene("force = [1.0, 0.0, 0.0]").replace("body = \"ball\"", "body = \"floor\"")
        + "\n[[planes]]\nname = \"floor\"\npoint = [0.0, 0.0, -1.0]\nnormal = [0.0, 0.0, 1.0]\n";
    let msg = Scene::parse("wall.toml", &text).expect_err("rejected").to_string();
    assert!(msg.contains("loads[0].body") && msg.contains("not dynamic"), "{msg}");
}
