//! Contact points: polyhedron against plane, sphere and polyhedron (vertex and edge–edge
//! contacts), general against convex path, stable feature keys.

use glam::{DQuat, DVec3};
use granula_core::ContactGeometry;
use granula_polyhedra::contact::{
    cylinder_polyhedron, plane_polyhedron, polyhedron_polyhedron, polyhedron_polyhedron_with, polyhedron_sphere,
    FeatureKey, Method,
};
use granula_polyhedra::{shapes, Polyhedron, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::FRAC_PI_4;

fn check_branches(c: &ContactGeometry, p1: DVec3, p2: DVec3) {
    assert!((c.normal.length() - 1.0).abs() < 1e-12);
    assert!((c.point - p1 - c.branch1).length() < 1e-12);
    assert!((c.point - p2 - c.branch2).length() < 1e-12);
}

#[test]
fn cube_flat_on_a_plane_touches_at_its_four_corners() {
    let cube = shapes::cube(0.2).unwrap();
    let delta = 1e-4;
    let pose = Pose::new(DVec3::new(1.0, 2.0, 0.1 - delta), DQuat::IDENTITY);
    let mut out = Vec::new();
    assert_eq!(plane_polyhedron(DVec3::ZERO, DVec3::Z, &cube, &pose, 0.0, &mut out), 4);
    for c in &out {
        assert!((c.gap + delta).abs() < 1e-15);
        assert_eq!(c.normal, DVec3::Z);
        assert!((c.point.z + 0.5 * delta).abs() < 1e-15);
        assert!(matches!(FeatureKey::decode(c.feature), FeatureKey::Vertex2(_)));
        check_branches(c, DVec3::ZERO, pose.position);
    }
    // On an edge (turned 45° about x): two points at depth delta.
    let pose = Pose::new(DVec3::new(0.0, 0.0, 0.1 * 2f64.sqrt() - delta), DQuat::from_rotation_x(FRAC_PI_4));
    out.clear();
    assert_eq!(plane_polyhedron(DVec3::ZERO, DVec3::Z, &cube, &pose, 0.0, &mut out), 2);
    assert!(out.iter().all(|c| (c.gap + delta).abs() < 1e-14));
    // Above the plane, beyond the margin: nothing.
    let far = Pose::new(DVec3::new(0.0, 0.0, 0.2), DQuat::IDENTITY);
    assert_eq!(plane_polyhedron(DVec3::ZERO, DVec3::Z, &cube, &far, 0.05, &mut out), 0);
}

#[test]
fn sphere_against_face_edge_and_inside() {
    let cube = shapes::cube(1.0).unwrap();
    let pose = Pose::new(DVec3::new(3.0, 0.0, 0.0), DQuat::from_rotation_z(0.3));
    let up = pose.orientation * DVec3::X;
    let mut out = Vec::new();
    // Above the +x face, overlapping by 0.01.
    let c = pose.position + up * (0.5 + 0.2 - 0.01);
    assert_eq!(polyhedron_sphere(&cube, &pose, c, 0.2, 0.0, &mut out), 1);
    let g = out[0];
    assert!((g.gap + 0.01).abs() < 1e-12);
    assert!((g.normal - up).length() < 1e-12);
    check_branches(&g, pose.position, c);
    // Near the edge between +x and +y faces: normal along the diagonal.
    let diag = pose.orientation * DVec3::new(1.0, 1.0, 0.0).normalize();
    let edge = pose.position + pose.orientation * DVec3::new(0.5, 0.5, 0.1);
    out.clear();
    assert_eq!(polyhedron_sphere(&cube, &pose, edge + diag * 0.15, 0.2, 0.0, &mut out), 1);
    assert!((out[0].normal - diag).length() < 1e-12);
    assert!((out[0].gap + 0.05).abs() < 1e-12);
    // Centre inside, 0.1 below the +x face: pushed out along +x, gap −(0.1 + r).
    out.clear();
    assert_eq!(polyhedron_sphere(&cube, &pose, pose.position + up * 0.4, 0.2, 0.0, &mut out), 1);
    assert!((out[0].normal - up).length() < 1e-12);
    assert!((out[0].gap + 0.3).abs() < 1e-12);
    // Apart: nothing.
    out.clear();
    assert_eq!(polyhedron_sphere(&cube, &pose, pose.position + up * 0.8, 0.2, 0.05, &mut out), 0);
}

fn both_methods(a: &Polyhedron, pa: &Pose, b: &Polyhedron, pb: &Pose) -> [Vec<ContactGeometry>; 2] {
    let mut g = Vec::new();
    let mut c = Vec::new();
    polyhedron_polyhedron_with(Method::General, a, pa, b, pb, 0.0, &mut g);
    polyhedron_polyhedron_with(Method::Convex, a, pa, b, pb, 0.0, &mut c);
    [g, c]
}

#[test]
fn small_cube_on_a_big_one_gives_four_vertex_contacts() {
    let big = shapes::cube(1.0).unwrap();
    let small = shapes::cube(0.4).unwrap();
    let delta = 1e-3;
    let pa = Pose::new(DVec3::ZERO, DQuat::IDENTITY);
    let pb = Pose::new(DVec3::new(0.1, -0.05, 0.7 - delta), DQuat::from_rotation_z(0.2));
    for out in both_methods(&big, &pa, &small, &pb) {
        assert_eq!(out.len(), 4, "{out:?}");
        for c in &out {
            assert!((c.gap + delta).abs() < 1e-12);
            assert!((c.normal - DVec3::Z).length() < 1e-12);
            assert!(matches!(FeatureKey::decode(c.feature), FeatureKey::Vertex2(_)));
            check_branches(c, pa.position, pb.position);
        }
    }
}

/// Two long bars of square section turned 45° about their axes, one along x below, one
/// along y above, crossing edge on edge with an overlap `delta`.
fn crossed_bars(delta: f64, shift: DVec3) -> (Polyhedron, Pose, Pose) {
    let bar = shapes::cuboid(DVec3::new(1.0, 0.1, 0.1)).unwrap();
    let h = 0.1 * 2f64.sqrt();
    let pa = Pose::new(DVec3::ZERO, DQuat::from_rotation_x(FRAC_PI_4));
    let pb = Pose::new(
        DVec3::new(0.0, 0.0, 2.0 * h - delta) + shift,
        DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2) * DQuat::from_rotation_x(FRAC_PI_4),
    );
    (bar, pa, pb)
}

#[test]
fn crossed_edges_collide() {
    let delta = 1e-3;
    let (bar, pa, pb) = crossed_bars(delta, DVec3::ZERO);
    let h = 0.1 * 2f64.sqrt();
    for out in both_methods(&bar, &pa, &bar, &pb) {
        assert_eq!(out.len(), 1, "{out:?}");
        let c = out[0];
        assert!(matches!(FeatureKey::decode(c.feature), FeatureKey::EdgePair(_, _)));
        assert!((c.gap + delta).abs() < 1e-12, "{}", c.gap);
        assert!((c.normal - DVec3::Z).length() < 1e-12);
        assert!((c.point - DVec3::new(0.0, 0.0, h - 0.5 * delta)).length() < 1e-12);
        check_branches(&c, pa.position, pb.position);
    }
    // Body order swapped: normal reversed, same depth.
    let mut out = Vec::new();
    polyhedron_polyhedron(&bar, &pb, &bar, &pa, 0.0, &mut out);
    assert_eq!(out.len(), 1);
    assert!((out[0].normal + DVec3::Z).length() < 1e-12);
    // Apart: nothing.
    let (bar, pa, pb) = crossed_bars(-1e-3, DVec3::ZERO);
    out.clear();
    assert_eq!(polyhedron_polyhedron(&bar, &pa, &bar, &pb, 0.0, &mut out), 0);
}

#[test]
fn feature_keys_survive_small_motions() {
    let key_set = |out: &[ContactGeometry]| {
        let mut k: Vec<u32> = out.iter().map(|c| c.feature).collect();
        k.sort();
        k
    };
    let (bar, pa, pb) = crossed_bars(1e-3, DVec3::ZERO);
    let mut first = Vec::new();
    polyhedron_polyhedron(&bar, &pa, &bar, &pb, 0.0, &mut first);
    let (_, pa, pb) = crossed_bars(1.2e-3, DVec3::new(0.01, -0.02, 0.0));
    let mut second = Vec::new();
    polyhedron_polyhedron(&bar, &pa, &bar, &pb, 0.0, &mut second);
    assert_eq!(key_set(&first), key_set(&second));

    let cube = shapes::cube(0.2).unwrap();
    let mut a = Vec::new();
    let mut b = Vec::new();
    plane_polyhedron(
        DVec3::ZERO,
        DVec3::Z,
        &cube,
        &Pose::new(DVec3::new(0.0, 0.0, 0.099), DQuat::IDENTITY),
        0.0,
        &mut a,
    );
    let moved = Pose::new(DVec3::new(0.003, 0.0, 0.0985), DQuat::from_rotation_z(0.01));
    plane_polyhedron(DVec3::ZERO, DVec3::Z, &cube, &moved, 0.0, &mut b);
    assert_eq!(key_set(&a), key_set(&b));
    assert_eq!(a.len(), 4);
}

#[test]
fn cube_in_the_notch_of_the_l_block() {
    // L of two unit squares' arms scaled by 1 (input coordinates: notch at x, y ∈ [1, 2]).
    let (v, f) = shapes::l_block_mesh(1.0);
    let (l, at) = Polyhedron::from_mesh(v, f, granula_polyhedra::BodyFrame::CentreOfMass).unwrap();
    assert!(!l.is_convex());
    let pl = Pose::new(at.offset, DQuat::IDENTITY);
    let cube = shapes::cube(0.5).unwrap();
    // Cube in the notch, pressed 1e-3 into both walls (x = 1 and y = 1), z in the slab.
    let d = 1e-3;
    let pc = Pose::new(DVec3::new(1.25 - d, 1.25 - d, 0.5), DQuat::IDENTITY);
    let mut out = Vec::new();
    polyhedron_polyhedron(&l, &pl, &cube, &pc, 0.0, &mut out);
    let along = |n: DVec3| out.iter().filter(|c| (c.normal - n).length() < 1e-9).count();
    assert!(along(DVec3::X) >= 2 && along(DVec3::Y) >= 2, "{out:?}");
    // The cube's corner in the wedge of the reflex edge is √2 d from it, pushed out along
    // the diagonal.
    let diagonal = DVec3::new(1.0, 1.0, 0.0).normalize();
    assert_eq!(along(diagonal), 2);
    assert!(out.iter().all(|c| c.gap <= 0.0 && c.gap >= -2f64.sqrt() * d - 1e-12));
    // The convex path would be wrong here; Auto chose the general one (no false contact
    // from the L's hull covering the notch): every point is within the overlap.
    assert!(out.iter().all(|c| c.point.x > 1.0 - d && c.point.y > 1.0 - d));
}

#[test]
fn general_and_convex_paths_agree_on_random_convex_pairs() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut pairs_with_contacts = 0;
    for k in 0..200 {
        let a = shapes::random_convex(12, 0.5, k).unwrap();
        let b = shapes::random_convex(12, 0.5, 1000 + k).unwrap();
        let rot = |rng: &mut ChaCha8Rng| {
            DQuat::from_axis_angle(
                DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), 1.0).normalize(),
                rng.random_range(0.0..6.3),
            )
        };
        let pa = Pose::new(DVec3::ZERO, rot(&mut rng));
        let dir = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let pb = Pose::new(dir.normalize() * rng.random_range(0.45..0.75), rot(&mut rng));
        let [mut g, mut c] = both_methods(&a, &pa, &b, &pb);
        g.sort_by_key(|x| x.feature);
        c.sort_by_key(|x| x.feature);
        assert_eq!(g.len(), c.len(), "pair {k}: {g:?} vs {c:?}");
        for (x, y) in g.iter().zip(&c) {
            assert_eq!(x.feature, y.feature);
            assert!((x.gap - y.gap).abs() < 1e-12, "pair {k}: {} vs {}", x.gap, y.gap);
            assert!((x.normal - y.normal).length() < 1e-9 || (x.gap - y.gap).abs() < 1e-12);
        }
        pairs_with_contacts += !g.is_empty() as usize;
    }
    assert!(pairs_with_contacts > 100, "{pairs_with_contacts}");
}

#[test]
fn polyhedron_inside_a_drum_touches_with_its_outer_corners() {
    use granula_core::CylinderWall;
    let wall = CylinderWall { radius: 1.0, axis: DVec3::Z, inside: true, half_length: None };
    let cube = shapes::cube(0.2).unwrap();
    let delta = 1e-3;
    // Cube against the wall at +x: its two outer corners at z = ±0.1 and y = ±0.1 are at
    // radius sqrt((x + 0.1)² + 0.01); place them delta beyond R.
    let x = ((1.0 + delta) * (1.0 + delta) - 0.01f64).sqrt() - 0.1;
    let pose = Pose::new(DVec3::new(x, 0.0, 0.0), DQuat::IDENTITY);
    let mut out = Vec::new();
    assert_eq!(cylinder_polyhedron(DVec3::ZERO, DQuat::IDENTITY, &wall, &cube, &pose, 0.0, &mut out), Some(4));
    for c in &out {
        assert!((c.gap + delta).abs() < 1e-12);
        assert!(c.normal.x < -0.99 && c.normal.z == 0.0);
        check_branches(c, DVec3::ZERO, pose.position);
    }
    let obstacle = CylinderWall { inside: false, ..wall };
    assert_eq!(cylinder_polyhedron(DVec3::ZERO, DQuat::IDENTITY, &obstacle, &cube, &pose, 0.0, &mut out), None);
    let centre = Pose::new(DVec3::ZERO, DQuat::IDENTITY);
    assert_eq!(cylinder_polyhedron(DVec3::ZERO, DQuat::IDENTITY, &wall, &cube, &centre, 0.0, &mut out), Some(0));
}

#[test]
fn swapping_the_bodies_mirrors_the_contacts_for_non_convex_pairs() {
    let l = shapes::l_block(0.3).unwrap();
    let c = shapes::random_convex(14, 0.25, 9).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mirror = |key: u32| match FeatureKey::decode(key) {
        FeatureKey::Vertex1(v) => FeatureKey::Vertex2(v).encode(),
        FeatureKey::Vertex2(v) => FeatureKey::Vertex1(v).encode(),
        FeatureKey::EdgePair(a, b) => FeatureKey::EdgePair(b, a).encode(),
        FeatureKey::Single => key,
    };
    let mut checked = 0;
    let (mut deepest_edge, mut edges) = (0.0f64, 0);
    for k in 0..300 {
        let b = if k % 2 == 0 { &l } else { &c };
        let rot = |rng: &mut ChaCha8Rng| {
            DQuat::from_axis_angle(
                DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), 1.0).normalize(),
                rng.random_range(0.0..6.3),
            )
        };
        let pa = Pose::new(DVec3::ZERO, rot(&mut rng));
        let dir = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let pb = Pose::new(dir.normalize() * rng.random_range(0.2..0.45), rot(&mut rng));
        let (mut ab, mut ba) = (Vec::new(), Vec::new());
        polyhedron_polyhedron(&l, &pa, b, &pb, 0.0, &mut ab);
        polyhedron_polyhedron(b, &pb, &l, &pa, 0.0, &mut ba);
        let mut ab: Vec<(u32, ContactGeometry)> = ab.into_iter().map(|g| (g.feature, g)).collect();
        let mut ba: Vec<(u32, ContactGeometry)> = ba.into_iter().map(|g| (mirror(g.feature), g)).collect();
        ab.sort_by_key(|x| x.0);
        ba.sort_by_key(|x| x.0);
        assert_eq!(ab.len(), ba.len(), "pose {k}");
        for ((ka, x), (kb, y)) in ab.iter().zip(&ba) {
            assert_eq!(ka, kb);
            assert!((x.gap - y.gap).abs() < 1e-12, "pose {k}");
            assert!((x.normal + y.normal).length() < 1e-9, "pose {k}: {:?} {:?}", x.normal, y.normal);
            assert!((x.point - y.point).length() < 1e-12);
            assert!(x.gap <= 0.0);
            if matches!(FeatureKey::decode(*ka), FeatureKey::EdgePair(..)) {
                deepest_edge = deepest_edge.max(-x.gap);
                edges += 1;
            }
        }
        checked += !ab.is_empty() as usize;
    }
    assert!(checked > 100, "{checked}");
    eprintln!("{edges} edge contacts, deepest {deepest_edge}");
    assert!(edges > 20);
}

#[test]
fn shallow_overlaps_give_shallow_contacts() {
    // Bring two bodies together along a random direction until they first touch (steps of
    // 1e-3 r), then by 1 % of r more: no contact point can be deeper than the approach.
    let l = shapes::l_block(0.3).unwrap();
    let c = shapes::random_convex(14, 0.25, 4).unwrap();
    let box_ = shapes::cuboid(DVec3::new(0.2, 0.1, 0.05)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut out = Vec::new();
    let (mut edges, mut points) = (0, 0);
    for k in 0..150 {
        // L against L and against a convex body (general path); box against the convex
        // body (convex path).
        let (l, b) = match k % 3 {
            0 => (&l, &c),
            1 => (&l, &l),
            _ => (&box_, &c),
        };
        let rot = |rng: &mut ChaCha8Rng| {
            DQuat::from_axis_angle(
                DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), 1.0).normalize(),
                rng.random_range(0.0..6.3),
            )
        };
        let pa = Pose::new(DVec3::ZERO, rot(&mut rng));
        let (u, qb) = (
            DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0))
                .normalize(),
            rot(&mut rng),
        );
        let r = l.equivalent_radius().min(b.equivalent_radius());
        let step = 1e-3 * r;
        let mut d = l.bounding_radius() + b.bounding_radius();
        loop {
            out.clear();
            if polyhedron_polyhedron(l, &pa, b, &Pose::new(u * d, qb), 0.0, &mut out) > 0 {
                break;
            }
            d -= step;
        }
        out.clear();
        polyhedron_polyhedron(l, &pa, b, &Pose::new(u * (d - 0.01 * r), qb), 0.0, &mut out);
        for g in &out {
            assert!(g.gap >= -(0.01 * r + step) * 1.001, "pose {k}: {:?} gap {}", FeatureKey::decode(g.feature), g.gap);
            edges += matches!(FeatureKey::decode(g.feature), FeatureKey::EdgePair(..)) as usize;
        }
        points += out.len();
    }
    eprintln!("{points} points, {edges} edge-edge");
    assert!(edges > 5, "{edges}");
}

#[test]
fn face_on_face_at_45_degrees_gives_the_octagon_of_the_overlap() {
    // Two equal cubes stacked, the upper turned 45° about z, overlapping by delta: no
    // vertex of either is inside the other; the overlap is an octagon whose eight corners
    // are crossings of top edges with bottom edges.
    let cube = shapes::cube(1.0).unwrap();
    let delta = 1e-3;
    let pa = Pose::new(DVec3::ZERO, DQuat::IDENTITY);
    let pb = Pose::new(DVec3::new(0.0, 0.0, 1.0 - delta), DQuat::from_rotation_z(FRAC_PI_4));
    for out in both_methods(&cube, &pa, &cube, &pb) {
        assert_eq!(out.len(), 8, "{out:?}");
        let corner = 0.5 * (2f64.sqrt() - 1.0);
        for c in &out {
            assert!(matches!(FeatureKey::decode(c.feature), FeatureKey::EdgePair(..)));
            assert!((c.gap + delta).abs() < 1e-12);
            assert!((c.normal - DVec3::Z).length() < 1e-12);
            // Corners on the square |x|, |y| ≤ 0.5 with one coordinate at ±0.5, the other at
            // ±(√2 − 1)/2.
            let (x, y) = (c.point.x.abs(), c.point.y.abs());
            let (big, small) = (x.max(y), x.min(y));
            assert!((big - 0.5).abs() < 1e-12 && (small - corner).abs() < 1e-12, "{:?}", c.point);
        }
    }
}
