//! Bodies inserted into each other are reported before the first step, by handle and with
//! the overlap, and bodies inserted touching or in resting contact are not.

use granula_core::prelude::*;
use granula_core::INSERTION_OVERLAP_TOLERANCE;

/// A solver that counts its steps and moves nothing.
#[derive(Default)]
struct Counting(u64);

impl Solver for Counting {
    type Error = CoreError;
    fn name(&self) -> &'static str {
        "counting"
    }
    fn step(&mut self, _ctx: StepContext<'_>) -> Result<StepReport, CoreError> {
        self.0 += 1;
        Ok(StepReport::default())
    }
}

fn sphere(r: f64, x: f64, z: f64) -> RigidBody {
    SphereBuilder::new(r, DVec3::new(x, 0.0, z)).build().unwrap()
}

#[test]
fn overlapping_spheres_fail_the_first_step_naming_both_and_the_depth() {
    let mut w = World::builder().build().unwrap();
    let a = w.insert(sphere(0.01, 0.0, 0.0)).unwrap();
    let b = w.insert(sphere(0.01, 0.015, 0.0)).unwrap();
    let mut s = Counting::default();
    let err = w.step(&mut s, 1e-5).unwrap_err();
    let CoreError::InsertedOverlap { body1, body2, inserted, overlap, ratio, step } = err else {
        panic!("expected InsertedOverlap, got {err}")
    };
    assert_eq!((body1, body2, inserted, step), (a, b, b, 1));
    // 2 r − d = 0.02 − 0.015 = 5 mm, up to the rounding of the subtraction (1e-15 m).
    assert!((overlap - 0.005).abs() < 1e-15 && (ratio - 0.5).abs() < 1e-13, "{overlap} {ratio}");
    assert_eq!((s.0, w.step_count()), (0, 0), "the solver did not run and the clock did not move");
    let msg = w.step(&mut s, 1e-5).unwrap_err().to_string();
    assert!(msg.contains("body #0 and body #1 overlap by 5.000e-3 m (0.500 of the smaller radius)"), "{msg}");
}

#[test]
fn the_deepest_overlap_is_reported_and_walls_count() {
    let mut w = World::builder().build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    w.insert(sphere(0.01, 0.0, 0.0098)).unwrap(); // 0.2 mm into the floor
    let deep = w.insert(sphere(0.01, 0.1, 0.005)).unwrap(); // 5 mm into the floor
    let err = w.check_overlaps().unwrap_err();
    assert!(matches!(err, CoreError::InsertedOverlap { body2, .. } if body2 == deep), "{err}");
}

#[test]
fn touching_and_resting_bodies_pass() {
    let mut w = World::builder().build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    // Exactly touching the floor and each other, and one sunk by a resting-contact overlap
    // of 1e-4 of its radius (well under the 1 % tolerance).
    w.insert(sphere(0.01, 0.0, 0.01)).unwrap();
    w.insert(sphere(0.01, 0.02, 0.01)).unwrap();
    w.insert(sphere(0.01, 0.1, 0.01 - 1e-6)).unwrap();
    const { assert!(1e-4 < INSERTION_OVERLAP_TOLERANCE) };
    w.step(&mut Counting::default(), 1e-5).unwrap();
}

#[test]
fn fixed_bodies_may_overlap_each_other() {
    let mut w = World::builder().build().unwrap();
    w.insert(SphereBuilder::new(0.01, DVec3::ZERO).fixed().build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(0.01, DVec3::new(0.005, 0.0, 0.0)).fixed().build().unwrap()).unwrap();
    w.check_overlaps().unwrap();
}

#[test]
fn only_bodies_inserted_since_the_last_step_are_checked() {
    let mut w = World::builder().build().unwrap();
    let a = w.insert(sphere(0.01, 0.0, 0.0)).unwrap();
    w.step(&mut Counting::default(), 1e-5).unwrap();
    // Moved into a later body by hand (as a solver might): not an insertion, not checked.
    let b = w.insert(sphere(0.01, 0.5, 0.0)).unwrap();
    w.step(&mut Counting::default(), 1e-5).unwrap();
    let i = w.bodies.index(a).unwrap();
    w.bodies.position[i] = DVec3::new(0.49, 0.0, 0.0);
    w.step(&mut Counting::default(), 1e-5).unwrap();
    // A new body into the old ones is checked, and named as the inserted one.
    let c = w.insert(sphere(0.01, 0.5, 0.005)).unwrap();
    let err = w.step(&mut Counting::default(), 1e-5).unwrap_err();
    assert!(matches!(err, CoreError::InsertedOverlap { inserted, .. } if inserted == c), "{err}");
    let _ = b;
}

#[test]
fn accepted_overlaps_are_not_reported_again() {
    let mut w = World::builder().build().unwrap();
    w.insert(sphere(0.01, 0.0, 0.0)).unwrap();
    w.insert(sphere(0.01, 0.015, 0.0)).unwrap();
    w.accept_overlaps();
    w.step(&mut Counting::default(), 1e-5).unwrap();
    // The explicit check still sees them.
    assert!(w.check_overlaps().is_err());
}

#[test]
fn concentric_spheres_are_an_overlap_of_both_radii() {
    let mut w = World::builder().build().unwrap();
    w.insert(sphere(0.01, 0.0, 0.0)).unwrap();
    w.insert(sphere(0.005, 0.0, 0.0)).unwrap();
    let err = w.check_overlaps().unwrap_err();
    assert!(matches!(err, CoreError::InsertedOverlap { overlap, .. } if overlap == 0.015), "{err}");
}

#[test]
fn many_insertions_cost_one_sorted_sweep() {
    // 20 000 spheres on a touching lattice: the check at the first step is a sort and a
    // sweep (a pairwise check would be 2e8 pairs); this runs in milliseconds.
    let mut w = World::builder().build().unwrap();
    for i in 0..200 {
        for j in 0..100 {
            w.insert(SphereBuilder::new(0.01, DVec3::new(0.02 * i as f64, 0.02 * j as f64, 0.0)).build().unwrap())
                .unwrap();
        }
    }
    let started = std::time::Instant::now();
    w.step(&mut Counting::default(), 1e-5).unwrap();
    // Generous bound for a loaded 2-core machine; a quadratic check takes minutes.
    assert!(started.elapsed().as_secs_f64() < 5.0, "{:?}", started.elapsed());
}
