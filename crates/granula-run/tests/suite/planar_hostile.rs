//! Hostile input to planar polygon scenes, which the former 2D reader let through, now
//! meets the checks of every scene: a step far too long or a huge force stops the run at
//! the runaway guards with an error naming the step and the body; absurd positions, counts,
//! vertex counts and threads are bounded errors naming the key; a damaged checkpoint of a
//! planar run is refused by its checksum; the time after n steps is n Δt, not a running sum.

use crate::common;

use granula_io::{IoError, Scene};
use granula_run::{Checkpoint, Run};
use std::path::Path;

/// Six hexagons dropped on a floor under MD with the law of 002.
const DROP: &str = r#"
[simulation]
planar = true
dt = 1e-4
steps = 300
gravity = [0.0, -9.81, 0.0]

[solver]
kind = "md"
normal = "area"
normal_stiffness = 1e4
damping = "reduced_mass"
tension = "allow"
tangential = "planar_cundall"
tangential_stiffness_ratio = 0.3333333333333333
threads = 1

[[materials]]
name = "m"
density = 1000.0
friction = 0.5
restitution = 0.8

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]

[[lattices]]
counts = [3, 2, 1]
arrangement = "triangular"
origin = [0.0, 0.025, 0.0]
spacing = 0.05
polygon = { kind = "regular", sides = 6, radius = 0.02 }
seed = 1

[[polygons]]
name = "probe"
shape = { kind = "regular", sides = 5, radius = 0.02 }
position = [0.2, 0.1]
"#;

fn parse(text: &str) -> Result<Scene, String> {
    granula_run::parse_scene("scene.toml", text).map_err(|e| e.to_string())
}

/// Runs `text` to its end or its first error; the error's text.
fn run_error(name: &str, text: &str) -> String {
    let dir = common::tmp("planar-hostile", name);
    let mut run = Run::start(parse(text).unwrap(), &dir).unwrap();
    let mut err = None;
    while !run.is_done() {
        if let Err(e) = run.step() {
            err = Some(e.to_string());
            break;
        }
    }
    drop(run);
    let _ = std::fs::remove_dir_all(&dir);
    err.unwrap_or_else(|| panic!("{name}: the run ended without an error"))
}

#[test]
fn a_huge_step_stops_at_the_guards_naming_step_and_body() {
    // Δt = 100 s: the hexagons fall through the floor within the first steps.
    let e = run_error("dt", &DROP.replace("dt = 1e-4", "dt = 100.0"));
    assert!(e.contains("step") && e.contains("body"), "{e}");
    // 1e30 N throws the probe 1e21 m in one step, past every contact: a free flight, as a
    // sphere's in 3D; the run goes on without a panic and the probe's state stays finite.
    let dir = common::tmp("planar-hostile", "fling");
    let text = DROP.replace("position = [0.2, 0.1]", "position = [0.2, 0.1]\nforce = [0.0, -1e30]");
    let mut run = Run::start(parse(&text).unwrap(), &dir).unwrap();
    while !run.is_done() && run.step().is_ok() {}
    let probe = run.scene.body_named("probe").unwrap();
    assert!(run.world.bodies.position[probe].is_finite());
    drop(run);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A force of 1e6 N on the 0.65 kg probe drives it into the floor faster than any contact
/// can stop it: the overlap guard (`max_overlap_ratio`) stops the run, measuring a polygon
/// pair's overlap against the contact's effective radius.
#[test]
fn a_huge_force_stops_at_the_overlap_guard_naming_step_and_body() {
    let e = run_error("force", &DROP.replace("position = [0.2, 0.1]", "position = [0.2, 0.1]\nforce = [0.0, -1e6]"));
    println!("{e}");
    assert!(e.contains("overlap") && e.contains("step") && e.contains("body"), "{e}");
}

#[test]
fn absurd_values_are_bounded_errors_naming_the_key() {
    let cases: [(&str, &str, &str); 5] = [
        ("counts = [3, 2, 1]", "counts = [4294967295, 4294967295, 1]", "lattices[0].counts"),
        (
            "kind = \"regular\", sides = 5, radius",
            "kind = \"random\", sides = 5, sides_max = 4000000000, radius",
            "polygons[0].shape.sides_max",
        ),
        ("sides = 6, radius", "sides = 100000000, radius", "lattices[0].polygon.sides"),
        ("threads = 1", "threads = 1000000", "solver.threads"),
        ("steps = 300", "steps = 300000000000000", "simulation.steps"),
    ];
    for (from, to, key) in cases {
        assert!(DROP.contains(from), "{from}");
        let m = parse(&DROP.replacen(from, to, 1)).unwrap_err();
        assert!(m.starts_with("scene.toml:") && m.contains(key), "{key}: {m}");
    }
}

/// A body 1e300 m away is refused when the scene is read or stops the run with an error,
/// never a panic.
#[test]
fn a_position_at_1e300_is_refused_without_a_panic() {
    let text = DROP.replace("position = [0.2, 0.1]", "position = [-1e300, 0.0]");
    match parse(&text) {
        Err(m) => assert!(m.contains("polygons[0]"), "{m}"),
        Ok(scene) => {
            let dir = common::tmp("planar-hostile", "far");
            let e = match Run::start(scene, &dir) {
                Err(e) => e.to_string(),
                Ok(mut run) => {
                    let mut err = None;
                    while !run.is_done() && err.is_none() {
                        err = run.step().err();
                    }
                    err.map(|e| e.to_string()).unwrap_or_default()
                }
            };
            let _ = std::fs::remove_dir_all(&dir);
            assert!(e.is_empty() || e.contains("body"), "{e}");
        }
    }
}

#[test]
fn a_damaged_planar_checkpoint_is_refused_by_its_checksum() {
    let dir = common::tmp("planar-hostile", "damaged");
    let mut run = Run::start(parse(DROP).unwrap(), &dir).unwrap();
    for _ in 0..150 {
        run.step().unwrap();
    }
    let path = run.save_checkpoint().unwrap();
    drop(run);
    let good = std::fs::read(&path).unwrap();
    assert!(Checkpoint::from_bytes(&good, &path).is_ok());
    // Every 13th byte flipped in turn (the header, the scene text, the state), and a cut.
    for i in (0..good.len()).step_by(13) {
        let mut bad = good.clone();
        bad[i] ^= 0x5a;
        let e = Checkpoint::from_bytes(&bad, Path::new("edited.bin")).err();
        assert!(e.is_some(), "byte {i} flipped: accepted");
    }
    let cut = dir.join("cut.bin");
    std::fs::write(&cut, &good[..good.len() / 2]).unwrap();
    let e = Run::resume(&cut, Some(&dir.join("again"))).err().expect("a truncated checkpoint is refused");
    assert!(matches!(e, IoError::CheckpointDamaged { .. }) && e.to_string().contains("is damaged"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The clock counts steps: after n steps the time is n Δt to the last bit (Δt = 1e-4 has
/// no exact binary form, so a running sum of Δt drifts from n Δt within 300 steps).
#[test]
fn time_is_the_step_count_times_dt() {
    let dir = common::tmp("planar-hostile", "clock");
    let mut run = Run::start(parse(DROP).unwrap(), &dir).unwrap();
    let mut sum = 0.0f64;
    let mut drifted = false;
    while !run.is_done() {
        run.step().unwrap();
        sum += 1e-4;
        let n = run.world.step_count();
        assert_eq!(run.world.time().to_bits(), (n as f64 * 1e-4).to_bits(), "step {n}");
        drifted |= sum.to_bits() != run.world.time().to_bits();
    }
    assert!(drifted, "the running sum drifts, the clock does not");
    drop(run);
    let _ = std::fs::remove_dir_all(&dir);
}
