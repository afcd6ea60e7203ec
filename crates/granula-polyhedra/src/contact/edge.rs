//! Edge–edge contacts: two sharp edges that cross each other inside both bodies.
//!
//! Two boxes crossing edge on edge have no vertex inside the other body, so the vertex
//! test alone lets them pass through each other. An edge e₁ of body 1 and an edge e₂ of
//! body 2 make a contact when:
//! 1. each crosses the other body's surface (segment against the face hierarchy, or
//!    clipped by the face planes for convex bodies), not with both ends inside (the vertex
//!    contacts carry such an edge);
//! 2. the points of closest approach of the two lines lie strictly inside both segments;
//! 3. the point on e₁ is inside body 2 and the point on e₂ inside body 1 (on the surface
//!    within 1e-9 × the radii). Where a face of each edge lies within 0.1 rad of the
//!    crossing's plane (face on face), outside by no more than the crossing's depth: the
//!    corners of two faces lying on each other are on the other body's side faces, where
//!    round-off picks the side, and a small tilt moves them out by the depth times the tilt;
//! 4. the normal e₁ × e₂, turned out of body 1 (along the mean of e₁'s face normals),
//!    points into body 2 at e₂ (against the mean of e₂'s face normals), so that swapping
//!    the bodies gives the same decision;
//! 5. if an end of e₁ or e₂ is inside the other body, the crossing is no deeper than the
//!    deepest such end: the corners of a face-on-face overlap pass, a crossing next to a
//!    penetrating vertex whose normal is almost tangent to the true contact (and deeper
//!    than the approach) does not;
//! 6. for non-convex bodies, the segment between the two points crosses neither surface
//!    (it lies in the intersection, as it always does for convex bodies).
//!
//! The gap is the distance of the two points along the normal (negative: crossed), the
//! point their middle. Edges between coplanar triangles (diagonals of a split polygon) are
//! skipped, and so are parallel edges (their contact is carried by vertices).

use super::vertex::{signed_distance, Pair, NO_PLANE};
use super::{geometry, FeatureKey};
use crate::bvh::ray_hits_box;
use crate::inside::{classify, closest_on_triangle, nearest_surface, PointClass, EDGE_TOLERANCE};
use crate::polyhedron::Polyhedron;
use granula_core::math::DVec3;
use granula_core::shape::Aabb;
use granula_core::ContactGeometry;

/// cos of the largest angle (0.1 rad) between the crossing's normal and a face of each
/// edge for which the two faces count as lying on each other (rule 3's tolerance).
const FACE_ON_FACE_COS: f64 = 0.995_004_165_278_025_8;

/// An edge that meets the other body's surface: its index, its ends in the other body's
/// frame and the depth of its deeper end inside the other body (`None`: both outside).
pub(crate) type MeetingEdge = (u32, DVec3, DVec3, Option<f64>);

/// Edge contacts of the pair, appended to `out`. `vertex_depth[k]` holds the depth of each
/// vertex of body k+1 inside the other body (`None`: outside), from the vertex pass;
/// `edges` is scratch space.
pub(crate) fn edge_contacts(
    pair: &Pair,
    vertex_depth: &[Vec<Option<f64>>; 2],
    beyond: &[Vec<u32>; 2],
    edges: &mut [Vec<MeetingEdge>; 2],
    out: &mut Vec<ContactGeometry>,
) {
    let [edges_a, edges_b] = edges;
    let (ends_a, ends_b) = ((&vertex_depth[0][..], &beyond[0][..]), (&vertex_depth[1][..], &beyond[1][..]));
    meeting_edges(pair.a, pair.a_in_b, ends_a, pair.b, (pair.convex, pair.facing[1]), edges_a);
    if edges_a.is_empty() {
        return;
    }
    meeting_edges(pair.b, pair.b_in_a, ends_b, pair.a, (pair.convex, pair.facing[0]), edges_b);
    // Everything below is in body 2's frame.
    let tol = 1e-9 * (pair.a.bounding_radius() + pair.b.bounding_radius());
    for &(ea, p0, p1, inner_a) in edges_a.iter() {
        let e = pair.a.edges()[ea as usize];
        let outward_a =
            pair.rel_ab.rot * (pair.a.normals()[e.faces[0] as usize] + pair.a.normals()[e.faces[1] as usize]);
        for &(eb, _, _, inner_b) in edges_b.iter() {
            let f = pair.b.edges()[eb as usize];
            let [q0, q1] = f.vertices.map(|i| pair.b.vertices()[i as usize]);
            let Some((pa, pb)) = crossing_points(p0, p1, q0, q1) else {
                continue;
            };
            let mut n = (p1 - p0).cross(q1 - q0).normalize();
            if n.dot(outward_a) < 0.0 {
                n = -n;
            }
            // Both edges must face each other along n, so that the decision is the same
            // with the bodies swapped.
            let outward_b = pair.b.normals()[f.faces[0] as usize] + pair.b.normals()[f.faces[1] as usize];
            let gap = (pb - pa).dot(n);
            if gap >= 0.0 || n.dot(outward_b) >= 0.0 {
                continue;
            }
            // An edge with an end inside the other body: no deeper than that end.
            let limit = match (inner_a, inner_b) {
                (None, None) => f64::INFINITY,
                (a, b) => a.unwrap_or(0.0).max(b.unwrap_or(0.0)) + tol,
            };
            if -gap > limit {
                continue;
            }
            // Rule 3. Where a face of each edge lies almost flat on the other (a face-on-face
            // overlap), each point is on the other body's side face (exactly, for parallel
            // faces, and round-off picks the side) or, for faces a little tilted, outside it
            // by at most the depth times the tilt: there the crossing's depth is the
            // tolerance. Elsewhere the points must be inside (on the surface within `tol`).
            let flat = |normals: &[DVec3], faces: [u32; 2], dir: DVec3| {
                faces.iter().any(|&f| normals[f as usize].dot(dir) >= FACE_ON_FACE_COS)
            };
            let face_on_face =
                flat(pair.a.normals(), e.faces, pair.rel_ba.rot * n) && flat(pair.b.normals(), f.faces, -n);
            let reach = if face_on_face { -gap + tol } else { tol };
            if !within(pair.b, pa, pair.convex, reach, tol)
                || !within(pair.a, pair.rel_ba.apply(pb), pair.convex, reach, tol)
            {
                continue;
            }
            if !pair.convex && !within_both(pair, pa, pb) {
                continue;
            }
            let point = pair.pose_b.to_world(0.5 * (pa + pb));
            let normal = pair.pose_b.orientation * n;
            out.push(geometry(point, normal, gap, pair.pose_a, pair.pose_b, pair.r, FeatureKey::EdgePair(ea, eb)));
        }
    }
}

/// Does the segment between the two crossing points (body 2's frame) stay inside both
/// bodies? Always so for convex bodies (both points lie in the convex intersection); for
/// non-convex ones it rejects pairs of edges far apart whose closest points happen to lie
/// in the other body, across a notch. Only proper crossings count: the two points are on
/// the surfaces, and the segment may run along a face.
fn within_both(pair: &Pair, pa: DVec3, pb: DVec3) -> bool {
    !passes_through_a_face(pair.b, pa, pb)
        && !passes_through_a_face(pair.a, pair.rel_ba.apply(pa), pair.rel_ba.apply(pb))
}

/// Does segment s₀s₁ cross a face of the body properly: its ends strictly on both sides
/// of the face's plane (by more than 1e-9 × the radius), the crossing inside the face?
fn passes_through_a_face(poly: &Polyhedron, s0: DVec3, s1: DVec3) -> bool {
    let eps = 1e-9 * poly.bounding_radius();
    let seg = Aabb { min: s0.min(s1), max: s0.max(s1) };
    let mut hit = false;
    poly.bvh().visit(
        |b| b.overlaps(&seg),
        |f| {
            let [a, b, c] = poly.triangle(f);
            let n = poly.normals()[f as usize];
            let (d0, d1) = (n.dot(s0 - a), n.dot(s1 - a));
            if (d0 > eps && d1 < -eps) || (d0 < -eps && d1 > eps) {
                let x = s0 + (s1 - s0) * (d0 / (d0 - d1));
                hit = (closest_on_triangle(x, [a, b, c]) - x).length() <= eps;
            }
            !hit
        },
    );
    hit
}

/// Is `p` (the body's frame) inside the body or at most `reach` outside it (`tol`: the
/// surface's thickness)? Inside and on the surface by the face planes (convex) or ray
/// parity (general); outside, when `reach` exceeds `tol`, by the exact distance to the
/// nearest surface point, so that both paths decide alike (the largest plane distance is
/// only a lower bound of it).
fn within(poly: &Polyhedron, p: DVec3, convex: bool, reach: f64, tol: f64) -> bool {
    let on_or_in = if convex {
        match signed_distance(poly, p, reach, true, 0) {
            None => return false,
            Some((g, _)) => g <= tol,
        }
    } else {
        classify(poly, p) != PointClass::Outside
    };
    on_or_in || (reach > tol && nearest_surface(poly, p).distance <= reach)
}

/// The sharp edges of `src` (its vertices mapped into `dst`'s frame as `mapped`) that cross
/// `dst`'s surface, written to `found` with their mapped endpoints and the depth of their
/// deeper end inside `dst` (`None` when both ends are outside; `depth` holds the vertices'
/// depths). Edges with both ends inside are left out, and so are edges with both ends
/// beyond one plane of `dst` (`beyond` holds the plane that rejected each vertex in the
/// vertex pass of the convex path, [`NO_PLANE`] if none; empty on the general path).
fn meeting_edges(
    src: &Polyhedron,
    mapped: &[DVec3],
    (depth, beyond): (&[Option<f64>], &[u32]),
    dst: &Polyhedron,
    (convex, first_plane): (bool, usize),
    found: &mut Vec<MeetingEdge>,
) {
    let bounds = dst.local_aabb();
    found.clear();
    for (k, e) in src.edges().iter().enumerate() {
        if !e.sharp {
            continue;
        }
        let inner = match e.vertices.map(|v| depth[v as usize]) {
            [Some(_), Some(_)] => continue,
            [a, b] => a.or(b),
        };
        let [p0, p1] = e.vertices.map(|i| mapped[i as usize]);
        if convex {
            let [k0, k1] = e.vertices.map(|v| beyond[v as usize]);
            let past = |k: u32, p: DVec3| {
                k != NO_PLANE && {
                    let (n, d) = dst.planes()[k as usize];
                    n.dot(p) > d
                }
            };
            if past(k0, p1) || past(k1, p0) {
                continue;
            }
        }
        let seg = Aabb { min: p0.min(p1), max: p0.max(p1) };
        if !seg.overlaps(&bounds) {
            continue;
        }
        let meets = if convex {
            segment_meets_convex(dst, p0, p1, first_plane)
        } else {
            segment_meets_surface(dst, p0, p1, &seg)
        };
        if meets {
            found.push((k as u32, p0, p1, inner));
        }
    }
}

/// Does segment p₀p₁ cross the surface of the convex body? Clipped by each face plane
/// (Cyrus–Beck): a non-empty part inside, and not the whole segment.
fn segment_meets_convex(poly: &Polyhedron, p0: DVec3, p1: DVec3, first: usize) -> bool {
    // Both ends beyond the plane facing the other body (the usual case far from the
    // contact): out at once.
    let (n0, d0) = poly.planes()[first];
    if n0.dot(p0) > d0 && n0.dot(p1) > d0 {
        return false;
    }
    let d = p1 - p0;
    let (mut enter, mut exit) = (0.0f64, 1.0f64);
    for &(n, off) in poly.planes() {
        let denom = n.dot(d);
        let num = off - n.dot(p0);
        if denom == 0.0 {
            if num < 0.0 {
                return false;
            }
        } else if denom < 0.0 {
            enter = enter.max(num / denom);
        } else {
            exit = exit.min(num / denom);
        }
        if enter > exit {
            return false;
        }
    }
    // Meets the body; crosses its surface unless both ends are inside.
    enter > 0.0 || exit < 1.0
}

/// Does segment p₀p₁ cross a face of the body? Over the face hierarchy.
fn segment_meets_surface(poly: &Polyhedron, p0: DVec3, p1: DVec3, seg: &Aabb) -> bool {
    let mut hit = false;
    let inv = (p1 - p0).recip();
    poly.bvh().visit(
        |b| b.overlaps(seg) && ray_hits_box(b, p0, inv, 1.0),
        |f| {
            hit = segment_meets_triangle(p0, p1, poly.triangle(f));
            !hit
        },
    );
    hit
}

/// Segment–triangle test (Möller & Trumbore with the segment's own parameter t ∈ [0, 1]),
/// touching counted as meeting.
fn segment_meets_triangle(p0: DVec3, p1: DVec3, [a, b, c]: [DVec3; 3]) -> bool {
    let (e1, e2, d) = (b - a, c - a, p1 - p0);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det * det <= 1e-28 * e1.length_squared() * e2.length_squared() * d.length_squared() {
        return false;
    }
    let s = p0 - a;
    let u = s.dot(p) / det;
    let q = s.cross(e1);
    let v = d.dot(q) / det;
    let t = e2.dot(q) / det;
    let tol = EDGE_TOLERANCE;
    u >= -tol && v >= -tol && u + v <= 1.0 + tol && (-tol..=1.0 + tol).contains(&t)
}

/// Closest points of the lines through two segments, if they lie strictly inside both
/// segments and the lines are not parallel.
fn crossing_points(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> Option<(DVec3, DVec3)> {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, b) = (d1.length_squared(), d2.length_squared(), d1.dot(d2));
    let denom = a * e - b * b;
    if denom <= 1e-12 * a * e {
        return None;
    }
    let (c, f) = (d1.dot(r), d2.dot(r));
    let s = (b * f - c * e) / denom;
    let t = (a * f - b * c) / denom;
    let open = EDGE_TOLERANCE..=1.0 - EDGE_TOLERANCE;
    (open.contains(&s) && open.contains(&t)).then(|| (p0 + d1 * s, q0 + d2 * t))
}
