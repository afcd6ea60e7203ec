//! Malformed scenes get errors naming the file, the key or line, and the problem.

use granula_io::{IoError, Scene};

const GOOD: &str = r#"
[simulation]
dt = 1e-5
steps = 10

[solver]
kind = "md"

[[materials]]
name = "glass"

[[spheres]]
name = "a"
radius = 0.01
position = [0.0, 0.0, 0.01]

[[spheres]]
radius = 0.01
position = [0.05, 0.0, 0.01]
material = "glass"

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
"#;

fn err(text: &str) -> (IoError, String) {
    let e = Scene::parse("bad.toml", text).expect_err("the scene must be rejected");
    let msg = e.to_string();
    (e, msg)
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).expect("needle in text") + 1
}

#[test]
fn the_good_scene_is_accepted() {
    let s = Scene::parse("good.toml", GOOD).unwrap();
    assert_eq!(s.bodies.len(), 3);
    assert_eq!(s.steps, 10);
    assert_eq!(s.body_named("a"), Some(0));
    let w = s.build_world().unwrap();
    assert_eq!(w.bodies.len(), 3);
}

#[test]
fn unknown_key_names_file_line_and_key() {
    let text = GOOD.replace("radius = 0.01\nposition = [0.05", "radius = 0.01\nradios = 2.0\nposition = [0.05");
    let (e, msg) = err(&text);
    assert!(matches!(e, IoError::Parse { line, .. } if line == line_of(&text, "radios")), "{msg}");
    assert!(msg.starts_with("bad.toml:") && msg.contains("radios"), "{msg}");
}

#[test]
fn missing_field_is_named() {
    let text = GOOD.replace("radius = 0.01\nposition = [0.05, 0.0, 0.01]\n", "position = [0.05, 0.0, 0.01]\n");
    let (e, msg) = err(&text);
    assert!(matches!(e, IoError::Parse { .. }), "{msg}");
    assert!(msg.contains("bad.toml") && msg.contains("missing field") && msg.contains("radius"), "{msg}");
}

#[test]
fn wrong_type_is_located() {
    let text = GOOD.replace("steps = 10", "steps = \"ten\"");
    let (e, msg) = err(&text);
    assert!(matches!(e, IoError::Parse { line, .. } if line == line_of(&text, "\"ten\"")), "{msg}");
    // The key of the value with the wrong type is named, with its table.
    assert!(msg.contains("key `simulation.steps`: invalid type"), "{msg}");
}

#[test]
fn negative_radius_names_the_key_and_line() {
    let text = GOOD.replace("radius = 0.01\nposition = [0.05", "radius = -0.01\nposition = [0.05");
    let (_, msg) = err(&text);
    let line = line_of(&text, "-0.01");
    assert!(msg.contains(&format!("bad.toml:{line}: key `spheres[1].radius`")), "{msg}");
    assert!(msg.contains("-0.01") && msg.contains("> 0"), "{msg}");
}

#[test]
fn overlapping_initial_bodies_are_named() {
    let text = GOOD.replace("position = [0.05, 0.0, 0.01]", "position = [0.015, 0.0, 0.01]");
    let (e, msg) = err(&text);
    assert!(matches!(e, IoError::InitialOverlap { .. }), "{msg}");
    assert!(msg.contains("spheres[1]") && msg.contains("spheres[0]"), "{msg}");
    // Overlap 0.02 - 0.015 = 0.005 m is printed.
    assert!(msg.contains("5.000e-3"), "{msg}");
    // A sphere sunk into the floor overlaps the plane.
    let text = GOOD.replace("position = [0.0, 0.0, 0.01]", "position = [0.0, 0.0, 0.005]");
    let (_, msg) = err(&text);
    assert!(msg.contains("spheres[0]") && msg.contains("planes[0]"), "{msg}");
}

#[test]
fn zero_time_step_is_rejected() {
    let text = GOOD.replace("dt = 1e-5", "dt = 0.0");
    let (_, msg) = err(&text);
    assert!(msg.contains("bad.toml:3: key `simulation.dt`") && msg.contains("> 0"), "{msg}");
}

#[test]
fn unknown_material_lists_the_known_ones() {
    let text = GOOD.replace("material = \"glass\"", "material = \"steel\"");
    let (_, msg) = err(&text);
    assert!(msg.contains("spheres[1].material") && msg.contains("steel") && msg.contains("glass"), "{msg}");
}

#[test]
fn invalid_material_value_is_named() {
    let text = GOOD.replace("name = \"glass\"", "name = \"glass\"\nrestitution = 1.5");
    let (_, msg) = err(&text);
    assert!(msg.contains(&format!("bad.toml:{}: key `materials[0].restitution`", line_of(&text, "1.5"))), "{msg}");
}

#[test]
fn local_damping_outside_its_range_is_refused_with_key_and_line() {
    // `granula check` reads the scene as `run` does: a value the law refuses must fail here,
    // with the key and its line, not later at the first step.
    for bad in ["1.5", "1.0", "-0.1"] {
        let text = GOOD.replace("kind = \"md\"", &format!("kind = \"md\"\nlocal_damping = {bad}"));
        let (e, msg) = err(&text);
        assert!(msg.contains("solver.local_damping") && msg.contains("[0, 1)"), "{msg}");
        let line = line_of(&text, "local_damping");
        assert!(matches!(&e, IoError::Invalid { at, .. } if at.line == Some(line)), "{msg}");
    }
}

#[test]
fn solver_choices_and_outputs_are_checked() {
    let text = GOOD.replace("kind = \"md\"", "kind = \"md\"\nintegrator = \"rk4\"");
    let (_, msg) = err(&text);
    assert!(msg.contains("solver.integrator") && msg.contains("rk4") && msg.contains("verlet"), "{msg}");
    let text = format!("{GOOD}\n[output.trajectories]\nbodies = [\"b\"]\nevery = 1\n");
    let (_, msg) = err(&text);
    assert!(msg.contains("output.trajectories.bodies[0]") && msg.contains("no body"), "{msg}");
}

#[test]
fn an_overfull_packing_reports_what_it_placed() {
    let text = format!(
        "{GOOD}\n[[packings]]\ncount = 100\nseed = 1\nattempts_per_sphere = 20\n\
         region = {{ shape = \"box\", min = [1.0, 1.0, 1.0], max = [1.1, 1.1, 1.1] }}\n\
         size = {{ distribution = \"uniform\", min = 0.02, max = 0.03 }}\n"
    );
    let (e, msg) = err(&text);
    assert!(matches!(e, IoError::PackingFailed { requested: 100, .. }), "{msg}");
}

#[test]
fn energy_guard_keys_reach_the_world_and_are_checked() {
    let w = Scene::parse("good.toml", GOOD).unwrap().build_world().unwrap();
    assert_eq!(w.energy_guard, Some(granula_core::EnergyGuard::default()), "on by default");
    let off = GOOD.replace("steps = 10", "steps = 10\nenergy_guard_every = 0");
    assert_eq!(Scene::parse("off.toml", &off).unwrap().build_world().unwrap().energy_guard, None);
    let set = GOOD.replace("steps = 10", "steps = 10\nenergy_guard_every = 7\nenergy_guard_max_gain = 0.25");
    let guard = Scene::parse("set.toml", &set).unwrap().build_world().unwrap().energy_guard;
    assert_eq!(guard, Some(granula_core::EnergyGuard { every: 7, max_gain: 0.25 }));
    let bad = GOOD.replace("steps = 10", "steps = 10\nenergy_guard_max_gain = -1.0");
    let (_, msg) = err(&bad);
    assert!(msg.contains("energy_guard_max_gain"), "{msg}");
    // When the one-step check runs: every step unless the scene says otherwise.
    use granula_core::EnergyReads;
    assert_eq!(Scene::parse("good.toml", GOOD).unwrap().build_world().unwrap().energy_reads, EnergyReads::EveryStep);
    let when_read = GOOD.replace("steps = 10", "steps = 10\nenergy_reads = \"when_read\"");
    let w = Scene::parse("read.toml", &when_read).unwrap().build_world().unwrap();
    assert_eq!(w.energy_reads, EnergyReads::WhenRead);
    let bad = GOOD.replace("steps = 10", "steps = 10\nenergy_reads = \"sometimes\"");
    let (_, msg) = err(&bad);
    assert!(msg.contains("energy_reads") && msg.contains("when_read"), "{msg}");
}

#[test]
fn resistance_models_need_the_spring_friction_and_are_named() {
    for key in ["rolling", "twisting", "cohesion", "resistances"] {
        let text = GOOD.replace("kind = \"md\"", &format!("kind = \"md\"\ntangential = \"viscous\"\n{key} = true"));
        let (_, msg) = err(&text);
        assert!(msg.contains(&format!("solver.{key}")) && msg.contains("cundall_strack"), "{msg}");
    }
}

#[test]
fn end_time_and_steps_together_print_the_step_count_plainly() {
    let text = GOOD.replace("steps = 10", "steps = 100\nend_time = 1e-3");
    let (_, msg) = err(&text);
    assert!(msg.contains("not both") && msg.contains("100"), "{msg}");
    assert!(!msg.contains("Some("), "a number, not a Rust Option: {msg}");
}

/// The error of `text`, which must be a schema error naming `key` on the line of `needle`.
fn length_error(text: &str, key: &str, needle: &str, found: usize) {
    let (e, msg) = err(text);
    assert!(matches!(e, IoError::Parse { line, .. } if line == line_of(text, needle)), "{msg}");
    assert!(msg.contains(&format!("key `{key}`")), "names the key: {msg}");
    assert!(msg.contains(&format!("invalid length {found}")), "says how many entries: {msg}");
}

#[test]
fn vectors_of_the_wrong_length_are_refused_with_key_line_and_count() {
    let long = GOOD.replace("position = [0.0, 0.0, 0.01]", "position = [0.0, 0.0, 0.01, inf]");
    length_error(&long, "spheres[0].position", "inf]", 4);
    let gravity = GOOD.replace("steps = 10", "steps = 10\ngravity = [0, 0, -9.81, nan, \"x\"]");
    length_error(&gravity, "simulation.gravity", "gravity", 5);
    let short = GOOD.replace("normal = [0.0, 0.0, 1.0]", "normal = [0.0, 1.0]");
    length_error(&short, "planes[0].normal", "normal =", 2);
    let region = GOOD.replace(
        "kind = \"md\"",
        "kind = \"md\"\n[[output.stress]]\nname = \"s\"\nmin = [0.0, 0.0, 0.0, 1.0]\nmax = [1.0, 1.0, 1.0]\nevery = 1",
    );
    length_error(&region, "output.stress[0].min", "min = [", 4);
    let periodic = GOOD.replace("steps = 10", "steps = 10\nperiodic = { x = [0.0, 0.1, 0.2] }");
    length_error(&periodic, "simulation.periodic", "periodic", 3);
}

#[test]
fn degenerate_stress_boxes_are_refused_with_key_and_line() {
    let stress = |min: &str, max: &str| {
        GOOD.replace(
            "kind = \"md\"",
            &format!("kind = \"md\"\n\n[[output.stress]]\nname = \"s\"\nmin = {min}\nmax = {max}\nevery = 1"),
        )
    };
    let cases = [
        // A height of one subnormal step: the box's volume underflows to zero (0/0 = NaN
        // in every column).
        ("[0.0, 0.0, 0.0]", "[0.1, 0.1, 5e-324]"),
        // Zero and negative heights.
        ("[0.0, 0.0, 0.0]", "[0.1, 0.1, 0.0]"),
        ("[0.0, 0.0, 0.5]", "[0.1, 0.1, 0.0]"),
        // An extent that overflows, and a volume that overflows.
        ("[-1e308, 0.0, 0.0]", "[1e308, 0.1, 0.1]"),
        ("[0.0, 0.0, 0.0]", "[1e200, 1e200, 1e-10]"),
        // Not finite.
        ("[0.0, 0.0, 0.0]", "[0.1, inf, 0.1]"),
    ];
    for (min, max) in cases {
        let text = stress(min, max);
        let (e, msg) = err(&text);
        let line = line_of(&text, &format!("max = {max}"));
        assert!(
            matches!(&e, IoError::Invalid { at, .. } if at.key == "output.stress[0].max" && at.line == Some(line)),
            "{min} {max}: {msg}"
        );
    }
    // A thin but proper box is accepted.
    assert!(Scene::parse("ok.toml", &stress("[0.0, 0.0, 0.0]", "[0.1, 0.1, 1e-6]")).is_ok());
}

/// A packing `[[packings]]` entry filling a cylinder of radius 0.1 and height 0.4 at the
/// origin along `axis` with 60 spheres of radius 0.02.
fn drum_packing(axis: &str) -> String {
    format!(
        "{GOOD}\n[[packings]]\ncount = 60\nseed = 3\n\
         region = {{ shape = \"cylinder\", base = [1.0, 0.0, 0.5], radius = 0.1, height = 0.4, axis = {axis} }}\n\
         size = {{ distribution = \"uniform\", min = 0.02, max = 0.02 }}\n"
    )
}

#[test]
fn a_cylinder_region_along_any_axis_holds_its_spheres() {
    let scene = Scene::parse("drum.toml", &drum_packing("[2.0, 0.0, 0.0]")).expect("a drum along x");
    let world = scene.build_world().unwrap();
    // The scene's three bodies (two spheres, a plane) come first, then the packing.
    let b = &world.bodies;
    let base = glam::DVec3::new(1.0, 0.0, 0.5);
    let mut placed = 0;
    for i in 3..b.len() {
        let (x, r) = (b.position[i] - base, b.shape[i].sphere_radius().unwrap());
        // Inside the drum: |x_yz| + r <= R and r <= x_x <= H - r, to the round-off of the
        // frame's products (1e-12 m on 0.1 m).
        assert!(x.truncate().y.hypot(x.z) + r <= 0.1 + 1e-12, "sphere {i} pokes out of the mantle: {x}");
        assert!(x.x >= r - 1e-12 && x.x <= 0.4 - r + 1e-12, "sphere {i} pokes out of an end: {x}");
        placed += 1;
    }
    assert_eq!(placed, 60);
}

#[test]
fn a_cylinder_axis_must_be_a_direction() {
    let text = drum_packing("[0.0, 0.0, 0.0]");
    let (_, msg) = err(&text);
    assert!(msg.contains("packings[0].region.axis") && msg.contains("non-zero"), "{msg}");
    assert!(msg.starts_with(&format!("bad.toml:{}:", line_of(&text, "axis = "))), "{msg}");
}

#[test]
fn a_planar_scene_takes_the_vertical_cylinder_only() {
    let text = drum_packing("[1.0, 0.0, 0.0]").replace("steps = 10", "steps = 10\nplanar = true");
    let (_, msg) = err(&text);
    assert!(msg.contains("packings[0].region.axis") && msg.contains("vertical"), "{msg}");
}

/// `[[meshes]]` is checked by the schema before any file is read: unknown keys, a missing
/// `file`, a bad `scale`, planar mode, and a reader without a shape maker each name the key
/// and its line; contact dynamics is accepted.
#[test]
fn mesh_walls_are_checked_naming_the_key_and_line() {
    let wall = "[[meshes]]\nfile = \"trough.obj\"\nscale = 0.1\n";
    let with = |extra: &str| format!("{GOOD}{wall}{extra}");
    // An unknown key, with the valid ones listed.
    let text = with("colour = \"red\"\n");
    let (e, msg) = err(&text);
    assert!(matches!(e, IoError::Parse { line, .. } if line == line_of(&text, "colour")), "{msg}");
    assert!(msg.contains("meshes[0].colour") && msg.contains("`scale`"), "{msg}");
    // No file.
    let text = format!("{GOOD}[[meshes]]\nscale = 0.1\n");
    let (_, msg) = err(&text);
    assert!(msg.contains("file"), "{msg}");
    // A bad scale.
    for bad in ["0.0", "-2.0", "inf"] {
        let text = with("").replace("scale = 0.1", &format!("scale = {bad}"));
        let (_, msg) = err(&text);
        let at = format!("bad.toml:{}:", line_of(&text, "scale ="));
        assert!(msg.starts_with(&at) && msg.contains("meshes[0].scale"), "{msg}");
    }
    // Contact dynamics is accepted: what stops this reader is the missing shape maker, as
    // under MD.
    let text = with("").replace("kind = \"md\"", "kind = \"nscd\"");
    let (_, msg) = err(&text);
    assert!(msg.contains("meshes[0]") && msg.contains("load_scene") && !msg.contains("kind = \"md\""), "{msg}");
    // Without a shape maker (Scene::parse): the reader to use.
    let (_, msg) = err(&with(""));
    assert!(msg.contains("meshes[0]") && msg.contains("load_scene"), "{msg}");
}
