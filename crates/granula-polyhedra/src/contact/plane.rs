//! Plane (body 1) against polyhedron (body 2).

use super::FeatureKey;
use crate::polyhedron::{Polyhedron, Pose};
use granula_core::math::DVec3;
use granula_core::ContactGeometry;

/// Contacts of the plane through `p0` with unit world normal `n` (body 1, the free side
/// where `n` points) and polyhedron `poly` at `pose` (body 2): one point per vertex whose
/// signed distance d = (x − p₀)·n is at most `margin` (a face resting on the plane gives
/// one point per corner), gap d, normal n, point x − (d/2) n, R* the polyhedron's
/// equivalent radius (the plane is flat), key [`FeatureKey::Vertex2`]. O(V), one dot
/// product per vertex. Returns the number of points added.
pub fn plane_polyhedron(
    p0: DVec3,
    n: DVec3,
    poly: &Polyhedron,
    pose: &Pose,
    margin: f64,
    out: &mut Vec<ContactGeometry>,
) -> usize {
    let before = out.len();
    let n_body = pose.orientation.inverse() * n;
    let base = (pose.position - p0).dot(n);
    if base - poly.bounding_radius() > margin {
        return 0;
    }
    for (i, v) in poly.vertices().iter().enumerate() {
        let d = base + n_body.dot(*v);
        if d > margin {
            continue;
        }
        let x = pose.to_world(*v);
        let point = x - n * (0.5 * d);
        out.push(ContactGeometry {
            point,
            normal: n,
            gap: d,
            branch1: point - p0,
            branch2: point - pose.position,
            effective_radius: poly.equivalent_radius(),
            feature: FeatureKey::Vertex2(i as u32).encode(),
            overlap_volume: 0.0,
            twist_arm: 0.0,
        });
    }
    out.len() - before
}
