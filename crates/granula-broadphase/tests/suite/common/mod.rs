//! Seeded random packings and walls shared by the integration tests.
#![allow(dead_code)]

use granula_core::{Aabb, Broadphase, CylinderWall, DQuat, DVec3, Shape};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// A random polydisperse packing: `n` spheres with radii uniform in `[r_min, ratio r_min]`,
/// centres uniform in a cube whose side gives a solid fraction of about `phi` (overlaps are
/// allowed: only the boxes matter). Returns centres, radii and the side.
pub fn random_spheres(rng: &mut ChaCha8Rng, n: usize, ratio: f64, phi: f64) -> (Vec<DVec3>, Vec<f64>, f64) {
    let r_min = 1e-3;
    let radii: Vec<f64> = (0..n).map(|_| r_min * rng.random_range(1.0..=ratio)).collect();
    let volume: f64 = radii.iter().map(|r| 4.0 / 3.0 * std::f64::consts::PI * r * r * r).sum();
    let side = (volume / phi).cbrt();
    let centres = (0..n)
        .map(|_| DVec3::new(rng.random_range(0.0..side), rng.random_range(0.0..side), rng.random_range(0.0..side)))
        .collect();
    (centres, radii, side)
}

/// Boxes of spheres.
pub fn sphere_boxes(centres: &[DVec3], radii: &[f64]) -> Vec<Aabb> {
    centres.iter().zip(radii).map(|(&c, &r)| Aabb::around(c, DVec3::splat(r))).collect()
}

/// The boxes of walls around a cube of side `side`, from the core's shapes: a floor and two
/// side planes (thin slabs, infinite along the plane), an inclined plane (unbounded on all
/// axes), an infinite vertical cylinder enclosing the cube (unbounded along z) and a finite
/// horizontal cylinder crossing it (a large finite box).
pub fn wall_boxes(side: f64) -> Vec<Aabb> {
    let id = DQuat::IDENTITY;
    let plane = |p: DVec3, n: DVec3| Shape::Plane { normal: n.normalize() }.aabb(p, id);
    let c = DVec3::splat(0.5 * side);
    vec![
        plane(DVec3::ZERO, DVec3::Z),
        plane(DVec3::ZERO, DVec3::X),
        plane(DVec3::new(side, 0.0, 0.0), -DVec3::X),
        plane(c, DVec3::new(1.0, 1.0, 1.0)),
        Shape::Cylinder(CylinderWall { radius: 0.45 * side, axis: DVec3::Z, inside: true, half_length: None })
            .aabb(c, id),
        Shape::Cylinder(CylinderWall {
            radius: 0.1 * side,
            axis: DVec3::X,
            inside: false,
            half_length: Some(0.4 * side),
        })
        .aabb(c, id),
    ]
}

/// Pairs from one backend.
pub fn pairs_of(b: &mut impl Broadphase, boxes: &[Aabb], skip: &[bool]) -> Vec<(u32, u32)> {
    let mut out = vec![(u32::MAX, u32::MAX)]; // stale content that must be overwritten
    b.find_pairs(boxes, skip, &mut out);
    out
}

/// Asserts that a pair list is strictly ascending (sorted, no duplicates) with `i < j`.
pub fn assert_sorted_unique(pairs: &[(u32, u32)]) {
    assert!(pairs.iter().all(|&(i, j)| i < j), "a pair with i >= j");
    assert!(pairs.windows(2).all(|w| w[0] < w[1]), "pairs not strictly ascending");
}

/// A random displacement of at most `amplitude` per axis.
pub fn jitter(rng: &mut ChaCha8Rng, amplitude: f64) -> DVec3 {
    DVec3::new(
        rng.random_range(-amplitude..=amplitude),
        rng.random_range(-amplitude..=amplitude),
        rng.random_range(-amplitude..=amplitude),
    )
}
