//! The time-step estimate of MD scenes (`granula check`, start of `granula run`): the
//! shortest Hertz contact of the scene against the closed form of VALIDATION M2.

use granula_io::Scene;
use granula_run::time_step::{time_step_estimate, ContactMode};

/// Two glass spheres of radius R, one resting on a floor and one 10 cm above it, falling
/// under g = 9.81; `dt` is the scene's time step, `kind` its solver.
fn scene(dt: f64, kind: &str) -> Scene {
    let text = format!(
        r#"
[simulation]
dt = {dt}
steps = 10

[solver]
kind = "{kind}"

[[materials]]
name = "glass"
density = 2500.0
young_modulus = 1e7
poisson_ratio = 0.3

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]

[[spheres]]
radius = 0.001
position = [0.0, 0.0, 0.001]

[[spheres]]
radius = 0.001
position = [0.0, 0.0, 0.101]
"#
    );
    Scene::parse("drop.toml", &text).unwrap()
}

#[test]
fn the_shortest_contact_is_the_hertz_impact_of_two_spheres_after_the_fall() {
    let e = time_step_estimate(&scene(1e-6, "md")).unwrap().expect("an MD scene with a fall has an estimate");
    // Impact speed of a 10 cm fall from rest: √(2 g H).
    let v = (2.0 * 9.81 * 0.1f64).sqrt();
    assert!((e.impact_speed - v).abs() < 1e-12 * v, "{e:?}");
    // Sphere on sphere (shorter than sphere on floor: m*²/R* is half): m* = m/2, R* = R/2,
    // E* = E / (2 (1 − ν²)); t_c = 2.868 (m*² / (R* E*² v))^{1/5} (VALIDATION M2).
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-9;
    let (m_eff, r_eff, e_eff) = (m / 2.0, 0.0005, 1e7 / (2.0 * (1.0 - 0.09)));
    let t_c = 2.868 * (m_eff * m_eff / (r_eff * e_eff * e_eff * v)).powf(0.2);
    // 2.868 is the closed form's constant rounded to four digits (the library uses the
    // exact value), so the two agree to about 1e-4; 5e-4 leaves a margin of five.
    assert!((e.contact_time / t_c - 1.0).abs() < 5e-4, "{} against {t_c}", e.contact_time);
    assert_eq!(e.materials, ("glass".to_string(), "glass".to_string()));
    assert_eq!(e.recommended(), e.contact_time / 5.0);
    assert!(!e.too_large() && !e.message().starts_with("warning"), "{}", e.message());
}

#[test]
fn a_step_longer_than_a_fifth_of_the_contact_is_flagged() {
    let e = time_step_estimate(&scene(1e-4, "md")).unwrap().unwrap();
    assert!(e.too_large(), "{e:?}");
    let msg = e.message();
    assert!(msg.starts_with("warning:") && msg.contains("glass on glass") && msg.contains("reduce dt"), "{msg}");
}

#[test]
fn contact_dynamics_and_scenes_without_impacts_have_no_estimate() {
    // Contact dynamics does not resolve contacts in time.
    assert_eq!(time_step_estimate(&scene(1e-3, "nscd")).unwrap(), None);
    // One sphere at rest without gravity never hits anything.
    let text = "[simulation]\ndt = 1e-5\nsteps = 1\ngravity = [0.0, 0.0, 0.0]\n\n[solver]\nkind = \"md\"\n\n\
                [[spheres]]\nradius = 0.001\nposition = [0.0, 0.0, 0.0]\n";
    assert_eq!(time_step_estimate(&Scene::parse("still.toml", text).unwrap()).unwrap(), None);
}

/// Two glass cubes of edge s, one resting on a floor and one 10 cm above it: the shortest
/// contact is the rocking of a cube on the four corners of a face, not the impact.
#[test]
fn a_polyhedron_is_limited_by_its_rocking_on_a_face() {
    let s = 0.003;
    let text = format!(
        r#"
[simulation]
dt = 2e-6
steps = 10

[solver]
kind = "md"

[[materials]]
name = "glass"
density = 2500.0
young_modulus = 1e7
poisson_ratio = 0.3

[[planes]]
name = "floor"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]

[[polyhedra]]
shape = {{ kind = "cube", size = {s} }}
position = [0.0, 0.0, {half}]

[[polyhedra]]
shape = {{ kind = "cube", size = {s} }}
position = [0.0, 0.0, {top}]
"#,
        half = s / 2.0,
        top = s / 2.0 + 0.1
    );
    let scene = granula_run::parse_scene("cubes.toml", &text).unwrap();
    let e = time_step_estimate(&scene).unwrap().expect("a falling cube has an estimate");
    // Impact speed of the 10 cm fall: √(2 g H).
    let v = (2.0 * 9.81 * 0.1f64).sqrt();
    assert!((e.impact_speed - v).abs() < 1e-12 * v, "{e:?}");
    // Rocking on a face: n = 4 corners, lever arm r_b = s √3 / 2, I = m s² / 6, so the
    // effective mass of one cube is I / (n r_b²) = m / 18. Two cubes rocking on each
    // other: half of it, and R* half the equivalent radius (3/(4π))^⅓ s; E* as for two
    // spheres of one material, E / (2 (1 − ν²)). That is shorter than a cube rocking on
    // the floor ((m/36)²/(R/2) < (m/18)²/R).
    let m = 2500.0 * s * s * s;
    let r_eq = (3.0 / (4.0 * std::f64::consts::PI)).powf(1.0 / 3.0) * s;
    let e_star = 1e7 / (2.0 * (1.0 - 0.09));
    let t_c = |m_eff: f64, r: f64| 2.868 * (m_eff * m_eff / (r * e_star * e_star * v)).powf(0.2);
    let expected = t_c(m / 36.0, r_eq / 2.0);
    // 2.868 is the closed form's constant to four digits (VALIDATION M2): 5e-4 as above.
    assert!((e.contact_time / expected - 1.0).abs() < 5e-4, "{e:?} against {expected}");
    // The impact of the two cubes (m* = m/2) lasts (1/18)^(-2/5) = 3.2 times longer.
    assert!(e.contact_time < 0.32 * t_c(m / 2.0, r_eq / 2.0), "{e:?}");
    assert_eq!(e.materials, ("glass".to_string(), "glass".to_string()));
    match e.mode {
        ContactMode::Rocking { points, frequency } => {
            assert_eq!(points, 4);
            assert!((frequency * e.contact_time - std::f64::consts::PI).abs() < 1e-12);
        }
        ContactMode::Impact => panic!("expected rocking: {e:?}"),
    }
    assert!(e.message().contains("rocking of a polyhedron on 4 corners"), "{}", e.message());
}
