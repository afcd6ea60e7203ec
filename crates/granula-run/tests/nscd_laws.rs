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
