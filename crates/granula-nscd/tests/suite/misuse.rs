//! Misuse through the library gives errors, not panics.

use granula_broadphase::BruteForce;
use granula_core::{BodyRef, CoreError, DVec3, MotionKind, PlaneBuilder, SphereBuilder, World};
use granula_nscd::{NscdConfig, NscdError, NscdSolver};

#[test]
fn a_body_made_kinematic_by_hand_without_a_drive_is_an_error_naming_it() {
    let mut w = World::builder().build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let h = w.insert(SphereBuilder::new(0.01, DVec3::new(0.0, 0.0, 0.01)).build().unwrap()).unwrap();
    let i = w.bodies.index(h).unwrap();
    w.bodies.motion[i] = MotionKind::Kinematic;
    let mut s = NscdSolver::new(BruteForce, NscdConfig::default()).unwrap();
    let err = w.step(&mut s, 1e-3).expect_err("no drive to follow");
    let CoreError::Solver { source, .. } = &err else { panic!("expected a solver error, got {err}") };
    let inner = source.downcast_ref::<NscdError>().expect("the NSCD solver's error");
    assert!(
        matches!(inner, NscdError::Core(CoreError::InvalidBody { body: BodyRef::Handle(b), field: "motion", .. }) if *b == h),
        "{inner}"
    );
    assert!(err.to_string().contains(&h.to_string()), "{err}");
}
