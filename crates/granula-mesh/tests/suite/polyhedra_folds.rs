//! A cube against the sharp folds of a mesh: on a ridge it gets the points of the wedge
//! polyhedron of the same shape, against a closed cube of twelve triangles the points of
//! the cube–cube polyhedron pair, and in a valley the points of the valley's two planes,
//! at random placements pressed to 1 % of the cube's size.

use crate::common::fold;
use granula_core::{ContactGeometry, DQuat, DVec3};
use granula_mesh::{polyhedron_mesh, MeshOptions, PolyhedronMeshKey, TriangleMesh};
use granula_polyhedra::contact::{plane_polyhedron, polyhedron_polyhedron, FeatureKey};
use granula_polyhedra::{convex_hull, shapes, BodyFrame, Polyhedron, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A uniformly random rotation.
fn rotation(rng: &mut ChaCha8Rng) -> DQuat {
    loop {
        let v = [0; 4].map(|_| rng.random_range(-1.0..1.0));
        let q = DQuat::from_xyzw(v[0], v[1], v[2], v[3]);
        if q.length() > 0.1 && q.length() < 1.0 {
            return q.normalize();
        }
    }
}

/// The polyhedron of the convex hull of `points` and the pose that puts it where the points
/// are (its body frame is at its centre of mass).
fn hull(points: &[DVec3]) -> (Polyhedron, Pose) {
    let (v, f) = convex_hull(points).unwrap();
    let (p, place) = Polyhedron::from_mesh(v, f, BodyFrame::CentreOfMass).unwrap();
    (p, Pose::new(place.offset, place.rotation))
}

/// The deepest overlap of a list of contacts (0 without one).
fn deepest(points: &[ContactGeometry]) -> f64 {
    points.iter().fold(0.0, |m, g| m.max(-g.gap))
}

/// The pose along `at(λ)` (λ from 0, apart, to 1, overlapping) where the bodies have come
/// `press` (m) closer than where they first touch by the reference contacts (found by
/// bisection). Pressing by a distance, not to a depth, keeps the placements off the
/// depths at which a contact switches on (a bisection on the depth would home in on them).
fn pressed(at: impl Fn(f64) -> Pose, reference: impl Fn(&Pose) -> Vec<ContactGeometry>, press: f64) -> Pose {
    let (mut lo, mut hi) = (0.0, 1.0);
    assert!(deepest(&reference(&at(lo))) == 0.0 && deepest(&reference(&at(hi))) > 0.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if deepest(&reference(&at(mid))) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let speed = (at(1.0).position - at(0.0).position).length();
    at(hi + press / speed)
}

/// What a contact stands for, with the mesh's own ids dropped: a vertex of the cube, an
/// edge of the cube crossing an edge of the wall, a vertex of the wall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Vertex(u32),
    Crossing(u32),
    WallVertex,
}

fn mesh_kind(g: &ContactGeometry) -> Kind {
    match PolyhedronMeshKey::decode(g.feature).unwrap() {
        PolyhedronMeshKey::Vertex { vertex, .. } => Kind::Vertex(vertex),
        PolyhedronMeshKey::Crossing { edge, .. } => Kind::Crossing(edge),
        PolyhedronMeshKey::Corner(_) => Kind::WallVertex,
    }
}

fn pair_kind(g: &ContactGeometry) -> Kind {
    match FeatureKey::decode(g.feature) {
        FeatureKey::Vertex2(v) => Kind::Vertex(v),
        FeatureKey::EdgePair(_, e) => Kind::Crossing(e),
        FeatureKey::Vertex1(_) => Kind::WallVertex,
        FeatureKey::Single => panic!("a deep overlap: {g:?}"),
    }
}

/// Largest differences of the matched points (point, normal, gap), for each kind (vertex,
/// crossing, wall vertex); panics unless each reference point has a mesh point of the same
/// kind with the nearest normal and point, and the counts agree.
fn compare(
    mesh: &[ContactGeometry],
    reference: &[ContactGeometry],
    kind: fn(&ContactGeometry) -> Kind,
) -> [[f64; 3]; 3] {
    assert_eq!(mesh.len(), reference.len(), "mesh {mesh:#?}\nreference {reference:#?}");
    let mut worst = [[0.0f64; 3]; 3];
    for r in reference {
        let k = kind(r);
        let dist = |g: &ContactGeometry| (g.normal - r.normal).length() + (g.point - r.point).length();
        let m = mesh.iter().filter(|g| mesh_kind(g) == k).min_by(|a, b| dist(a).total_cmp(&dist(b)));
        let m = m.unwrap_or_else(|| panic!("no mesh point for {r:?} among {mesh:#?}"));
        let slot = match k {
            Kind::Vertex(_) => 0,
            Kind::Crossing(_) => 1,
            Kind::WallVertex => 2,
        };
        let d = [(m.point - r.point).length(), (m.normal - r.normal).length(), (m.gap - r.gap).abs()];
        for i in 0..3 {
            worst[slot][i] = worst[slot][i].max(d[i]);
        }
    }
    worst
}

/// Asserts the differences of [`compare`]: vertex and wall-vertex points to the round-off of
/// coordinates of order 1 (1e-13: the two compute in different frames); crossings' points
/// and normals likewise. A crossing's depth is clipped where a crossing point is not deep
/// inside the other body, by a rule that adds a tolerance of 1e-9 times the bodies' sizes
/// to that point's depth: the polyhedron pair takes the sum of the two bounding radii
/// (`radii`), the mesh the polyhedron's radius and the edge's length, and the face-on-face
/// form of the rule multiplies the tolerance by 1/0.1: the gaps agree to 10 × 1e-9 × `radii`.
fn assert_close(worst: [[f64; 3]; 3], radii: f64) {
    let [v, c, w] = worst;
    assert!(v.iter().chain(&w).all(|&x| x <= 1e-13), "{worst:?}");
    assert!(c[0] <= 1e-13 && c[1] <= 1e-13 && c[2] <= 1e-8 * radii, "{worst:?}");
}

#[test]
fn a_cube_on_a_ridge_has_the_contacts_of_the_wedge() {
    // A 60° ridge (two faces at 30° to the horizontal) of 4 x 4 triangle pairs a side, so
    // that the ridge line is split at inner vertices; the wedge polyhedron under it reaches
    // down to z = -tan 30°.
    let slope = 30f64.to_radians();
    let ridge = fold(-slope, 4, &MeshOptions::default());
    let t = slope.tan();
    let corners: Vec<DVec3> = [-1.0, 1.0]
        .iter()
        .flat_map(|&y| [(-1.0, -t), (0.0, 0.0), (1.0, -t)].map(|(x, z)| DVec3::new(x, y, z)))
        .collect();
    let (wedge, at) = hull(&corners);
    let cube = shapes::cube(0.2).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut kinds = [0usize; 3];
    let mut worst = [[0.0f64; 3]; 3];
    for _ in 0..400 {
        let q = rotation(&mut rng);
        let top = DVec3::new(rng.random_range(-0.15..0.15), rng.random_range(-0.5..0.5), 0.0);
        let reach = cube.bounding_radius();
        let pose_at = |l: f64| Pose::new(top + DVec3::new(0.0, 0.0, reach * (1.0 - 1.2 * l)), q);
        let reference = |p: &Pose| {
            let mut out = Vec::new();
            polyhedron_polyhedron(&wedge, &at, &cube, p, 0.0, &mut out);
            out
        };
        let pose = pressed(pose_at, reference, rng.random_range(0.001..0.01) * 0.2);
        let mut mesh = Vec::new();
        polyhedron_mesh(&ridge, DVec3::ZERO, DQuat::IDENTITY, &cube, &pose, 0.0, &mut mesh);
        let w = compare(&mesh, &reference(&pose), pair_kind);
        for (k, row) in w.iter().enumerate() {
            for i in 0..3 {
                worst[k][i] = worst[k][i].max(row[i]);
            }
        }
        for g in &mesh {
            kinds[match mesh_kind(g) {
                Kind::Vertex(_) => 0,
                Kind::Crossing(_) => 1,
                Kind::WallVertex => 2,
            }] += 1;
        }
    }
    println!("ridge: {kinds:?} vertex, crossing and wall-vertex points; worst differences {worst:?}");
    assert_close(worst, wedge.bounding_radius() + cube.bounding_radius());
    // The ridge's inner vertices are no corners: a ridge has vertex and crossing points only.
    assert!(kinds[0] > 100 && kinds[1] > 100 && kinds[2] == 0, "{kinds:?}");
}

/// The closed cube [−1, 1]³ as twelve triangles.
fn closed_cube() -> TriangleMesh {
    let v: Vec<DVec3> = (0..8).map(|i| DVec3::new(f(i & 1), f(i >> 1 & 1), f(i >> 2 & 1))).collect();
    fn f(b: usize) -> f64 {
        if b == 1 {
            1.0
        } else {
            -1.0
        }
    }
    let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
    let triangles = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
    TriangleMesh::new(v, triangles, &MeshOptions::default()).unwrap()
}

#[test]
fn a_cube_against_a_closed_cube_mesh_has_the_contacts_of_the_cube_pair() {
    let mesh = closed_cube();
    assert_eq!(mesh.region_count(), 6);
    let big = shapes::cube(2.0).unwrap();
    let at = Pose::new(DVec3::ZERO, DQuat::IDENTITY);
    let cube = shapes::cube(0.3).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let mut kinds = [0usize; 3];
    let mut worst = [[0.0f64; 3]; 3];
    for k in 0..600 {
        // A point of the surface on a face, an edge or at a corner (snapped coordinates), and
        // the cube coming at it from outside, along the outward direction there tilted at random.
        let snapped = 1 + k % 3;
        let mut s = DVec3::new(rng.random_range(-0.9..0.9), rng.random_range(-0.9..0.9), rng.random_range(-0.9..0.9));
        let mut out = DVec3::ZERO;
        for axis in 0..snapped {
            let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            s[axis] = sign;
            out[axis] = sign;
        }
        let tilt = DVec3::new(rng.random_range(-0.3..0.3), rng.random_range(-0.3..0.3), rng.random_range(-0.3..0.3));
        let dir = (out.normalize() + tilt).normalize();
        let q = rotation(&mut rng);
        let reach = cube.bounding_radius();
        let pose_at = |l: f64| Pose::new(s + dir * (1.6 * reach * (1.0 - l) - 0.2 * reach * l), q);
        let reference = |p: &Pose| {
            let mut out = Vec::new();
            polyhedron_polyhedron(&big, &at, &cube, p, 0.0, &mut out);
            out
        };
        let pose = pressed(pose_at, reference, rng.random_range(0.001..0.01) * 0.3);
        let mut points = Vec::new();
        polyhedron_mesh(&mesh, DVec3::ZERO, DQuat::IDENTITY, &cube, &pose, 0.0, &mut points);
        let w = compare(&points, &reference(&pose), pair_kind);
        for (k, row) in w.iter().enumerate() {
            for i in 0..3 {
                worst[k][i] = worst[k][i].max(row[i]);
            }
        }
        for g in &points {
            kinds[match mesh_kind(g) {
                Kind::Vertex(_) => 0,
                Kind::Crossing(_) => 1,
                Kind::WallVertex => 2,
            }] += 1;
        }
    }
    println!("closed cube: {kinds:?} vertex, crossing and corner points; worst differences {worst:?}");
    assert_close(worst, big.bounding_radius() + cube.bounding_radius());
    assert!(kinds.iter().all(|&n| n > 50), "every kind met: {kinds:?}");
}

#[test]
fn a_cube_in_a_valley_has_the_contacts_of_its_two_planes() {
    // A 90° valley (faces at 45°), 4 x 4 triangle pairs a side. The two planes: through the
    // fold, normals (∓sin 45°, 0, cos 45°) towards the open side.
    let slope = 45f64.to_radians();
    let valley = fold(slope, 4, &MeshOptions::default());
    let planes = [DVec3::new(slope.sin(), 0.0, slope.cos()), DVec3::new(-slope.sin(), 0.0, slope.cos())];
    let two_planes = |p: &Pose, poly: &Polyhedron| {
        let mut out = Vec::new();
        for n in planes {
            plane_polyhedron(DVec3::ZERO, n, poly, p, 0.0, &mut out);
        }
        out
    };
    let polys = [shapes::cube(0.2).unwrap(), shapes::random_convex(24, 0.12, 3).unwrap()];
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let (mut worst, mut both) = (0.0f64, 0);
    for k in 0..600 {
        let poly = &polys[k % 2];
        // Every other cube edge down in the groove, its faces near the slopes: its bottom
        // vertices go past the fold, below both faces.
        let groove = k % 4 == 0;
        let q = if groove {
            let tilt =
                DVec3::new(rng.random_range(-0.01..0.01), rng.random_range(-0.01..0.01), rng.random_range(-0.01..0.01));
            DQuat::from_scaled_axis(tilt) * DQuat::from_rotation_y(slope)
        } else {
            rotation(&mut rng)
        };
        let x = if groove { rng.random_range(-2e-4..2e-4) } else { rng.random_range(-0.2..0.2) };
        let low = DVec3::new(x, rng.random_range(-0.5..0.5), 0.3);
        let pose_at = |l: f64| Pose::new(low + DVec3::new(0.0, 0.0, 0.5 * (1.0 - 2.0 * l)), q);
        let reference = |p: &Pose| two_planes(p, poly);
        let pose = pressed(pose_at, reference, rng.random_range(0.001..0.01) * 0.2);
        let mut mesh = Vec::new();
        polyhedron_mesh(&valley, DVec3::ZERO, DQuat::IDENTITY, poly, &pose, 0.0, &mut mesh);
        let r = reference(&pose);
        // No crossing and no wall vertex in a valley: vertex points only, those of the planes
        // (the planes' keys are vertex keys, Vertex2).
        let w = compare(&mesh, &r, pair_kind);
        assert!(w[1] == [0.0; 3] && w[2] == [0.0; 3]);
        worst = worst.max(w[0].iter().copied().fold(0.0, f64::max));
        // Vertices below both planes (past the fold) get a point from each.
        let mut seen = Vec::new();
        for g in &mesh {
            let v = mesh_kind(g);
            both += usize::from(seen.contains(&v));
            seen.push(v);
        }
    }
    println!("valley: worst difference {worst:e}, {both} vertices under both faces");
    assert!(worst <= 1e-13, "{worst}");
    assert!(both > 20, "{both}");
}
