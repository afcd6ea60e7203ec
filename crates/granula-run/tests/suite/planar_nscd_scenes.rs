//! Planar scenes with `[solver] kind = "nscd"`: the 3D key names are read, bad or
//! misplaced keys are errors naming them, and steps that stop at the sweep cap are counted
//! in the run's warning summary (or stop the run with `on_cap = "error"`).

use granula_run::planar::{PlanarRun, PlanarScene, PlanarSolver, PLANAR_NSCD_SERIES_HEADER};
use granula_run::ExistingOutput;

/// A column of four squares of side 0.1 m on a floor, contact dynamics with every key.
const COLUMN: &str = r#"
dimension = 2

[simulation]
dt = 1e-3
steps = 50
gravity = [0.0, -9.81]

[solver]
kind = "nscd"
theta = 0.5
tolerance = 1e-8
max_iterations = 100000
warm_start = true
margin = 1e-3
impact = "newton"
on_cap = "warn"

[law]
friction = 0.4
restitution = 0.0

[[walls]]
point = [0.0, 0.0]
normal = [0.0, 1.0]

[[bodies]]
shape = { kind = "vertices", vertices = [[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]] }
position = [0.0, 0.05]

[[bodies]]
shape = { kind = "vertices", vertices = [[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]] }
position = [0.0, 0.15]

[[bodies]]
shape = { kind = "vertices", vertices = [[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]] }
position = [0.0, 0.25]

[[bodies]]
shape = { kind = "vertices", vertices = [[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]] }
position = [0.0, 0.35]
"#;

fn parse(text: &str) -> Result<PlanarScene, String> {
    PlanarScene::parse("scene.toml", text).map_err(|e| e.to_string())
}

fn out_dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("granula-planar-nscd-{name}-{}", std::process::id()))
}

#[test]
fn every_key_is_read_and_the_column_stands() {
    let scene = parse(COLUMN).unwrap();
    let PlanarSolver::Nscd { solver, .. } = &scene.solver else { panic!("contact dynamics expected") };
    let c = solver.config();
    assert_eq!((c.theta, c.tolerance, c.max_sweeps, c.warm_start), (0.5, 1e-8, 100_000, true));
    assert_eq!((c.friction, c.restitution, c.margin, c.dt), (0.4, 0.0, 1e-3, 1e-3));
    assert_eq!(scene.contact_time, None);
    let dir = out_dir("column");
    let mut run = PlanarRun::start(scene, &dir, ExistingOutput::Overwrite).unwrap();
    while !run.is_done() {
        assert!(!run.step().unwrap(), "no step reaches the cap of 10⁵ sweeps");
    }
    assert_eq!((run.warnings.steps, run.warnings.capped_steps), (50, 0));
    let cd = run.scene.solver.nscd().unwrap();
    // The floor carries the four squares (10 kg each) to the tolerance 1e-8 (bound 1e-6
    // relative for the sums of impulses).
    let w = 4.0 * cd.bodies.mass[0] * 9.81;
    let floor = cd.wall_reaction(0).y;
    assert!((floor - w).abs() < 1e-6 * w, "floor {floor} against {w}");
    let series = std::fs::read_to_string(dir.join("series.csv")).unwrap();
    assert!(series.starts_with(PLANAR_NSCD_SERIES_HEADER));
    let last: Vec<f64> = series.lines().last().unwrap().split(',').map(|v| v.parse().unwrap()).collect();
    assert_eq!(last.len(), 9);
    assert_eq!(last[6] as usize, cd.report().active);
    assert_eq!((last[7] as u32, last[8]), (cd.report().sweeps, cd.report().residual));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn misplaced_and_bad_keys_are_named() {
    let cases: [(&str, &str, &str); 8] = [
        ("friction = 0.4", "friction = 0.4\nnormal_stiffness = 1e4", "law.normal_stiffness"),
        ("kind = \"nscd\"", "kind = \"md\"", "solver.theta"),
        ("dt = 1e-3", "dt_fraction = 0.01", "simulation.dt_fraction"),
        ("impact = \"newton\"", "impact = \"none\"", "law.restitution"),
        ("on_cap = \"warn\"", "on_cap = \"warn\"\nhard_cap = 10", "solver.hard_cap"),
        ("theta = 0.5", "theta = 0.2", "solver.theta"),
        ("max_iterations = 100000", "max_iterations = 0", "solver.max_iterations"),
        ("tolerance = 1e-8", "tolerance = -1.0", "solver.tolerance"),
    ];
    for (from, to, key) in cases {
        assert!(COLUMN.contains(from), "{from}");
        let m = parse(&COLUMN.replacen(from, to, 1)).unwrap_err();
        assert!(m.starts_with("scene.toml:") && m.contains(key), "{key}: {m}");
    }
    let m = parse(&COLUMN.replacen("impact = \"newton\"", "impact = \"elastic\"", 1)).unwrap_err();
    assert!(m.contains("elastic"), "{m}");
}

#[test]
fn capped_steps_are_counted_and_on_cap_error_stops_the_run() {
    // Three sweeps cannot bring four squares from rest to 1e-8.
    let capped =
        COLUMN.replacen("max_iterations = 100000", "max_iterations = 3", 1).replacen("steps = 50", "steps = 5", 1);
    let dir = out_dir("capped");
    let mut run = PlanarRun::start(parse(&capped).unwrap(), &dir, ExistingOutput::Overwrite).unwrap();
    assert!(run.step().unwrap(), "the first capped step is announced");
    while !run.is_done() {
        run.step().unwrap();
    }
    assert!(run.warnings.capped_steps >= 1 && run.warnings.first_capped.unwrap().step == 1);
    let lines = run.warnings.lines().join("\n");
    assert!(lines.contains("stopped at the iteration cap"), "{lines}");
    // The folder is locked while a run lives: each run ends before the next starts.
    drop(run);
    // `on_cap = "extend"` raises the cap to `hard_cap`: converged.
    let extended = capped.replacen("on_cap = \"warn\"", "on_cap = \"extend\"\nhard_cap = 100000", 1);
    let mut run = PlanarRun::start(parse(&extended).unwrap(), &dir, ExistingOutput::Overwrite).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    assert_eq!(run.warnings.capped_steps, 0);
    drop(run);
    // `on_cap = "error"`: the first capped step is an error naming the key.
    let strict = capped.replacen("on_cap = \"warn\"", "on_cap = \"error\"", 1);
    let mut run = PlanarRun::start(parse(&strict).unwrap(), &dir, ExistingOutput::Overwrite).unwrap();
    let e = run.step().unwrap_err().to_string();
    assert!(e.contains("on_cap") && e.contains("step 1"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
