//! Cylindrical wall (body 1) against polyhedron (body 2).

use super::FeatureKey;
use crate::polyhedron::{Polyhedron, Pose};
use granula_core::math::{DQuat, DVec3};
use granula_core::ContactGeometry;
use granula_core::CylinderWall;

/// Contacts of a cylindrical wall with the particles inside it (a drum, a silo; body 1,
/// centre `c0`, orientation `q`) and polyhedron `poly` at `pose` (body 2): one point per
/// vertex x with gap g = R − |ρ| ≤ `margin`, ρ the radial vector of x from the axis, normal
/// −ρ/|ρ| (toward the axis), point x − (g/2)·normal, key [`FeatureKey::Vertex2`], R* the
/// polyhedron's equivalent radius. Exact for any polyhedron: |ρ| is convex, so its maximum
/// over a face or an edge is at a vertex. A finite wall (no caps) takes only vertices with
/// |h| ≤ L/2 along the axis. Returns the number of points added, or `None` for a wall with
/// the particles outside (an obstacle), which this function does not handle: there a face
/// can touch the cylinder with no vertex inside it.
pub fn cylinder_polyhedron(
    c0: DVec3,
    q: DQuat,
    wall: &CylinderWall,
    poly: &Polyhedron,
    pose: &Pose,
    margin: f64,
    out: &mut Vec<ContactGeometry>,
) -> Option<usize> {
    if !wall.inside {
        return None;
    }
    let before = out.len();
    let a = (q * wall.axis).normalize();
    let centre = pose.position - c0;
    let rho_centre = (centre - a * centre.dot(a)).length();
    if wall.radius - rho_centre - poly.bounding_radius() > margin {
        return Some(0);
    }
    for (i, v) in poly.vertices().iter().enumerate() {
        let x = pose.to_world(*v);
        let rel = x - c0;
        let h = rel.dot(a);
        if wall.half_length.is_some_and(|half| h.abs() > half) {
            continue;
        }
        let radial = rel - a * h;
        let rho = radial.length();
        let gap = wall.radius - rho;
        if gap > margin || rho <= 1e-12 * wall.radius {
            continue;
        }
        let normal = -radial / rho;
        let point = x - normal * (0.5 * gap);
        out.push(ContactGeometry {
            point,
            normal,
            gap,
            branch1: point - c0,
            branch2: point - pose.position,
            effective_radius: poly.equivalent_radius(),
            feature: FeatureKey::Vertex2(i as u32).encode(),
            overlap_volume: 0.0,
            twist_arm: 0.0,
        });
    }
    Some(out.len() - before)
}
