//! Mesh walls in scene files (`[[meshes]]`): a floor of two triangles against the plane
//! floor to the bit, spheres coming to rest in the committed trough, an exact resume, the
//! refused inputs, and the example scene.

use crate::common;
use granula_run::{load_scene, Run};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/meshes")
}

/// A folder holding the scene `s.toml` and the given files; returns the scene's path.
fn folder(name: &str, scene: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let dir = common::tmp("mesh", name);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, bytes) in files {
        std::fs::write(dir.join(file), bytes).unwrap();
    }
    std::fs::write(dir.join("s.toml"), scene).unwrap();
    dir.join("s.toml")
}

/// Runs the scene at `path` to its end into `out` and returns its series.csv.
fn run_to_end(path: &Path, out: &Path) -> String {
    let mut run = Run::start(load_scene(path).unwrap(), out).unwrap();
    run.run_until_done(&AtomicBool::new(false), |_| {}).unwrap();
    drop(run);
    std::fs::read_to_string(out.join("series.csv")).unwrap()
}

/// A square floor 0.2 m wide in the plane z = 0, of two triangles meeting along the
/// diagonal from (-0.1, -0.1) to (0.1, 0.1).
const SQUARE: &str = "v -0.1 -0.1 0\nv 0.1 -0.1 0\nv 0.1 0.1 0\nv -0.1 0.1 0\nf 1 2 3\nf 1 3 4\n";

/// Four spheres of 5 mm dropped from 1 to 4 mm above the floor with some spin and sideways
/// speed: they bounce, slide, roll and settle, each over the inside of one triangle (far
/// from the diagonal, the square's edges and each other), so they touch faces only.
fn floor_scene(floor: &str) -> String {
    format!(
        r#"[simulation]
dt = 1e-5
steps = 20000
gravity = [0.0, 0.0, -9.81]

[solver]
kind = "md"

[[materials]]
name = "m"
density = 2500.0
young_modulus = 1e7
poisson_ratio = 0.3
restitution = 0.5
friction = 0.4

[[spheres]]
radius = 0.005
position = [0.05, -0.05, 0.006]
velocity = [0.05, 0.0, 0.0]
[[spheres]]
radius = 0.005
position = [-0.05, 0.05, 0.007]
angular_velocity = [3.0, 0.0, 1.0]
[[spheres]]
radius = 0.005
position = [0.06, -0.02, 0.008]
velocity = [0.0, 0.04, -0.1]
[[spheres]]
radius = 0.005
position = [-0.02, 0.06, 0.009]
velocity = [-0.03, 0.02, 0.0]
{floor}
[output]
series = {{ every = 10 }}
vtk = {{ every = 5000 }}
stress = [{{ name = "all", min = [-0.1, -0.1, 0.0], max = [0.1, 0.1, 0.02], every = 100 }}]
"#
    )
}

/// Spheres on a floor of two triangles give the plane floor's series.csv to the bit: a
/// face contact is computed as the plane's, from the triangle's normal (0, 0, 1) exactly
/// and a corner at z = 0, and the tangential spring keeps its key from step to step.
#[test]
fn a_mesh_floor_gives_the_plane_floor_series_to_the_bit() {
    let plane = floor_scene("[[planes]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\n");
    let mesh = floor_scene("[[meshes]]\nname = \"floor\"\nfile = \"square.obj\"\n");
    let a = folder("plane-floor", &plane, &[]);
    let b = folder("mesh-floor", &mesh, &[("square.obj", SQUARE.as_bytes())]);
    let (out_a, out_b) = (a.with_file_name("out"), b.with_file_name("out"));
    let (sa, sb) = (run_to_end(&a, &out_a), run_to_end(&b, &out_b));
    assert!(sa.lines().count() > 2000, "{} rows", sa.lines().count());
    if let Some(k) = sa.lines().zip(sb.lines()).position(|(x, y)| x != y) {
        panic!("row {k} differs:\n{}\n{}", sa.lines().nth(k).unwrap(), sb.lines().nth(k).unwrap());
    }
    assert_eq!(sa, sb);
    // The stress of the spheres counts their wall contacts by their branch vectors from
    // the centres, the same for both floors.
    let stress = |o: &Path| std::fs::read_to_string(o.join("stress_all.csv")).unwrap();
    assert_eq!(stress(&out_a), stress(&out_b), "stress_all.csv");
    // The mesh floor is drawn in shapes.pvd by its two triangles; walls.pvd has the plane
    // only in the plane's run.
    assert!(!out_a.join("shapes.pvd").exists());
    let frame = std::fs::read_to_string(out_b.join("vtk/shapes_000005000.vtp")).unwrap();
    assert!(frame.contains("NumberOfPolys=\"2\""), "{frame}");
    // The spheres' frames, and the contact lines, which end at the contact point on either
    // floor, are the same files.
    for frame in ["particles_000020000.vtp", "contacts_000020000.vtp"] {
        let read = |o: &Path| std::fs::read(o.join("vtk").join(frame)).unwrap();
        assert!(read(&out_a) == read(&out_b), "{frame}");
    }
    // The spheres did land: the last row counts their four floor contacts.
    let header: Vec<&str> = sa.lines().next().unwrap().split(',').collect();
    let k = header.iter().position(|h| *h == "contacts").expect("a contacts column");
    let last: Vec<&str> = sa.lines().last().unwrap().split(',').collect();
    assert_eq!(last[k], "4", "{header:?}\n{last:?}");
    let _ = std::fs::remove_dir_all(a.parent().unwrap());
    let _ = std::fs::remove_dir_all(b.parent().unwrap());
}

/// The committed trough (two 45° slopes, 1 m, here scaled to 10 cm) holding five spheres,
/// closed at its ends by two planes.
fn trough_scene(steps: u64, extra: &str) -> String {
    format!(
        r#"[simulation]
dt = 1e-5
steps = {steps}
gravity = [0.0, 0.0, -9.81]

[solver]
kind = "md"
local_damping = 0.05

[[materials]]
name = "m"
density = 2500.0
young_modulus = 1e7
poisson_ratio = 0.3
restitution = 0.5
friction = 0.5

[[meshes]]
name = "trough"
file = "trough.obj"
scale = 0.1
position = [0.0, 0.0, 0.0]

[[planes]]
point = [0.0, -0.05, 0.0]
normal = [0.0, 1.0, 0.0]
[[planes]]
point = [0.0, 0.05, 0.0]
normal = [0.0, -1.0, 0.0]

[[spheres]]
name = "a"
radius = 0.006
position = [0.02, -0.03, 0.04]
[[spheres]]
radius = 0.006
position = [-0.015, -0.012, 0.045]
[[spheres]]
radius = 0.006
position = [0.01, 0.005, 0.05]
[[spheres]]
radius = 0.006
position = [-0.02, 0.022, 0.035]
[[spheres]]
radius = 0.006
position = [0.0, 0.038, 0.06]
{extra}"#
    )
}

fn trough_folder(name: &str, scene: &str) -> PathBuf {
    let obj = std::fs::read(assets().join("trough.obj")).unwrap();
    folder(name, scene, &[("trough.obj", &obj)])
}

#[test]
fn spheres_come_to_rest_in_the_trough() {
    let path = trough_folder("trough-rest", &trough_scene(60_000, ""));
    let out = path.with_file_name("out");
    let mut run = Run::start(load_scene(&path).unwrap(), &out).unwrap();
    run.run_until_done(&AtomicBool::new(false), |_| {}).unwrap();
    let b = &run.world.bodies;
    let r = 0.006;
    for i in 0..b.len() {
        if !matches!(b.shape[i], granula_core::Shape::Sphere { .. }) {
            continue;
        }
        let (x, v) = (b.position[i], b.velocity[i]);
        // At rest: after 0.6 s (some 40 contact-damping times of the 1e7 Pa Hertz contact
        // and several roll-and-settle periods of a 6 mm sphere in the groove), a sphere
        // moves less than 1 mm/s, i.e. less than its own radius in 6 s, against the
        // 0.3 m/s it reached on its fall.
        assert!(v.length() < 1e-3, "sphere {i} at {x} still moves at {v}");
        // In the trough: above both slopes (|x| <= z within the overlaps of a resting
        // contact, 1e-4 m, 2 % of the radius, against about 5e-6 m of Hertz overlap under
        // the weight of two spheres) and inside its ends.
        let depth = (x.z - x.x.abs()) / std::f64::consts::SQRT_2;
        assert!(depth > r - 1e-4, "sphere {i} at {x} sinks into a slope ({depth} < {r})");
        assert!(x.y.abs() < 0.05 && x.z < 0.05, "sphere {i} at {x} left the trough");
        assert!(x.z.is_finite());
    }
    let c = run.last_report.contacts;
    assert!(c >= 5, "the spheres rest on the walls: {c} contacts");
    drop(run);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// A run interrupted at an arbitrary step and resumed from its checkpoint ends with the
/// same state and the same series.csv as the run without interruption, to the bit.
#[test]
fn a_resumed_trough_run_is_bit_identical() {
    let scene = trough_scene(6_000, "[output]\nseries = { every = 7 }\n");
    let a = trough_folder("trough-a", &scene);
    let b = trough_folder("trough-b", &scene);
    let (out_a, out_b) = (a.with_file_name("out"), b.with_file_name("out"));
    let mut ra = Run::start(load_scene(&a).unwrap(), &out_a).unwrap();
    ra.run_until_done(&AtomicBool::new(false), |_| {}).unwrap();
    let ca = ra.checkpoint().unwrap();
    drop(ra);
    let mut rb = Run::start(load_scene(&b).unwrap(), &out_b).unwrap();
    while rb.world.step_count() < 2_377 {
        rb.step().unwrap();
    }
    let saved = rb.save_checkpoint().unwrap();
    drop(rb);
    let mut rb = Run::resume(&saved, None).unwrap();
    assert_eq!(rb.world.step_count(), 2_377);
    rb.run_until_done(&AtomicBool::new(false), |_| {}).unwrap();
    let cb = rb.checkpoint().unwrap();
    drop(rb);
    common::assert_same_motion(&ca, &cb);
    let bits = |v: &[glam::DVec3]| v.iter().flat_map(|x| x.to_array().map(f64::to_bits)).collect::<Vec<_>>();
    assert_eq!(bits(&ca.world.force), bits(&cb.world.force), "forces");
    assert!(ca.solver_state == cb.solver_state, "solver state (contact histories)");
    let series = |o: &Path| std::fs::read_to_string(o.join("series.csv")).unwrap();
    assert_eq!(series(&out_a), series(&out_b), "series.csv");
    assert_eq!(ca.meshes.len(), 1, "the trough's file is checked on resume");
    let _ = std::fs::remove_dir_all(a.parent().unwrap());
    let _ = std::fs::remove_dir_all(b.parent().unwrap());
}

/// A resume refuses a mesh wall's file that changed since the run started, naming it.
#[test]
fn a_resume_refuses_a_changed_mesh_file() {
    let path = trough_folder("trough-changed", &trough_scene(100, ""));
    let out = path.with_file_name("out");
    let mut run = Run::start(load_scene(&path).unwrap(), &out).unwrap();
    for _ in 0..10 {
        run.step().unwrap();
    }
    let saved = run.save_checkpoint().unwrap();
    drop(run);
    let obj = path.with_file_name("trough.obj");
    let text = std::fs::read_to_string(&obj).unwrap().replace("v 0 -0.5 0", "v 0 -0.5 0.01");
    std::fs::write(&obj, text).unwrap();
    let e = Run::resume(&saved, None).err().expect("a changed mesh file is refused").to_string();
    assert!(e.contains("trough.obj"), "{e}");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// The error of the scene `text` (with the trough's file and `files` beside it).
fn error_of(name: &str, text: &str, files: &[(&str, &[u8])]) -> String {
    let obj = std::fs::read(assets().join("trough.obj")).unwrap();
    let mut all: Vec<(&str, &[u8])> = vec![("trough.obj", &obj)];
    all.extend_from_slice(files);
    let path = folder(name, text, &all);
    let e = load_scene(&path).unwrap_err().to_string();
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
    e
}

/// `s.toml:N:`, the place of the line of `needle` in `text` as errors name it.
fn line(text: &str, needle: &str) -> String {
    format!("s.toml:{}:", text.lines().position(|l| l.contains(needle)).unwrap() + 1)
}

#[test]
fn bad_mesh_walls_are_refused_naming_the_key_file_and_line() {
    let base = trough_scene(10, "");
    // A missing file: the key, its line, the file.
    let t = base.replace("file = \"trough.obj\"", "file = \"missing.obj\"");
    let e = error_of("missing", &t, &[]);
    assert!(e.contains("meshes[0].file") && e.contains("missing.obj"), "{e}");
    assert!(e.contains(&line(&t, "missing.obj")), "{e}");
    // A bad scale.
    for bad in ["0.0", "-1.0", "nan"] {
        let t = base.replace("scale = 0.1", &format!("scale = {bad}"));
        let e = error_of("scale", &t, &[]);
        assert!(e.contains("meshes[0].scale"), "{e}");
        assert!(e.contains(&line(&t, "scale =")), "{e}");
    }
    // An unknown key.
    let t = base.replace("scale = 0.1", "scale = 0.1\nscaling = 2.0");
    let e = error_of("unknown", &t, &[]);
    assert!(e.contains("scaling") && e.contains(&line(&t, "scaling")), "{e}");
    // NaN in the file: the key, the file, the triangle's line in the file.
    let nan = b"v 0 0 0\nv 1 0 0\nv nan 1 0\nf 1 2 3\n";
    let t = base.replace("file = \"trough.obj\"", "file = \"nan.obj\"");
    let e = error_of("nan", &t, &[("nan.obj", nan)]);
    assert!(e.contains("meshes[0].file") && e.contains("nan.obj"), "{e}");
    assert!(e.contains("nan.obj, line 4") && e.contains("non-finite"), "the triangle's line in the file: {e}");
    // A mesh wall with overlap-volume polyhedron contacts (with point contacts they are
    // accepted under MD, polyhedra_settle_in_the_trough_which_carries_their_weight, and
    // under contact dynamics, mesh_polyhedra_nscd.rs).
    let poly = "\n[[polyhedra]]\nshape = { kind = \"cube\", size = 0.01 }\nposition = [0.0, 0.0, 0.08]\n";
    let volume = base
        .replace("local_damping = 0.05", "local_damping = 0.05\nnormal = \"volumetric\"\ndamping = \"hunt_crossley\"");
    let e = error_of("polyhedra-volume", &format!("{volume}{poly}"), &[]);
    assert!(e.contains("meshes[0]") && e.contains("polyhedron_contacts = \"points\""), "{e}");
}

/// A sphere placed into a wall at the start is refused, naming the wall and the sphere.
#[test]
fn a_sphere_placed_into_a_mesh_wall_is_refused() {
    let t = trough_scene(10, "").replace("position = [0.02, -0.03, 0.04]", "position = [0.02, -0.03, 0.022]");
    let e = error_of("overlap", &t, &[]);
    assert!(e.contains("meshes[0]") && e.contains("spheres[0]"), "{e}");
}

/// The example scene parses and runs a few hundred steps.
#[test]
fn the_trough_example_runs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/trough_md.toml");
    let scene = load_scene(&path).unwrap();
    assert!(scene.has_mesh_walls());
    let out = common::tmp("mesh", "example");
    let mut run = Run::start(scene, &out).unwrap();
    for _ in 0..300 {
        run.step().unwrap();
    }
    assert!(run.world.bodies.position.iter().all(|x| x.is_finite()));
    drop(run);
    let _ = std::fs::remove_dir_all(out);
}

/// The committed trough (10 cm, closed at its ends by two planes) and six polyhedra dropped
/// into it: cubes, an octahedron, random convex polyhedra and a non-convex L-block; 0.7 s.
/// One solver thread: the same bits as on any number, and six bodies gain nothing from a
/// second.
const TROUGH_POLYHEDRA: &str = r#"[simulation]
dt = 1e-5
steps = 70000
gravity = [0.0, 0.0, -9.81]

[solver]
kind = "md"
threads = 1
local_damping = 0.05

[[materials]]
name = "m"
density = 2500.0
young_modulus = 1e7
poisson_ratio = 0.3
restitution = 0.3
friction = 0.5

[[meshes]]
name = "trough"
file = "trough.obj"
scale = 0.1

[[planes]]
name = "front"
point = [0.0, -0.05, 0.0]
normal = [0.0, 1.0, 0.0]
[[planes]]
name = "back"
point = [0.0, 0.05, 0.0]
normal = [0.0, -1.0, 0.0]

[[polyhedra]]
shape = { kind = "cube", size = 0.012 }
position = [0.01, -0.03, 0.03]
rotation = [0.3, 0.2, 0.1]
[[polyhedra]]
shape = { kind = "cube", size = 0.01 }
position = [-0.012, 0.0, 0.035]
angular_velocity = [0.0, 5.0, 0.0]
[[polyhedra]]
shape = { kind = "octahedron", size = 0.012 }
position = [0.0, 0.028, 0.03]
[[polyhedra]]
shape = { kind = "random_convex", radius = 0.007, points = 16, seed = 4 }
position = [0.015, 0.015, 0.045]
[[polyhedra]]
shape = { kind = "random_convex", radius = 0.006, points = 24, seed = 9 }
position = [-0.018, -0.025, 0.05]
[[polyhedra]]
shape = { kind = "l_block", size = 0.005 }
position = [0.0, -0.01, 0.06]
rotation = [0.0, 0.4, 0.0]

[output]
wall_loads = { every = 1000 }
"#;

#[test]
fn polyhedra_settle_in_the_trough_which_carries_their_weight() {
    let path = trough_folder("trough-polyhedra", TROUGH_POLYHEDRA);
    let out = path.with_file_name("out");
    let mut run = Run::start(load_scene(&path).unwrap(), &out).unwrap();
    run.run_until_done(&AtomicBool::new(false), |_| {}).unwrap();
    let b = &run.world.bodies;
    let mut weight = 0.0;
    for i in 0..b.len() {
        if b.mass[i].is_finite() && b.mass[i] > 0.0 {
            let (x, v) = (b.position[i], b.velocity[i]);
            weight += b.mass[i] * 9.81;
            // At rest after 0.7 s (locally damped, restitution 0.3; the last body stops
            // rocking at 0.4 s): below 1 mm/s against the 0.3 m/s of the fall (measured
            // 1.5e-8 m/s); in the trough, above both slopes and between its ends.
            assert!(v.length() < 1e-3, "body {i} at {x} still moves at {v}");
            assert!(x.z > x.x.abs() && x.y.abs() < 0.05 && x.z < 0.05, "body {i} at {x} left the trough");
        }
    }
    let c = run.last_report.contacts;
    drop(run);
    assert!(c >= 12, "the polyhedra rest on the walls and each other: {c} contacts");
    // The walls' loads at the last step: the trough and the two end planes together carry
    // the weight, Σ F = −M (g − a_cm), and at rest (locally damped for 0.7 s) a_cm is under
    // 1e-6 g (measured 6e-8 of the weight, the horizontal load; 1.3e-6 at 0.6 s, 4e-7 at
    // 0.65 s).
    let text = std::fs::read_to_string(out.join("wall_loads.csv")).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let last = rows.last().unwrap()[1];
    let at_end: Vec<&Vec<&str>> = rows.iter().filter(|r| r[1] == last).collect();
    let walls: Vec<&str> = at_end.iter().map(|r| r[2]).collect();
    assert_eq!(walls, ["front", "back", "trough"]);
    let f = |r: &Vec<&str>, k: usize| r[k].parse::<f64>().unwrap();
    let total = at_end.iter().fold([0.0; 3], |s, r| [s[0] + f(r, 3), s[1] + f(r, 4), s[2] + f(r, 5)]);
    println!("{c} contacts; the walls carry {total:?} N against the weight {weight} N");
    assert!((total[2] + weight).abs() < 1e-6 * weight, "walls carry {total:?} against {weight} N");
    assert!(total[0].abs() < 1e-6 * weight && total[1].abs() < 1e-6 * weight, "{total:?}");
    // The trough carries most of it: the end planes push horizontally, and friction on them
    // carries at most μ times their load.
    let trough = at_end.iter().find(|r| r[2] == "trough").unwrap();
    assert!(-f(trough, 5) > 0.5 * weight, "the trough carries {} N of {weight} N", -f(trough, 5));
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
