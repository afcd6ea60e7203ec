//! Two equal cubes face on face, the upper one turned about the common normal: no vertex of
//! either is inside the other, and the corners of the overlap polygon are crossings of the
//! lower cube's top edges with the upper cube's bottom edges. Every corner must be reported,
//! with the same feature keys from pose to pose, whatever the world frame (round-off puts
//! each crossing point on either side of the other cube's side face).

use glam::{DQuat, DVec2, DVec3};
use granula_core::ContactGeometry;
use granula_polyhedra::contact::{polyhedron_polyhedron_with, FeatureKey, Method};
use granula_polyhedra::{shapes, Pose};

/// Corners of the overlap of the unit square |x|, |y| ≤ ½ with the same square turned by
/// `turn`: the crossings of a side of one (outward normal m, m·p = ½) with a side of the
/// other (u·p = ½), kept where they lie in both squares. Hand geometry: a regular-ish
/// octagon, eight corners for 0 < turn < π/2.
fn octagon(turn: f64) -> Vec<DVec2> {
    let sides = |a: f64| (0..4).map(move |k| DVec2::from_angle(a + k as f64 * std::f64::consts::FRAC_PI_2));
    let inside = |p: DVec2, a: f64| sides(a).all(|u| u.dot(p) <= 0.5 + 1e-12);
    let mut corners = Vec::new();
    for m in sides(0.0) {
        for u in sides(turn) {
            let det = m.perp_dot(u);
            if det.abs() < 1e-9 {
                continue;
            }
            // m·p = ½, u·p = ½ (Cramer).
            let p = DVec2::new(0.5 * (u.y - m.y), 0.5 * (m.x - u.x)) / det;
            if inside(p, 0.0) && inside(p, turn) {
                corners.push(p);
            }
        }
    }
    corners
}

/// A world frame turned away from the axes, so that no coordinate is exact.
fn world() -> DQuat {
    DQuat::from_axis_angle(DVec3::new(0.3, -0.7, 0.64).normalize(), 1.1)
}

/// Contacts of the lower cube (body 1, at the origin) and the upper one turned by `turn`
/// about z and tilted by `tilt` about x, its centre 1 − δ above, all turned by the world
/// frame `q`; also with the bodies swapped.
fn stack(method: Method, turn: f64, tilt: f64, delta: f64, q: DQuat) -> [Vec<ContactGeometry>; 2] {
    let cube = shapes::cube(1.0).unwrap();
    let pa = Pose::new(DVec3::ZERO, q);
    let pb = Pose::new(
        q * DVec3::new(0.0, 0.0, 1.0 - delta),
        q * DQuat::from_rotation_x(tilt) * DQuat::from_rotation_z(turn),
    );
    let (mut ab, mut ba) = (Vec::new(), Vec::new());
    polyhedron_polyhedron_with(method, &cube, &pa, &cube, &pb, 0.0, &mut ab);
    polyhedron_polyhedron_with(method, &cube, &pb, &cube, &pa, 0.0, &mut ba);
    [ab, ba]
}

fn keys(c: &[ContactGeometry]) -> Vec<u32> {
    let mut k: Vec<u32> = c.iter().map(|g| g.feature).collect();
    k.sort_unstable();
    k
}

#[test]
fn turned_cubes_report_every_corner_of_the_octagon() {
    let delta = 1e-3;
    for q in [DQuat::IDENTITY, world()] {
        for method in [Method::General, Method::Convex] {
            for turn in [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7] {
                let corners = octagon(turn);
                assert_eq!(corners.len(), 8, "turn {turn}");
                let [ab, ba] = stack(method, turn, 0.0, delta, q);
                assert_eq!(ab.len(), 8, "{method:?} turn {turn}: {ab:?}");
                for g in &ab {
                    assert!(matches!(FeatureKey::decode(g.feature), FeatureKey::EdgePair(..)));
                    // Gap and normal exact but for the round-off of the turned frame
                    // (coordinates of order 1: 1e-12 is a few thousand ulps).
                    assert!((g.gap + delta).abs() < 1e-12, "gap {}", g.gap);
                    assert!((g.normal - q * DVec3::Z).length() < 1e-12);
                    // The point, back in the lower cube's frame: at mid-depth, on a corner.
                    let p = q.inverse() * g.point;
                    assert!((p.z - (0.5 - 0.5 * delta)).abs() < 1e-12);
                    let near = corners.iter().map(|c| (*c - p.truncate()).length()).fold(f64::INFINITY, f64::min);
                    assert!(near < 1e-12, "turn {turn}: {p:?} is no corner of {corners:?}");
                }
                // Each corner once.
                for c in &corners {
                    assert_eq!(
                        ab.iter().filter(|g| ((q.inverse() * g.point).truncate() - *c).length() < 1e-9).count(),
                        1
                    );
                }
                // Swapped bodies: the same points with the normal reversed.
                assert_eq!(ba.len(), 8);
                for g in &ba {
                    let twin = ab.iter().find(|h| (h.point - g.point).length() < 1e-12).expect("mirrored point");
                    assert!((twin.normal + g.normal).length() < 1e-12 && (twin.gap - g.gap).abs() < 1e-12);
                }
            }
        }
    }
}

#[test]
fn small_tilts_keep_the_eight_corners_and_their_keys() {
    // Tilts up to 4e-3 rad with δ = 3e-3: the upper face stays below the lower one's top
    // all round (the highest corner, 0.71 from the axis, rises 0.71 × 4e-3 = 2.8e-3 < δ),
    // so the overlap polygon is still the octagon.
    let delta = 3e-3;
    for method in [Method::General, Method::Convex] {
        for turn in [0.1, 0.4, 0.7] {
            let level = keys(&stack(method, turn, 0.0, delta, world())[0]);
            assert_eq!(level.len(), 8);
            for tilt in [-4e-3, -1e-3, -1e-6, 1e-6, 1e-3, 4e-3] {
                let [ab, ba] = stack(method, turn, tilt, delta, world());
                assert_eq!(keys(&ab), level, "{method:?} turn {turn} tilt {tilt}");
                assert_eq!(ba.len(), 8, "{method:?} turn {turn} tilt {tilt}, swapped");
                // The depths vary across the tilted face between δ ∓ 0.71 tilt.
                for g in &ab {
                    assert!(g.gap < 0.0 && -g.gap < delta + 0.71 * tilt.abs() + 1e-12, "gap {}", g.gap);
                }
            }
        }
    }
}
