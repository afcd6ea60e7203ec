//! The skin layer: the list holds every overlapping pair at every step, equals the exact
//! pair set at each rebuild, and is rebuilt only when a box face moved beyond half the skin.

use crate::common::*;
use granula_broadphase::{BroadphaseError, BruteForce, LinkedCells, SweepAndPrune, VerletPairs};
use granula_core::prelude::*;
use granula_core::{Aabb, BodySet};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A world of `n` polydisperse spheres (size ratio `ratio`) with walls: a fixed floor, a
/// kinematic drum (infinite cylinder along z, spinning about its axis) and a fixed finite
/// cylinder; every 20th sphere is fixed.
fn world(seed: u64, n: usize, ratio: f64) -> (World, f64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (centres, radii, side) = random_spheres(&mut rng, n, ratio, 0.4);
    let mut w = World::builder().build().unwrap();
    for (i, (c, r)) in centres.iter().zip(&radii).enumerate() {
        let s = SphereBuilder::new(*r, *c);
        w.insert(if i % 20 == 0 { s.fixed() } else { s }.build().unwrap()).unwrap();
    }
    let mid = DVec3::splat(0.5 * side);
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let spin = Prescribed::Constant(DVec3::new(0.0, 0.0, 3.0));
    let drum = CylinderBuilder::new(mid, DVec3::Z, 0.45 * side).kinematic(Prescribed::Constant(DVec3::ZERO), spin);
    w.insert(drum.build().unwrap()).unwrap();
    w.insert(CylinderBuilder::new(mid, DVec3::X, 0.1 * side).outside().length(0.8 * side).build().unwrap()).unwrap();
    (w, radii.iter().sum::<f64>() / n as f64)
}

fn boxes_of(b: &BodySet, grow: f64) -> (Vec<Aabb>, Vec<bool>) {
    let boxes = (0..b.len()).map(|i| b.aabb(i).inflated(grow)).collect();
    let skip = (0..b.len()).map(|i| b.inv_mass[i] == 0.0).collect();
    (boxes, skip)
}

/// Random motion for `steps` steps through the skin layer over `backend`.
fn check_skin<B: Broadphase>(backend: B, seed: u64, ratio: f64) {
    let (mut w, mean_r) = world(seed, 1200, ratio);
    let skin = 0.2 * mean_r;
    let margin = 0.05 * mean_r;
    let mut list = VerletPairs::new(backend, skin).unwrap().with_margin(margin).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed + 100);
    let steps = 60;
    for step in 0..steps {
        let rebuilt = list.update(&w.bodies);
        let pairs = list.pairs();
        assert_sorted_unique(pairs);
        // Every pair closer than the margin (boxes inflated by margin / 2 overlap) is listed.
        let (now, skip) = boxes_of(&w.bodies, 0.5 * margin);
        for p in pairs_of(&mut BruteForce, &now, &skip) {
            assert!(pairs.binary_search(&p).is_ok(), "pair {p:?} missing at step {step}");
        }
        if rebuilt {
            let (inflated, skip) = boxes_of(&w.bodies, 0.5 * (skin + margin));
            assert_eq!(pairs, pairs_of(&mut BruteForce, &inflated, &skip).as_slice(), "step {step}");
        }
        // Dynamic spheres jitter by up to 4 % of the mean radius per axis; the drum spins.
        for i in 0..w.bodies.len() {
            if w.bodies.motion[i] == granula_core::MotionKind::Dynamic {
                w.bodies.position[i] += jitter(&mut rng, 0.04 * mean_r);
            }
        }
        w.bodies.advance_kinematic(step as f64 * 0.01, 0.01);
    }
    // The skin spared most rebuilds: each step moves a body by at most 0.04 √3 r̄ ≈ 0.07 r̄
    // and the list is valid until some face moved 0.1 r̄: a rebuild every 2 to 3 steps at
    // most; at least one after the first (the motion is random, so some body drifts).
    assert_eq!(list.updates(), steps as u64);
    assert!(list.rebuilds() >= 2 && list.rebuilds() < steps as u64, "{} rebuilds", list.rebuilds());
}

#[test]
fn skin_over_each_backend_ratio_4() {
    check_skin(BruteForce, 11, 4.0);
    check_skin(SweepAndPrune::new(), 11, 4.0);
    check_skin(LinkedCells::new(), 11, 4.0);
}

#[test]
fn skin_over_each_backend_ratio_10() {
    check_skin(SweepAndPrune::new(), 12, 10.0);
    check_skin(LinkedCells::new(), 12, 10.0);
}

fn two_spheres() -> World {
    let mut w = World::builder().build().unwrap();
    w.insert(SphereBuilder::new(1.0, DVec3::ZERO).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(1.0, DVec3::new(2.5, 0.0, 0.0)).build().unwrap()).unwrap();
    w
}

#[test]
fn no_rebuild_while_nothing_moves_beyond_half_the_skin() {
    let mut w = two_spheres();
    let mut list = VerletPairs::new(SweepAndPrune::new(), 0.6).unwrap();
    assert!(list.update(&w.bodies));
    // Gap 0.5 < skin 0.6: the pair is a candidate.
    assert_eq!(list.pairs(), &[(0, 1)]);
    assert!(!list.update(&w.bodies));
    // 0.29 < skin / 2 = 0.3 along x: still valid; 0.31 beyond: rebuilt.
    w.bodies.position[1].x += 0.29;
    assert!(!list.update(&w.bodies));
    w.bodies.position[1].x += 0.02;
    assert!(list.update(&w.bodies));
    // Gap now 0.81 > 0.6: not a candidate any more.
    assert!(list.pairs().is_empty());
    assert_eq!(list.rebuilds(), 2);
    assert_eq!(list.updates(), 4);
}

#[test]
fn rotation_of_a_non_spherical_body_is_accounted_for() {
    // A finite cylinder (R = 0.2, half length h = 1) along z rotating about x by θ: its box
    // moves by at most θ ρ, ρ = √(h² + R²); along y it grows to h sin θ + R cos θ.
    let mut w = World::builder().build().unwrap();
    let c = w.insert(CylinderBuilder::new(DVec3::ZERO, DVec3::Z, 0.2).length(2.0).build().unwrap()).unwrap();
    let i = w.bodies.index(c).unwrap();
    let skin = 0.2;
    let mut list = VerletPairs::new(LinkedCells::new(), skin).unwrap();
    list.update(&w.bodies);
    let rho = (1.0f64 + 0.04).sqrt();
    // θ ρ = 0.09 < skin / 2: guaranteed no rebuild.
    w.bodies.orientation[i] = DQuat::from_rotation_x(0.09 / rho);
    assert!(!list.update(&w.bodies));
    // θ = 0.15: the y face moved by sin 0.15 + 0.2 cos 0.15 − 0.2 ≈ 0.147 > 0.1: rebuilt.
    w.bodies.orientation[i] = DQuat::from_rotation_x(0.15);
    assert!(list.update(&w.bodies));
    // A drum spinning about its own axis keeps its box: never rebuilt, however far it turns.
    let mut w = World::builder().build().unwrap();
    let d = w.insert(CylinderBuilder::new(DVec3::ZERO, DVec3::Z, 1.0).build().unwrap()).unwrap();
    let j = w.bodies.index(d).unwrap();
    let mut list = VerletPairs::new(SweepAndPrune::new(), skin).unwrap();
    list.update(&w.bodies);
    w.bodies.orientation[j] = DQuat::from_rotation_z(2.0);
    assert!(!list.update(&w.bodies));
}

#[test]
fn walls_and_kinematic_bodies_are_never_paired_together() {
    let mut w = World::builder().build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::X).build().unwrap()).unwrap();
    let still = Prescribed::Constant(DVec3::ZERO);
    w.insert(SphereBuilder::new(1.0, DVec3::ZERO).kinematic(still.clone(), still).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(1.0, DVec3::new(0.5, 0.0, 0.5)).build().unwrap()).unwrap();
    let mut list = VerletPairs::new(BruteForce, 0.0).unwrap();
    list.update(&w.bodies);
    // Fixed planes (0, 1) and the kinematic sphere (2) all overlap, but only their pairs with
    // the dynamic sphere (3) are listed.
    assert_eq!(list.pairs(), &[(0, 3), (1, 3), (2, 3)]);
}

#[test]
fn adding_a_body_forces_a_rebuild() {
    let mut w = two_spheres();
    let mut list = VerletPairs::new(SweepAndPrune::new(), 0.6).unwrap();
    list.update(&w.bodies);
    w.insert(SphereBuilder::new(1.0, DVec3::new(0.0, 1.0, 0.0)).build().unwrap()).unwrap();
    assert!(list.update(&w.bodies));
    assert_eq!(list.pairs(), &[(0, 1), (0, 2), (1, 2)]);
    list.invalidate();
    assert!(list.update(&w.bodies));
}

#[test]
fn invalid_parameters_are_errors_naming_the_parameter() {
    let e = VerletPairs::new(BruteForce, -1.0).unwrap_err();
    assert_eq!(e, BroadphaseError::InvalidParameter { parameter: "skin", value: -1.0, expected: "finite and >= 0" });
    let e = VerletPairs::new(BruteForce, 0.1).unwrap().with_margin(f64::NAN).unwrap_err();
    assert!(e.to_string().contains("margin = NaN"), "{e}");
    let e = SweepAndPrune::new().with_large_ratio(0.0).unwrap_err();
    assert!(e.to_string().contains("large_ratio = 0"), "{e}");
    let e = LinkedCells::new().with_cell_size(granula_broadphase::CellSize::Fixed(f64::INFINITY)).unwrap_err();
    assert!(e.to_string().contains("cell_size.edge = inf"), "{e}");
    let e = LinkedCells::new().with_cell_size(granula_broadphase::CellSize::MeanBody { factor: -2.0 }).unwrap_err();
    assert!(e.to_string().contains("cell_size.factor = -2"), "{e}");
}

/// `update_with_checked` takes the same decisions as the full test when the caller's
/// guarantee holds: 190 "spheres" whose boxes stay within a quarter of the skin of where
/// they were at the last rebuild (inside their references, which allow half the skin), and
/// 10 listed bodies that drift by 0.3 of half the skin per step and so force rebuilds; a
/// skip flag of an unlisted body changes once. `update_with_checked_by`, its tests split
/// over two threads, takes the same decisions too.
#[test]
fn the_checked_update_rebuilds_when_the_full_test_does() {
    use rand::Rng;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (n, listed, skin) = (200usize, 10usize, 0.2);
    let half = DVec3::splat(0.5);
    let mut centre: Vec<DVec3> = (0..n)
        .map(|_| DVec3::new(rng.random_range(0.0..8.0), rng.random_range(0.0..8.0), rng.random_range(0.0..8.0)))
        .collect();
    let mut at_rebuild = centre.clone();
    let others: Vec<u32> = (0..listed as u32).collect();
    let mut skip = vec![false; n];
    let mut full = VerletPairs::new(BruteForce, skin).unwrap();
    let mut checked = VerletPairs::new(BruteForce, skin).unwrap();
    let mut threaded = VerletPairs::new(BruteForce, skin).unwrap();
    // The tests of `0..len` in two halves, each on a thread of its own.
    let on_two_threads = |len: usize, test: &(dyn Fn(std::ops::Range<usize>) -> bool + Sync)| {
        std::thread::scope(|s| {
            let second = s.spawn(|| test(len / 2..len));
            let first = test(0..len / 2);
            first & second.join().unwrap()
        })
    };
    let (mut rebuilds, mut flipped) = (0, None);
    for step in 0..200 {
        let boxes: Vec<Aabb> = centre.iter().map(|c| Aabb::around(*c, half)).collect();
        if step >= 100 && flipped.is_none() {
            // The skip flag of an unlisted body, at a step where every box is inside its
            // reference: only the comparison of the skip flags can call for the rebuild.
            let reference = full.save_state().reference;
            if boxes.iter().zip(&reference).all(|(b, r)| r.contains(b)) {
                skip[150] = true;
                flipped = Some(step);
            }
        }
        let a = full.update_boxes(&boxes, &skip);
        let b = checked.update_with_checked(n, &others, |i| boxes[i], |i| skip[i]);
        let c = threaded.update_with_checked_by(n, &others, |i| boxes[i], |i| skip[i], on_two_threads);
        assert_eq!(a, b, "rebuild decision at step {step}");
        assert_eq!(a, c, "rebuild decision on two threads at step {step}");
        assert_eq!(full.pairs(), checked.pairs(), "pairs at step {step}");
        assert_eq!(full.pairs(), threaded.pairs(), "pairs on two threads at step {step}");
        if flipped == Some(step) {
            assert!(a, "the changed skip flag rebuilds");
        }
        if a {
            rebuilds += 1;
            at_rebuild.clone_from(&centre);
        }
        for (i, c) in centre.iter_mut().enumerate() {
            let mut r = || rng.random_range(-1.0..1.0);
            let jitter = DVec3::new(r(), r(), r());
            *c = if i < listed { *c + jitter * (0.3 * 0.5 * skin) } else { at_rebuild[i] + jitter * (0.25 * skin) };
        }
    }
    // The listed bodies' drift must have forced rebuilds for the comparison to mean anything
    // (a random walk of 0.03 per step leaves a ±0.1 reference in a few tens of steps).
    assert!(rebuilds > 3, "{rebuilds} rebuilds");
    assert!(flipped.is_some(), "no step from 100 on kept every box inside its reference");
}
