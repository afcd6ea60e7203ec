//! Overlap volume of convex pairs: exact boxes, swapped bodies, and a Monte Carlo check on
//! random convex pairs.

use glam::{DQuat, DVec3};
use granula_polyhedra::convex_overlap;
use granula_polyhedra::{shapes, Polyhedron, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn offset_unit_cubes_overlap_in_a_box() {
    let cube = shapes::cube(1.0).unwrap();
    let pa = Pose::new(DVec3::new(0.1, -0.2, 0.3), DQuat::IDENTITY);
    for d in [DVec3::new(0.3, 0.2, 0.1), DVec3::new(0.3, 0.0, 0.0), DVec3::new(-0.25, 0.5, 0.0)] {
        let pb = Pose::new(pa.position + d, DQuat::IDENTITY);
        let o = convex_overlap(&cube, &pa, &cube, &pb).unwrap();
        let v = (1.0 - d.x.abs()) * (1.0 - d.y.abs()) * (1.0 - d.z.abs());
        assert!((o.volume - v).abs() < 1e-13, "{d}: {} vs {v}", o.volume);
        assert!((o.centroid - (pa.position + 0.5 * d)).length() < 1e-14);
        // Area vector: the faces of A inside B, one per axis of the offset.
        let s = DVec3::ONE - d.abs();
        let area = DVec3::new(s.y * s.z * d.x.signum(), s.x * s.z * d.y.signum(), s.x * s.y * d.z.signum());
        let area = DVec3::select(d.cmpeq(DVec3::ZERO), DVec3::ZERO, area);
        assert!((o.normal * o.area - area).length() < 1e-12, "{d}: {:?}", o.normal * o.area);
    }
    let apart = Pose::new(pa.position + DVec3::new(1.0 + 1e-9, 0.0, 0.0), DQuat::IDENTITY);
    assert!(convex_overlap(&cube, &pa, &cube, &apart).is_none());
}

fn random_pose(rng: &mut ChaCha8Rng, reach: f64) -> Pose {
    let axis = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), 1.0).normalize();
    let dir = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
    Pose::new(
        dir.normalize_or_zero() * rng.random_range(0.0..reach),
        DQuat::from_axis_angle(axis, rng.random_range(0.0..6.3)),
    )
}

fn inside(p: &Polyhedron, pose: &Pose, x: DVec3) -> bool {
    let y = pose.to_body(x);
    p.planes().iter().all(|(n, d)| n.dot(y) <= *d)
}

#[test]
fn random_convex_pairs_agree_with_sampling_and_with_the_swap() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut overlapping = 0;
    for k in 0..20u64 {
        let a = shapes::random_convex(12, 1.0, k).unwrap();
        let b = shapes::random_convex(16, 0.8, 100 + k).unwrap();
        let pa = random_pose(&mut rng, 0.2);
        let pb = Pose { position: pa.position + random_pose(&mut rng, 1.0).position, ..random_pose(&mut rng, 1e-9) };
        let Some(o) = convex_overlap(&a, &pa, &b, &pb) else {
            continue;
        };
        overlapping += 1;
        let s = convex_overlap(&b, &pb, &a, &pa).unwrap();
        assert!((o.volume - s.volume).abs() < 1e-12 * o.volume.max(1e-3));
        assert!((o.centroid - s.centroid).length() < 1e-12);
        assert!((o.normal + s.normal).length() < 1e-9);
        assert!((o.area - s.area).abs() < 1e-12);
        // Monte Carlo over the box around a (n = 40 000): within 4 standard deviations.
        let box_a = a.world_aabb(&pa);
        let size = box_a.size();
        let n = 40_000;
        let hits = (0..n)
            .filter(|_| {
                let x = box_a.min + size * DVec3::new(rng.random(), rng.random(), rng.random());
                inside(&a, &pa, x) && inside(&b, &pb, x)
            })
            .count();
        let frac = hits as f64 / n as f64;
        let estimate = frac * size.x * size.y * size.z;
        let sigma = (frac * (1.0 - frac) / n as f64).sqrt() * size.x * size.y * size.z;
        assert!((o.volume - estimate).abs() < 4.0 * sigma + 1e-9, "pair {k}: {} vs {estimate} ± {sigma}", o.volume);
    }
    assert!(overlapping >= 10, "{overlapping}");
}

#[test]
fn an_icosphere_overlap_approaches_the_spherical_cap() {
    // Icosphere (radius 1, 5120 faces) pressed 0.1 into a big cube: the cap of a sphere,
    // V = π h² (3r − h)/3, to the faceting error: the faces lie up to ~1e-3 r inside the
    // sphere, so the faceted cap is about 2 % smaller (6 % with 1280 faces).
    let ball = shapes::icosphere(1.0, 4).unwrap();
    let slab = shapes::cube(10.0).unwrap();
    let h = 0.1;
    let pb = Pose::new(DVec3::new(0.0, 0.0, 5.0 + 1.0 - h), DQuat::from_rotation_y(0.37));
    let o = convex_overlap(&slab, &Pose::new(DVec3::ZERO, DQuat::IDENTITY), &ball, &pb).unwrap();
    let cap = std::f64::consts::PI * h * h * (3.0 - h) / 3.0;
    assert!((o.volume / cap - 1.0).abs() < 0.03, "{} vs {cap}", o.volume);
    assert!((o.normal - DVec3::Z).length() < 1e-12);
    assert!((o.area - std::f64::consts::PI * (2.0 * h - h * h)).abs() < 0.05 * o.area);
}
