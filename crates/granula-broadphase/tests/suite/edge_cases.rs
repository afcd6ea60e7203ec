//! Edge cases with exact expected pair lists, for every backend.

use crate::common::*;
use granula_broadphase::{BruteForce, CellSize, LinkedCells, SweepAndPrune};
use granula_core::{Aabb, Broadphase, DVec3};

/// Every backend, fresh.
fn backends() -> Vec<Box<dyn Broadphase>> {
    vec![
        Box::new(BruteForce),
        Box::new(SweepAndPrune::new()),
        Box::new(LinkedCells::new()),
        Box::new(LinkedCells::new().with_cell_size(CellSize::Fixed(0.3)).unwrap()),
    ]
}

/// Asserts that every backend returns exactly `expected`.
fn expect(boxes: &[Aabb], skip: &[bool], expected: &[(u32, u32)]) {
    for mut b in backends() {
        let mut out = vec![(7, 7)];
        b.find_pairs(boxes, skip, &mut out);
        assert_eq!(out, expected, "backend {}", b.name());
    }
}

fn cube(c: DVec3, half: f64) -> Aabb {
    Aabb::around(c, DVec3::splat(half))
}

#[test]
fn zero_and_one_body() {
    expect(&[], &[], &[]);
    expect(&[cube(DVec3::ZERO, 1.0)], &[], &[]);
}

#[test]
fn touching_boxes_pair_and_a_gap_does_not() {
    // Face, edge and corner contact are all "touching" for closed boxes: exact binary values
    // (0.5 + 0.5 = 1.0) so the bounds coincide bit for bit.
    let a = cube(DVec3::ZERO, 0.5);
    let face = cube(DVec3::new(1.0, 0.0, 0.0), 0.5);
    let edge = cube(DVec3::new(-1.0, 1.0, 0.0), 0.5);
    let corner = cube(DVec3::new(-1.0, -1.0, -1.0), 0.5);
    // One ulp beyond 1.5 along z: no contact with `a` (max z 0.5 < min z 0.5 + ulp).
    let gap =
        Aabb { min: DVec3::new(-0.5, -0.5, f64::from_bits(0.5f64.to_bits() + 1)), max: DVec3::new(0.5, 0.5, 1.5) };
    expect(&[a, face, edge, corner, gap], &[], &[(0, 1), (0, 2), (0, 3)]);
    // Signed zeros: a box ending at −0 touches one starting at +0.
    let left = Aabb { min: DVec3::splat(-1.0), max: DVec3::new(-0.0, 1.0, 1.0) };
    let right = Aabb { min: DVec3::new(0.0, -1.0, -1.0), max: DVec3::ONE };
    expect(&[left, right], &[], &[(0, 1)]);
}

#[test]
fn identical_boxes_all_pair() {
    let b = cube(DVec3::new(0.3, -2.0, 7.0), 0.25);
    expect(&[b, b, b], &[], &[(0, 1), (0, 2), (1, 2)]);
    // Zero-size boxes (points) at the same place also touch.
    let p = Aabb { min: DVec3::ONE, max: DVec3::ONE };
    expect(&[p, p], &[], &[(0, 1)]);
}

#[test]
fn all_bodies_in_one_cell() {
    // 40 boxes of different sizes all containing the origin: every one of the 780 pairs.
    let boxes: Vec<Aabb> = (0..40).map(|i| cube(DVec3::splat(0.001 * i as f64), 0.1 + 0.01 * i as f64)).collect();
    let all: Vec<(u32, u32)> = (0..40).flat_map(|i| (i + 1..40).map(move |j| (i, j))).collect();
    assert_eq!(all.len(), 780);
    expect(&boxes, &[], &all);
}

#[test]
fn bodies_far_apart_give_nothing_and_a_small_grid() {
    let boxes: Vec<Aabb> = (0..50).map(|i| cube(DVec3::new(1e6 * i as f64, -1e9 * i as f64, 0.0), 1.0)).collect();
    expect(&boxes, &[], &[]);
    let mut cells = LinkedCells::new();
    pairs_of(&mut cells, &boxes, &[]);
    // Cell count capped at 4 n + 64 although the extent is 10⁹ cell edges.
    assert!(cells.cell_count() <= 4 * 50 + 64, "{} cells", cells.cell_count());
}

#[test]
fn a_body_crossing_many_cells_at_once() {
    // A row of 30 unit boxes spaced by 3: no pair. Then box 0 jumps to the far end, onto box 29.
    let mut boxes: Vec<Aabb> = (0..30).map(|i| cube(DVec3::new(3.0 * i as f64, 0.0, 0.0), 0.5)).collect();
    let mut sap = SweepAndPrune::new();
    let mut cells = LinkedCells::new();
    assert!(pairs_of(&mut sap, &boxes, &[]).is_empty());
    assert!(pairs_of(&mut cells, &boxes, &[]).is_empty());
    boxes[0] = cube(DVec3::new(87.5, 0.5, 0.0), 0.5);
    assert_eq!(pairs_of(&mut sap, &boxes, &[]), vec![(0, 29)]);
    assert_eq!(pairs_of(&mut cells, &boxes, &[]), vec![(0, 29)]);
    // And back to the start, where it touches nothing again; the lists were never rebuilt.
    boxes[0] = cube(DVec3::new(-10.0, 0.0, 0.0), 0.5);
    assert!(pairs_of(&mut sap, &boxes, &[]).is_empty());
    assert_eq!(sap.rebuilds(), 1);
    // Incremental update over 3 calls equals a fresh build at each call (checked above via
    // the exact lists); the swaps count shows the long move went through the sort.
    assert!(sap.last_swaps() >= 2 * 29, "{} swaps", sap.last_swaps());
}

#[test]
fn walls_pair_with_every_box_they_overlap_but_not_with_each_other() {
    let floor = Aabb {
        min: DVec3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0),
        max: DVec3::new(f64::INFINITY, f64::INFINITY, 0.0),
    };
    let everywhere = Aabb { min: DVec3::NEG_INFINITY, max: DVec3::INFINITY };
    let on_floor = cube(DVec3::new(5.0, -3.0, 0.5), 0.5);
    let above = cube(DVec3::new(0.0, 0.0, 2.0), 0.5);
    let boxes = [on_floor, floor, above, everywhere];
    // Walls skipped (fixed); the two spheres do not touch each other.
    expect(&boxes, &[false, true, false, true], &[(0, 1), (0, 3), (2, 3)]);
    // Without skip flags the two walls pair too.
    expect(&boxes, &[], &[(0, 1), (0, 3), (1, 3), (2, 3)]);
}

#[test]
fn skip_flags_only_drop_pairs_of_two_skipped_bodies() {
    let b = cube(DVec3::ZERO, 1.0);
    // 0 and 2 skipped: (0, 2) dropped, the rest kept. A short skip slice counts as `false`.
    expect(&[b, b, b, b], &[true, false, true], &[(0, 1), (0, 3), (1, 2), (1, 3), (2, 3)]);
}

#[test]
fn degenerate_boxes_pair_with_nothing() {
    let b = cube(DVec3::ZERO, 1.0);
    let nan = Aabb { min: DVec3::new(f64::NAN, -1.0, -1.0), max: DVec3::ONE };
    let inverted = Aabb { min: DVec3::new(0.5, -1.0, -1.0), max: DVec3::new(-0.5, 1.0, 1.0) };
    expect(&[b, nan, b, inverted], &[], &[(0, 2)]);
}

#[test]
fn changing_the_number_of_bodies_between_calls() {
    let mut sap = SweepAndPrune::new();
    let b = cube(DVec3::ZERO, 1.0);
    assert_eq!(pairs_of(&mut sap, &[b, b], &[]), vec![(0, 1)]);
    assert_eq!(pairs_of(&mut sap, &[b, b, b], &[]), vec![(0, 1), (0, 2), (1, 2)]);
    assert_eq!(pairs_of(&mut sap, &[b], &[]), vec![]);
    assert_eq!(pairs_of(&mut sap, &[], &[]), vec![]);
    assert_eq!(pairs_of(&mut sap, &[b, b], &[]), vec![(0, 1)]);
}

#[test]
fn a_box_becoming_a_wall_moves_between_the_lists() {
    // Body 1 grows from a unit box to an unbounded one (a class change): the sort lists are
    // rebuilt and the large list picks it up.
    let mut sap = SweepAndPrune::new();
    let mut boxes = vec![cube(DVec3::ZERO, 0.5), cube(DVec3::new(5.0, 0.0, 0.0), 0.5), cube(DVec3::splat(9.0), 0.5)];
    assert!(pairs_of(&mut sap, &boxes, &[]).is_empty());
    boxes[1] = Aabb { min: DVec3::new(-1.0, f64::NEG_INFINITY, f64::NEG_INFINITY), max: DVec3::INFINITY };
    assert_eq!(pairs_of(&mut sap, &boxes, &[]), vec![(0, 1), (1, 2)]);
    assert_eq!(sap.rebuilds(), 2);
}
