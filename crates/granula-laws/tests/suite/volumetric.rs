//! The overlap-volume normal spring (`VolumetricSpring`) through the conformance kit, with
//! and without damping and friction, k_V given and from the modulus.

use granula_core::{Material, PairMaterial};
use granula_laws::conformance::{check_law, ConformanceSetup};
use granula_laws::kernels::cap_volumetric_force;
use granula_laws::VolumetricSpring;
use granula_laws::*;

fn material(restitution: f64) -> PairMaterial {
    let m = Material { restitution, ..Material::default() };
    PairMaterial::mix(&m, &m)
}

#[test]
fn volumetric_spring_passes_the_conformance_kit() {
    let setup = ConformanceSetup { material: material(0.5), ..Default::default() };
    // Kit defaults (energy 1e-3 = 4× the Verlet error at t_c/200, invariance 1e-9, wall
    // limit 1e-4): the cap force is smooth and conservative like Hertz's.
    let laws = [
        Composed::new(VolumetricSpring::from_material(), HuntCrossley::from_material(), CundallStrack::from_material()),
        Composed::new(
            VolumetricSpring::new(1e13).unwrap(),
            HuntCrossley::from_material(),
            CundallStrack::from_material(),
        ),
    ];
    for law in &laws {
        let r = check_law(law, &setup).unwrap();
        println!("{r}");
        assert!(r.passed(), "{r}");
    }
    let elastic = Composed::new(VolumetricSpring::from_material(), NoDamping, NoFriction);
    let r = check_law(&elastic, &ConformanceSetup { material: material(1.0), ..setup }).unwrap();
    println!("{r}");
    assert!(r.passed(), "{r}");
}

#[test]
fn sphere_on_a_wall_gets_the_cap_force() {
    // F = k_V π δ² (3R − δ)/3 for a sphere of radius R pressed δ into a plane, by hand:
    // R = 1 mm, δ = 10 µm, k_V = 1e13 N/m³: π 1e-10 (3e-3 − 1e-5)/3 = 3.1311e-13 m³ → 3.1311 N.
    let f = cap_volumetric_force(1e13, 1e-3, 1e-5);
    let expected = std::f64::consts::PI * 1e-10 * (3e-3 - 1e-5) / 3.0 * 1e13;
    assert!((f.force - expected).abs() < 1e-12 * expected);
    assert!((f.force - 3.1311).abs() < 1e-4);
}

#[test]
fn volume_energy_passes_the_conformance_kit() {
    // The conservative overlap-volume law on sphere contacts (the cap form, F ≈ 2π k_V δ³):
    // kit defaults, as for the spring above (the cap force is smooth and is the gradient
    // of its stored ½ k V², so the undamped energy check holds to the integrator's error).
    let setup = ConformanceSetup { material: material(0.5), ..Default::default() };
    let laws = [
        Composed::new(VolumeEnergy::from_material(), HuntCrossley::from_material(), CundallStrack::from_material()),
        Composed::new(VolumeEnergy::new(1e15).unwrap(), HuntCrossley::from_material(), CundallStrack::from_material()),
    ];
    for law in &laws {
        let r = check_law(law, &setup).unwrap();
        println!("{r}");
        assert!(r.passed(), "{r}");
    }
    let elastic = Composed::new(VolumeEnergy::from_material(), NoDamping, NoFriction);
    let r = check_law(&elastic, &ConformanceSetup { material: material(1.0), ..setup }).unwrap();
    println!("{r}");
    assert!(r.passed(), "{r}");
}
