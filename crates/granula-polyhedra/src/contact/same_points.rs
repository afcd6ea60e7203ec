//! The point search against its reference ([`super::reference`], the search as it was
//! before the edge pass read per-vertex codes): the same points, normals, gaps, branch
//! vectors and feature keys, bit for bit, in the same order, over random convex hulls and
//! L-blocks in random poses from apart through touching to deep, and over cubes edge on
//! edge and face on face.

use super::sample::{direction, thin_hull as hull, turn, uniform};
use super::*;
use crate::shapes;
use granula_core::math::DQuat;

/// Every field of every point as bits, in order.
fn bits(points: &[ContactGeometry]) -> Vec<[u64; 15]> {
    points
        .iter()
        .map(|c| {
            let v = |x: DVec3| [x.x.to_bits(), x.y.to_bits(), x.z.to_bits()];
            let [p, n, b1, b2] = [c.point, c.normal, c.branch1, c.branch2].map(v);
            [
                p[0],
                p[1],
                p[2],
                n[0],
                n[1],
                n[2],
                c.gap.to_bits(),
                b1[0],
                b1[1],
                b1[2],
                b2[0],
                b2[1],
                b2[2],
                c.effective_radius.to_bits() ^ c.overlap_volume.to_bits().rotate_left(1),
                u64::from(c.feature),
            ]
        })
        .collect()
}

/// What a comparison met: pairs with vertex points, with edge crossings, without points.
#[derive(Default, Debug)]
struct Seen {
    vertex: usize,
    edge: usize,
    none: usize,
}

/// Compares the search and its reference on one pair, both ways round, on `methods`, at
/// margins 0 (the bench's), 0.02 (incipient contact) and −0.01 (a law that starts inside).
fn compare(a: &Polyhedron, pose_a: &Pose, b: &Polyhedron, pose_b: &Pose, methods: &[Method], seen: &mut Seen) {
    for &method in methods {
        for margin in [0.0, 0.02, -0.01] {
            for (p, pp, q, pq) in [(a, pose_a, b, pose_b), (b, pose_b, a, pose_a)] {
                let (mut new, mut old) = (Vec::new(), Vec::new());
                let n_new = pair_points(method, p, pp, q, pq, margin, &mut new);
                let n_old = reference::pair_points(method, p, pp, q, pq, margin, &mut old);
                assert_eq!(n_new, n_old, "{method:?} at margin {margin}");
                assert_eq!(bits(&new), bits(&old), "{method:?} at margin {margin}");
                let edge = old.iter().any(|c| matches!(FeatureKey::decode(c.feature), FeatureKey::EdgePair(..)));
                let vertex = old
                    .iter()
                    .any(|c| matches!(FeatureKey::decode(c.feature), FeatureKey::Vertex1(_) | FeatureKey::Vertex2(_)));
                seen.edge += usize::from(edge);
                seen.vertex += usize::from(vertex);
                seen.none += usize::from(old.is_empty());
            }
        }
    }
}

/// Body 2's pose: turned by `q`, its centre along the unit direction `u` from body 1's
/// centre at the distance that puts the two bodies' support planes normal to u a gap `g`
/// apart (negative: overlapping by −g along u).
fn placed(a: &Polyhedron, pose_a: &Pose, b: &Polyhedron, q: DQuat, u: DVec3, g: f64) -> Pose {
    let reach = extent(a, pose_a, u) + extent(b, &Pose::new(DVec3::ZERO, q), -u);
    Pose::new(pose_a.position + u * (reach + g), q)
}

#[test]
fn random_hulls_give_the_reference_points() {
    let mut state = 2024u64;
    let mut seen = Seen::default();
    for i in 0..1500 {
        let (a, b) = (hull(&mut state), hull(&mut state));
        let pose_a = Pose::new(DVec3::new(0.3, -1.0, 2.0), turn(&mut state));
        // Gaps from deep (−0.8, most of a body's half-width: the centre often inside the
        // other) through shallow (−0.01) and touching (0) to apart (0.05), weighted toward
        // the shallow overlaps of a packing.
        let g = match i % 4 {
            0 => -0.8 * uniform(&mut state),
            1 => -0.05 * uniform(&mut state),
            2 => 0.05 * uniform(&mut state) - 0.01,
            _ => 0.0,
        };
        let (q, u) = (turn(&mut state), direction(&mut state));
        let pose_b = placed(&a, &pose_a, &b, q, u, g);
        compare(&a, &pose_a, &b, &pose_b, &[Method::Auto, Method::General], &mut seen);
    }
    // The draw must reach both passes and pairs without points (counts at this seed are
    // several thousand each; 500 leaves room for another hull generator).
    assert!(seen.vertex >= 500 && seen.edge >= 500 && seen.none >= 500, "{seen:?}");
}

#[test]
fn l_blocks_give_the_reference_points() {
    let mut state = 77u64;
    let mut seen = Seen::default();
    let l = shapes::l_block(1.0).unwrap();
    for i in 0..400 {
        let other = if i % 2 == 0 { l.clone() } else { hull(&mut state) };
        let pose_a = Pose::new(DVec3::new(-0.5, 0.2, 0.1), turn(&mut state));
        let g = -0.6 * uniform(&mut state) + 0.05;
        let (q, u) = (turn(&mut state), direction(&mut state));
        let pose_b = placed(&l, &pose_a, &other, q, u, g);
        compare(&l, &pose_a, &other, &pose_b, &[Method::Auto, Method::General], &mut seen);
    }
    // Non-convex pairs take the general path under Auto; both kinds of points must occur
    // (hundreds of each at this seed).
    assert!(seen.vertex >= 100 && seen.edge >= 100, "{seen:?}");
}

#[test]
fn cubes_edge_on_edge_and_face_on_face_give_the_reference_points() {
    let cube = shapes::cube(1.0).unwrap();
    let mut state = 5u64;
    let mut seen = Seen::default();
    let tilt = |state: &mut u64, size: f64| DQuat::from_axis_angle(direction(state), size * uniform(state));
    for i in 0..300 {
        let pose_a = Pose::new(DVec3::ZERO, tilt(&mut state, 1e-3));
        let depth = 0.2 * uniform(&mut state) - 0.02;
        let pose_b = if i % 2 == 0 {
            // Edge on edge: each cube turned 45° about a different axis (an edge of each
            // facing the other), crossing at right angles, small random tilts.
            let qa = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4) * tilt(&mut state, 0.05);
            let qb = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4) * tilt(&mut state, 0.05);
            let pose_a = Pose::new(DVec3::ZERO, qa);
            let b = placed(&cube, &pose_a, &cube, qb, DVec3::Z, -depth);
            compare(&cube, &pose_a, &cube, &b, &[Method::Auto, Method::General], &mut seen);
            continue;
        } else {
            // Face on face: the upper cube turned about the vertical by up to 0.8 rad and
            // tilted by up to 4e-3 rad (the corners of the overlap on the side faces), its
            // centre shifted sideways.
            let q = DQuat::from_rotation_z(0.8 * uniform(&mut state)) * tilt(&mut state, 4e-3);
            let shift = DVec3::new(uniform(&mut state) - 0.5, uniform(&mut state) - 0.5, 0.0) * 0.6;
            let b = placed(&cube, &pose_a, &cube, q, DVec3::Z, -depth);
            Pose::new(b.position + shift, q)
        };
        compare(&cube, &pose_a, &cube, &pose_b, &[Method::Auto, Method::General], &mut seen);
    }
    assert!(seen.edge >= 100, "{seen:?}");
}
