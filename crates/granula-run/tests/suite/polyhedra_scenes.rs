//! Polyhedra in scene files: built-ins, mesh files and packings of random convex polyhedra
//! run under MD and NSCD, restart bit for bit from a checkpoint, and bad input is refused
//! with an error naming the key or the file before anything is written.

use crate::common;

use granula_core::Shape;
use granula_io::Scene;
use granula_run::{load_scene, parse_scene, Checkpoint, Run};
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    common::tmp("poly", name)
}

const FLOOR_AND_BODIES: &str = r#"
[[materials]]
name = "grain"
young_modulus = 1e7
friction = 0.5

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
[[planes]]
point = [0.0, 0.0, 0.0]
normal = [1.0, 0.0, 0.0]
[[planes]]
point = [0.012, 0.0, 0.0]
normal = [-1.0, 0.0, 0.0]
[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
[[planes]]
point = [0.0, 0.012, 0.0]
normal = [0.0, -1.0, 0.0]

[[packings]]
count = 30
seed = 4
region = { shape = "box", min = [0.0, 0.0, 0.0], max = [0.012, 0.012, 0.008] }
size = { distribution = "uniform", min = 0.0009, max = 0.0013 }
polyhedra = { points = 12 }

[[polyhedra]]
name = "die"
shape = { kind = "cube", size = 0.002 }
position = [0.006, 0.006, 0.0105]
rotation = [0.4, 0.0, 0.3]
velocity = [0.0, 0.0, -0.2]
"#;

fn md(steps: u64, output: &str) -> String {
    format!(
        "[simulation]\ndt = 5e-6\nsteps = {steps}\n\n[solver]\nkind = \"md\"\nskin = 2e-4\n{FLOOR_AND_BODIES}\n{output}"
    )
}

#[test]
fn packings_and_built_ins_become_polyhedra() {
    let scene = parse_scene("p.toml", &md(10, "")).unwrap();
    let faces: Vec<usize> = scene
        .bodies
        .iter()
        .filter_map(|p| match &p.body.shape {
            Shape::Custom(c) => c.surface().map(|m| m.triangles.len()),
            _ => None,
        })
        .collect();
    // 30 packed random hulls of 12 points (at most 2·12 − 4 = 20 triangles each) and the
    // cube (12 triangles).
    assert_eq!(faces.len(), 31);
    assert!(faces[..30].iter().all(|&f| (8..=20).contains(&f)), "{faces:?}");
    assert_eq!(faces[30], 12);
    // Deterministic from the seed: the same file gives the same shapes and poses.
    let again = parse_scene("p.toml", &md(10, "")).unwrap();
    for (a, b) in scene.bodies.iter().zip(&again.bodies) {
        assert_eq!(a.body.state.position, b.body.state.position);
        assert_eq!(a.body.state.orientation, b.body.state.orientation);
    }
    // The cube's mass is its volume at the default density, 2500 kg/m³ × (2 mm)³.
    let die = &scene.bodies[scene.body_named("die").unwrap()];
    let world = scene.build_world().unwrap();
    let i = world.bodies.index(granula_core::BodyHandle(scene.body_named("die").unwrap() as u32)).unwrap();
    assert!((world.bodies.mass[i] - 2500.0 * 8e-9).abs() < 1e-12 * 2e-5, "{}", world.bodies.mass[i]);
    assert_eq!(die.origin, "polyhedra[0]");
}

#[test]
fn md_and_nscd_run_a_polyhedra_scene_and_draw_its_faces() {
    let out = tmp("md-run");
    let mut run =
        Run::start(parse_scene("p.toml", &md(400, "[output]\nvtk = { every = 200 }")).unwrap(), &out).unwrap();
    let z0 = run.world.bodies.position.clone();
    while !run.is_done() {
        run.step().unwrap();
    }
    // Every body fell (gravity, 2 ms) and none went through the floor.
    let b = &run.world.bodies;
    let moved = (0..b.len()).filter(|&i| b.position[i].z < z0[i].z).count();
    assert!(moved >= 31, "{moved} bodies fell");
    let shapes = std::fs::read_to_string(out.join("vtk/shapes_000000400.vtp")).unwrap();
    assert!(shapes.contains("NumberOfPolys=\"") && !shapes.contains("NumberOfPolys=\"0\""));
    assert_eq!(std::fs::read_to_string(out.join("shapes.pvd")).unwrap().matches("<DataSet").count(), 3);
    let _ = std::fs::remove_dir_all(&out);

    let nscd = format!(
        "[simulation]\ndt = 1e-4\nsteps = 60\n\n[solver]\nkind = \"nscd\"\nmax_iterations = 200\n{FLOOR_AND_BODIES}"
    );
    let out = tmp("nscd-run");
    let mut run = Run::start(parse_scene("n.toml", &nscd).unwrap(), &out).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    // After 6 ms the packed bodies rest on the floor or on each other: every vertex above
    // the floor, to the solver's tolerance (an overlap of a few µm at most over the run).
    let b = &run.world.bodies;
    for i in 0..b.len() {
        if let Shape::Custom(c) = &b.shape[i] {
            let lowest = c.surface().unwrap().vertices.iter().map(|&v| (b.position[i] + b.orientation[i] * v).z);
            let lowest = lowest.fold(f64::INFINITY, f64::min);
            assert!(lowest > -1e-5, "body {i} below the floor by {lowest}");
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_polyhedra_run_restarts_bit_for_bit() {
    // 3000 steps of 5 µs: the packed bodies drop onto the floor and each other (up to
    // 11 mm under 100 m/s² in 15 ms); the run is cut at step 1237, saved, resumed from the file in
    // new objects, and 1763 more steps compared with the uninterrupted run.
    let (n, m) = (1237, 1763);
    // Gravity ten times the earth's, so that the bodies land within the run.
    let text = md(n + m, "[output]\nseries = { every = 100 }")
        .replace("steps = 3000\n", "steps = 3000\ngravity = [0.0, 0.0, -100.0]\n");
    let mut a = Run::start(parse_scene("r.toml", &text).unwrap(), &tmp("ra")).unwrap();
    for _ in 0..n + m {
        a.step().unwrap();
    }
    let mut b = Run::start(parse_scene("r.toml", &text).unwrap(), &tmp("rb")).unwrap();
    for _ in 0..n {
        b.step().unwrap();
    }
    let path = b.save_checkpoint().unwrap();
    drop(b);
    let mut c = Run::resume(&path, Some(&tmp("rc"))).unwrap();
    assert_eq!(c.world.step_count(), n);
    for _ in 0..m {
        c.step().unwrap();
    }
    assert!(a.last_report.contacts > 0, "the bodies are in contact at the end");
    let (ca, cc): (Checkpoint, Checkpoint) = (a.checkpoint().unwrap(), c.checkpoint().unwrap());
    let bits = |v: &[glam::DVec3]| v.iter().flat_map(|x| x.to_array().map(f64::to_bits)).collect::<Vec<_>>();
    let q = |v: &[glam::DQuat]| v.iter().flat_map(|x| x.to_array().map(f64::to_bits)).collect::<Vec<_>>();
    assert_eq!(ca.world.clock.step, cc.world.clock.step);
    assert_eq!(bits(&ca.world.position), bits(&cc.world.position), "positions");
    assert_eq!(bits(&ca.world.velocity), bits(&cc.world.velocity), "velocities");
    assert_eq!(bits(&ca.world.angular_velocity), bits(&cc.world.angular_velocity), "angular velocities");
    assert_eq!(q(&ca.world.orientation), q(&cc.world.orientation), "orientations");
    // The bodies moved and turned: not a comparison of two resting states.
    assert!(ca.world.velocity.iter().any(|v| v.length() > 1e-3));
    for d in ["ra", "rb", "rc"] {
        let _ = std::fs::remove_dir_all(tmp(d));
    }
}

#[test]
fn a_mesh_file_is_read_relative_to_the_scene() {
    let dir = tmp("mesh");
    std::fs::create_dir_all(dir.join("meshes")).unwrap();
    // A unit cube in OBJ, faces counter-clockwise seen from outside.
    let obj = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
               f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
    std::fs::write(dir.join("meshes/cube.obj"), obj).unwrap();
    let scene = md(10, "").replace(
        "[[polyhedra]]\nname = \"die\"",
        "[[polyhedra]]\nname = \"mesh\"\nshape = { kind = \"obj\", file = \"meshes/cube.obj\", scale = 0.002 }\n\
         position = [0.006, 0.006, 0.02]\n\n[[polyhedra]]\nname = \"die\"",
    );
    std::fs::write(dir.join("s.toml"), &scene).unwrap();
    let s = load_scene(dir.join("s.toml")).unwrap();
    let world = s.build_world().unwrap();
    let i = world.bodies.index(granula_core::BodyHandle(s.body_named("mesh").unwrap() as u32)).unwrap();
    // (2 mm)³ at 2500 kg/m³, exact from the mesh up to round-off.
    assert!((world.bodies.mass[i] / 2e-5 - 1.0).abs() < 1e-12);

    // The same scene elsewhere: the relative file is missing; the error names it.
    std::fs::write(dir.join("meshes/../../elsewhere.toml"), &scene).unwrap();
    let e = load_scene(dir.join("meshes/../../elsewhere.toml")).unwrap_err().to_string();
    assert!(e.contains("polyhedra[0].shape") && e.contains("cube.obj"), "{e}");
    // A file that does not parse as OBJ: named, with the format.
    std::fs::write(dir.join("meshes/cube.obj"), "v 0 0 zero\nf 1 2\n").unwrap();
    let e = load_scene(dir.join("s.toml")).unwrap_err().to_string();
    assert!(e.contains("cube.obj") && e.contains("OBJ"), "{e}");
    let _ = std::fs::remove_file(dir.join("meshes/../../elsewhere.toml"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_polyhedra_are_named_and_nothing_is_written() {
    let refuse = |text: String, wants: &[&str]| {
        let e = parse_scene("bad.toml", &text).unwrap_err().to_string();
        for w in wants {
            assert!(e.contains(w), "{w:?} not in: {e}");
        }
    };
    let cube = "shape = { kind = \"cube\", size = 0.002 }";
    refuse(md(10, "").replace(cube, "shape = { kind = \"cube\", size = 0.002, colour = 1 }"), &["colour", "bad.toml"]);
    refuse(md(10, "").replace(cube, "shape = { kind = \"cube\", size = -0.002 }"), &["polyhedra[0].shape", "edge"]);
    refuse(md(10, "").replace(cube, "shape = { kind = \"cubic\", size = 0.002 }"), &["cubic", "random_convex"]);
    refuse(md(10, "").replace("polyhedra = { points = 12 }", "polyhedra = { points = 3 }"), &["packings[0].polyhedra"]);
    refuse(md(10, "").replace("rotation = [0.4, 0.0, 0.3]", "rotation = [0.4, nan, 0.3]"), &["polyhedra[0].rotation"]);
    // Two cubes 0.5 mm apart (edge 2 mm): the initial overlap names both.
    let twice = md(10, "").replace("[[polyhedra]]\nname = \"die\"", "[[polyhedra]]\nshape = { kind = \"cube\", size = 0.002 }\nposition = [0.0065, 0.006, 0.0105]\n\n[[polyhedra]]\nname = \"die\"");
    refuse(twice, &["polyhedra[1]", "polyhedra[0]", "overlap"]);
    // Without the shape maker (granula-io alone) polyhedra are refused, by key.
    let e = Scene::parse("bare.toml", &md(10, "")).unwrap_err().to_string();
    assert!(e.contains("packings[0].polyhedra") && e.contains("granula-run"), "{e}");
    // A refused scene writes nothing: `granula run` validates before making the folder,
    // and the folder a rejected scene names is never created.
    let out = tmp("refused");
    let r = parse_scene("bad.toml", &md(10, "").replace(cube, "shape = { kind = \"stl\", file = \"none.stl\" }"));
    let Err(e) = r.and_then(|s| Run::start(s, &out)) else { panic!("a missing mesh file was accepted") };
    let e = e.to_string();
    assert!(e.contains("none.stl"), "{e}");
    assert!(!out.exists());
}

/// One 2 mm cube resting on the floor under the overlap-volume law of `[solver]`.
fn volumetric_cube(solver_keys: &str) -> String {
    format!(
        r#"[simulation]
dt = 2e-5
steps = 5000
gravity = [0.0, 0.0, -9.81]

[solver]
kind = "md"
skin = 2e-4
{solver_keys}

[[materials]]
name = "grain"
young_modulus = 1e7
friction = 0.5
restitution = 0.3

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]

[[polyhedra]]
name = "cube"
shape = {{ kind = "cube", size = 0.002 }}
position = [0.0, 0.0, 0.001]
"#
    )
}

const VOLUMETRIC: &str =
    "normal = \"volumetric\"\nvolume_stiffness = 2.4525e7\ndamping = \"hunt_crossley\"\npolyhedron_contacts = \"volume\"";

#[test]
fn a_cube_rests_on_the_floor_under_the_overlap_volume_law_of_the_scene() {
    let scene = parse_scene("v.toml", &volumetric_cube(VOLUMETRIC)).unwrap();
    let handle = granula_core::BodyHandle(scene.body_named("cube").unwrap() as u32);
    let mut run = Run::start(scene, &tmp("volumetric")).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    // F = k_V V = k_V A δ balances m g: δ = m g/(k_V A) with m = 2500 × (2 mm)³ = 2e-5 kg,
    // A = 4 mm², k_V = 2.4525e7 N/m³: δ = 2e-6 m (0.1 % of the edge). The point-contact
    // law would give a different depth (four corner springs of the Hertz law).
    let delta = 2e-5 * 9.81 / (2.4525e7 * 4e-6);
    let z = run.world.bodies.position[run.world.bodies.index(handle).unwrap()].z;
    // 0.1 s is 35 periods of the contact (k = k_V A ≈ 98 N/m, T ≈ 2.8 ms) under
    // Hunt-Crossley damping at e = 0.3: the bounce has died out far below 1 % of δ.
    assert!((0.001 - z - delta).abs() < 0.01 * delta, "depth {} against {delta}", 0.001 - z);
    let _ = std::fs::remove_dir_all(tmp("volumetric"));
}

#[test]
fn a_cube_rests_on_the_floor_under_the_volume_energy_law_of_the_scene() {
    let keys = "normal = \"volume_energy\"\nvolume_stiffness = 1e9\ndamping = \"hunt_crossley\"";
    let scene = parse_scene("e.toml", &volumetric_cube(keys)).unwrap();
    let handle = granula_core::BodyHandle(scene.body_named("cube").unwrap() as u32);
    let mut run = Run::start(scene, &tmp("volume_energy")).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    // An overlap-volume law takes overlap-volume contacts by default. The pressure
    // k_V V/(π R*²) on the cut A = 4 mm² balances m g: with V = A δ, δ = m g π R*²/(k_V A²),
    // R* the cube's equivalent radius (3 V_cube/4π)^(1/3) = 1.2407 mm, m = 2e-5 kg:
    // δ = 5.9e-6 m. The YADE law of the same k_V would sink m g/(k_V A) = 4.9e-5 m.
    let r = (3.0 * 8e-9 / (4.0 * std::f64::consts::PI)).cbrt();
    let delta = 2e-5 * 9.81 * std::f64::consts::PI * r * r / (1e9 * 4e-6 * 4e-6);
    let z = run.world.bodies.position[run.world.bodies.index(handle).unwrap()].z;
    // 0.1 s is about 60 periods of the contact (k = k_V A²/(π R*²) ≈ 3.3e3 N/m, T ≈ 0.5 ms)
    // under Hunt-Crossley damping at e = 0.3: the bounce has died out far below 1 % of δ.
    assert!((0.001 - z - delta).abs() < 0.01 * delta, "depth {} against {delta}", 0.001 - z);
    let _ = std::fs::remove_dir_all(tmp("volume_energy"));
}

#[test]
fn volumetric_keys_are_checked_by_name() {
    let refuse = |keys: &str, wants: &[&str]| {
        let e = parse_scene("bad.toml", &volumetric_cube(keys)).unwrap_err().to_string();
        for w in wants {
            assert!(e.contains(w), "{w:?} not in: {e}");
        }
    };
    refuse("volume_stiffness = 1e9", &["solver.volume_stiffness", "volumetric"]);
    refuse("polyhedron_contacts = \"volume\"", &["solver.polyhedron_contacts", "volumetric"]);
    refuse("normal = \"volumetric\"", &["solver.damping", "hunt_crossley"]);
    refuse(
        "normal = \"volumetric\"\ndamping = \"hunt_crossley\"\nvolume_stiffness = -1.0",
        &["solver.volume_stiffness", "-1"],
    );
    refuse("polyhedron_contacts = \"volumes\"", &["volumes", "points", "volume"]);
    refuse("normal = \"volume_energy\"", &["solver.damping", "hunt_crossley", "volume_energy"]);
    refuse(
        "normal = \"volume_energy\"\ndamping = \"hunt_crossley\"\nvolume_stiffness = 0.0",
        &["solver.volume_stiffness"],
    );
    // Without `volume_stiffness` k_V comes from the materials (E*/R*); point contacts
    // under the volume law are allowed (their volume is the cap of depth δ).
    parse_scene("ok.toml", &volumetric_cube("normal = \"volumetric\"\ndamping = \"hunt_crossley\"")).unwrap();
}
