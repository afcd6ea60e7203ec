//! Every non-smooth law of the library can be chosen by a scene (`[solver] law`), and a
//! spec built in code without a parameter its choice needs is an error naming the key, not
//! a NaN or a default.

use granula_io::scene::spec::SolverSpec;
use granula_io::{IoError, Scene};
use granula_run::build_solver;

fn scene(solver: &str, material: &str) -> Scene {
    let text = format!(
        "[simulation]\ndt = 1e-4\nsteps = 10\n\n[solver]\n{solver}\n\n[[materials]]\nname = \"glass\"\n{material}\n\n\
         [[planes]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\n\n\
         [[spheres]]\nradius = 0.01\nposition = [0.0, 0.0, 0.02]\nvelocity = [0.0, 0.0, -1.0]\n"
    );
    Scene::parse("laws.toml", &text).unwrap()
}

#[test]
fn each_nscd_law_is_composed_from_the_scene() {
    for (law, material, name) in [
        ("signorini_coulomb", "", "nscd(signorini_coulomb,"),
        ("cohesive", "cohesion_force = 0.01\ncohesion_range = 0.001", "nscd(cohesive_signorini_coulomb,"),
        ("rolling", "rolling_friction = 0.001", "nscd(signorini_coulomb+rolling+torsion,"),
    ] {
        let solver = build_solver(&scene(&format!("kind = \"nscd\"\nlaw = \"{law}\""), material)).unwrap();
        assert!(solver.describe().starts_with(name), "{law}: {}", solver.describe());
        assert!(solver.restarts_exactly());
        solver.save_state().unwrap();
    }
}

#[test]
fn a_hooke_spec_without_stiffness_is_an_error_naming_the_key() {
    let mut s = scene("kind = \"md\"\nnormal = \"hooke\"\nnormal_stiffness = 1000.0", "");
    let SolverSpec::Md(md) = &mut s.spec.solver else { panic!("an MD scene") };
    md.normal_stiffness = None;
    let e = build_solver(&s).err().expect("refused");
    assert!(matches!(&e, IoError::Invalid { at, .. } if at.key == "solver.normal"), "{e}");
    assert!(e.to_string().contains("normal_stiffness"), "{e}");
    let e = granula_run::time_step::time_step_estimate(&s).expect_err("refused");
    assert!(e.to_string().contains("normal_stiffness"), "{e}");
}

/// The law a scene names is the one that acts: a sphere rolling on a floor keeps its speed
/// under plain Signorini-Coulomb and slows down under the rolling law with the material's
/// `rolling_friction`.
#[test]
fn the_rolling_law_of_a_scene_slows_a_rolling_sphere() {
    let speed_after = |law: &str, material: &str| {
        let text = format!(
            "[simulation]\ndt = 1e-4\nsteps = 200\n\n[solver]\nkind = \"nscd\"\nlaw = \"{law}\"\n\n\
             [[materials]]\nname = \"glass\"\n{material}\n\n\
             [[planes]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\n\n\
             [[spheres]]\nradius = 0.01\nposition = [0.0, 0.0, 0.01]\nvelocity = [0.1, 0.0, 0.0]\n\
             angular_velocity = [0.0, 10.0, 0.0]\n"
        );
        let out = std::env::temp_dir().join(format!("granula-nscd-laws-{law}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let mut run = granula_run::Run::start(Scene::parse("roll.toml", &text).unwrap(), &out).unwrap();
        while !run.is_done() {
            run.step().unwrap();
        }
        let _ = std::fs::remove_dir_all(&out);
        run.world.bodies.velocity[0].x
    };
    let plain = speed_after("signorini_coulomb", "");
    let rolling = speed_after("rolling", "rolling_friction = 0.001");
    assert!((plain - 0.1).abs() < 1e-6, "rolls freely: {plain}");
    // (5/7) μ_r g / r = 0.70 m/s² over 0.02 s: about 0.014 m/s less.
    assert!(rolling < plain - 0.01, "rolling resistance slows it: {rolling} against {plain}");
}

/// The cohesive law of a scene holds a sphere on a ceiling-like floor (gravity pulling it
/// off) when the pair's `cohesion_force` exceeds its weight; plain Signorini-Coulomb lets it
/// go.
#[test]
fn the_cohesive_law_of_a_scene_holds_a_sphere_against_gravity() {
    let height_after = |law: &str, material: &str| {
        let text = format!(
            "[simulation]\ndt = 1e-4\nsteps = 100\ngravity = [0.0, 0.0, 9.81]\n\n\
             [solver]\nkind = \"nscd\"\nlaw = \"{law}\"\n\n[[materials]]\nname = \"glass\"\n{material}\n\n\
             [[planes]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\n\n\
             [[spheres]]\nradius = 0.01\nposition = [0.0, 0.0, 0.01]\n"
        );
        let out = std::env::temp_dir().join(format!("granula-nscd-cohesion-{law}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let mut run = granula_run::Run::start(Scene::parse("bond.toml", &text).unwrap(), &out).unwrap();
        while !run.is_done() {
            run.step().unwrap();
        }
        let _ = std::fs::remove_dir_all(&out);
        run.world.bodies.position[0].z
    };
    // Weight of the sphere: 2500 kg/m³ × 4/3 π (1 cm)³ × 9.81 m/s² ≈ 0.10 N < F_C = 1 N.
    let bonded = height_after("cohesive", "cohesion_force = 1.0\ncohesion_range = 0.001");
    let plain = height_after("signorini_coulomb", "");
    assert!((bonded - 0.01).abs() < 1e-9, "held on the plane: {bonded}");
    // ½ g t² over 0.01 s ≈ 0.49 mm.
    assert!(plain > 0.01 + 4e-4, "falls off the plane: {plain}");
}

/// `[solver] cohesion_rule`: a bonded sphere leaving the floor at 5 cm/s, with a binding
/// energy F_C d_C = 1 mJ well above its kinetic energy ½ m v² = 13 µJ, stops about
/// ½ m v²/F_C = 13 µm away (within d_C = 1 mm). Under 001's rectangle (the default) the
/// bond holds it there; under the full pull −F_C brings it back to the floor.
#[test]
fn the_cohesion_rule_of_a_scene_decides_whether_an_opened_bond_is_pulled_back() {
    let gap_after = |rule: &str| {
        let text = format!(
            "[simulation]\ndt = 1e-4\nsteps = 100\ngravity = [0.0, 0.0, 0.0]\n\n\
             [solver]\nkind = \"nscd\"\nlaw = \"cohesive\"\n{rule}\n\n[[materials]]\nname = \"glass\"\n\
             cohesion_force = 1.0\ncohesion_range = 0.001\n\n\
             [[planes]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\n\n\
             [[spheres]]\nradius = 0.01\nposition = [0.0, 0.0, 0.01]\nvelocity = [0.0, 0.0, 0.05]\n"
        );
        let out = std::env::temp_dir().join(format!("granula-nscd-rule-{}-{}", rule.len(), std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let mut run = granula_run::Run::start(Scene::parse("rule.toml", &text).unwrap(), &out).unwrap();
        while !run.is_done() {
            run.step().unwrap();
        }
        let _ = std::fs::remove_dir_all(&out);
        let b = &run.world.bodies;
        let ball = (0..b.len()).find(|&i| b.radius[i].is_finite()).expect("the sphere");
        (b.position[ball].z - 0.01, b.velocity[ball].z)
    };
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-6;
    let stop = 0.5 * m * 0.05 * 0.05 / 1.0;
    for rule in ["", "cohesion_rule = \"rectangle\""] {
        let (gap, v) = gap_after(rule);
        // Implicit Euler stops the sphere within a step of the continuous stopping point:
        // v Δt = 5 µm of 13 µm.
        assert!((gap - stop).abs() < 5e-6 && v.abs() < 1e-12, "{rule:?}: gap {gap:e} (stop {stop:e}), v {v:e}");
    }
    let (gap, v) = gap_after("cohesion_rule = \"full_pull\"");
    // Pulled back and held in contact (round-off).
    assert!(gap.abs() < 1e-12 && v.abs() < 1e-12, "full pull: gap {gap:e}, v {v:e}");
    // The key belongs to the cohesive law.
    let text = "[simulation]\ndt = 1e-4\nsteps = 1\n\n[solver]\nkind = \"nscd\"\ncohesion_rule = \"full_pull\"\n\n\
                [[spheres]]\nradius = 0.01\nposition = [0.0, 0.0, 0.01]\n";
    let e = Scene::parse("rule.toml", text).unwrap_err().to_string();
    assert!(e.contains("solver.cohesion_rule") && e.contains("cohesive"), "{e}");
}
