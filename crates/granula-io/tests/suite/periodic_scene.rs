//! The `periodic` key of `[simulation]`: a valid scene gives a periodic world; bad input
//! (an unknown axis, bad bounds, a period shorter than two diameters plus the skin, a body
//! outside the range) is refused with an error naming the key; contact dynamics scenes take
//! periodic axes as well.

use granula_core::Axis;
use granula_io::{IoError, Scene};

/// Two spheres of radius 1 cm in a box periodic along x and y over [0, 0.1) m, on a floor.
const GOOD: &str = r#"
[simulation]
dt = 1e-5
steps = 10
periodic = { x = [0.0, 0.1], y = [0.0, 0.1] }

[solver]
kind = "md"
skin = 1e-4

[[spheres]]
name = "a"
radius = 0.01
position = [0.005, 0.05, 0.01]

[[spheres]]
name = "b"
radius = 0.01
position = [0.095, 0.05, 0.01]

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
"#;

fn rejected(text: &str) -> String {
    let e = Scene::parse("bad.toml", text).expect_err("the scene must be rejected");
    assert!(matches!(e, IoError::Invalid { .. }), "{e}");
    e.to_string()
}

#[test]
fn a_periodic_scene_builds_a_periodic_world() {
    let scene = Scene::parse("good.toml", GOOD).unwrap();
    let world = scene.build_world().unwrap();
    let x = world.periodic.period(Axis::X).unwrap();
    assert_eq!((x.lo, x.hi), (0.0, 0.1));
    assert!(world.periodic.period(Axis::Y).is_some());
    assert!(world.periodic.period(Axis::Z).is_none());
}

#[test]
fn bad_periodic_input_names_the_key() {
    let m = rejected(&GOOD.replace("y = [0.0, 0.1]", "w = [0.0, 0.1]"));
    assert!(m.contains("simulation.periodic") && m.contains("unknown axis") && m.contains("\"w\""), "{m}");

    let m = rejected(&GOOD.replace("y = [0.0, 0.1]", "y = [0.1, 0.0]"));
    assert!(m.contains("simulation.periodic.y") && m.contains("lo < hi"), "{m}");

    // 0.04 m < 2 × (2 × 0.01 + 1e-4) m = 0.0402 m.
    let m = rejected(&GOOD.replace("x = [0.0, 0.1]", "x = [0.0, 0.04]").replace("0.095, 0.05", "0.035, 0.05"));
    assert!(m.contains("simulation.periodic.x") && m.contains("two particle diameters"), "{m}");

    let m = rejected(&GOOD.replace("[0.095, 0.05, 0.01]", "[0.105, 0.05, 0.01]"));
    assert!(
        m.contains("simulation.periodic.x") && m.contains("body b") && m.contains("outside the periodic range"),
        "{m}"
    );
}

#[test]
fn contact_dynamics_scenes_take_periodic_axes_too() {
    let nscd = GOOD.replace("kind = \"md\"\nskin = 1e-4", "kind = \"nscd\"");
    let scene = Scene::parse("periodic.toml", &nscd).unwrap();
    let w = scene.build_world().unwrap();
    assert!(w.periodic.period(Axis::X).is_some() && w.periodic.period(Axis::Y).is_some());
    // Without the MD skin the period may be as short as two diameters: 4 cm here.
    let short = nscd.replace("x = [0.0, 0.1]", "x = [0.0, 0.04]").replace("[0.095, 0.05, 0.01]", "[0.035, 0.05, 0.01]");
    assert!(Scene::parse("periodic.toml", &short).is_ok());
}
