//! The choices of `[solver]` are typed: a misspelt name or key is a parse error naming the
//! key, its line and the valid names, and a material property the chosen law would ignore
//! is refused with an error naming the key and saying why.

use granula_io::scene::spec::{NscdLawKind, SolverSpec};
use granula_io::{IoError, Scene};

fn scene(solver: &str, material: &str) -> String {
    format!(
        "[simulation]\ndt = 1e-4\nsteps = 10\n\n[solver]\n{solver}\n\n[[materials]]\nname = \"glass\"\n{material}\n\n\
         [[planes]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\n\n\
         [[spheres]]\nradius = 0.01\nposition = [0.0, 0.0, 0.02]\n"
    )
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).expect("needle in text") + 1
}

/// The error of a scene that must be refused, and its message.
fn refused(text: &str) -> (IoError, String) {
    let e = Scene::parse("bad.toml", text).expect_err("the scene must be refused");
    let msg = e.to_string();
    (e, msg)
}

#[test]
fn an_unknown_nscd_law_is_a_parse_error_listing_the_laws() {
    let text = scene("kind = \"nscd\"\nlaw = \"cohesiv\"", "");
    let (e, msg) = refused(&text);
    assert!(matches!(e, IoError::Parse { line, .. } if line == line_of(&text, "cohesiv")), "{msg}");
    assert!(msg.contains("law") && msg.contains("cohesiv"), "{msg}");
    for name in ["signorini_coulomb", "cohesive", "rolling"] {
        assert!(msg.contains(name), "{msg}");
    }
}

#[test]
fn a_misspelt_choice_is_a_parse_error_listing_the_valid_names() {
    for (solver, bad, valid) in [
        ("kind = \"md\"\nintegrator = \"gear7\"", "gear7", &["verlet", "gear4", "gear5", "gear6"][..]),
        (
            "kind = \"md\"\ndamping = \"tsuij\"",
            "tsuij",
            &["calibrated", "calibrated_impulse", "tsuji", "hunt_crossley", "fixed"],
        ),
        ("kind = \"md\"\nnormal = \"hook\"", "hook", &["hertz", "hooke"]),
        ("kind = \"nscd\"\nsweep = \"backward\"", "backward", &["forward", "random"]),
        ("kind = \"nscd\"\nbroadphase = \"grid\"", "grid", &["sweep_and_prune", "linked_cells", "brute_force"]),
    ] {
        let text = scene(solver, "");
        let (e, msg) = refused(&text);
        assert!(matches!(e, IoError::Parse { line, .. } if line == line_of(&text, bad)), "{msg}");
        assert!(msg.contains(bad), "{msg}");
        for name in valid {
            assert!(msg.contains(name), "{msg}");
        }
    }
}

#[test]
fn a_misspelt_key_is_a_parse_error_naming_it() {
    let text = scene("kind = \"nscd\"\nlwa = \"rolling\"", "");
    let (e, msg) = refused(&text);
    assert!(matches!(e, IoError::Parse { line, .. } if line == line_of(&text, "lwa")), "{msg}");
    assert!(msg.contains("lwa") && msg.contains("law"), "{msg}");
}

#[test]
fn a_property_the_nscd_law_ignores_is_refused_naming_the_key() {
    let cases = [
        ("", "rolling_friction = 0.001", "materials[0].rolling_friction", "law = \"rolling\""),
        ("law = \"cohesive\"", "torsion_friction = 0.001", "materials[0].torsion_friction", "law = \"rolling\""),
        ("law = \"rolling\"", "cohesion_force = 0.01", "materials[0].cohesion_force", "law = \"cohesive\""),
        ("", "dynamic_friction = 0.3", "materials[0].dynamic_friction", "one friction coefficient"),
    ];
    for (law, property, key, hint) in cases {
        let text = scene(&format!("kind = \"nscd\"\n{law}"), property);
        let (e, msg) = refused(&text);
        let line = line_of(&text, property);
        assert!(matches!(&e, IoError::Invalid { at, .. } if at.key == key && at.line == Some(line)), "{msg}");
        assert!(msg.contains("is not used") && msg.contains(hint), "{msg}");
    }
    // The same property in a pair override.
    let text =
        scene("kind = \"nscd\"", "") + "\n[[pairs]]\nmaterials = [\"glass\", \"glass\"]\ncohesion_range = 0.001\n";
    let (_, msg) = refused(&text);
    assert!(msg.contains("pairs[0].cohesion_range") && msg.contains("law = \"cohesive\""), "{msg}");
}

#[test]
fn a_property_the_md_law_ignores_is_refused_naming_the_key() {
    let text = scene("kind = \"md\"\nrolling = true", "cohesion_force = 0.01\ncohesion_range = 0.001");
    let (e, msg) = refused(&text);
    assert!(matches!(&e, IoError::Invalid { at, .. } if at.key == "materials[0].cohesion_force"), "{msg}");
    assert!(msg.contains("cohesion = true"), "{msg}");
    // With the law that uses them, the same properties are accepted.
    let text = scene("kind = \"md\"\nrolling = true\ncohesion = true", "cohesion_force = 0.01\ncohesion_range = 0.001");
    Scene::parse("good.toml", &text).unwrap();
}

#[test]
fn each_nscd_law_accepts_the_properties_it_uses() {
    for (law, property, kind) in [
        ("", "friction = 0.3", NscdLawKind::SignoriniCoulomb),
        ("law = \"cohesive\"", "cohesion_force = 0.01\ncohesion_range = 0.001", NscdLawKind::Cohesive),
        ("law = \"rolling\"", "rolling_friction = 0.001\ntorsion_friction = 0.001", NscdLawKind::Rolling),
        ("law = \"rolling\"\nimpact = \"newton\"", "restitution = 0.5", NscdLawKind::Rolling),
    ] {
        let s = Scene::parse("good.toml", &scene(&format!("kind = \"nscd\"\n{law}"), property)).unwrap();
        let SolverSpec::Nscd(n) = &s.spec.solver else { panic!("an NSCD scene") };
        assert_eq!(n.law, kind);
    }
}

#[test]
fn the_cohesive_law_has_no_impact_law() {
    let text = scene("kind = \"nscd\"\nlaw = \"cohesive\"\nimpact = \"newton\"", "restitution = 0.5");
    let (e, msg) = refused(&text);
    let line = line_of(&text, "impact");
    assert!(matches!(&e, IoError::Invalid { at, .. } if at.key == "solver.impact" && at.line == Some(line)), "{msg}");
    assert!(msg.contains("cohesive"), "{msg}");
}

#[test]
fn elastic_constants_under_contact_dynamics_are_noted_with_their_key() {
    let text = scene("kind = \"nscd\"", "young_modulus = 1e8");
    let s = Scene::parse("nscd.toml", &text).unwrap();
    let notes = s.notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    let line = line_of(&text, "young_modulus");
    assert!(notes[0].contains(&format!("nscd.toml:{line}: key `materials[0].young_modulus`")), "{notes:?}");
    assert!(notes[0].contains("rigid"), "{notes:?}");
    let s = Scene::parse("md.toml", &scene("kind = \"md\"", "young_modulus = 1e8")).unwrap();
    assert!(s.notes().is_empty());
}

#[test]
fn friction_without_a_tangential_model_and_restitution_with_a_fixed_damping_are_refused() {
    for (solver, material, key) in [
        ("kind = \"md\"\ntangential = \"none\"", "friction = 0.4", "friction"),
        ("kind = \"md\"\ndamping = \"fixed\"\ndamping_coefficient = 0.1", "restitution = 0.5", "restitution"),
    ] {
        let (_, msg) = refused(&scene(solver, material));
        assert!(msg.contains(&format!("materials[0].{key}")) && msg.contains("not used"), "{msg}");
    }
    // The same properties with the models that read them are accepted.
    for (solver, material) in
        [("kind = \"md\"", "friction = 0.4"), ("kind = \"md\"\ndamping = \"tsuji\"", "restitution = 0.5")]
    {
        Scene::parse("ok.toml", &scene(solver, material)).expect("a property the law reads");
    }
}

#[test]
fn resistances_with_another_tangential_model_are_refused_naming_them() {
    for tangential in ["viscous", "none"] {
        let solver = format!("kind = \"md\"\ntangential = \"{tangential}\"\nrolling = true");
        let (_, msg) = refused(&scene(&solver, ""));
        assert!(msg.contains("solver.rolling") && msg.contains("cundall_strack"), "{msg}");
    }
}
