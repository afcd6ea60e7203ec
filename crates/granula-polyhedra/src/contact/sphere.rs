//! Polyhedron (body 1) against sphere (body 2).

use super::FeatureKey;
use crate::bvh::box_dist2;
use crate::inside::{classify, nearest_surface, PointClass};
use crate::polyhedron::{Polyhedron, Pose};
use granula_core::math::DVec3;
use granula_core::ContactGeometry;

/// Contact of polyhedron `poly` at `pose` (body 1) with the sphere of `radius` centred at
/// `center` (body 2), if the gap is at most `margin`. The nearest point q of the surface to
/// the centre c (exact, over the face hierarchy) gives the normal, along c − q when c is
/// outside, along q − c when c is inside (ray parity decides, 003 §4), and the gap
/// ±|c − q| − r. Point: the middle of q and the sphere's surface point c − r n. R* = r
/// (a face is flat; at a vertex or an edge this overestimates the curvature radius).
/// One point (key [`FeatureKey::Single`]): a sphere in a notch of a non-convex body
/// touching two faces reports the nearer one. Returns the number of points added (0 or 1).
pub fn polyhedron_sphere(
    poly: &Polyhedron,
    pose: &Pose,
    center: DVec3,
    radius: f64,
    margin: f64,
    out: &mut Vec<ContactGeometry>,
) -> usize {
    match sphere_contact(poly, pose, center, radius, margin) {
        Some(g) => {
            out.push(g);
            1
        }
        None => 0,
    }
}

/// The contact of [`polyhedron_sphere`] itself, if any.
pub fn sphere_contact(
    poly: &Polyhedron,
    pose: &Pose,
    center: DVec3,
    radius: f64,
    margin: f64,
) -> Option<ContactGeometry> {
    let c = pose.to_body(center);
    let reach = (radius + margin).max(0.0);
    if box_dist2(&poly.local_aabb(), c) > reach * reach {
        return None;
    }
    let s = nearest_surface(poly, c);
    if s.distance - radius > margin {
        return None;
    }
    let face_normal = poly.normals()[s.face as usize];
    let tiny = 1e-12 * poly.bounding_radius();
    let (dir, signed) = if s.distance <= tiny {
        (face_normal, 0.0)
    } else {
        match classify(poly, c) {
            PointClass::Inside => ((s.point - c) / s.distance, -s.distance),
            PointClass::OnSurface => (face_normal, 0.0),
            PointClass::Outside => ((c - s.point) / s.distance, s.distance),
        }
    };
    // Inside a face, the face normal itself, free of the round-off of a difference.
    let dir = if dir.dot(face_normal) > 1.0 - 1e-9 { face_normal } else { dir };
    let gap = signed - radius;
    if gap > margin {
        return None;
    }
    let n = pose.orientation * dir;
    let q = pose.to_world(s.point);
    let point = 0.5 * (q + center - n * radius);
    Some(ContactGeometry {
        point,
        normal: n,
        gap,
        branch1: point - pose.position,
        branch2: point - center,
        effective_radius: radius,
        feature: FeatureKey::Single.encode(),
        overlap_volume: 0.0,
        twist_arm: 0.0,
    })
}
