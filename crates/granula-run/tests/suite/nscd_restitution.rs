//! Contact-dynamics scenes and the materials' restitution: `[solver] impact = "newton"`
//! makes a drop rebound at the pair's restitution times its impact speed; with the default
//! `impact = "none"` a `restitution` key would be ignored, so the scene is rejected.

use granula_io::{IoError, Scene};
use granula_run::Run;

/// A 1 cm ball 5 cm above a floor; `impact` is the `[solver]` line, `ball` and `floor` the
/// two materials' restitution lines (may be empty).
fn scene(impact: &str, ball: &str, floor: &str) -> String {
    format!(
        r#"
[simulation]
dt = 1e-4
steps = 2000

[solver]
kind = "nscd"
{impact}

[[materials]]
name = "ball"
{ball}

[[materials]]
name = "floor"
{floor}

[[spheres]]
name = "ball"
radius = 0.01
position = [0.0, 0.0, 0.06]
material = "ball"

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
material = "floor"
"#
    )
}

/// Runs the scene to the first step in which the contact carries an impulse; returns the
/// ball's vertical velocity at the start and at the end of that step.
fn impact_and_rebound(text: &str) -> (f64, f64) {
    let s = Scene::parse("drop.toml", text).unwrap();
    let dir = std::env::temp_dir().join(format!("granula-nscd-restitution-{}", std::process::id()));
    let mut run = Run::start(s, &dir).unwrap();
    let out = loop {
        let before = run.world.bodies.velocity[0].z;
        let r = run.step().unwrap();
        if r.status.open < r.contacts {
            break (before, run.world.bodies.velocity[0].z);
        }
        assert!(!run.is_done(), "the ball never landed");
    };
    let _ = std::fs::remove_dir_all(dir);
    out
}

#[test]
fn a_scene_drop_rebounds_at_the_materials_restitution() {
    // U⁺ = −e U⁻ with U⁻ the velocity at the start of the closing step (004 §2.2.2.2; the
    // library's drop tests define it). The local solve of one contact is exact to
    // round-off; 1e-9 relative is the requirement.
    let text = scene("impact = \"newton\"", "restitution = 0.8", "restitution = 0.8");
    let (before, after) = impact_and_rebound(&text);
    assert!(before < -0.9, "impact speed {before}");
    assert!((after + 0.8 * before).abs() <= 1e-9 * before.abs(), "rebound {after} for impact {before}");
    // Different materials mix as for MD: e = √(e₁ e₂).
    let text = scene("impact = \"newton\"", "restitution = 0.8", "restitution = 0.5");
    let (before, after) = impact_and_rebound(&text);
    let e = (0.8_f64 * 0.5).sqrt();
    assert!((after + e * before).abs() <= 1e-9 * before.abs(), "rebound {after} for impact {before}");
    // A `[[pairs]]` override wins over the mixing rule.
    let text =
        scene("impact = \"newton\"", "", "") + "\n[[pairs]]\nmaterials = [\"ball\", \"floor\"]\nrestitution = 0.3\n";
    let (before, after) = impact_and_rebound(&text);
    assert!((after + 0.3 * before).abs() <= 1e-9 * before.abs(), "rebound {after} for impact {before}");
}

#[test]
fn poisson_and_stronge_scenes_rebound_at_the_restitution_of_a_central_impact() {
    // A ball on a floor is a central impact: the three laws coincide (004 §2.2.2.2), and
    // the rebound is e times the start-of-step impact speed to round-off (1e-9 relative).
    for law in ["poisson", "stronge"] {
        let text = scene(&format!("impact = \"{law}\""), "restitution = 0.8", "restitution = 0.8");
        let (before, after) = impact_and_rebound(&text);
        assert!((after + 0.8 * before).abs() <= 1e-9 * before.abs(), "{law}: rebound {after} for impact {before}");
    }
}

#[test]
fn impact_laws_a_contact_law_cannot_apply_are_errors_naming_the_key() {
    let cases = [("rolling", "poisson"), ("rolling", "stronge"), ("cohesive", "poisson"), ("cohesive", "newton")];
    for (law, impact) in cases {
        let text = scene(&format!("law = \"{law}\"\nimpact = \"{impact}\""), "restitution = 0.8", "");
        let e = Scene::parse("drop.toml", &text).expect_err("refused");
        let msg = e.to_string();
        assert!(matches!(e, IoError::Invalid { .. }) && msg.contains("solver.impact") && msg.contains(impact), "{msg}");
    }
}

#[test]
fn without_an_impact_law_the_drop_stops() {
    // impact = "none" (the default): the inelastic law of 000 eq. 34 lands the ball exactly
    // on the floor (U⁺ = −g/Δt, the remaining gap over the step), never upwards.
    let (before, after) = impact_and_rebound(&scene("", "", ""));
    assert!(before < 0.0 && after <= 0.0 && after > before, "{before} -> {after}");
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).expect("needle in text") + 1
}

#[test]
fn a_restitution_without_an_impact_law_is_an_error_naming_the_key() {
    for impact in ["", "impact = \"none\""] {
        let text = scene(impact, "", "restitution = 0.8");
        let e = Scene::parse("drop.toml", &text).expect_err("restitution is unused");
        let msg = e.to_string();
        assert!(matches!(e, IoError::Invalid { .. }), "{msg}");
        let at = format!("drop.toml:{}: key `materials[1].restitution`", line_of(&text, "restitution = 0.8"));
        assert!(msg.contains(&at) && msg.contains("impact = \"newton\""), "{msg}");
    }
    let text = scene("", "", "") + "\n[[pairs]]\nmaterials = [\"ball\", \"floor\"]\nrestitution = 0.3\n";
    let msg = Scene::parse("drop.toml", &text).expect_err("restitution is unused").to_string();
    assert!(msg.contains("key `pairs[0].restitution`"), "{msg}");
    // An unknown law is named with the accepted ones.
    let msg = Scene::parse("drop.toml", &scene("impact = \"walton\"", "", "")).unwrap_err().to_string();
    assert!(msg.contains("solver.impact") && msg.contains("newton") && msg.contains("stronge"), "{msg}");
    // MD uses the restitution for its damping: no error there.
    let md = scene("", "restitution = 0.8", "").replace("kind = \"nscd\"", "kind = \"md\"");
    Scene::parse("drop.toml", &md).unwrap();
}
