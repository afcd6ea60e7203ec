//! A valid restitution near zero keeps the default settling scene stable: the composed
//! law caps its normal damping at γ_n Δt/m* = 0.25 (`granula::laws::MAX_DAMPING_STEP`),
//! within the stability range of an explicit step.

use granula::io::Scene;
use granula::run::Run;

#[test]
fn the_settling_scene_with_restitution_1e_4_stays_finite_and_settles() {
    // The default scene with e = 1e-4: the calibrated damping ratio is 46, so the dashpot
    // of a resting contact had γ_n Δt/m* ≈ 2.3 and amplified the velocities it should
    // damp; the run blew up after about 4200 steps. 6000 steps cover the first impacts on
    // the floor and the start of the packing.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/scenes/settling_box_md.toml"))
        .unwrap()
        .replace("restitution = 0.5", "restitution = 1e-4")
        .replace("end_time = 0.25", "end_time = 0.03");
    let scene = Scene::parse("settling_box_md.toml", &text).unwrap();
    let dir = std::env::temp_dir().join(format!("granula-low-e-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut run = Run::start(scene, &dir).unwrap();
    let mut contacts = 0;
    for _ in 0..6000 {
        contacts = run.step().unwrap().contacts;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(contacts > 100, "the beads reached the floor: {contacts} contacts");
    // Nothing is faster than the fall from the top of the box (5 cm: 1 m/s): no blow-up.
    let vmax = run.world.bodies.velocity.iter().map(|v| v.length()).fold(0.0, f64::max);
    assert!(vmax < 1.0, "fastest bead {vmax} m/s");
}
