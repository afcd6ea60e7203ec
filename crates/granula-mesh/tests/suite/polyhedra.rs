//! The contact points of a polyhedron against mesh walls, against their analytic
//! equivalents: a triangulated plane gives the plane's points (`plane_polyhedron`), a
//! ridge and a closed cube give the points of the polyhedron of the same shape
//! (`polyhedron_polyhedron`), a valley the points of its two planes.

use crate::common::random_floor;
use granula_core::{ContactGeometry, DQuat, DVec3};
use granula_mesh::{polyhedron_mesh, PolyhedronMeshKey, TriangleMesh};
use granula_polyhedra::contact::{plane_polyhedron, FeatureKey};
use granula_polyhedra::{shapes, BodyFrame, Polyhedron, Pose};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A uniformly random rotation (a normalised Gaussian-like quaternion from four uniform
/// draws, rejected outside the unit ball so that the direction is uniform).
fn rotation(rng: &mut ChaCha8Rng) -> DQuat {
    loop {
        let q = DQuat::from_xyzw(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        let l = q.length();
        if l > 0.1 && l < 1.0 {
            return q.normalize();
        }
    }
}

/// The contacts of `poly` at `pose` against the mesh wall at the origin (unturned).
fn on_mesh(mesh: &TriangleMesh, poly: &Polyhedron, pose: &Pose, margin: f64) -> Vec<ContactGeometry> {
    let mut out = Vec::new();
    let n = polyhedron_mesh(mesh, DVec3::ZERO, DQuat::IDENTITY, poly, pose, margin, &mut out);
    assert_eq!(n, out.len());
    out
}

/// The polyhedron vertex of a vertex contact of either generator.
fn vertex_of(g: &ContactGeometry) -> Option<u32> {
    match PolyhedronMeshKey::decode(g.feature) {
        Some(PolyhedronMeshKey::Vertex { vertex, .. }) => Some(vertex),
        _ => None,
    }
}

/// Largest differences (point, normal, gap) between two contacts.
fn difference(a: &ContactGeometry, b: &ContactGeometry) -> [f64; 3] {
    [(a.point - b.point).length(), (a.normal - b.normal).length(), (a.gap - b.gap).abs()]
}

#[test]
fn a_polyhedron_on_a_tiled_floor_has_the_contacts_of_the_plane() {
    // 800 triangles of about 0.1 m (vertices moved at random, random diagonals and
    // orientations); a cube of 0.2 m and a random convex polyhedron of 0.12 m each cover a
    // few dozen of them.
    let floor = random_floor(1.0, 20, 7);
    let polys = [shapes::cube(0.2).unwrap(), shapes::random_convex(24, 0.12, 5).unwrap()];
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    // A vertex of the polyhedron over random points, over every vertex of the mesh and over
    // every edge's middle.
    let mut spots: Vec<DVec3> =
        (0..1500).map(|_| DVec3::new(rng.random_range(-0.6..0.6), rng.random_range(-0.6..0.6), 0.0)).collect();
    for t in floor.triangles() {
        for k in 0..3 {
            let (a, b) = (floor.vertices()[t[k] as usize], floor.vertices()[t[(k + 1) % 3] as usize]);
            spots.extend([a, 0.5 * (a + b)]);
        }
    }
    spots.retain(|p| p.x.abs() < 0.65 && p.y.abs() < 0.65);
    let (mut total, mut exact, mut points) = (0, 0, 0);
    for poly in &polys {
        let size = 2.0 * poly.bounding_radius();
        for (k, spot) in spots.iter().enumerate() {
            let q = rotation(&mut rng);
            // Above the floor (side 1) or below it (side -1): the vertex deepest into the floor
            // put over the spot, 0 to 1 % of the size through it; every other placement with a
            // margin of 2 % of the size, so that vertices near the floor count too.
            let side = if k % 2 == 0 { 1.0 } else { -1.0 };
            let margin = if k % 4 < 2 { 0.0 } else { 0.02 * size };
            let deepest = poly.vertices().iter().map(|v| q * *v).min_by(|a, b| (side * a.z).total_cmp(&(side * b.z)));
            let deepest = deepest.unwrap();
            let depth = rng.random_range(0.0..0.01) * size;
            let centre = DVec3::new(spot.x - deepest.x, spot.y - deepest.y, -deepest.z - side * depth);
            let pose = Pose::new(centre, q);
            let mesh = on_mesh(&floor, poly, &pose, margin);
            let mut plane = Vec::new();
            plane_polyhedron(DVec3::ZERO, side * DVec3::Z, poly, &pose, margin, &mut plane);
            assert_eq!(mesh.len(), plane.len(), "at {spot}: {mesh:?}\nplane: {plane:?}");
            for p in &plane {
                let FeatureKey::Vertex2(i) = FeatureKey::decode(p.feature) else { panic!("{p:?}") };
                let m = mesh.iter().find(|g| vertex_of(g) == Some(i)).expect("the same vertex");
                assert_eq!(
                    PolyhedronMeshKey::decode(m.feature),
                    Some(PolyhedronMeshKey::Vertex { vertex: i, region: 0 })
                );
                // The plane's formulas with the triangle's normal and its first corner, in
                // z = 0: the same numbers to the round-off of coordinates of order 1 (bit for
                // bit where the triangle's normal, normalised from its cross product, comes
                // out as (0, 0, ±1) exactly; elsewhere it is an ulp off).
                let [dp, dn, dg] = difference(m, p);
                assert!(dp <= 1e-15 && dn <= 1e-15 && dg <= 1e-15, "{m:?} vs {p:?}");
                assert!((m.branch1 - p.branch1).length() <= 1e-15 && (m.branch2 - p.branch2).length() <= 1e-15);
                assert_eq!(m.effective_radius, poly.equivalent_radius());
                exact += usize::from(ContactGeometry { feature: p.feature, ..*m } == *p);
                points += 1;
            }
            total += 1;
        }
    }
    println!("{total} placements, {points} points, {exact} bit for bit");
    // Every placement has its deepest vertex through the floor, and those with a margin some
    // more within it.
    assert!(points > total, "{points} points over {total} placements");
    assert!(exact * 2 > points, "most points are the plane's to the bit: {exact} of {points}");
}

#[test]
fn a_turned_and_moved_floor_has_the_contacts_of_its_plane() {
    // The same floor placed at x₀ and turned by 25° about an axis in the xy plane: the plane
    // through x₀ with the turned normal. The two compute the same quantities from different
    // points on the plane (a corner of the triangle against x₀), so they agree to the
    // round-off of coordinates of order 1: 1e-14.
    let floor = random_floor(1.0, 20, 7);
    let poly = shapes::random_convex(24, 0.12, 9).unwrap();
    let (x0, turn) = (DVec3::new(0.3, -0.2, 0.5), DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 0.0).normalize(), 0.436));
    let n = turn * DVec3::Z;
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut points = 0;
    for _ in 0..1000 {
        let q = rotation(&mut rng);
        let spot = x0 + turn * DVec3::new(rng.random_range(-0.6..0.6), rng.random_range(-0.6..0.6), 0.0);
        let deepest = poly.vertices().iter().map(|v| q * *v).min_by(|a, b| a.dot(n).total_cmp(&b.dot(n))).unwrap();
        let pose = Pose::new(spot - deepest - n * rng.random_range(0.0..0.002), q);
        let mut mesh = Vec::new();
        polyhedron_mesh(&floor, x0, turn, &poly, &pose, 0.0, &mut mesh);
        let mut plane = Vec::new();
        plane_polyhedron(x0, n, &poly, &pose, 0.0, &mut plane);
        assert_eq!(mesh.len(), plane.len(), "{mesh:?}\n{plane:?}");
        for p in &plane {
            let FeatureKey::Vertex2(i) = FeatureKey::decode(p.feature) else { panic!("{p:?}") };
            let m = mesh.iter().find(|g| vertex_of(g) == Some(i)).expect("the same vertex");
            let [dp, dn, dg] = difference(m, p);
            assert!(dp <= 1e-14 && dn <= 1e-14 && dg <= 1e-14, "{m:?} vs {p:?}");
            // Branch 1 runs from the wall's position, which is the plane's point here.
            assert!((m.branch1 - p.branch1).length() <= 1e-14, "{m:?} vs {p:?}");
            points += 1;
        }
    }
    assert!(points >= 1000, "{points}");
}

#[test]
fn the_pair_memory_of_a_polyhedron_skips_only_calls_that_find_nothing() {
    // A random polyhedron wanders and turns near and far from a turning, drifting random
    // floor of 800 triangles (20 000 small steps, into and out of contact, on both sides):
    // with one memory kept across the calls, every call gives the points of a call without
    // memory, bit for bit, and the memory holds a clearance after calls that found nothing.
    use granula_core::narrowphase::{ContactGenerator, PosedShape};
    use granula_core::{PairMemory, Shape};
    use granula_mesh::{MeshPolyhedron, MeshWall};
    use granula_polyhedra::PolyhedronShape;
    use std::sync::Arc;
    let wall = Shape::Custom(Arc::new(MeshWall::new(random_floor(0.5, 20, 9))));
    // A random hull in its principal axes, as a body's shape is.
    let hull = shapes::random_convex(16, 0.04, 2).unwrap();
    let principal = Polyhedron::from_mesh(hull.vertices().to_vec(), hull.faces().to_vec(), BodyFrame::PrincipalAxes);
    let stone = Shape::Custom(Arc::new(PolyhedronShape::new(Arc::new(principal.unwrap().0)).unwrap()));
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let memory = PairMemory::new();
    let (mut with, mut without) = (Vec::new(), Vec::new());
    let (mut c, mut q) = (DVec3::new(0.1, -0.2, 0.2), DQuat::IDENTITY);
    let (mut touching, mut cleared) = (0, 0);
    for step in 0..20_000 {
        let t = step as f64 * 1e-4;
        let pose = (DVec3::new(0.0, 0.0, 0.05 * (3.0 * t).sin()), DQuat::from_rotation_z(0.7 * t));
        let drift = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        c = (c + 2e-3 * drift - DVec3::new(0.0, 0.0, 2e-4 * (c.z - 0.05).signum()))
            .clamp(DVec3::splat(-0.4), DVec3::splat(0.4));
        q = (DQuat::from_scaled_axis(0.05 * drift) * q).normalize();
        let a = PosedShape { shape: &wall, position: pose.0, orientation: pose.1, index: None };
        let b = PosedShape { shape: &stone, position: c, orientation: q, index: None };
        with.clear();
        without.clear();
        MeshPolyhedron.generate_remembering(a, b, 1e-3, &memory, &mut with).unwrap();
        MeshPolyhedron.generate(a, b, 1e-3, &mut without).unwrap();
        assert_eq!(format!("{with:?}"), format!("{without:?}"), "step {step}");
        touching += !with.is_empty() as usize;
        cleared += (memory.load()[2] != 0) as usize;
    }
    assert!(touching > 100 && touching < 19_000, "{touching} steps in contact");
    assert!(cleared > 1000, "a clearance after {cleared} calls only");
}
