//! One contact per pair from the overlap volume (`volume_contact`): exact volumes of plane
//! cuts of a cube, the box of two offset cubes, and independence of the face meshing.

use glam::{DQuat, DVec3};
use granula_polyhedra::contact::FeatureKey;
use granula_polyhedra::contact::{convex_volume_contact, plane_overlap, plane_volume_contact};
use granula_polyhedra::{shapes, BodyFrame, Polyhedron, Pose};
use std::collections::HashMap;

/// A frame turned away from the axes, so that nothing below is exact by accident.
fn world() -> DQuat {
    DQuat::from_axis_angle(DVec3::new(0.2, 0.9, -0.4).normalize(), 0.7)
}

/// A unit cube whose faces are each split into n × n squares of two triangles (12 n²
/// triangles), centred at the origin.
fn subdivided_cube(n: usize) -> Polyhedron {
    let mut index: HashMap<[usize; 3], u32> = HashMap::new();
    let mut vertices = Vec::new();
    let mut faces = Vec::new();
    let mut vertex = |p: [usize; 3]| {
        *index.entry(p).or_insert_with(|| {
            vertices.push(DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64) / n as f64 - 0.5);
            (vertices.len() - 1) as u32
        })
    };
    // (u, v, w) with u × v = ±w outward: the face w = n (sign +) or w = 0 (sign −).
    for (w, u, v) in [(2, 0, 1), (0, 1, 2), (1, 2, 0)] {
        for outward in [true, false] {
            let (u, v) = if outward { (u, v) } else { (v, u) };
            let at = |i: usize, j: usize| {
                let mut p = [0; 3];
                p[u] = i;
                p[v] = j;
                p[w] = if outward { n } else { 0 };
                p
            };
            for i in 0..n {
                for j in 0..n {
                    let q = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)].map(&mut vertex);
                    faces.push([q[0], q[1], q[2]]);
                    faces.push([q[0], q[2], q[3]]);
                }
            }
        }
    }
    Polyhedron::from_mesh(vertices, faces, BodyFrame::CentreOfMass).unwrap().0
}

#[test]
fn plane_cuts_of_a_cube_are_exact() {
    let cube = shapes::cube(1.0).unwrap();
    let q = world();
    let (p0, n) = (DVec3::new(0.3, -1.2, 2.0), q * DVec3::Z);
    let h = 0.01;
    // In the plane's frame (z up, origin p0): (cube orientation, centre height, volume,
    // centroid height, cut area), by hand.
    let s3 = 3f64.sqrt();
    let corner_up = DQuat::from_rotation_arc(DVec3::ONE.normalize(), -DVec3::Z);
    let cases = [
        // Flat: a slab 1 × 1 × h, centroid h/2 down.
        ("flat", DQuat::IDENTITY, 0.5 - h, h, -h / 2.0, 1.0),
        // On an edge (45° about x): a prism of triangular section (base 2h on the plane,
        // apex h down, area h²), centroid h/3 down, cut 2h × 1.
        ("edge", DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4), 0.5 * 2f64.sqrt() - h, h * h, -h / 3.0, 2.0 * h),
        // On a corner (diagonal vertical): the corner tetrahedron with legs √3 h, volume
        // (√3 h)³/6 = (√3/2) h³, centroid h/4 down, cut an equilateral triangle of side
        // √6 h, area (3√3/2) h².
        ("corner", corner_up, 0.5 * s3 - h, 0.5 * s3 * h.powi(3), -h / 4.0, 1.5 * s3 * h * h),
    ];
    for (name, local, z, volume, centroid, area) in cases {
        let pose = Pose::new(p0 + q * DVec3::new(0.1, 0.2, z), q * local);
        let o = plane_overlap(p0, n, &cube, &pose).unwrap();
        // The volume is a sum of triple products of order-1 coordinates, each rounded to
        // ~1e-16 m³: against h³ = 1e-6 m³ (the corner), 1e-9 relative leaves a 10⁴ margin
        // over a few dozen terms; positions to 1e-12 m.
        assert!((o.volume / volume - 1.0).abs() < 1e-9, "{name}: volume {} vs {volume}", o.volume);
        assert!((o.area / area - 1.0).abs() < 1e-9, "{name}: area {} vs {area}", o.area);
        let c = q.inverse() * (o.centroid - p0);
        assert!((c.z - centroid).abs() < 1e-12, "{name}: centroid {c:?}");
        assert!((c.truncate() - DVec3::new(0.1, 0.2, 0.0).truncate()).length() < 1e-12, "{name}: {c:?}");
        let g = plane_volume_contact(p0, n, &cube, &pose).unwrap();
        assert_eq!(g.feature, FeatureKey::Single.encode());
        assert!((g.overlap_volume - o.volume).abs() == 0.0 && (g.gap + volume / area).abs() < 1e-12);
        assert!(
            (g.branch1 - (g.point - p0)).length() < 1e-15 && (g.branch2 - (g.point - pose.position)).length() < 1e-15
        );
    }
    // Above the plane: nothing.
    assert!(plane_overlap(p0, n, &cube, &Pose::new(p0 + n * 0.5001, q)).is_none());
}

#[test]
fn offset_cubes_overlap_in_a_box() {
    // Unit cubes, the second shifted by (0.99, 0.3, −0.2): the box 0.01 × 0.7 × 0.8,
    // centroid at x = 0.495, y = 0.15, z = −0.1. The normal is the area vector of the first
    // cube's surface inside the second: its +x face (0.7 × 0.8), and strips 0.01 wide of its
    // +y face (0.01 × 0.8) and its −z face (0.01 × 0.7); the gap −V/|that vector|.
    let cube = shapes::cube(1.0).unwrap();
    let q = world();
    let pa = Pose::new(DVec3::new(1.0, 2.0, 3.0), q);
    let pb = Pose::new(pa.position + q * DVec3::new(0.99, 0.3, -0.2), q);
    let g = convex_volume_contact(&cube, &pa, &cube, &pb).unwrap();
    // Volume 0.0056 from differences of order-1 coordinates: 1e-12 relative.
    assert!((g.overlap_volume / 0.0056 - 1.0).abs() < 1e-10, "{}", g.overlap_volume);
    let area = DVec3::new(0.56, 0.008, -0.007);
    assert!((g.normal - q * area.normalize()).length() < 1e-12);
    assert!((g.gap + 0.0056 / area.length()).abs() < 1e-12, "{}", g.gap);
    assert!((q.inverse() * (g.point - pa.position) - DVec3::new(0.495, 0.15, -0.1)).length() < 1e-12);
    let swapped = convex_volume_contact(&cube, &pb, &cube, &pa).unwrap();
    assert!((swapped.overlap_volume - g.overlap_volume).abs() < 1e-15);
    assert!((swapped.normal + g.normal).length() < 1e-12 && (swapped.point - g.point).length() < 1e-12);
    // The L-block is not convex: no volume contact.
    let l = shapes::l_block(0.5).unwrap();
    assert!(convex_volume_contact(&l, &pa, &cube, &pb).is_none());
}

#[test]
fn the_force_does_not_depend_on_the_meshing() {
    // The same unit cube with 12, 108 and 1200 triangles: overlap volume, point, normal
    // and gap of a turned, tilted cube pressed into the plane and into another cube agree
    // to round-off (sums over more triangles: 1e-12 relative).
    let coarse = shapes::cube(1.0).unwrap();
    let q = world();
    let tilt = DQuat::from_rotation_x(0.05) * DQuat::from_rotation_z(0.3);
    let (p0, n) = (DVec3::ZERO, q * DVec3::Z);
    let pose = Pose::new(q * DVec3::new(0.0, 0.0, 0.5), q * tilt);
    let other = Pose::new(pose.position + q * DVec3::new(0.2, 0.1, 0.97), q * DQuat::from_rotation_z(0.4));
    let reference = (
        plane_volume_contact(p0, n, &coarse, &pose).unwrap(),
        convex_volume_contact(&coarse, &pose, &coarse, &other).unwrap(),
    );
    assert!(reference.0.overlap_volume > 1e-3 && reference.1.overlap_volume > 1e-3);
    for k in [3, 10] {
        let fine = subdivided_cube(k);
        assert_eq!(fine.faces().len(), 12 * k * k);
        assert!(fine.is_convex());
        let got = (
            plane_volume_contact(p0, n, &fine, &pose).unwrap(),
            convex_volume_contact(&fine, &pose, &fine, &other).unwrap(),
        );
        for (a, b) in [(reference.0, got.0), (reference.1, got.1)] {
            assert!(
                (a.overlap_volume / b.overlap_volume - 1.0).abs() < 1e-12,
                "{k}: {} vs {}",
                a.overlap_volume,
                b.overlap_volume
            );
            assert!((a.gap / b.gap - 1.0).abs() < 1e-12);
            assert!((a.point - b.point).length() < 1e-12 && (a.normal - b.normal).length() < 1e-12);
        }
    }
}

/// The overlap volume of `b` at `pose_b` against `a` at `pose_a` (0 apart).
fn volume(a: &Polyhedron, pose_a: &Pose, b: &Polyhedron, pose_b: &Pose) -> f64 {
    convex_volume_contact(a, pose_a, b, pose_b).map_or(0.0, |g| g.overlap_volume)
}

/// Compares a contact's wrench per unit pressure on body 2 (the force S = A n̂ at the
/// point, about body 2's centre x₂: (p − x₂) × S plus the twist τ S) with minus the
/// gradient of the overlap volume V(pose of body 2) by central differences, `v` giving V
/// at a pose of body 2. Returns the worst relative difference of the force and the torque.
fn wrench_error(g: &granula_core::ContactGeometry, x2: DVec3, v: impl Fn(DVec3, DQuat) -> f64) -> (f64, f64) {
    let area = g.overlap_volume / -g.gap;
    let s = g.normal * area;
    let torque = (g.point - x2).cross(s) + g.twist_arm * s;
    let size = area.sqrt();
    // Steps of 1e-5 of the contact's size: the truncation error of V, smooth in the pose
    // while no vertex crosses a face, is O(h²) ≈ 1e-10 relative, far below round-off
    // amplified by 1/h (V to 1e-16 relative over h = 1e-5: ≈ 1e-10 too).
    let (h, dq) = (1e-5 * size, 1e-5);
    let mut gradient = DVec3::ZERO;
    let mut turn = DVec3::ZERO;
    for k in 0..3 {
        let e = DVec3::AXES[k];
        gradient[k] = (v(h * e, DQuat::IDENTITY) - v(-h * e, DQuat::IDENTITY)) / (2.0 * h);
        let (plus, minus) = (DQuat::from_scaled_axis(dq * e), DQuat::from_scaled_axis(-dq * e));
        turn[k] = (v(DVec3::ZERO, plus) - v(DVec3::ZERO, minus)) / (2.0 * dq);
    }
    // −∂V/∂x₂ = S and −∂V/∂θ₂ = the torque per unit pressure.
    ((gradient + s).length() / s.length(), (turn + torque).length() / (torque.length() + size * s.length()))
}

#[test]
fn the_pressure_of_an_energy_of_the_volume_is_its_gradient_force_and_torque() {
    // Random 12-point hulls overlapping at random orientations, and a plane cutting
    // random hulls: the contact's area vector and its point and twist arm (a uniform
    // pressure's line of action and couple) are the derivatives of V with respect to body
    // 2's translation and rotation, so that a law F = U'(V) S with this couple is −∇U.
    // Tolerance 1e-6 of the scale: the finite differences are good to about 1e-9, the
    // rest is margin for a difference taken across a vertex event (a kink of V).
    let (mut worst_f, mut worst_t, mut twisted) = (0.0f64, 0.0f64, 0);
    for seed in 0..24u64 {
        let a = shapes::random_convex(12, 1.0, 300 + 2 * seed).unwrap();
        let b = shapes::random_convex(12, 1.0, 301 + 2 * seed).unwrap();
        let axis = DVec3::new(0.3 + seed as f64, 1.0, -0.5).normalize();
        let pose_a = Pose::new(DVec3::ZERO, DQuat::from_axis_angle(axis, 0.3 * seed as f64));
        let x2 = DQuat::from_axis_angle(axis.any_orthonormal_vector(), 0.7 * seed as f64) * DVec3::new(1.2, 0.0, 0.0);
        let q2 = DQuat::from_axis_angle(axis.cross(DVec3::Z).normalize(), 1.1 + seed as f64);
        let Some(g) = convex_volume_contact(&a, &pose_a, &b, &Pose::new(x2, q2)) else { continue };
        // Body 2 turned about its own centre: x ↦ q (x − x₂) + x₂ keeps x₂, q₂ ↦ q q₂.
        let (f, t) = wrench_error(&g, x2, |dx, dq| volume(&a, &pose_a, &b, &Pose::new(x2 + dx, dq * q2)));
        (worst_f, worst_t) = (worst_f.max(f), worst_t.max(t));
        twisted += usize::from(g.twist_arm.abs() > 1e-3);
    }
    assert!(worst_f < 1e-6 && worst_t < 1e-6, "force {worst_f:e}, torque {worst_t:e}");
    // The twist is not a corner case: most random pairs have one.
    assert!(twisted >= 10, "{twisted} pairs with a twist");
    let (mut worst_f, mut worst_t) = (0.0f64, 0.0f64);
    let n = DVec3::new(0.1, -0.2, 1.0).normalize();
    for seed in 0..12u64 {
        let b = shapes::random_convex(12, 1.0, 500 + seed).unwrap();
        let x2 = DVec3::new(0.1, 0.2, 0.4 + 0.04 * seed as f64);
        let q2 = DQuat::from_axis_angle(DVec3::new(1.0, 0.4, seed as f64).normalize(), 0.9 * seed as f64);
        let Some(g) = plane_volume_contact(DVec3::ZERO, n, &b, &Pose::new(x2, q2)) else { continue };
        assert!(g.twist_arm.abs() < 1e-12, "a flat cut has no twist: {}", g.twist_arm);
        let v = |dx: DVec3, dq: DQuat| {
            plane_volume_contact(DVec3::ZERO, n, &b, &Pose::new(x2 + dx, dq * q2)).map_or(0.0, |g| g.overlap_volume)
        };
        let (f, t) = wrench_error(&g, x2, v);
        (worst_f, worst_t) = (worst_f.max(f), worst_t.max(t));
    }
    assert!(worst_f < 1e-6 && worst_t < 1e-6, "plane: force {worst_f:e}, torque {worst_t:e}");
}
