//! Bad input gives a clear error naming the model, parameter or field, and the value.

use granula_core::{Material, PairMaterial};
use granula_laws::conformance::{check_law, ConformanceSetup};
use granula_laws::params::LinearCollision;
use granula_laws::*;

fn pair() -> PairMaterial {
    PairMaterial::mix(&Material::default(), &Material::default())
}

#[test]
fn negative_or_non_finite_stiffness() {
    for k in [-1.0, 0.0, f64::NAN, f64::INFINITY] {
        let err = LinearSpring::new(k).unwrap_err();
        assert!(matches!(err, LawError::InvalidParameter { model: "linear_spring", param: "stiffness", .. }));
    }
    assert!(PowerLaw::new(-3.0, 1.5).is_err());
    assert!(CundallStrack::new(TangentialStiffness::Fixed(-1.0), TangentialDamping::None, Friction::default()).is_err());
    assert!(CundallStrack::new(TangentialStiffness::Ratio(0.0), TangentialDamping::None, Friction::default()).is_err());
    assert!(AngularSpring::new(-0.1, 0.0).is_err());
    let msg = LinearSpring::new(-2.5).unwrap_err().to_string();
    assert!(msg.contains("stiffness") && msg.contains("-2.5"), "{msg}");
}

#[test]
fn restitution_outside_zero_one() {
    for e in [0.0, -0.2, 1.01, f64::NAN] {
        assert!(LinearCollision::from_collision(1e-3, e, 1.0).is_err(), "e = {e}");
        assert!(LinearViscous::new(DampingCoefficient::FromRestitution(Some(e))).is_err());
        assert!(HertzViscous::new(DampingCoefficient::FromRestitution(Some(e))).is_err());
        assert!(HuntCrossley::new(Some(e), 1e-3).is_err());
    }
    // From the material: checked per pair.
    let mut m = pair();
    m.restitution = 1.5;
    let err = hertz_mindlin().check_pair(&m, 1e-3, 1e-5).unwrap_err();
    assert!(matches!(err, LawError::UnsupportedPair { model: "hertz_viscous", field: "restitution", .. }), "{err}");
}

#[test]
fn friction_and_other_parameters() {
    assert!(Friction::new(0.3, 0.5).is_err(), "μ_d > μ_s");
    assert!(Friction::new(-0.1, 0.0).is_err());
    assert!(ViscousFriction::new(0.0, Friction::default()).is_err());
    assert!(LocalDamping::new(1.0).is_err());
    assert!(ConstantCohesion::new(1.0, -1e-6).is_err());
    assert!(RollingResistance::new(ResistanceLength::Length(-1e-5), AngularSpring::default()).is_err());
    assert!(HuntCrossley::new(None, -1.0).is_err());
}

#[test]
fn a_law_applied_to_a_pair_it_cannot_handle() {
    let law = hertz_mindlin().with_rolling(RollingResistance::from_material());
    // Two flat bodies (R* infinite): Hertz is undefined.
    let err = law.check_pair(&pair(), f64::INFINITY, 1e-5).unwrap_err();
    assert!(matches!(err, LawError::UnsupportedPair { model: "hertz", field: "effective_radius", .. }), "{err}");
    // Two bodies of infinite mass (wall against wall): no dynamics to resolve.
    let err = law.check_pair(&pair(), 1e-3, f64::INFINITY).unwrap_err();
    assert!(matches!(err, LawError::UnsupportedPair { field: "effective_mass", .. }), "{err}");
    // A Poisson ratio outside (−1, 0.5) cannot give k_t = 2(1 − ν)/(2 − ν) K_n.
    let mut m = pair();
    m.poisson_ratio = 0.7;
    let err = law.check_pair(&m, 1e-3, 1e-5).unwrap_err();
    assert!(matches!(err, LawError::UnsupportedPair { model: "cundall_strack", field: "poisson_ratio", .. }));
    // A valid pair passes.
    law.check_pair(&pair(), 1e-3, 1e-5).unwrap();
}

#[test]
fn conformance_set_up_errors() {
    let law = hertz_mindlin();
    let bad = ConformanceSetup { radius: -1.0, ..Default::default() };
    assert!(matches!(check_law(&law, &bad), Err(LawError::InvalidParameter { param: "radius", .. })));
    let mut m = pair();
    m.friction = -1.0;
    let bad = ConformanceSetup { material: m, ..Default::default() };
    assert!(matches!(check_law(&law, &bad), Err(LawError::Core(_))));
}
