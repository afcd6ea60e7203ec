//! A host contact generator that reports two points for one pair of bodies (a rod's two
//! ends on a floor): the NSCD solver makes each point a contact with its own impulse,
//! keyed by feature.

use granula_broadphase::BruteForce;
use granula_core::{ContactKey, DVec3};
use granula_nscd::{Criterion, NscdConfig, NscdSolver};
use granula_validation::rod::rod_world;

#[test]
fn two_points_of_one_pair_carry_two_impulses() {
    // The rod (1 kg) lies on the floor: its weight splits between its ends by symmetry.
    let g = 9.81;
    let (mut w, floor, rod) = rod_world(DVec3::new(0.0, 0.0, -g), 0.0, 0.0);
    // The local criterion (000 eq. 35) bounds every contact's change, so the split between
    // the ends converges with it; the default natural map measures the whole step's
    // residual, which a 1e-3 imbalance of the split hardly moves.
    let criterion = Criterion::LocalRelative { epsilon: 1e-4, cutoff: 1e-9, max_iterations: 1000 };
    let mut solver = NscdSolver::new(BruteForce, NscdConfig { criterion, ..Default::default() }).unwrap();
    let dt = 1e-3;
    for _ in 0..10 {
        w.step(&mut solver, dt).unwrap();
    }
    let (keys, carried) = solver.contact_states();
    let key = |feature| ContactKey { body1: floor, body2: rod, feature };
    assert_eq!(keys, &[key(0), key(1)], "one contact per point");
    // Each end carries m g Δt / 2 (the iterative solver's convergence bounds the split).
    for c in carried {
        assert!((c.impulse.z / (0.5 * g * dt) - 1.0).abs() < 1e-3, "{:?}", c.impulse);
    }
    // Together m g Δt up to the iterative solver's convergence (measured 2.3e-6 relative
    // with the default tolerance).
    let total: f64 = carried.iter().map(|c| c.impulse.z).sum();
    assert!((total / (g * dt) - 1.0).abs() < 1e-4, "{total}");
}
