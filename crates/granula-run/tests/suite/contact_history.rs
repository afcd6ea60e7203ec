//! The per-contact outputs (`[output.contact_history]`: contact_history.csv and
//! contact_events.csv) and the trajectory selections of unnamed bodies, run from scene
//! files; the Hertz impact benchmark reproduced from the built-in scene alone.

use crate::common;

use granula_io::Scene;
use granula_run::Run;
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    common::tmp("contact-history", name)
}

/// Runs a scene to its end and returns the output folder.
fn run_scene(scene: Scene, name: &str) -> PathBuf {
    let out = tmp(name);
    let mut run = Run::start(scene, &out).unwrap_or_else(|e| panic!("{name}: {e}"));
    while !run.is_done() {
        run.step().unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    drop(run);
    out
}

/// The rows of a CSV file as maps from column name to text.
fn csv(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(str::to_string).collect();
    lines.map(|l| header.iter().cloned().zip(l.split(',').map(str::to_string)).collect()).collect()
}

fn num(row: &std::collections::HashMap<String, String>, key: &str) -> f64 {
    row[key].parse().unwrap_or_else(|_| panic!("{key} = {:?}", row[key]))
}

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes")
}

#[test]
fn hertz_impact_scene_reproduces_contact_duration_and_max_overlap() {
    let scene = Scene::load(scenes_dir().join("hertz_impact_md.toml")).unwrap();
    // The benchmark's inputs, read from the scene itself.
    let m = &scene.materials[0];
    let r = scene.bodies[0].body.shape.sphere_radius().unwrap();
    let mass = m.density * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let v = (scene.bodies[0].body.state.velocity - scene.bodies[1].body.state.velocity).length();
    let (m_eff, r_eff) = (mass / 2.0, r / 2.0);
    let e_eff = m.young_modulus / (2.0 * (1.0 - m.poisson_ratio.powi(2)));
    let t_c = 2.868 * (m_eff.powi(2) / (r_eff * e_eff.powi(2) * v)).powf(0.2);
    let delta_max = (15.0 * m_eff * v * v / (16.0 * e_eff * r_eff.sqrt())).powf(0.4);
    let f_max = 4.0 / 3.0 * e_eff * r_eff.sqrt() * delta_max.powf(1.5);
    let dt = scene.dt();
    assert!(dt < t_c / 400.0, "the scene resolves the contact with at least 400 steps");

    let out = run_scene(scene, "hertz");
    let events = csv(&out.join("contact_events.csv"));
    assert_eq!(events.len(), 1, "one impact: {events:?}");
    let e = &events[0];
    assert_eq!((e["body1"].as_str(), e["body2"].as_str()), ("left", "right"));
    // Tolerance 0.1 % (the benchmark asks for 1 %): the constant 2.868 is the exact
    // 2.8683 rounded (−1e-4); velocity Verlet at Δt = t_c/406 conserves the elastic impact
    // to O((Δt/t_c)²) ≈ 6e-6; the start and end are interpolated linearly to the zeros of
    // the overlap, exact to O(Δt² δ̈/δ̇) ≈ Δt (Δt/t_c) ≈ 1e-5 t_c; the largest overlap is
    // sampled at steps, low by at most ½ (π Δt/t_c)² ≈ 3e-5. Measured: +9e-5 and +3e-6.
    let duration = num(e, "duration");
    eprintln!(
        "t_c {duration:e} against {t_c:e} (rel. {:e}); max overlap {:e} against {delta_max:e} (rel. {:e}); \
         max force rel. {:e}",
        duration / t_c - 1.0,
        num(e, "max_overlap"),
        num(e, "max_overlap") / delta_max - 1.0,
        num(e, "max_normal_force") / f_max - 1.0
    );
    assert!((duration / t_c - 1.0).abs() < 1e-3, "duration {duration} against t_c = {t_c}");
    let overlap = num(e, "max_overlap");
    assert!((overlap / delta_max - 1.0).abs() < 1e-3, "max overlap {overlap} against {delta_max}");
    // F_max = 4/3 E* √R* δ_max^{3/2}: the same 1e-3 (δ's error enters multiplied by 3/2).
    let force = num(e, "max_normal_force");
    assert!((force / f_max - 1.0).abs() < 1e-3, "max normal force {force} against {f_max}");
    // The interpolated ends lie within the first and last steps' bracket.
    let (start, end) = (num(e, "start_time"), num(e, "end_time"));
    assert!(start <= num(e, "first_step_time") && start >= num(e, "first_step_time") - dt);
    assert!(end >= num(e, "last_step_time") && end <= num(e, "last_step_time") + dt);

    // The time series: one row per step in contact, with the forces the step applied. Under
    // velocity Verlet the recorded force is the Hertz force at the end-of-step overlap the
    // row reports, so they agree to round-off (1e-9 relative covers the δ^{3/2} of a
    // recomputed overlap; a force from another step would differ by percents).
    let rows = csv(&out.join("contact_history.csv"));
    assert_eq!(rows.len() as f64, num(e, "steps"));
    for row in &rows {
        let d = num(row, "overlap");
        let f = num(row, "normal_force");
        let hertz = 4.0 / 3.0 * e_eff * r_eff.sqrt() * d.powf(1.5);
        assert!((f - hertz).abs() <= 1e-9 * hertz, "step {}: {f} against {hertz}", row["step"]);
        assert_eq!(num(row, "tangential_force"), 0.0);
    }
    let _ = std::fs::remove_dir_all(&out);
}

const BOUNCE: &str = r#"
[simulation]
dt = 2e-6
end_time = 0.12
gravity = [0.0, 0.0, -9.81]

[solver]
kind = "md"
tangential = "none"

[[materials]]
name = "m"
young_modulus = 1e7
restitution = 0.7

[[spheres]]
radius = 0.002
position = [0.0, 0.0, 0.0035]

[[planes]]
name = "floor"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]

[output]
contact_history = { bodies = ["floor"], every = 100 }
"#;

#[test]
fn a_bouncing_ball_gives_one_event_per_impact_with_its_duration() {
    let scene = Scene::parse("bounce.toml", BOUNCE).unwrap();
    let out = run_scene(scene, "bounce");
    let events = csv(&out.join("contact_events.csv"));
    // Dropped from 1.5 mm: impacts at 17.5 ms, then after flights of 2 e v/g ≈ 17.5 ms ×
    // 2 × 0.7 … ≈ 24, 17, 12 ms: at least three finished impacts within 0.12 s.
    assert!(events.len() >= 3, "{events:?}");
    for e in events.iter().filter(|e| !e["end_time"].is_empty()) {
        // The unnamed sphere is labelled by its body number.
        assert_eq!((e["body1"].as_str(), e["body2"].as_str()), ("#0", "floor"));
        let d = num(e, "duration");
        assert!(d > 0.0 && (d - (num(e, "end_time") - num(e, "start_time"))).abs() < 1e-15);
        assert!(num(e, "max_overlap") > 0.0 && num(e, "max_normal_force") > 0.0);
    }
    // Hertz impact durations grow slowly as the impacts weaken (t_c ∝ v^{−1/5}).
    let d: Vec<f64> = events.iter().filter(|e| !e["end_time"].is_empty()).map(|e| num(e, "duration")).collect();
    assert!(d.windows(2).all(|w| w[1] > w[0]), "{d:?}");
    // The series every 100 steps: rows only at steps that are multiples of 100.
    let rows = csv(&out.join("contact_history.csv"));
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| (num(r, "step") as u64).is_multiple_of(100)));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn contact_history_under_nscd_reports_the_impulses() {
    let text = r#"
[simulation]
dt = 1e-3
end_time = 0.3

[solver]
kind = "nscd"

[[spheres]]
name = "ball"
radius = 0.01
position = [0.0, 0.0, 0.05]

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]

[output]
contact_history = { bodies = ["ball"] }
"#;
    let scene = Scene::parse("nscd.toml", text).unwrap();
    let out = run_scene(scene, "nscd");
    let rows = csv(&out.join("contact_history.csv"));
    // The inelastic ball lands (about 0.1 s) and rests: its weight m g carried by the floor.
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-6;
    let last = rows.last().unwrap();
    // The solver's tolerance is 1e-4 (relative): the resting impulse is within it.
    assert!((num(last, "normal_force") / (m * 9.81) - 1.0).abs() < 1e-3, "{last:?}");
    let events = csv(&out.join("contact_events.csv"));
    assert_eq!(events.len(), 1, "still in contact at the end: {events:?}");
    assert!(events[0]["end_time"].is_empty(), "an open contact has no end");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn contact_history_names_must_exist() {
    let bad = BOUNCE.replace(r#"bodies = ["floor"]"#, r#"pairs = [["floor", "flor"]]"#);
    let msg = Scene::parse("bad.toml", &bad).unwrap_err().to_string();
    assert!(msg.contains("output.contact_history.pairs[0][1]") && msg.contains("no body"), "{msg}");
}

const LATTICE: &str = r#"
[simulation]
dt = 1e-5
steps = 4

[solver]
kind = "md"

[[spheres]]
name = "probe"
radius = 0.001
position = [0.5, 0.5, 0.5]

[[lattices]]
name = "grid"
origin = [0.0, 0.0, 0.01]
counts = [3, 2, 1]
spacing = 0.01
radius = 0.002

[[packings]]
count = 4
seed = 3
region = { shape = "box", min = [0.2, 0.2, 0.0], max = [0.3, 0.3, 0.1] }
size = { distribution = "uniform", min = 0.002, max = 0.003 }
"#;

fn followed(extra: &str) -> Vec<String> {
    let text = format!("{LATTICE}\n[output.trajectories]\nevery = 2\n{extra}\n");
    let scene = Scene::parse("lattice.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    let out = run_scene(scene, "traj");
    let rows = csv(&out.join("trajectories.csv"));
    let _ = std::fs::remove_dir_all(&out);
    // Steps 0, 2 and 4: three rows per followed body.
    let mut bodies: Vec<String> = rows.iter().map(|r| r["body"].clone()).collect();
    assert_eq!(bodies.len() % 3, 0);
    bodies.truncate(bodies.len() / 3);
    bodies
}

#[test]
fn trajectories_follow_unnamed_bodies_by_range_generator_and_region() {
    // Bodies: 0 the probe, 1-6 the lattice (x fastest), 7-10 the packing.
    assert_eq!(followed("indices = [[2, 3], [9, 9]]"), ["#2", "#3", "#9"]);
    assert_eq!(followed("generators = [\"grid\"]"), ["#1", "#2", "#3", "#4", "#5", "#6"]);
    assert_eq!(followed("generators = [\"packings[0]\"]"), ["#7", "#8", "#9", "#10"]);
    // The lattice row y = 0 (centres at y = 0) only: sites 1, 2, 3.
    assert_eq!(followed("regions = [{ min = [-0.001, -0.001, 0.0], max = [0.05, 0.001, 0.05] }]"), ["#1", "#2", "#3"]);
    // A union, in body order, with names kept.
    assert_eq!(followed("bodies = [\"probe\"]\nindices = [[6, 7]]"), ["probe", "#6", "#7"]);
}

#[test]
fn trajectory_selections_are_validated() {
    let err = |extra: &str| {
        let text = format!("{LATTICE}\n[output.trajectories]\nevery = 2\n{extra}\n");
        Scene::parse("lattice.toml", &text).unwrap_err().to_string()
    };
    let msg = err("indices = [[3, 11]]");
    assert!(msg.contains("output.trajectories.indices[0]") && msg.contains("bodies 0 to 10"), "{msg}");
    let msg = err("indices = [[4, 2]]");
    assert!(msg.contains("first <= last"), "{msg}");
    let msg = err("generators = [\"gird\"]");
    assert!(msg.contains("output.trajectories.generators[0]") && msg.contains("\"grid\""), "{msg}");
    let msg = err("generators = [\"lattices[1]\"]");
    assert!(msg.contains("generators[0]"), "{msg}");
    let msg = err("regions = [{ min = [0.0, 0.0, 0.0], max = [1.0, 0.0, 1.0] }]");
    assert!(msg.contains("output.trajectories.regions[0].max"), "{msg}");
}

#[test]
fn a_resumed_run_continues_the_contact_files() {
    // The bouncing ball for 30 ms: its first impact (at about 17.5 ms, some 0.3 ms long)
    // and part of its flight back up.
    let bounce = BOUNCE.replace("end_time = 0.12", "end_time = 0.03");
    assert!(bounce.contains("end_time = 0.03"), "the scene's end time changed");
    let whole = run_scene(Scene::parse("bounce.toml", &bounce).unwrap(), "whole");
    // Interrupted at 8 ms, in the first fall: no contact is open at the checkpoint, so the
    // resumed run's files must be the same bytes, the whole impact written after the resume.
    let out = tmp("resumed");
    let mut run = Run::start(Scene::parse("bounce.toml", &bounce).unwrap(), &out).unwrap();
    for _ in 0..4000 {
        run.step().unwrap();
    }
    let checkpoint = run.save_checkpoint().unwrap();
    drop(run);
    let mut run = Run::resume(&checkpoint, None).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    drop(run);
    for file in ["contact_history.csv", "contact_events.csv"] {
        let a = std::fs::read_to_string(whole.join(file)).unwrap();
        let b = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(a.lines().count() > 1, "{file} has rows");
        assert!(a == b, "{file} differs after a resume");
    }
    let _ = std::fs::remove_dir_all(&whole);
    let _ = std::fs::remove_dir_all(&out);
}
