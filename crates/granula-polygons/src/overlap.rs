//! The overlap region of two bodies in the plane (002 §2, Fig. 1): its area A, its
//! centroid (the contact point) and the contact normal, perpendicular to the chord through
//! the two points where the boundaries cross.
//!
//! Pairs: polygon–polygon ([`polygon_polygon`]), half-plane wall–polygon
//! ([`half_plane_polygon`]), disc–polygon ([`disc_polygon`]) and disc–disc
//! ([`disc_disc`]). All are exact (no sampling); the normal points from body 1 to body 2.

use crate::polygon::{centroid_of, ConvexPolygon};
use crate::pose::{cross, Pose2};
use glam::DVec2;
use std::f64::consts::PI;

/// The overlap of two bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overlap2 {
    /// Overlap area A (m²), > 0.
    pub area: f64,
    /// Centroid of the overlap region (world frame): the contact point of 002 §2.
    pub centroid: DVec2,
    /// Unit contact normal from body 1 to body 2, perpendicular to the chord.
    pub normal: DVec2,
    /// The two points where the boundaries cross, farthest apart if more cross (002
    /// Fig. 1); `None` when one body lies inside the other (no crossing): the normal then
    /// points along the line of centres.
    pub chord: Option<[DVec2; 2]>,
}

impl Overlap2 {
    /// Branch vector from a body's centre of mass at `position` to the contact point.
    pub fn branch_from(&self, position: DVec2) -> DVec2 {
        self.centroid - position
    }
}

/// Buffers reused from call to call, so the overlap of a pair allocates nothing once
/// they have grown to the largest polygons met.
#[derive(Clone, Debug, Default)]
pub struct OverlapScratch {
    first: Vec<DVec2>,
    second: Vec<DVec2>,
    clipped: Vec<DVec2>,
    spare: Vec<DVec2>,
    clipped_tags: Vec<u8>,
    spare_tags: Vec<u8>,
    crossings: Vec<DVec2>,
}

/// Tag of a vertex of the clipped polygon: the edge leaving it lies on the first
/// polygon's outline.
const ON_FIRST: u8 = 1;
/// Tag of a vertex of the clipped polygon: it is where an edge of the first polygon
/// crosses a clipping edge of the second, i.e. where the two outlines cross.
const CROSSING: u8 = 2;

/// [`clip_left`] carrying the tags [`ON_FIRST`] and [`CROSSING`] through the clip: a kept
/// vertex keeps its tags; the point where a subject edge p→q crosses the line gets
/// [`CROSSING`] if p→q lies on the first polygon's outline, and [`ON_FIRST`] if it enters
/// the kept side (its outgoing edge continues along p→q) and p→q lies on that outline (an
/// exit point's outgoing edge runs along the clipping line).
fn clip_left_tagged(subject: &[DVec2], tags: &[u8], a: DVec2, b: DVec2, out: &mut Vec<DVec2>, out_tags: &mut Vec<u8>) {
    out.clear();
    out_tags.clear();
    let e = b - a;
    let n = subject.len();
    for i in 0..n {
        let (p, q) = (subject[i], subject[(i + 1) % n]);
        let (sp, sq) = (cross(e, p - a), cross(e, q - a));
        if sp >= 0.0 {
            out.push(p);
            out_tags.push(tags[i]);
        }
        if (sp >= 0.0) != (sq >= 0.0) {
            out.push(p + (q - p) * (sp / (sp - sq)));
            let on_first = tags[i] & ON_FIRST;
            let crossing = if on_first != 0 { CROSSING } else { 0 };
            let entering = sp < 0.0;
            out_tags.push(crossing | if entering { on_first } else { 0 });
        }
    }
}

/// Normal perpendicular to the chord through the farthest pair of `crossings`, turned to
/// point along `towards`; without two distinct crossings, `towards` itself (unit), or +x
/// if it is zero.
fn chord_normal(crossings: &[DVec2], towards: DVec2) -> (DVec2, Option<[DVec2; 2]>) {
    let mut best: Option<(f64, [DVec2; 2])> = None;
    for (i, &p) in crossings.iter().enumerate() {
        for &q in &crossings[i + 1..] {
            let d = (q - p).length_squared();
            if d > 0.0 && best.is_none_or(|(b, _)| d > b) {
                best = Some((d, [p, q]));
            }
        }
    }
    let fallback = towards.try_normalize().unwrap_or(DVec2::X);
    match best {
        Some((_, [p, q])) => {
            let along = (q - p).normalize();
            let n = DVec2::new(-along.y, along.x);
            let n = if n.dot(towards) < 0.0 { -n } else { n };
            (n, Some([p, q]))
        }
        None => (fallback, None),
    }
}

/// Area and centroid of a convex polygon given by its vertices in order.
fn area_and_centroid(points: &[DVec2]) -> (f64, DVec2) {
    let origin = points[0];
    let twice: f64 =
        (0..points.len()).map(|i| cross(points[i] - origin, points[(i + 1) % points.len()] - origin)).sum();
    (0.5 * twice, centroid_of(points))
}

/// Keep the part of `subject` on the left of (or on) the directed line a→b
/// (Sutherland–Hodgman, one clipping edge).
fn clip_left(subject: &[DVec2], a: DVec2, b: DVec2, out: &mut Vec<DVec2>) {
    out.clear();
    let e = b - a;
    let n = subject.len();
    for i in 0..n {
        let (p, q) = (subject[i], subject[(i + 1) % n]);
        let (sp, sq) = (cross(e, p - a), cross(e, q - a));
        if sp >= 0.0 {
            out.push(p);
        }
        if (sp >= 0.0) != (sq >= 0.0) {
            out.push(p + (q - p) * (sp / (sp - sq)));
        }
    }
}

/// Where segment p0→p1 crosses segment q0→q1, if it does (parallel segments never do):
/// the brute-force search of the crossings that the tagged clip replaces, kept to test it.
/// The parameters t = (w × d₂)/(d₁ × d₂) and u = (w × d₁)/(d₁ × d₂) are tested against
/// [0, 1] before dividing, and the parallel test compares squares: no square root, and one
/// division only for segments that do cross.
#[cfg(test)]
fn segment_crossing(p0: DVec2, p1: DVec2, q0: DVec2, q1: DVec2) -> Option<DVec2> {
    let (d1, d2) = (p1 - p0, q1 - q0);
    let mut denom = cross(d1, d2);
    let w = q0 - p0;
    let (mut tn, mut un) = (cross(w, d2), cross(w, d1));
    if denom < 0.0 {
        denom = -denom;
        tn = -tn;
        un = -un;
    }
    if !(tn >= 0.0 && tn <= denom && un >= 0.0 && un <= denom) {
        return None;
    }
    if denom * denom <= 1e-28 * d1.length_squared() * d2.length_squared() {
        return None;
    }
    Some(p0 + d1 * (tn / denom))
}

/// The overlap of two convex polygons (body 1 = `a`, body 2 = `b`): the intersection
/// polygon by clipping `a` against each edge of `b`, its area A and centroid, and the
/// normal of 002 Fig. 1, perpendicular to the chord through the crossings of the two
/// outlines and pointing from `a`'s centre towards `b`'s. The crossings are the vertices
/// of the overlap made where an edge of `a` met an edge of `b` during the clip (tagged as
/// the clip goes), so no separate search over the edge pairs is needed. `None` when the
/// bounding discs or the outlines do not overlap. O(n·m) for n and m vertices.
pub fn polygon_polygon(
    a: &ConvexPolygon,
    pose_a: &Pose2,
    b: &ConvexPolygon,
    pose_b: &Pose2,
    scratch: &mut OverlapScratch,
) -> Option<Overlap2> {
    let reach = a.circumradius() + b.circumradius();
    if (pose_b.position - pose_a.position).length_squared() >= reach * reach {
        return None;
    }
    a.world_vertices_into(pose_a, &mut scratch.first);
    b.world_vertices_into(pose_b, &mut scratch.second);
    scratch.clipped.clear();
    scratch.clipped.extend_from_slice(&scratch.first);
    scratch.clipped_tags.clear();
    scratch.clipped_tags.resize(scratch.first.len(), ON_FIRST);
    let m = scratch.second.len();
    for j in 0..m {
        let (q0, q1) = (scratch.second[j], scratch.second[(j + 1) % m]);
        clip_left_tagged(&scratch.clipped, &scratch.clipped_tags, q0, q1, &mut scratch.spare, &mut scratch.spare_tags);
        std::mem::swap(&mut scratch.clipped, &mut scratch.spare);
        std::mem::swap(&mut scratch.clipped_tags, &mut scratch.spare_tags);
        if scratch.clipped.len() < 3 {
            return None;
        }
    }
    let (area, centroid) = area_and_centroid(&scratch.clipped);
    if area.is_nan() || area <= 0.0 {
        return None;
    }
    // The outlines cross at the vertices of the overlap made where an edge of `a` met an
    // edge of `b` during the clip (002 Fig. 1's chord ends).
    scratch.crossings.clear();
    for (v, &t) in scratch.clipped.iter().zip(&scratch.clipped_tags) {
        if t & CROSSING != 0 {
            scratch.crossings.push(*v);
        }
    }
    let (normal, chord) = chord_normal(&scratch.crossings, pose_b.position - pose_a.position);
    Some(Overlap2 { area, centroid, normal, chord })
}

/// The overlap of a wall and a polygon (body 1 = the wall, body 2 = the polygon). The
/// wall is the half-plane {x : (x − p)·n ≤ 0} behind the line through `point` with unit
/// normal `normal` pointing to the free side; the overlap is the part of the polygon
/// behind the line, the normal is `normal` (the chord lies on the line).
pub fn half_plane_polygon(
    point: DVec2,
    normal: DVec2,
    poly: &ConvexPolygon,
    pose: &Pose2,
    scratch: &mut OverlapScratch,
) -> Option<Overlap2> {
    let centre_height = (pose.position - point).dot(normal);
    if centre_height >= poly.circumradius() {
        return None;
    }
    poly.world_vertices_into(pose, &mut scratch.first);
    // Behind the line is left of the direction (−n_y, n_x) along it.
    let along = DVec2::new(-normal.y, normal.x);
    clip_left(&scratch.first, point, point + along, &mut scratch.clipped);
    if scratch.clipped.len() < 3 {
        return None;
    }
    let (area, centroid) = area_and_centroid(&scratch.clipped);
    if area.is_nan() || area <= 0.0 {
        return None;
    }
    scratch.crossings.clear();
    let n = scratch.first.len();
    for i in 0..n {
        let (p, q) = (scratch.first[i], scratch.first[(i + 1) % n]);
        let (hp, hq) = ((p - point).dot(normal), (q - point).dot(normal));
        if (hp <= 0.0) != (hq <= 0.0) {
            scratch.crossings.push(p + (q - p) * (hp / (hp - hq)));
        }
    }
    let chord = (scratch.crossings.len() >= 2).then(|| [scratch.crossings[0], scratch.crossings[1]]);
    Some(Overlap2 { area, centroid, normal, chord })
}

/// The overlap of a disc (body 1, centre `centre`, radius `radius`) and a convex
/// polygon (body 2), exactly: the signed sum, over the polygon's edges, of the overlap
/// of the disc with the triangle (centre, pᵢ, pᵢ₊₁), each edge cut where it crosses the
/// circle into straight pieces inside (triangles: area ½ u×v, centroid (u+v)/3) and arcs
/// outside (sectors of angle θ: area ½ r²θ, first moment ⅔ r³ sin(θ/2) along the
/// bisector). The chord joins the crossings of the circle with the outline.
pub fn disc_polygon(
    centre: DVec2,
    radius: f64,
    poly: &ConvexPolygon,
    pose: &Pose2,
    scratch: &mut OverlapScratch,
) -> Option<Overlap2> {
    let reach = radius + poly.circumradius();
    if (pose.position - centre).length_squared() >= reach * reach {
        return None;
    }
    poly.world_vertices_into(pose, &mut scratch.first);
    scratch.crossings.clear();
    let r2 = radius * radius;
    let mut area = 0.0;
    let mut moment = DVec2::ZERO;
    let n = scratch.first.len();
    for i in 0..n {
        let (a, b) = (scratch.first[i] - centre, scratch.first[(i + 1) % n] - centre);
        let d = b - a;
        // |a + t d|² = r²: t² |d|² + 2t a·d + |a|² − r² = 0.
        let (qa, qb, qc) = (d.length_squared(), 2.0 * a.dot(d), a.length_squared() - r2);
        let disc = qb * qb - 4.0 * qa * qc;
        let mut cuts = [0.0, 1.0, 1.0, 1.0];
        let mut count = 1;
        if disc > 0.0 && qa > 0.0 {
            let root = disc.sqrt();
            for t in [(-qb - root) / (2.0 * qa), (-qb + root) / (2.0 * qa)] {
                if t > 0.0 && t < 1.0 {
                    cuts[count] = t;
                    count += 1;
                    scratch.crossings.push(centre + a + d * t);
                }
            }
        }
        cuts[count] = 1.0;
        for k in 0..count {
            let (u, v) = (a + d * cuts[k], a + d * cuts[k + 1]);
            if ((u + v) * 0.5).length_squared() <= r2 {
                let piece = 0.5 * cross(u, v);
                area += piece;
                moment += (u + v) * (piece / 3.0);
            } else {
                let theta = cross(u, v).atan2(u.dot(v));
                area += 0.5 * r2 * theta;
                let (s, c) = (0.5 * theta).sin_cos();
                let unit = u.normalize_or_zero();
                let bisector = DVec2::new(c * unit.x - s * unit.y, s * unit.x + c * unit.y);
                moment += bisector * (2.0 / 3.0 * r2 * radius * s);
            }
        }
    }
    if area.is_nan() || area <= 0.0 {
        return None;
    }
    let centroid = centre + moment / area;
    let (normal, chord) = chord_normal(&scratch.crossings, pose.position - centre);
    Some(Overlap2 { area, centroid, normal, chord })
}

/// The lens of two discs (body 1 at `c1` with radius `r1`, body 2 at `c2` with `r2`):
/// two circular segments on either side of the chord at distance x = (d² + r₁² − r₂²)/(2d)
/// from c₁; a segment of half-angle α = acos(h/r) has area r²(α − sin α cos α) and its
/// centroid at ⅔ r³ sin³α / area from the centre. A disc inside the other overlaps by its
/// whole area, normal along the line of centres.
pub fn disc_disc(c1: DVec2, r1: f64, c2: DVec2, r2: f64) -> Option<Overlap2> {
    let offset = c2 - c1;
    let d = offset.length();
    if d >= r1 + r2 {
        return None;
    }
    let n = offset.try_normalize().unwrap_or(DVec2::X);
    if d <= (r1 - r2).abs() {
        let (centre, r) = if r1 <= r2 { (c1, r1) } else { (c2, r2) };
        return Some(Overlap2 { area: PI * r * r, centroid: centre, normal: n, chord: None });
    }
    let x = (d * d + r1 * r1 - r2 * r2) / (2.0 * d);
    let segment = |r: f64, h: f64| {
        let alpha = (h / r).clamp(-1.0, 1.0).acos();
        let (s, c) = alpha.sin_cos();
        let area = r * r * (alpha - s * c);
        (area, 2.0 / 3.0 * r * r * r * s * s * s)
    };
    let (area1, moment1) = segment(r1, x);
    let (area2, moment2) = segment(r2, d - x);
    let area = area1 + area2;
    let centroid = (c1 * area1 + n * moment1 + c2 * area2 - n * moment2) / area;
    let half = (r1 * r1 - x * x).max(0.0).sqrt();
    let foot = c1 + n * x;
    let across = DVec2::new(-n.y, n.x) * half;
    Some(Overlap2 { area, centroid, normal: n, chord: Some([foot - across, foot + across]) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes;

    /// The crossings by brute force over every edge pair.
    fn brute_crossings(a: &ConvexPolygon, pa: &Pose2, b: &ConvexPolygon, pb: &Pose2) -> Vec<DVec2> {
        let (mut va, mut vb) = (Vec::new(), Vec::new());
        a.world_vertices_into(pa, &mut va);
        b.world_vertices_into(pb, &mut vb);
        let mut out = Vec::new();
        for i in 0..va.len() {
            for j in 0..vb.len() {
                let (p0, p1) = (va[i], va[(i + 1) % va.len()]);
                let (q0, q1) = (vb[j], vb[(j + 1) % vb.len()]);
                if let Some(x) = segment_crossing(p0, p1, q0, q1) {
                    out.push(x);
                }
            }
        }
        out
    }

    #[test]
    fn tagged_crossings_equal_the_brute_force_ones() {
        let mut state = 12345u64;
        let mut uniform = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut checked = 0;
        for k in 0..400u64 {
            let a = shapes::random_convex(3 + (k % 7) as usize, 1.0, 1.0 + uniform(), k).unwrap();
            let b = shapes::random_convex(3 + (k % 5) as usize, 0.8, 1.0 + uniform(), 1000 + k).unwrap();
            let pa = Pose2::new(DVec2::new(uniform(), uniform()) * 0.3, uniform() * 6.3);
            let pb = Pose2::new(DVec2::new(uniform() * 2.0 - 1.0, uniform() * 2.0 - 1.0) * 1.6, uniform() * 6.3);
            let mut s = OverlapScratch::default();
            let Some(o) = polygon_polygon(&a, &pa, &b, &pb, &mut s) else { continue };
            let brute = brute_crossings(&a, &pa, &b, &pb);
            // Generic positions: every crossing is found once by each method, at points
            // that agree to round-off (1e-12 of the unit size).
            assert_eq!(s.crossings.len(), brute.len(), "pair {k}: {:?} vs {brute:?}", s.crossings);
            for x in &brute {
                assert!(s.crossings.iter().any(|y| (*x - *y).length() < 1e-12), "pair {k}: {x} not tagged");
            }
            if brute.len() >= 2 {
                let n = DVec2::new(o.normal.x, o.normal.y);
                let chord = o.chord.unwrap();
                assert!(n.dot(chord[1] - chord[0]).abs() < 1e-12);
            }
            checked += 1;
        }
        assert!(checked > 100, "only {checked} overlapping pairs");
    }
}
