//! Contact points with signed gaps for contact dynamics: rigid bodies do not overlap (or
//! barely), so a contact is a point, a unit normal and the gap g along it (negative when
//! the outlines overlap), found while the bodies are still apart, within an alert
//! distance (004 §2.3.3.2, the "managing interactions" of the intermediate configuration).
//!
//! - disc–disc: the line of centres, g = |d| − rᵢ − rⱼ;
//! - disc–polygon: the nearest point of the outline to the centre (or, for a centre inside,
//!   the face of least penetration), g = distance − r;
//! - polygon–polygon: the separating axis of largest separation among the faces of both
//!   (in 2D a face normal always separates two disjoint convex polygons), the face giving
//!   it is the reference face, the face of the other polygon most opposed to it is the
//!   incident face, and the incident face clipped to the reference face's extent gives at
//!   most **two** points: the ends of the common part of the two faces when they are
//!   parallel (a square resting flat is held at both corners and cannot rock), the
//!   incident corner otherwise (its far end has a gap beyond the alert distance);
//! - body–wall: the deepest vertex of a polygon and the deeper of its two neighbours (the
//!   two ends of a face lying on the wall), the nearest point of a disc.
//!
//! Each point is placed half-way between the two outlines along the normal, so the branch
//! vectors of both bodies end at the same point whichever body is the reference.

use glam::DVec2;

/// One contact point of a pair, in the frame of body i (its centre at the origin).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ContactPoint {
    /// The contact point relative to body i's centre (m).
    pub point: DVec2,
    /// Unit normal from body i to body j.
    pub normal: DVec2,
    /// Signed gap (m): distance between the outlines along the normal, < 0 on overlap.
    pub gap: f64,
}

/// Up to two contact points.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ContactPoints {
    pub points: [Option<ContactPoint>; 2],
}

impl ContactPoints {
    fn push(&mut self, p: ContactPoint) {
        if self.points[0].is_none() {
            self.points[0] = Some(p);
        } else {
            self.points[1] = Some(p);
        }
    }

    fn flipped(mut self) -> Self {
        for p in self.points.iter_mut().flatten() {
            p.normal = -p.normal;
        }
        self
    }
}

/// Outward unit normal of the edge from `a` to `b` of a counter-clockwise outline.
#[inline]
fn outward(a: DVec2, b: DVec2) -> DVec2 {
    let e = b - a;
    DVec2::new(e.y, -e.x).normalize()
}

/// Two discs: body i at the origin (radius `ri`), body j at `d` (radius `rj`).
pub(crate) fn disc_disc(ri: f64, d: DVec2, rj: f64, alert: f64) -> ContactPoints {
    let mut out = ContactPoints::default();
    let dist = d.length();
    let gap = dist - ri - rj;
    if gap > alert || dist == 0.0 {
        return out;
    }
    let normal = d / dist;
    out.push(ContactPoint { point: normal * (ri + 0.5 * gap), normal, gap });
    out
}

/// A polygon (world-frame vertices `poly`, counter-clockwise, relative to body i's centre)
/// and a disc centred at `c` with radius `r`; normal from the polygon to the disc.
pub(crate) fn polygon_disc(poly: &[DVec2], c: DVec2, r: f64, alert: f64) -> ContactPoints {
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
        let d = d_best.sqrt();
        ((q_best), (c - q_best) / d, d - r)
    };
    if gap > alert {
        return out;
    }
    out.push(ContactPoint { point: surface + normal * (0.5 * gap), normal, gap });
    out
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

/// Two polygons given by their world-frame vertices relative to body i's centre
/// (counter-clockwise); normal from i to j. See the module documentation.
pub(crate) fn polygon_polygon(a: &[DVec2], b: &[DVec2], alert: f64) -> ContactPoints {
    let (sa, fa) = max_separation(a, b);
    if sa > alert {
        return ContactPoints::default();
    }
    let (sb, fb) = max_separation(b, a);
    if sb > alert {
        return ContactPoints::default();
    }
    // Prefer body i's face unless j's separates clearly better: the same face is chosen
    // from step to step for two faces lying on each other.
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
    let nr = reference.len();
    let (p1, p2) = (reference[face], reference[(face + 1) % nr]);
    let normal = outward(p1, p2);
    let ni = incident.len();
    let (mut best, mut inc) = (f64::INFINITY, 0);
    for k in 0..ni {
        let d = outward(incident[k], incident[(k + 1) % ni]).dot(normal);
        if d < best {
            best = d;
            inc = k;
        }
    }
    let (mut c1, mut c2) = (incident[inc], incident[(inc + 1) % ni]);
    let tangent = (p2 - p1).normalize();
    // Clip the incident segment to the slab p1·t ≤ x·t ≤ p2·t.
    let (lo, hi) = (p1.dot(tangent), p2.dot(tangent));
    let (s1, s2) = (c1.dot(tangent), c2.dot(tangent));
    let at = |s: f64, x1: DVec2, x2: DVec2, t1: f64, t2: f64| x1 + (x2 - x1) * ((s - t1) / (t2 - t1));
    let (mut t1, mut t2) = (s1, s2);
    let mut keep = true;
    if t1 > t2 {
        std::mem::swap(&mut c1, &mut c2);
        std::mem::swap(&mut t1, &mut t2);
    }
    if t2 < lo || t1 > hi {
        keep = false;
    } else {
        if t1 < lo {
            c1 = at(lo, c1, c2, t1, t2);
        }
        if t2 > hi {
            c2 = at(hi, c1, c2, t1.max(lo), t2);
        }
    }
    let mut add = |c: DVec2| {
        let gap = (c - p1).dot(normal);
        if gap <= alert {
            out.push(ContactPoint { point: c - normal * (0.5 * gap), normal, gap });
        }
    };
    if keep {
        add(c1);
        if (c2 - c1).length_squared() > 0.0 {
            add(c2);
        }
    } else {
        // The incident face lies beside the reference face: its deepest vertex.
        let deepest = incident
            .iter()
            .copied()
            .min_by(|x, y| (*x - p1).dot(normal).total_cmp(&(*y - p1).dot(normal)))
            .unwrap_or(incident[0]);
        add(deepest);
    }
    out
}

/// A body against a straight wall through the origin with unit normal `normal` (to the
/// free side): a disc of radius `r` centred at `c`, or a polygon by its world-frame
/// vertices (relative to the wall point). Points relative to the wall point, normal from
/// the wall to the body.
pub(crate) fn wall_disc(normal: DVec2, c: DVec2, r: f64, alert: f64) -> ContactPoints {
    let mut out = ContactPoints::default();
    let gap = c.dot(normal) - r;
    if gap <= alert {
        out.push(ContactPoint { point: c - normal * (r + 0.5 * gap), normal, gap });
    }
    out
}

/// See [`wall_disc`]; the deepest vertex and the deeper of its neighbours.
pub(crate) fn wall_polygon(normal: DVec2, poly: &[DVec2], alert: f64) -> ContactPoints {
    let mut out = ContactPoints::default();
    let n = poly.len();
    let h = |k: usize| poly[k].dot(normal);
    let mut k = 0;
    for m in 1..n {
        if h(m) < h(k) {
            k = m;
        }
    }
    let (prev, next) = ((k + n - 1) % n, (k + 1) % n);
    let m = if h(prev) < h(next) { prev } else { next };
    // Keep the order along the wall fixed (lower index first) for the warm start.
    let (first, second) = if k < m { (k, m) } else { (m, k) };
    for v in [first, second] {
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
        }
        let xs = [p[0].point.x.min(p[1].point.x), p[0].point.x.max(p[1].point.x)];
        assert!((xs[0] + 0.25).abs() < 1e-12 && (xs[1] - 0.5).abs() < 1e-12, "{xs:?}");
        // Swapped: the normal turns over.
        let c = polygon_polygon(&b, &a, 0.01);
        assert!(c.points.iter().flatten().all(|q| (q.normal + DVec2::Y).length() < 1e-12));
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
    fn disc_against_polygon_edge_and_corner() {
        let a = square(DVec2::ZERO, 0.5);
        let c = polygon_disc(&a, DVec2::new(0.2, 0.8), 0.25, 0.1);
        let p = c.points[0].unwrap();
        assert!((p.gap - 0.05).abs() < 1e-12 && (p.normal - DVec2::Y).length() < 1e-12);
        // Beyond the corner (0.5, 0.5) along the diagonal.
        let c = polygon_disc(&a, DVec2::splat(0.5 + 0.3 / 2f64.sqrt()), 0.25, 0.1);
        let p = c.points[0].unwrap();
        assert!((p.gap - 0.05).abs() < 1e-12 && (p.normal - DVec2::splat(0.5f64.sqrt())).length() < 1e-12);
    }
}
