//! Vertex contacts: each vertex of one body tested against the other (003 §4).

use super::super::{geometry, FeatureKey, Relative};
use crate::bvh::box_dist2;
use crate::inside::{classify, nearest_surface, PointClass};
use crate::polyhedron::{Polyhedron, Pose};
use granula_core::math::DVec3;
use granula_core::ContactGeometry;

/// The two bodies of a pair and the detection settings.
pub(crate) struct Pair<'a> {
    pub a: &'a Polyhedron,
    pub pose_a: &'a Pose,
    pub b: &'a Polyhedron,
    pub pose_b: &'a Pose,
    pub margin: f64,
    pub convex: bool,
    pub r: f64,
    /// a's vertices in b's frame, and b's in a's: shared by the vertex and edge passes.
    pub a_in_b: &'a [DVec3],
    pub b_in_a: &'a [DVec3],
    pub rel_ab: Relative,
    pub rel_ba: Relative,
    /// The face plane of a that faces b, and that of b that faces a (convex path).
    pub facing: [usize; 2],
}

/// Signed distance of `p` (body frame of `poly`) to the surface and the outward normal
/// there, if `p` is within `margin` of the body or inside it. Negative inside.
///
/// Convex: the largest signed distance to a face plane, exact inside (the depth to the
/// nearest face) and a lower bound of the distance outside. General: ray parity for the
/// sign, the nearest point of the surface for the distance and the normal (the unit
/// vector from the point to it, outward).
/// `first` is the plane the convex test tries first (the one facing the other body, where
/// a far vertex is most likely beyond: the early exit then comes after one plane).
pub(crate) fn signed_distance(
    poly: &Polyhedron,
    p: DVec3,
    margin: f64,
    convex: bool,
    first: usize,
) -> Option<(f64, DVec3)> {
    let m = margin.max(0.0);
    if box_dist2(&poly.local_aabb(), p) > m * m {
        return None;
    }
    if convex {
        return convex_distance(poly, p, margin, first).ok();
    }
    let class = classify(poly, p);
    if class == PointClass::Outside && margin <= 0.0 {
        return None;
    }
    let s = nearest_surface(poly, p);
    let gap = match class {
        PointClass::Inside => -s.distance,
        PointClass::OnSurface => 0.0,
        PointClass::Outside if s.distance <= margin => s.distance,
        PointClass::Outside => return None,
    };
    // The direction to the nearest surface point: the face normal when that point is inside
    // a face, the bisecting direction when it is on an edge or a vertex (a point in the
    // wedge of a reflex edge of a non-convex body is pushed out diagonally).
    let face_normal = poly.normals()[s.face as usize];
    let normal = if class == PointClass::OnSurface || s.distance <= 1e-12 * poly.bounding_radius() {
        face_normal
    } else {
        let dir = if class == PointClass::Inside { s.point - p } else { p - s.point } / s.distance;
        // Inside a face, the face normal itself, free of the round-off of a short difference.
        if dir.dot(face_normal) > 1.0 - 1e-9 {
            face_normal
        } else {
            dir
        }
    };
    Some((gap, normal))
}

/// Marks a vertex that no single plane was found to reject (see [`convex_distance`]).
pub(crate) const NO_PLANE: u32 = u32::MAX;

/// The convex branch of [`signed_distance`]: the largest signed distance to a face plane
/// and that plane's normal, or `Err(k)` when `p` is beyond plane k by more than `margin`
/// (`Err(NO_PLANE)` when it is out of the body's box by more than the margin). The plane
/// that rejects a vertex lets the edge pass drop every edge with both ends beyond it.
pub(crate) fn convex_distance(poly: &Polyhedron, p: DVec3, margin: f64, first: usize) -> Result<(f64, DVec3), u32> {
    let planes = poly.planes();
    let (n0, d0) = planes[first];
    if n0.dot(p) - d0 > margin {
        return Err(first as u32);
    }
    let m = margin.max(0.0);
    if box_dist2(&poly.local_aabb(), p) > m * m {
        return Err(NO_PLANE);
    }
    let (mut best, mut normal) = (f64::NEG_INFINITY, DVec3::Z);
    for (k, &(n, d)) in planes.iter().enumerate() {
        let s = n.dot(p) - d;
        if s > best {
            (best, normal) = (s, n);
            if best > margin {
                return Err(k as u32);
            }
        }
    }
    Ok((best, normal))
}

impl Pair<'_> {
    /// Vertices of a in b, then vertices of b in a. Fills, for each body, the depth of
    /// each of its vertices inside (or on) the other one, `None` for those outside, and
    /// (convex path) the plane of the other body that rejected it, [`NO_PLANE`] if none.
    pub fn vertices(
        &self,
        depth: &mut [Vec<Option<f64>>; 2],
        beyond: &mut [Vec<u32>; 2],
        out: &mut Vec<ContactGeometry>,
    ) {
        let ([da, db], [ba, bb]) = (depth, beyond);
        self.pass(self.a, self.pose_a, self.a_in_b, self.b, self.pose_b, (true, self.facing[1]), (da, ba), out);
        self.pass(self.b, self.pose_b, self.b_in_a, self.a, self.pose_a, (false, self.facing[0]), (db, bb), out);
    }

    /// Vertices of `src` (already mapped into `dst`'s frame as `mapped`) against `dst`.
    fn pass(
        &self,
        src: &Polyhedron,
        src_pose: &Pose,
        mapped: &[DVec3],
        dst: &Polyhedron,
        dst_pose: &Pose,
        (src_is_1, first_plane): (bool, usize),
        (inside, beyond): (&mut Vec<Option<f64>>, &mut Vec<u32>),
        out: &mut Vec<ContactGeometry>,
    ) {
        inside.clear();
        inside.resize(mapped.len(), None);
        beyond.clear();
        beyond.resize(mapped.len(), NO_PLANE);
        for (i, p) in mapped.iter().enumerate() {
            let found = if self.convex {
                convex_distance(dst, *p, self.margin, first_plane).map_err(|k| beyond[i] = k).ok()
            } else {
                signed_distance(dst, *p, self.margin, false, first_plane)
            };
            let Some((gap, n_body)) = found else {
                continue;
            };
            inside[i] = (gap <= 0.0).then_some(-gap);
            // Outward normal of dst at the nearest face, world frame.
            let n = dst_pose.orientation * n_body;
            let w = src_pose.to_world(src.vertices()[i]);
            let point = w - n * (0.5 * gap);
            let (normal, key) =
                if src_is_1 { (-n, FeatureKey::Vertex1(i as u32)) } else { (n, FeatureKey::Vertex2(i as u32)) };
            out.push(geometry(point, normal, gap, self.pose_a, self.pose_b, self.r, key));
        }
    }
}
