//! Contact points with signed gaps, for contact dynamics: rigid bodies do not overlap (or
//! barely), so a contact is a point, a unit normal and the gap g along it (negative when
//! the outlines overlap), found while the bodies are still apart, within an alert distance
//! (004 §2.3.3.2: the contacts of the intermediate configuration, closed or incipient).
//!
//! - [`polygon_polygon`]: the separating axis of largest separation among the face normals
//!   of both polygons (in 2D a face normal always separates two disjoint convex polygons);
//!   the face giving it is the reference face, the face of the other polygon most opposed
//!   to it the incident face, and the incident face clipped to the reference face's extent
//!   gives at most **two** points: the ends of the common part of the two faces when they
//!   are parallel (a square resting flat is held at both corners and cannot rock), the
//!   incident corner otherwise (the far end's gap exceeds the alert distance);
//! - [`polygon_disc`]: the nearest point of the outline to the centre (for a centre
//!   inside, the face of least penetration), g = distance − r;
//! - [`half_plane_polygon`]: the deepest vertex and the deeper of its two neighbours (the
//!   two ends of a face lying on the wall's line).
//!
//! Each point is placed half-way between the two outlines along the normal, so the branch
//! vectors of both bodies end at the same point whichever body holds the reference face.
//! The overlap-area contact of molecular dynamics (002 Fig. 1) is [`crate::polygon_polygon`]
//! and its siblings; these points are its rigid-body counterpart.
//!
//! The outlines are world-frame vertex lists, counter-clockwise, given relative to any
//! origin near the bodies (the caller's choice, e.g. the centre of one of them, to keep the
//! digits); the points come back relative to the same origin.

use glam::DVec2;

/// One contact point of a pair (004 §2.3.3.2), relative to the caller's origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// The contact point (m): half-way between the outlines along the normal.
    pub point: DVec2,
    /// Unit normal from the first body to the second.
    pub normal: DVec2,
    /// Signed gap (m): the distance between the outlines along the normal, < 0 on overlap.
    pub gap: f64,
}

/// Up to two contact points of a pair. A point's slot (0 or 1) is its key from step to
/// step: along the reference face for two clipped ends, by vertex index against a wall.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactPoints {
    /// The points, the first slot filled first.
    pub points: [Option<ContactPoint>; 2],
}

impl ContactPoints {
    /// Adds `p` to the first free slot (the second one if both are taken: it is replaced).
    pub fn push(&mut self, p: ContactPoint) {
        if self.points[0].is_none() {
            self.points[0] = Some(p);
        } else {
            self.points[1] = Some(p);
        }
    }

    /// The points with their normals turned over (the bodies' roles swapped).
    pub fn flipped(mut self) -> Self {
        for p in self.points.iter_mut().flatten() {
            p.normal = -p.normal;
        }
        self
    }

    /// The points moved by `shift` (a change of origin).
    pub fn shifted(mut self, shift: DVec2) -> Self {
        for p in self.points.iter_mut().flatten() {
            p.point += shift;
        }
        self
    }

    /// The filled slots with their index.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &ContactPoint)> {
        self.points.iter().enumerate().filter_map(|(k, p)| p.as_ref().map(|p| (k, p)))
    }
}

/// Outward unit normal of the edge from `a` to `b` of a counter-clockwise outline.
#[inline]
fn outward(a: DVec2, b: DVec2) -> DVec2 {
    let e = b - a;
    DVec2::new(e.y, -e.x).normalize()
}

/// A polygon (`poly`, counter-clockwise) and a disc centred at `c` with radius `r`: the
/// point of least gap if it is at most `alert`, normal from the polygon to the disc.
pub fn polygon_disc(poly: &[DVec2], c: DVec2, r: f64, alert: f64) -> ContactPoints {
    let mut out = ContactPoints::default();
    let n = poly.len();
    let (mut best_s, mut best_k) = (f64::NEG_INFINITY, 0);
    for k in 0..n {
        let s = (c - poly[k]).dot(outward(poly[k], poly[(k + 1) % n]));
        if s > best_s {
            best_s = s;
            best_k = k;
        }
    }
    let (surface, normal, gap) = if best_s <= 0.0 {
        // Centre inside: the face of least penetration.
        let nrm = outward(poly[best_k], poly[(best_k + 1) % n]);
        (c - nrm * best_s, nrm, best_s - r)
    } else {
        let q = nearest_on_outline(poly, c);
        let d = (c - q).length();
        (q, (c - q) / d, d - r)
    };
    if gap <= alert {
        out.push(ContactPoint { point: surface + normal * (0.5 * gap), normal, gap });
    }
    out
}

/// The point of the outline `poly` nearest to `c`.
fn nearest_on_outline(poly: &[DVec2], c: DVec2) -> DVec2 {
    let n = poly.len();
    let (mut q_best, mut d_best) = (poly[0], f64::INFINITY);
    for k in 0..n {
        let (a, b) = (poly[k], poly[(k + 1) % n]);
        let e = b - a;
        let t = ((c - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
        let q = a + e * t;
        let d = (c - q).length_squared();
        if d < d_best {
            d_best = d;
            q_best = q;
        }
    }
    q_best
}

/// Largest separation of `other` from the faces of `poly`: (separation, face index).
fn max_separation(poly: &[DVec2], other: &[DVec2]) -> (f64, usize) {
    let n = poly.len();
    let (mut best, mut face) = (f64::NEG_INFINITY, 0);
    for k in 0..n {
        let (a, nrm) = (poly[k], outward(poly[k], poly[(k + 1) % n]));
        let s = other.iter().map(|q| (*q - a).dot(nrm)).fold(f64::INFINITY, f64::min);
        if s > best {
            best = s;
            face = k;
        }
    }
    (best, face)
}

/// Two polygons (counter-clockwise outlines `a` and `b`): up to two points with a gap at
/// most `alert`, normal from `a` to `b` (module documentation). The reference face is
/// `a`'s unless `b`'s separates better by more than 1e-9 of the size, so that the same face
/// is chosen from step to step for two faces lying on each other.
pub fn polygon_polygon(a: &[DVec2], b: &[DVec2], alert: f64) -> ContactPoints {
    let (sa, fa) = max_separation(a, b);
    if sa > alert {
        return ContactPoints::default();
    }
    let (sb, fb) = max_separation(b, a);
    if sb > alert {
        return ContactPoints::default();
    }
    let scale = (a[0] - a[a.len() / 2]).length().max((b[0] - b[b.len() / 2]).length());
    if sb > sa + 1e-9 * scale {
        clip_faces(b, fb, a, alert).flipped()
    } else {
        clip_faces(a, fa, b, alert)
    }
}

/// The contact points of the reference face `face` of `reference` with the incident face
/// of `incident`; the normal is the reference face's outward normal.
fn clip_faces(reference: &[DVec2], face: usize, incident: &[DVec2], alert: f64) -> ContactPoints {
    let mut out = ContactPoints::default();
    let (p1, p2) = (reference[face], reference[(face + 1) % reference.len()]);
    let normal = outward(p1, p2);
    let ni = incident.len();
    let inc = (0..ni)
        .min_by(|&x, &y| {
            let d = |k: usize| outward(incident[k], incident[(k + 1) % ni]).dot(normal);
            d(x).total_cmp(&d(y))
        })
        .unwrap_or(0);
    let mut add = |c: DVec2| {
        let gap = (c - p1).dot(normal);
        if gap <= alert {
            out.push(ContactPoint { point: c - normal * (0.5 * gap), normal, gap });
        }
    };
    match clip_segment(incident[inc], incident[(inc + 1) % ni], p1, p2) {
        Some((c1, c2)) => {
            add(c1);
            if (c2 - c1).length_squared() > 0.0 {
                add(c2);
            }
        }
        None => {
            // The incident face lies beside the reference face: its deepest vertex.
            let depth = |x: &DVec2| (*x - p1).dot(normal);
            let deepest = incident.iter().copied().min_by(|x, y| depth(x).total_cmp(&depth(y)));
            add(deepest.unwrap_or(incident[0]));
        }
    }
    out
}

/// The segment `c1`–`c2` clipped to the slab p1·t ≤ x·t ≤ p2·t of the face `p1`–`p2`
/// (t its direction), ends ordered along t; `None` when it lies outside the slab.
fn clip_segment(mut c1: DVec2, mut c2: DVec2, p1: DVec2, p2: DVec2) -> Option<(DVec2, DVec2)> {
    let tangent = (p2 - p1).normalize();
    let (lo, hi) = (p1.dot(tangent), p2.dot(tangent));
    let (mut t1, mut t2) = (c1.dot(tangent), c2.dot(tangent));
    if t1 > t2 {
        std::mem::swap(&mut c1, &mut c2);
        std::mem::swap(&mut t1, &mut t2);
    }
    if t2 < lo || t1 > hi {
        return None;
    }
    let at = |s: f64, x1: DVec2, x2: DVec2, s1: f64, s2: f64| x1 + (x2 - x1) * ((s - s1) / (s2 - s1));
    if t1 < lo {
        c1 = at(lo, c1, c2, t1, t2);
    }
    if t2 > hi {
        c2 = at(hi, c1, c2, t1.max(lo), t2);
    }
    Some((c1, c2))
}

/// A polygon (`poly`, counter-clockwise, relative to a point of the wall's line) against
/// the wall's line with unit `normal` towards the free side: the deepest vertex and the
/// deeper of its two neighbours, each if its gap is at most `alert`, normal from the wall
/// to the polygon. The two are kept in vertex-index order (lower index in slot 0), so a
/// face lying on the wall keeps its slots from step to step.
pub fn half_plane_polygon(normal: DVec2, poly: &[DVec2], alert: f64) -> ContactPoints {
    let mut out = ContactPoints::default();
    let n = poly.len();
    let h = |k: usize| poly[k].dot(normal);
    let k = (1..n).fold(0, |k, m| if h(m) < h(k) { m } else { k });
    let (prev, next) = ((k + n - 1) % n, (k + 1) % n);
    let m = if h(prev) < h(next) { prev } else { next };
    for v in [k.min(m), k.max(m)] {
        let gap = h(v);
        if gap <= alert {
            out.push(ContactPoint { point: poly[v] - normal * (0.5 * gap), normal, gap });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pose::cross;

    /// Whether `p` lies inside or on the counter-clockwise outline `poly`.
    fn outline_contains(poly: &[DVec2], p: DVec2) -> bool {
        let n = poly.len();
        (0..n).all(|i| cross(poly[(i + 1) % n] - poly[i], p - poly[i]) >= -1e-15)
    }

    fn square(c: DVec2, h: f64) -> Vec<DVec2> {
        vec![c + DVec2::new(-h, -h), c + DVec2::new(h, -h), c + DVec2::new(h, h), c + DVec2::new(-h, h)]
    }

    #[test]
    fn stacked_squares_touch_at_both_corners() {
        // Unit squares, the upper one 1e-3 above and shifted by 0.25: the common part of
        // the faces runs from x = −0.25 to 0.5; gap 1e-3 at both ends (exact up to round-off).
        let a = square(DVec2::ZERO, 0.5);
        let b = square(DVec2::new(0.25, 1.001), 0.5);
        let c = polygon_polygon(&a, &b, 0.01);
        let p: Vec<_> = c.points.iter().flatten().collect();
        assert_eq!(p.len(), 2);
        for q in &p {
            assert!((q.gap - 1e-3).abs() < 1e-12 && (q.normal - DVec2::Y).length() < 1e-12, "{q:?}");
            // Half-way between the outlines: y = 0.5 + gap/2.
            assert!((q.point.y - 0.5005).abs() < 1e-12, "{q:?}");
        }
        let xs = [p[0].point.x.min(p[1].point.x), p[0].point.x.max(p[1].point.x)];
        assert!((xs[0] + 0.25).abs() < 1e-12 && (xs[1] - 0.5).abs() < 1e-12, "{xs:?}");
        // Swapped: the normal turns over.
        let c = polygon_polygon(&b, &a, 0.01);
        assert!(c.points.iter().flatten().all(|q| (q.normal + DVec2::Y).length() < 1e-12));
        // Beyond the alert distance: nothing.
        assert_eq!(polygon_polygon(&a, &b, 5e-4), ContactPoints::default());
    }

    #[test]
    fn corner_on_face_gives_one_point() {
        // A square turned by 45° whose lowest corner is 2e-3 above a face.
        let a = square(DVec2::ZERO, 0.5);
        let r = 0.5 * 2f64.sqrt();
        let b: Vec<DVec2> = (0..4)
            .map(|k| DVec2::new(0.1, 0.502 + r) + DVec2::from_angle(-0.5 * std::f64::consts::PI * (1.0 - k as f64)) * r)
            .collect();
        let c = polygon_polygon(&a, &b, 0.01);
        let p: Vec<_> = c.points.iter().flatten().collect();
        assert_eq!(p.len(), 1, "{p:?}");
        assert!((p[0].gap - 2e-3).abs() < 1e-12 && (p[0].point - DVec2::new(0.1, 0.501)).length() < 1e-12);
    }

    #[test]
    fn overlapping_squares_have_a_negative_gap() {
        // The upper square sunk 2e-3 into the lower one: gap −2e-3 at both ends, the point
        // 1e-3 below the lower square's top face, inside both outlines.
        let a = square(DVec2::ZERO, 0.5);
        let b = square(DVec2::new(0.0, 0.998), 0.5);
        let c = polygon_polygon(&a, &b, 0.0);
        assert_eq!(c.iter().count(), 2);
        for (_, q) in c.iter() {
            assert!((q.gap + 2e-3).abs() < 1e-12 && (q.point.y - 0.499).abs() < 1e-12, "{q:?}");
            assert!(outline_contains(&a, q.point) && outline_contains(&b, q.point));
        }
    }

    #[test]
    fn disc_against_polygon_edge_and_corner() {
        let a = square(DVec2::ZERO, 0.5);
        let c = polygon_disc(&a, DVec2::new(0.2, 0.8), 0.25, 0.1);
        let p = c.points[0].unwrap();
        assert!((p.gap - 0.05).abs() < 1e-12 && (p.normal - DVec2::Y).length() < 1e-12);
        // Beyond the corner (0.5, 0.5) along the diagonal.
        let c = polygon_disc(&a, DVec2::splat(0.5 + 0.3 / 2f64.sqrt()), 0.25, 0.1);
        let p = c.points[0].unwrap();
        assert!((p.gap - 0.05).abs() < 1e-12 && (p.normal - DVec2::splat(0.5f64.sqrt())).length() < 1e-12);
        // A centre inside, 0.1 below the top face: the top face, gap −0.1 − r.
        let c = polygon_disc(&a, DVec2::new(0.0, 0.4), 0.25, 0.0);
        let p = c.points[0].unwrap();
        assert!((p.gap + 0.35).abs() < 1e-12 && (p.normal - DVec2::Y).length() < 1e-12);
    }

    #[test]
    fn a_face_on_the_wall_gives_its_two_ends_in_vertex_order() {
        // A unit square 1e-3 above the line y = 0, tilted by 1e-6 rad: the bottom corners
        // (vertices 0 and 1) have gaps 1e-3 ∓ 5e-7.
        let s: Vec<DVec2> = square(DVec2::ZERO, 0.5).iter().map(|v| v.rotate(DVec2::from_angle(1e-6))).collect();
        let s: Vec<DVec2> = s.iter().map(|v| *v + DVec2::new(0.0, 0.501)).collect();
        let c = half_plane_polygon(DVec2::Y, &s, 0.01);
        let [Some(p0), Some(p1)] = c.points else { panic!("two points expected: {c:?}") };
        assert!((p0.gap - (1e-3 - 5e-7)).abs() < 1e-12 && (p1.gap - (1e-3 + 5e-7)).abs() < 1e-12, "{c:?}");
        assert!(p0.point.x < p1.point.x);
    }
}
