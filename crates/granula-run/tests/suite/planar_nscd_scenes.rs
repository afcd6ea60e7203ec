//! Planar polygon scenes under contact dynamics (`[solver] kind = "nscd"`) through the
//! one reader and driver: the column of squares stands with the floor carrying its weight,
//! keys that make no sense for rigid contacts are errors naming them, and steps stopped at
//! the sweep cap are counted (or stop the run with `on_cap = "error"`) as in 3D.

use crate::common;

use granula_run::Run;

/// A column of four squares of side 0.1 m on a floor, contact dynamics.
const COLUMN: &str = r#"
[simulation]
planar = true
dt = 1e-3
steps = 50
gravity = [0.0, -9.81, 0.0]

[solver]
kind = "nscd"
theta = 0.5
criterion = "global"
tolerance = 1e-8
max_iterations = 100000
momentum = false
on_cap = "warn"

[[materials]]
name = "blocks"
density = 1000.0
friction = 0.4

[[planes]]
name = "floor"
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]

[[polygons]]
shape = { kind = "vertices", vertices = [[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]] }
position = [0.0, 0.05]

[[polygons]]
shape = { kind = "vertices", vertices = [[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]] }
position = [0.0, 0.15]

[[polygons]]
shape = { kind = "vertices", vertices = [[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]] }
position = [0.0, 0.25]

[[polygons]]
shape = { kind = "vertices", vertices = [[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]] }
position = [0.0, 0.35]

[output]
series = { every = 1 }
"#;

fn parse(text: &str) -> Result<granula_io::Scene, String> {
    granula_run::parse_scene("scene.toml", text).map_err(|e| e.to_string())
}

/// The column stands: after 50 steps the squares have not moved by more than the
/// tolerance allows, and the floor's contacts carry the weight of the four (10 kg each),
/// to the solver's tolerance: the point contacts of polygons hold each square at the two
/// ends of its common faces (with the overlap-area contacts the squares met only once they
/// overlapped, and the floor carried 381.9 N of the 392.4 N after 50 steps).
#[test]
fn the_column_stands_on_the_floor() {
    let dir = common::tmp("planar-nscd", "column");
    let mut run = Run::start(parse(COLUMN).unwrap(), &dir).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    assert_eq!((run.warnings.steps, run.warnings.capped_steps), (50, 0));
    let b = &run.world.bodies;
    let weight: f64 = (1..5).map(|i| b.mass[i] * 9.81).sum();
    assert!((b.mass[1] - 10.0).abs() < 1e-12, "ρ a² = 1000 × 0.01");
    let floor: f64 = run
        .solver
        .contacts()
        .expect("published for the series")
        .iter()
        .filter(|c| c.body1 == 0 || c.body2 == 0)
        .map(|c| if c.body2 == 0 { -c.force.y } else { c.force.y })
        .sum();
    assert!((floor / weight - 1.0).abs() < 1e-3, "floor {floor} N against the weight {weight} N");
    for i in 1..5 {
        let drift = (b.position[i].y - (0.05 + 0.1 * (i - 1) as f64)).abs();
        assert!(drift < 1e-3, "square {i} moved by {drift} m");
    }
    drop(run);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn keys_that_rigid_contacts_do_not_use_are_named() {
    let cases: [(&str, &str, &str); 5] = [
        ("dt = 1e-3", "dt_fraction = 0.01", "simulation.dt_fraction"),
        ("gravity = [0.0, -9.81, 0.0]", "gravity = [0.0, -9.81, 0.0]\nshear_rate = 1.0", "simulation.shear_rate"),
        ("momentum = false", "momentum = false\nnormal = \"area\"", "normal"),
        ("friction = 0.4", "friction = 0.4\nrestitution = 0.5", "materials[0].restitution"),
        ("theta = 0.5", "theta = 0.2", "solver.theta"),
    ];
    for (from, to, key) in cases {
        assert!(COLUMN.contains(from), "{from}");
        let m = parse(&COLUMN.replacen(from, to, 1)).unwrap_err();
        assert!(m.starts_with("scene.toml:") && m.contains(key), "{key}: {m}");
    }
    let m = parse(&COLUMN.replacen("gravity = [0.0, -9.81, 0.0]", "gravity = [0.0, -9.81, 0.0]\nshear_rate = 1.0", 1))
        .unwrap_err();
    assert!(m.contains("contact dynamics"), "{m}");
}

#[test]
fn capped_steps_are_counted_and_on_cap_error_stops_the_run() {
    // Three sweeps cannot bring four squares in contact to 1e-8.
    let capped =
        COLUMN.replacen("max_iterations = 100000", "max_iterations = 3", 1).replacen("steps = 50", "steps = 20", 1);
    let dir = common::tmp("planar-nscd", "capped");
    let mut run = Run::start(parse(&capped).unwrap(), &dir).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    assert!(run.warnings.capped_steps >= 1 && run.warnings.first_capped.is_some());
    let lines = run.warnings.lines().join("\n");
    assert!(lines.contains("iteration cap"), "{lines}");
    drop(run);
    let _ = std::fs::remove_dir_all(&dir);
    let strict = capped.replacen("on_cap = \"warn\"", "on_cap = \"error\"", 1);
    let dir = common::tmp("planar-nscd", "strict");
    let mut run = Run::start(parse(&strict).unwrap(), &dir).unwrap();
    let mut e = None;
    while !run.is_done() && e.is_none() {
        e = run.step().err().map(|e| e.to_string());
    }
    let e = e.expect("on_cap = \"error\" stops the run");
    assert!(e.contains("step"), "{e}");
    drop(run);
    let _ = std::fs::remove_dir_all(&dir);
}
