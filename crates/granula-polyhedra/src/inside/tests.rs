//! Vertex-in-body by ray parity (003 §4): property tests over random rotations, convex and
//! non-convex, for points on faces, edges and vertices, near them, and on rays that pass
//! exactly through an edge or a vertex. The generalised winding number is the independent
//! oracle.

use super::{classify, classify_counted, nearest_surface, ray_direction, winding_number, PointClass};
use crate::{shapes, Polyhedron, Pose};
use glam::{DQuat, DVec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn bodies() -> Vec<(&'static str, Polyhedron)> {
    vec![
        ("cube", shapes::cube(1.0).unwrap()),
        ("random convex", shapes::random_convex(40, 0.8, 3).unwrap()),
        ("icosahedron", shapes::icosahedron(0.9).unwrap()),
        ("L-block", shapes::l_block(0.6).unwrap()),
    ]
}

fn random_pose(rng: &mut ChaCha8Rng) -> Pose {
    let axis = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
    let q = DQuat::from_axis_angle(axis.normalize(), rng.random_range(0.0..6.3));
    Pose::new(DVec3::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0), 0.3), q)
}

/// The point as the detection sees it: placed in the world by a rotated body, read back.
fn round_trip(pose: &Pose, x: DVec3) -> DVec3 {
    pose.to_body(pose.to_world(x))
}

fn oracle(p: &Polyhedron, x: DVec3) -> PointClass {
    if winding_number(p, x) > 0.5 {
        PointClass::Inside
    } else {
        PointClass::Outside
    }
}

/// Surface samples of one body: (point, outward direction) on faces, edges, vertices.
fn surface_samples(p: &Polyhedron, rng: &mut ChaCha8Rng) -> Vec<(DVec3, DVec3, &'static str)> {
    let mut s = Vec::new();
    for f in 0..p.faces().len() as u32 {
        let [a, b, c] = p.triangle(f);
        let (u, v): (f64, f64) = (rng.random_range(0.05..0.9), rng.random_range(0.05..0.9));
        let (u, v) = if u + v > 1.0 { (1.0 - u, 1.0 - v) } else { (u, v) };
        s.push((a + (b - a) * u + (c - a) * v, p.normals()[f as usize], "face"));
    }
    for e in p.edges() {
        let [a, b] = e.vertices.map(|i| p.vertices()[i as usize]);
        let n = p.normals()[e.faces[0] as usize] + p.normals()[e.faces[1] as usize];
        s.push((a + (b - a) * rng.random_range(0.05..0.95), n.normalize(), "edge"));
    }
    for v in p.vertices() {
        s.push((*v, DVec3::ZERO, "vertex"));
    }
    s
}

#[test]
fn points_on_faces_edges_vertices_are_on_the_surface_and_offsets_are_right() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for (name, p) in bodies() {
        for _ in 0..20 {
            let pose = random_pose(&mut rng);
            for (x, n, kind) in surface_samples(&p, &mut rng) {
                let got = classify(&p, round_trip(&pose, x));
                assert_eq!(got, PointClass::OnSurface, "{name}: {kind} point {x}");
                if n == DVec3::ZERO {
                    continue;
                }
                let d = 1e-6 * p.bounding_radius();
                assert_eq!(classify(&p, round_trip(&pose, x - n * d)), PointClass::Inside, "{name}: below {kind}");
                assert_eq!(classify(&p, round_trip(&pose, x + n * d)), PointClass::Outside, "{name}: above {kind}");
            }
        }
    }
}

#[test]
fn random_points_agree_with_the_winding_number() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    for (name, p) in bodies() {
        let r = p.bounding_radius();
        let mut inside = 0;
        for _ in 0..3000 {
            let pose = random_pose(&mut rng);
            let x = DVec3::new(rng.random_range(-r..r), rng.random_range(-r..r), rng.random_range(-r..r));
            if nearest_surface(&p, x).distance < 1e-7 * r {
                continue;
            }
            let got = classify(&p, round_trip(&pose, x));
            assert_eq!(got, oracle(&p, x), "{name}: {x}");
            inside += (got == PointClass::Inside) as usize;
        }
        assert!(inside > 300, "{name}: {inside} inside");
    }
}

#[test]
fn rays_through_edges_and_vertices_are_cast_again() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let d0 = ray_direction(0);
    for (name, p) in bodies() {
        let r = p.bounding_radius();
        let mut recast = 0;
        let mut total = 0;
        for _ in 0..10 {
            let pose = random_pose(&mut rng);
            for (q, _, kind) in surface_samples(&p, &mut rng) {
                if kind == "face" {
                    continue;
                }
                // The first ray from x passes through the edge or vertex q.
                let x = q - d0 * rng.random_range(0.05..1.5) * r;
                if nearest_surface(&p, x).distance < 1e-7 * r {
                    continue;
                }
                let (class, rays) = classify_counted(&p, round_trip(&pose, x));
                assert_eq!(class, oracle(&p, x), "{name}: ray through {kind} {q}");
                let b = p.local_aabb();
                if x.cmpge(b.min).all() && x.cmple(b.max).all() {
                    total += 1;
                    recast += (rays > 1) as usize;
                }
            }
        }
        // Points outside the bounding box are decided without a ray; the others are recast
        // (unless round-off put the first ray clear of the edge by more than the tolerance).
        assert!(recast * 10 > total * 9, "{name}: {recast} of {total} recast");
    }
}
