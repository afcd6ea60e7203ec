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
//!    crossing's plane (face on face), a point may be outside by up to 0.1 × the crossing's
//!    depth: the corners of two faces lying on each other are on the other body's side
//!    faces, where round-off picks the side, and a small tilt moves them out by the depth
//!    times the tilt;
//! 4. the normal e₁ × e₂, turned out of body 1 (along the mean of e₁'s face normals),
//!    points into body 2 at e₂ (against the mean of e₂'s face normals), so that swapping
//!    the bodies gives the same decision;
//! 5. (non-convex pairs only) if an end of e₁ or e₂ is inside the other body, the crossing
//!    is no deeper than the deepest such end;
//! 6. for non-convex pairs, the segment between the two points crosses neither surface
//!    (it lies in the intersection, as it always does for convex bodies).
//!
//! **Continuous depth.** A crossing that switched on or off where a rule starts or stops
//! to hold, at a finite depth, would bring a force whose energy was never stored (an
//! undamped pile gained the whole energy it released within 0.05 s that way). The depth
//! reported is therefore the distance of the two lines along the normal, clipped so that
//! it falls continuously to zero at the boundary of rules 1–3:
//!
//! δ = min(d, s·L₁, (1 − s)·L₁, t·L₂, (1 − t)·L₂, 1.5·D₂(p₁), 1.5·D₁(p₂), o₁, o₂)
//!
//! with d the line distance, s, t the points' parameters along edges of lengths L₁, L₂
//! (rule 2), D_k(p) the depth of a crossing point inside body k (rule 3; on faces lying
//! on each other d·(1 + D/(0.1 d)) instead, blended with the strict form by the faces'
//! tilt between 0.05 and 0.1 rad) and o the larger distance of an edge's two ends outside
//! the other body (rule 1). The clips leave clean crossings at their line distance (a
//! point 1.5 × deeper than ... see `INSIDE_SLOPE`), and keep the feature key. Rule 5, which
//! still switches at a depth, applies to non-convex pairs only.
//!
//! The point is the middle of the two crossing points. Edges between coplanar triangles
//! (diagonals of a split polygon) are skipped, and so are parallel edges (their contact is
//! carried by vertices).

use super::vertex::{Pair, NO_PLANE};
use super::{geometry, larger, smaller, FeatureKey};
use crate::bvh::ray_hits_box;
use crate::inside::{classify, closest_on_triangle, nearest_surface, PointClass, EDGE_TOLERANCE};
use crate::polyhedron::Polyhedron;
use granula_core::math::DVec3;
use granula_core::Aabb;
use granula_core::ContactGeometry;

/// cos of the largest angle (0.1 rad) between the crossing's normal and a face of each
/// edge for which the two faces count as lying on each other (rule 3's face-on-face form).
const FACE_ON_FACE_COS: f64 = 0.995_004_165_278_025_8;

/// cos 0.05 rad: up to this angle rule 3 takes its face-on-face form whole; from there it
/// is blended linearly in the cosine into the strict form, reached at 0.1 rad.
const FACE_ON_FACE_FULL_COS: f64 = 0.998_750_260_394_966_3;

/// Largest tilt (rad) between two faces lying on each other: a corner of their overlap is
/// outside the other body by at most the depth times it.
const FACE_ON_FACE_TILT: f64 = 0.1;

/// Slope of rule 3's clipping: the depth used is at most this times the depth of each
/// crossing point inside the other body. A point at line distance d from the other edge,
/// whose faces make an angle θ with the normal, is d·cos θ deep: 1.5 leaves crossings with
/// θ up to 48° unclipped (two square bars crossing edge on edge: 45°). A steeper slope
/// (a sharper switch) was measured to gain more energy in the undamped pile of
/// `tests/suite/energy_pile.rs` (+195 % of the energy released at 0.1 s with 2, +17 % with 1.5).
const INSIDE_SLOPE: f64 = 1.5;

/// Slope of rules 1 and 2's clipping: the depth used is at most this times the distance
/// of a crossing point to its segment's ends, and of an edge's outer end to the other body.
const CLIP_SLOPE: f64 = 1.0;

/// An edge that meets the other body's surface: its index, its ends in the other body's
/// frame and the depth of its deeper end inside the other body (`None`: both outside).
pub(crate) type MeetingEdge = (u32, DVec3, DVec3, Option<f64>);

/// Scratch space of [`edge_contacts`]: the meeting edges of each body and the vertex codes
/// of the body being scanned ([`vertex_codes`]).
#[derive(Default)]
pub(crate) struct EdgeScratch {
    found: [Vec<MeetingEdge>; 2],
    codes: Vec<u8>,
}

/// Edge contacts of the pair, appended to `out`. `vertex_depth[k]` holds the depth of each
/// vertex of body k+1 inside the other body (`None`: outside), from the vertex pass;
/// `scratch` is scratch space.
pub(crate) fn edge_contacts(
    pair: &Pair,
    vertex_depth: &[Vec<Option<f64>>; 2],
    beyond: &[Vec<u32>; 2],
    scratch: &mut EdgeScratch,
    out: &mut Vec<ContactGeometry>,
) {
    let EdgeScratch { found: [edges_a, edges_b], codes } = scratch;
    let (ends_a, ends_b) = ((&vertex_depth[0][..], &beyond[0][..]), (&vertex_depth[1][..], &beyond[1][..]));
    meeting_edges(pair.a, pair.a_in_b, ends_a, pair.b, (pair.convex, pair.facing[1]), codes, edges_a);
    if edges_a.is_empty() {
        return;
    }
    meeting_edges(pair.b, pair.b_in_a, ends_b, pair.a, (pair.convex, pair.facing[0]), codes, edges_b);
    // Everything below is in body 2's frame.
    let tol = 1e-9 * (pair.a.bounding_radius() + pair.b.bounding_radius());
    let both_convex = pair.a.is_convex() && pair.b.is_convex();
    for &(ea, p0, p1, inner_a) in edges_a.iter() {
        let e = pair.a.edges()[ea as usize];
        let outward_a =
            pair.rel_ab.rot * (pair.a.normals()[e.faces[0] as usize] + pair.a.normals()[e.faces[1] as usize]);
        for &(eb, _, _, inner_b) in edges_b.iter() {
            let f = pair.b.edges()[eb as usize];
            let [q0, q1] = f.vertices.map(|i| pair.b.vertices()[i as usize]);
            let Some(((pa, s), (pb, t))) = crossing_points(p0, p1, q0, q1) else {
                continue;
            };
            let mut n = (p1 - p0).cross(q1 - q0).normalize();
            if n.dot(outward_a) < 0.0 {
                n = -n;
            }
            // Both edges must face each other along n, so that the decision is the same
            // with the bodies swapped.
            let outward_b = pair.b.normals()[f.faces[0] as usize] + pair.b.normals()[f.faces[1] as usize];
            let depth = (pa - pb).dot(n);
            if depth <= 0.0 || n.dot(outward_b) >= 0.0 {
                continue;
            }
            // Rule 5, non-convex pairs only: an edge with an end inside the other body, no
            // deeper than that end (a switch at a finite depth, see docs/polyhedra.md).
            if !both_convex {
                let limit = match (inner_a, inner_b) {
                    (None, None) => f64::INFINITY,
                    (a, b) => a.unwrap_or(0.0).max(b.unwrap_or(0.0)) + tol,
                };
                if depth > limit {
                    continue;
                }
            }
            // Rule 2: the crossing fades out as either point nears an end of its segment.
            let lengths = ((p1 - p0).length(), (q1 - q0).length());
            let mut limit =
                depth.min(CLIP_SLOPE * s.min(1.0 - s) * lengths.0).min(CLIP_SLOPE * t.min(1.0 - t) * lengths.1);
            // Rule 3: each point inside the other body, the crossing no deeper than
            // INSIDE_SLOPE times the point's depth there. Where a face of each edge lies
            // almost flat on the other (a face-on-face overlap), each point is on the other
            // body's side face (exactly, for parallel faces, and round-off picks the side) or,
            // for faces tilted by up to FACE_ON_FACE_TILT, outside it by at most the depth
            // times the tilt: there the clip falls from the whole depth (the point on the
            // face) to zero (outside by that much). The two clips are blended by the faces'
            // flatness, 1 up to 0.05 rad and 0 from 0.1 rad, so that the depth stays
            // continuous as a face tilts.
            let flat = |normals: &[DVec3], faces: [u32; 2], dir: DVec3| {
                faces.iter().map(|&f| normals[f as usize].dot(dir)).fold(f64::NEG_INFINITY, f64::max)
            };
            let flatness =
                flat(pair.a.normals(), e.faces, pair.rel_ba.rot * n).min(flat(pair.b.normals(), f.faces, -n));
            let blend = ((flatness - FACE_ON_FACE_COS) / (FACE_ON_FACE_FULL_COS - FACE_ON_FACE_COS)).clamp(0.0, 1.0);
            let reach = FACE_ON_FACE_TILT * depth;
            for (poly, p) in [(pair.b, pa), (pair.a, pair.rel_ba.apply(pb))] {
                if limit <= 0.0 {
                    break;
                }
                let inside = depth_inside(poly, p, pair.convex, blend * reach + tol) + tol;
                let strict = INSIDE_SLOPE * inside;
                let on_face = depth * (1.0 + inside / reach);
                limit = limit.min((1.0 - blend) * strict + blend * on_face);
            }
            // Rule 1: an edge whose two ends are inside the other body is carried by its
            // vertex contacts; the crossing fades out as the last end comes in.
            let ends_a = e.vertices.map(|i| pair.a_in_b[i as usize]);
            let ends_b = f.vertices.map(|i| pair.b_in_a[i as usize]);
            for (poly, ends) in [(pair.b, ends_a), (pair.a, ends_b)] {
                if limit <= 0.0 {
                    break;
                }
                let needed = limit / CLIP_SLOPE;
                let out = ends.iter().map(|&p| outside_distance(poly, p, pair.convex, needed)).fold(0.0, f64::max);
                limit = limit.min(CLIP_SLOPE * out);
            }
            if limit <= 0.0 {
                continue;
            }
            if !both_convex && !within_both(pair, pa, pb) {
                continue;
            }
            let point = pair.pose_b.to_world(0.5 * (pa + pb));
            let normal = pair.pose_b.orientation * n;
            out.push(geometry(point, normal, -limit, pair.pose_a, pair.pose_b, pair.r, FeatureKey::EdgePair(ea, eb)));
        }
    }
}

/// Depth of `p` (the body's frame) inside the body: the distance to the nearest surface
/// point, negative outside. Outside, only a value above −`reach` matters: below it, any
/// number below −`reach` may be returned. Face planes inside a convex body (exact there),
/// ray parity and the nearest surface point otherwise, so that both paths agree.
fn depth_inside(poly: &Polyhedron, p: DVec3, convex: bool, reach: f64) -> f64 {
    if convex {
        let gap = poly.planes().iter().fold(f64::NEG_INFINITY, |m, &(n, d)| larger(m, n.dot(p) - d));
        if gap <= 0.0 || gap > reach {
            return -gap;
        }
        return -nearest_surface(poly, p).distance;
    }
    match classify(poly, p) {
        PointClass::OnSurface => 0.0,
        PointClass::Inside => nearest_surface(poly, p).distance,
        PointClass::Outside => -nearest_surface(poly, p).distance,
    }
}

/// Distance of `p` (the body's frame) outside the body, 0 inside. Only values below
/// `needed` matter: the convex path returns a lower bound that is at least `needed` without
/// the exact distance, and stops at the first face plane that `p` is that far beyond (the
/// largest plane distance is then at least as large, and the caller only takes the
/// smaller of its limit and such a value, which is its limit either way).
fn outside_distance(poly: &Polyhedron, p: DVec3, convex: bool, needed: f64) -> f64 {
    if convex {
        let mut gap = f64::NEG_INFINITY;
        for &(n, d) in poly.planes() {
            gap = larger(gap, n.dot(p) - d);
            if gap >= needed {
                return gap;
            }
        }
        if gap <= 0.0 {
            return 0.0;
        }
        return nearest_surface(poly, p).distance;
    }
    match classify(poly, p) {
        PointClass::Outside => nearest_surface(poly, p).distance,
        _ => 0.0,
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

/// Bit of a vertex's [`vertex_codes`] entry: the vertex is inside the other body (the
/// vertex pass gave it a depth). Bits 0–5 are its out-codes against the other body's box.
const INSIDE_BIT: u8 = 1 << 6;

/// One byte per vertex of `src` (mapped into `dst`'s frame as `mapped`), written to
/// `codes`: bit a set when coordinate a (x, y, z: 0, 1, 2) is below the box of `dst`, bit
/// a + 3 when above it (out-codes), and [`INSIDE_BIT`] when the vertex pass found the vertex inside `dst`.
/// Two ends with a common bit make an edge that [`meeting_edges`] drops: both ends inside
/// (the vertex contacts carry it), or both beyond one face of the box, where the box of
/// the segment misses the box of `dst` (the same comparisons as [`Aabb::overlaps`], so the
/// same edges are dropped as by the box test per edge, with the coordinates compared once
/// per vertex rather than twice per edge).
fn vertex_codes(mapped: &[DVec3], depth: &[Option<f64>], bounds: &Aabb, codes: &mut Vec<u8>) {
    codes.clear();
    codes.extend(mapped.iter().zip(depth).map(|(p, d)| {
        let below = p.cmplt(bounds.min).bitmask() as u8;
        let above = p.cmpgt(bounds.max).bitmask() as u8;
        below | (above << 3) | if d.is_some() { INSIDE_BIT } else { 0 }
    }));
}

/// The sharp edges of `src` (its vertices mapped into `dst`'s frame as `mapped`) that cross
/// `dst`'s surface, written to `found` with their mapped endpoints and the depth of their
/// deeper end inside `dst` (`None` when both ends are outside; `depth` holds the vertices'
/// depths). Edges with both ends inside are left out, and so are edges with both ends
/// beyond one plane of `dst` (`beyond` holds the plane that rejected each vertex in the
/// vertex pass of the convex path, [`NO_PLANE`] if none; all [`NO_PLANE`] on the general
/// path) and edges whose box misses `dst`'s box. The first two tests read one byte per end
/// ([`vertex_codes`], written to `codes`), so that most edges far from the contact are
/// dropped without reading their ends.
fn meeting_edges(
    src: &Polyhedron,
    mapped: &[DVec3],
    (depth, beyond): (&[Option<f64>], &[u32]),
    dst: &Polyhedron,
    (convex, first_plane): (bool, usize),
    codes: &mut Vec<u8>,
    found: &mut Vec<MeetingEdge>,
) {
    found.clear();
    vertex_codes(mapped, depth, &dst.local_aabb(), codes);
    for (k, e) in src.edges().iter().enumerate() {
        if !e.sharp {
            continue;
        }
        let [v0, v1] = e.vertices.map(|v| v as usize);
        if codes[v0] & codes[v1] != 0 {
            continue;
        }
        let (p0, p1) = (mapped[v0], mapped[v1]);
        if convex {
            let past = |k: u32, p: DVec3| {
                k != NO_PLANE && {
                    let (n, d) = dst.planes()[k as usize];
                    n.dot(p) > d
                }
            };
            if past(beyond[v0], p1) || past(beyond[v1], p0) {
                continue;
            }
        }
        let meets = if convex && codes[v0] & INSIDE_BIT != 0 {
            segment_leaves_convex(dst, p0, p1)
        } else if convex {
            segment_meets_convex(dst, p0, p1, first_plane)
        } else {
            segment_meets_surface(dst, p0, p1, &Aabb { min: p0.min(p1), max: p0.max(p1) })
        };
        if meets {
            found.push((k as u32, p0, p1, depth[v0].or(depth[v1])));
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
    // A plane divides only where it can move an end of the clipped part: entering from
    // beyond it (num < 0 < −denom: the quotient is positive) or leaving below its far end
    // (num < denom: the quotient below 1). Elsewhere the quotient is at most 0 (entering)
    // or at least 1 (leaving; a correctly rounded quotient of num ≥ denom > 0 is ≥ 1),
    // which changes neither `enter` (≥ 0) nor `exit` (≤ 1), nor so the test after it.
    for &(n, off) in poly.planes() {
        let denom = n.dot(d);
        let num = off - n.dot(p0);
        if denom < 0.0 {
            if num < 0.0 {
                enter = larger(enter, num / denom);
                if enter > exit {
                    return false;
                }
            }
        } else if denom > 0.0 {
            if num < denom {
                exit = smaller(exit, num / denom);
                if enter > exit {
                    return false;
                }
            }
        } else if num < 0.0 {
            return false;
        }
    }
    // Meets the body; crosses its surface unless both ends are inside.
    enter > 0.0 || exit < 1.0
}

/// [`segment_meets_convex`] for a segment whose first end p₀ is inside the body (below
/// every face plane, as the vertex pass found it: n·p₀ ≤ d for each plane, with the same
/// dot products), with the same result. There every plane's num = d − n·p₀ is ≥ 0, so no
/// plane moves the clipped part's start (it stays 0) nor rejects the segment, and the
/// answer is whether some plane ends it before p₁: a plane with 0 ≤ num < denom whose
/// quotient (rounded as there) is below 1. This stops at the first such plane, where the
/// clipping goes through every plane.
fn segment_leaves_convex(poly: &Polyhedron, p0: DVec3, p1: DVec3) -> bool {
    let d = p1 - p0;
    poly.planes().iter().any(|&(n, off)| {
        let denom = n.dot(d);
        let num = off - n.dot(p0);
        denom > 0.0 && num < denom && num / denom < 1.0
    })
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

/// Closest points of the lines through two segments with their parameters along each
/// segment (0 at the first end, 1 at the second), if they lie strictly inside both
/// segments and the lines are not parallel.
fn crossing_points(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> Option<((DVec3, f64), (DVec3, f64))> {
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
    (open.contains(&s) && open.contains(&t)).then(|| ((p0 + d1 * s, s), (q0 + d2 * t, t)))
}
