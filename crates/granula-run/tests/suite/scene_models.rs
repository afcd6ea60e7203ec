//! Scene choices of the MD models (damping, tension policy, tangential stiffness ratio and
//! dashpot), rigid wall materials and per-pair elastic overrides, run from scene text.

use crate::common;

use granula_io::Scene;
use granula_run::Run;
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    common::tmp("scene-models", name)
}

/// A 5 mm sphere (default material unless `ball` is given) moving at `v` towards a floor
/// 0.1 mm away, without gravity; `solver` and `materials` are extra TOML.
fn impact(solver: &str, materials: &str, v: [f64; 3], dt: f64) -> String {
    format!(
        r#"
[simulation]
dt = {dt:e}
end_time = 3e-3
gravity = [0.0, 0.0, 0.0]

[solver]
kind = "md"
broadphase = "brute_force"
{solver}

{materials}

[[spheres]]
name = "ball"
radius = 0.005
position = [0.0, 0.0, 0.0051]
velocity = [{}, {}, {}]
material = "ball"

[[planes]]
name = "floor"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "wall"

[output]
contact_history = {{ bodies = ["ball"] }}
"#,
        v[0], v[1], v[2]
    )
}

const ELASTIC: &str = r#"
[[materials]]
name = "ball"
restitution = 1.0

[[materials]]
name = "wall"
restitution = 1.0
"#;

/// Runs a scene to its end; returns the run (for the world) and its output folder.
fn run(text: &str, name: &str) -> (Run, PathBuf) {
    let scene = Scene::parse("scene.toml", text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = tmp(name);
    let mut run = Run::start(scene, &out).unwrap_or_else(|e| panic!("{name}: {e}"));
    while !run.is_done() {
        run.step().unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    (run, out)
}

/// The first line after the header of a CSV file, as (column, value) pairs.
fn first_row(path: &std::path::Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(str::to_string).collect();
    header.into_iter().zip(lines.next().unwrap_or_default().split(',').map(str::to_string)).collect()
}

fn field(row: &[(String, String)], key: &str) -> f64 {
    row.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("no {key}")).1.parse().unwrap()
}

/// Hertz contact duration of a sphere of mass m, radius R at speed v against E*.
fn hertz_duration(e_star: f64) -> f64 {
    let (r, v) = (0.005, 1.0);
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    2.868 * (m * m / (r * e_star * e_star * v)).powf(0.2)
}

#[test]
fn a_rigid_wall_takes_the_particles_modulus_alone() {
    let rigid = ELASTIC.replace("name = \"wall\"\n", "name = \"wall\"\nrigid = true\n");
    let (r, out) = run(&impact("tangential = \"none\"", &rigid, [0.0, 0.0, -1.0], 1e-6), "rigid");
    drop(r);
    let ev = first_row(&out.join("contact_events.csv"));
    let (e, nu) = (1e7, 0.3);
    let t_rigid = hertz_duration(e / (1.0 - nu * nu));
    // Tolerance 1e-3: Δt = t_c/887; as for the two-sphere benchmark (constant 2.868 rounded
    // to 1e-4, integration and interpolation errors O((Δt/t_c)²)).
    let d = field(&ev, "duration");
    eprintln!("rigid wall: t_c {d:e} against {t_rigid:e} (rel. {:e})", d / t_rigid - 1.0);
    assert!((d / t_rigid - 1.0).abs() < 1e-3, "rigid wall: {d} against {t_rigid}");
    let _ = std::fs::remove_dir_all(&out);

    // The same wall material without `rigid`: E* halves, t_c grows by 2^{2/5} = 1.32.
    let (r, out) = run(&impact("tangential = \"none\"", ELASTIC, [0.0, 0.0, -1.0], 1e-6), "soft");
    drop(r);
    let d = field(&first_row(&out.join("contact_events.csv")), "duration");
    let t_soft = hertz_duration(e / (2.0 * (1.0 - nu * nu)));
    eprintln!("elastic wall: t_c {d:e} against {t_soft:e} (rel. {:e})", d / t_soft - 1.0);
    assert!((d / t_soft - 1.0).abs() < 1e-3, "elastic wall: {d} against {t_soft}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn rigid_materials_are_for_walls_and_have_no_elastic_keys() {
    let rigid_ball = ELASTIC.replace("name = \"ball\"\n", "name = \"ball\"\nrigid = true\n");
    let msg = Scene::parse("s.toml", &impact("", &rigid_ball, [0.0; 3], 1e-6)).unwrap_err().to_string();
    assert!(msg.contains("materials[0].rigid") && msg.contains("spheres[0]"), "{msg}");
    let with_e = ELASTIC.replace("name = \"wall\"\n", "name = \"wall\"\nrigid = true\nyoung_modulus = 1e9\n");
    let msg = Scene::parse("s.toml", &impact("", &with_e, [0.0; 3], 1e-6)).unwrap_err().to_string();
    assert!(msg.contains("materials[1].young_modulus") && msg.contains("not used"), "{msg}");
}

#[test]
fn pairs_override_young_modulus_and_poisson_ratio() {
    let pairs =
        format!("{ELASTIC}\n[[pairs]]\nmaterials = [\"ball\", \"wall\"]\nyoung_modulus = 3e7\npoisson_ratio = 0.25\n");
    let scene = Scene::parse("s.toml", &impact("tangential = \"none\"", &pairs, [0.0, 0.0, -1.0], 1e-6)).unwrap();
    let world = scene.build_world().unwrap();
    let (a, b) = (world.materials.require("ball").unwrap(), world.materials.require("wall").unwrap());
    let p = world.materials.pair(a, b);
    // The values of two bodies with E = 3e7 Pa and ν = 0.25 (one division each: exact to
    // round-off).
    assert!((p.effective_young / (3e7 / (2.0 * (1.0 - 0.0625))) - 1.0).abs() < 1e-15);
    assert!((p.effective_shear / (3e7 / (4.0 * 1.75 * 1.25)) - 1.0).abs() < 1e-15);
    assert_eq!(p.poisson_ratio, 0.25);
    // And the impact follows them (same tolerance as the rigid wall).
    let (r, out) = run(&impact("tangential = \"none\"", &pairs, [0.0, 0.0, -1.0], 1e-6), "pair");
    drop(r);
    let d = field(&first_row(&out.join("contact_events.csv")), "duration");
    let t = hertz_duration(3e7 / (2.0 * (1.0 - 0.0625)));
    eprintln!("pair override: t_c {d:e} against {t:e} (rel. {:e})", d / t - 1.0);
    assert!((d / t - 1.0).abs() < 1e-3, "{d} against {t}");
    let _ = std::fs::remove_dir_all(&out);
    // Both keys or neither.
    let one = format!("{ELASTIC}\n[[pairs]]\nmaterials = [\"ball\", \"wall\"]\nyoung_modulus = 3e7\n");
    let msg = Scene::parse("s.toml", &impact("", &one, [0.0; 3], 1e-6)).unwrap_err().to_string();
    assert!(msg.contains("pairs[0].young_modulus") && msg.contains("poisson_ratio"), "{msg}");
}

const HALF: &str = r#"
[[materials]]
name = "ball"
restitution = 0.5

[[materials]]
name = "wall"
restitution = 0.5
"#;

/// The rebound ratio of a head-on impact at 1 m/s with this `[solver]` text.
fn rebound(solver: &str, name: &str) -> (f64, String) {
    // A fixed damping coefficient reads no restitution, and a scene may not set one it ignores.
    let materials = if solver.contains("\"fixed\"") { HALF.replace("restitution = 0.5\n", "") } else { HALF.into() };
    let (r, out) = run(&impact(&format!("tangential = \"none\"\n{solver}"), &materials, [0.0, 0.0, -1.0], 1e-6), name);
    let _ = std::fs::remove_dir_all(&out);
    eprintln!("{name}: rebound {:.6}", r.world.bodies.velocity[0].z);
    (r.world.bodies.velocity[0].z, r.solver.describe())
}

#[test]
fn damping_and_tension_choices_change_the_law() {
    // Δt = t_c/1171: velocity Verlet's restitution error is first order, ≈ 7e-4 at t_c/400
    // for e = 0.5, so ≈ 2.4e-4 here; tolerance 1e-3.
    let (e, name) = rebound("", "calibrated");
    assert!((e - 0.5).abs() < 1e-3, "calibrated (default): {e}");
    assert!(name.contains("hertz_viscous"), "{name}");
    let (e, _) = rebound("damping = \"calibrated\"\ntension = \"allow\"", "calibrated_allow");
    assert!(e < 0.49, "the clamp-calibrated ratio with tension allowed rebounds lower: {e}");
    // Tsuji's (LIGGGHTS') coefficient: e with tension allowed, 0.5503 under the clamp
    // (docs/contact-laws.md).
    for d in ["tsuji", "liggghts"] {
        let (e, _) = rebound(&format!("damping = \"{d}\"\ntension = \"allow\""), d);
        assert!((e - 0.5).abs() < 1e-3, "{d}, tension allowed: {e}");
        let (e, _) = rebound(&format!("damping = \"{d}\""), d);
        assert!((e - 0.5503).abs() < 1e-3, "{d}, clamped: {e}");
    }
    // The integrated dashpot: the calibrated e, within the same tolerance.
    let (e, name) = rebound("damping = \"calibrated_impulse\"", "calibrated_impulse");
    assert!((e - 0.5).abs() < 1e-3, "calibrated_impulse: {e}");
    assert!(name.contains("hertz_viscous_impulse"), "{name}");
    let hooke = impact(
        "tangential = \"none\"\nnormal = \"hooke\"\nnormal_stiffness = 1e4\ndamping = \"calibrated_impulse\"",
        HALF,
        [0.0, 0.0, -1.0],
        1e-6,
    );
    let msg = match granula_run::build_solver(&Scene::parse("s.toml", &hooke).unwrap()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("calibrated_impulse with a linear spring was accepted"),
    };
    assert!(msg.contains("damping") && msg.contains("hertz"), "{msg}");
    let (e, name) = rebound("damping = \"hunt_crossley\"", "hunt_crossley");
    assert!(name.contains("hunt_crossley"), "{name}");
    // 003's claim e holds for e close to 1 only: at 0.5 the rebound is of the same order.
    assert!(e > 0.3 && e < 0.8, "{e}");
    // A fixed γ_n = 0: elastic (energy conserved to O(Δt²)).
    let (e, _) = rebound("damping = \"fixed\"\ndamping_coefficient = 0.0", "fixed");
    assert!((e - 1.0).abs() < 1e-6, "{e}");
}

/// The tangential force of the first contact step of an oblique impact.
fn first_tangential_force(solver: &str, name: &str) -> f64 {
    let sticky = HALF.replace("restitution = 0.5", "restitution = 0.5\nfriction = 1.0");
    let (r, out) = run(&impact(solver, &sticky, [0.01, 0.0, -1.0], 1e-6), name);
    drop(r);
    let row = first_row(&out.join("contact_history.csv"));
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(field(&row, "sliding"), 0.0, "{name}: sticks");
    field(&row, "tangential_force")
}

#[test]
fn tangential_stiffness_ratio_and_dashpot_are_scene_choices() {
    // At the first contact step the spring holds ξ = v_t Δt whatever k_t, and the normal
    // motion is the same in every run (bit-identical positions), so F_t = k_t ξ scales
    // exactly with the ratio (round-off tolerance 1e-12).
    let half = first_tangential_force("tangential_stiffness_ratio = 0.5", "kt_half");
    let quarter = first_tangential_force("tangential_stiffness_ratio = 0.25", "kt_quarter");
    assert!(half > 0.0 && (half / quarter - 2.0).abs() < 1e-12, "{half} {quarter}");
    let none = first_tangential_force("tangential_damping = \"none\"", "ct_none");
    let zero = first_tangential_force("tangential_damping = \"ratio\"\ntangential_damping_ratio = 0.0", "ct_zero");
    assert_eq!(none, zero);
    let damped = first_tangential_force("tangential_damping = \"same_damping_ratio\"", "ct_same");
    assert!(damped > none * 1.01, "a tangential dashpot adds to the spring: {damped} against {none}");
    let ratio = first_tangential_force("tangential_damping = \"ratio\"\ntangential_damping_ratio = 1.0", "ct_one");
    assert!(ratio > none * 1.01 && ratio != damped, "{ratio} {damped} {none}");
}

#[test]
fn model_names_are_validated_and_listed() {
    let err = |solver: &str| Scene::parse("s.toml", &impact(solver, HALF, [0.0; 3], 1e-6)).unwrap_err().to_string();
    let msg = err("damping = \"hunt_crosley\"");
    assert!(msg.contains("solver.damping") && msg.contains("\"hunt_crossley\"") && msg.contains("\"tsuji\""), "{msg}");
    let msg = err("tension = \"clamp\"");
    assert!(msg.contains("solver.tension") && msg.contains("\"no_attraction\""), "{msg}");
    let msg = err("tangential_damping = \"same\"");
    assert!(msg.contains("solver.tangential_damping") && msg.contains("\"same_damping_ratio\""), "{msg}");
    let msg = err("damping = \"fixed\"");
    assert!(msg.contains("damping_coefficient"), "{msg}");
    let msg = err("damping_coefficient = 3.0");
    assert!(msg.contains("solver.damping_coefficient") && msg.contains("fixed"), "{msg}");
    let msg = err("tangential = \"none\"\ntangential_stiffness_ratio = 0.3");
    assert!(msg.contains("solver.tangential_stiffness_ratio") && msg.contains("cundall_strack"), "{msg}");
    let msg = err("tangential_stiffness_ratio = -1.0");
    assert!(msg.contains("solver.tangential_stiffness_ratio"), "{msg}");
}

#[test]
fn the_unbounded_cundall_strack_spring_is_a_scene_choice() {
    // 003 eq. 4 by name, with the spring's stiffness and dashpot keys.
    let solver = "tangential = \"unbounded_cundall_strack\"\ntangential_stiffness_ratio = 0.5\n\
                  tangential_damping = \"same_damping_ratio\"";
    let (r, out) = run(&impact(solver, HALF, [0.3, 0.0, -1.0], 1e-6), "unbounded_cundall_strack");
    let _ = std::fs::remove_dir_all(&out);
    assert!(r.solver.describe().contains("unbounded_cundall_strack"), "{}", r.solver.describe());
    // The spring keys on a model without a spring name both spring models.
    let err = Scene::parse(
        "s.toml",
        &impact("tangential = \"viscous\"\ntangential_stiffness_ratio = 0.3", HALF, [0.0; 3], 1e-6),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("solver.tangential_stiffness_ratio") && err.contains("unbounded_cundall_strack"), "{err}");
}

#[test]
fn the_brendel_dippel_spring_is_a_scene_choice() {
    // 003 eqs. 5-6 by name, with the spring's stiffness and dashpot keys (its physics
    // against the paper's Figs. 4-5: `granula-polyhedra`'s `creep_md` tests).
    let solver = "tangential = \"brendel_dippel\"\ntangential_stiffness_ratio = 0.5\n\
                  tangential_damping = \"same_damping_ratio\"";
    let (r, out) = run(&impact(solver, HALF, [0.3, 0.0, -1.0], 1e-6), "brendel_dippel");
    let _ = std::fs::remove_dir_all(&out);
    assert!(r.solver.describe().contains("brendel_dippel"), "{}", r.solver.describe());
    // An oblique impact under a spring model: the ball leaves spinning.
    let b = &r.world.bodies;
    let ball = (0..b.len()).find(|&i| b.radius[i].is_finite()).expect("the ball");
    assert!(b.angular_velocity[ball].y > 0.0, "{}", b.angular_velocity[ball]);
    let err = Scene::parse(
        "s.toml",
        &impact("tangential = \"none\"\ntangential_damping = \"same_damping_ratio\"", HALF, [0.0; 3], 1e-6),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("solver.tangential_damping") && err.contains("brendel_dippel"), "{err}");
}
