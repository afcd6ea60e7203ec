//! `[simulation] accept_overlaps`: a scene whose spheres overlap (a state written by a run)
//! is refused by default and runs with the key, through the scene's check and the world's
//! own check before the first step, which would stop an overlap of 5 % of the radius.

use crate::common;

use granula_io::{IoError, Scene};
use granula_run::Run;

const STATE: &str = r#"
[simulation]
dt = 1e-6
steps = 20
gravity = [0.0, 0.0, 0.0]

[solver]
kind = "md"
normal = "hooke"
normal_stiffness = 1000.0

[[materials]]
name = "glass"

[[spheres]]
radius = 0.01
position = [0.0, 0.0, 0.02]

[[spheres]]
radius = 0.01
position = [0.0195, 0.0, 0.02]
"#;

#[test]
fn overlapping_spheres_run_when_the_scene_accepts_them() {
    let e = Scene::parse("state.toml", STATE).expect_err("overlaps refused by default");
    assert!(matches!(e, IoError::InitialOverlap { .. }), "{e}");

    let text = STATE.replace("steps = 20", "steps = 20\naccept_overlaps = true");
    let scene = Scene::parse("state.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    let out = common::tmp("overlaps", "accepted");
    let mut run = Run::start(scene, &out).unwrap();
    while !run.is_done() {
        run.step().unwrap_or_else(|e| panic!("{e}"));
    }
    // The 0.5 mm overlap pushes the spheres apart from the first step on.
    let b = &run.world.bodies;
    assert!(b.velocity[0].x < 0.0 && b.velocity[1].x > 0.0, "{:?} {:?}", b.velocity[0], b.velocity[1]);
    assert!(b.position[1].x - b.position[0].x > 0.0195);
    let _ = std::fs::remove_dir_all(&out);
}
