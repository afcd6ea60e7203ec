//! G1 (VALIDATION.md): brute force, sweep and prune and linked cells return identical pair
//! sets on seeded random polydisperse packings with walls, static and moving.

use crate::common::*;
use granula_broadphase::{BruteForce, CellSize, LinkedCells, SweepAndPrune};
use granula_core::{Aabb, Broadphase};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Boxes of a packing followed by walls; walls and every 10th sphere are skipped (fixed).
fn scene(seed: u64, n: usize, ratio: f64) -> (Vec<Aabb>, Vec<bool>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (centres, radii, side) = random_spheres(&mut rng, n, ratio, 0.4);
    let mut boxes = sphere_boxes(&centres, &radii);
    let mut skip: Vec<bool> = (0..n).map(|i| i % 10 == 0).collect();
    for w in wall_boxes(side) {
        boxes.push(w);
        skip.push(true);
    }
    (boxes, skip, radii)
}

fn check_static(seed: u64, n: usize, ratio: f64) {
    let (boxes, skip, _) = scene(seed, n, ratio);
    let oracle = pairs_of(&mut BruteForce, &boxes, &skip);
    assert_sorted_unique(&oracle);
    // The scene must exercise every kind of pair: many sphere pairs, sphere-wall pairs, and
    // no wall-wall pair (skipped) although the wall boxes overlap each other.
    let walls = n as u32;
    assert!(oracle.len() > n, "too few pairs ({}) for a meaningful test", oracle.len());
    assert!(oracle.iter().any(|&(i, j)| i < walls && j >= walls));
    assert!(!oracle.iter().any(|&(i, _)| i >= walls));
    assert_eq!(pairs_of(&mut SweepAndPrune::new(), &boxes, &skip), oracle);
    assert_eq!(pairs_of(&mut LinkedCells::new(), &boxes, &skip), oracle);
    let mean = LinkedCells::new().with_cell_size(CellSize::MeanBody { factor: 1.0 }).unwrap();
    assert_eq!(pairs_of(&mut { mean }, &boxes, &skip), oracle);
    let tiny = LinkedCells::new().with_cell_size(CellSize::Fixed(1e-4)).unwrap();
    assert_eq!(pairs_of(&mut { tiny }, &boxes, &skip), oracle);
}

#[test]
fn static_polydisperse_ratio_4() {
    check_static(1, 3000, 4.0);
}

#[test]
fn static_polydisperse_ratio_10() {
    check_static(2, 3000, 10.0);
}

#[test]
fn static_monodisperse() {
    check_static(3, 2000, 1.0);
}

/// Many steps of random motion: small jitters for everyone, and a few bodies jumping far
/// each step (across many cells and many sort-list positions).
fn check_moving(seed: u64, n: usize, ratio: f64, steps: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut boxes, skip, radii) = scene(seed, n, ratio);
    let mut sap = SweepAndPrune::new();
    let mut cells = LinkedCells::new();
    let mut out = Vec::new();
    let mut total_swaps = 0;
    for step in 0..steps {
        let oracle = pairs_of(&mut BruteForce, &boxes, &skip);
        sap.find_pairs(&boxes, &skip, &mut out);
        assert_eq!(out, oracle, "sweep and prune differs at step {step}");
        cells.find_pairs(&boxes, &skip, &mut out);
        assert_eq!(out, oracle, "linked cells differ at step {step}");
        total_swaps += sap.last_swaps();
        for i in 0..n {
            let d = jitter(&mut rng, 0.2 * radii[i]);
            boxes[i].min += d;
            boxes[i].max += d;
        }
        for _ in 0..3 {
            let i = rng.random_range(0..n);
            let d = jitter(&mut rng, 20.0 * radii[i]);
            boxes[i].min += d;
            boxes[i].max += d;
        }
    }
    // The lists were kept and updated incrementally: one build, and the insertion sorts did
    // real work (otherwise the test would not exercise the incremental path).
    assert_eq!(sap.rebuilds(), 1);
    assert!(total_swaps > n, "only {total_swaps} swaps");
}

#[test]
fn moving_polydisperse_ratio_4() {
    check_moving(4, 1500, 4.0, 40);
}

#[test]
fn moving_polydisperse_ratio_10() {
    check_moving(5, 1500, 10.0, 40);
}

/// The three axes' sorts run side by side on a pool of two threads and one after another
/// inside `parallel::sequential`: both must keep the oracle's pairs at every step (the
/// changes are applied in axis order after the sorts, whichever thread sorted).
#[test]
fn moving_on_two_threads_and_on_the_calling_thread() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| check_moving(6, 1500, 4.0, 30));
    granula_core::parallel::sequential(|| check_moving(7, 1500, 4.0, 30));
}

/// Linked cells scan their bodies in runs of 2048, side by side on a pool: with 7000 bodies
/// (four runs) the list on two threads, on the calling thread and of the oracle agree.
#[test]
fn linked_cells_in_runs_on_two_threads_and_on_the_calling_thread() {
    let (boxes, skip, _) = scene(8, 7000, 4.0);
    let oracle = pairs_of(&mut BruteForce, &boxes, &skip);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut cells = LinkedCells::new();
    assert_eq!(pool.install(|| pairs_of(&mut cells, &boxes, &skip)), oracle);
    assert_eq!(granula_core::parallel::sequential(|| pairs_of(&mut cells, &boxes, &skip)), oracle);
}
