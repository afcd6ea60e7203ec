//! Is a point inside a body? Ray parity, as 003 §4 describes (after O'Rourke 1998), and the
//! nearest point of the surface, which gives the penetration depth and the contact normal.
//!
//! **Robustness.** A ray from the point is tested against the faces the hierarchy lets
//! through. Each ray–triangle test reports a clean crossing, a miss, the point lying on
//! the face (distance along the ray below the tolerance: the point is *on the surface*,
//! the seed's point R), or a *degenerate* hit: the ray passes within a barycentric
//! tolerance of an edge or a vertex, or runs in the face's plane. A degenerate hit may be
//! counted once, twice or not at all, so the ray is abandoned and another one is cast in
//! the next direction of a fixed spiral ([`ray_direction`]). The first ray without a degenerate hit
//! decides: its parity is the answer, exactly as "odd for all rays" would be (all clean
//! rays agree for a closed mesh). If every ray of the set were degenerate (never seen; it
//! takes a point on many edges at once), the generalised winding number (the sum of the
//! faces' solid angles, Van Oosterom & Strackee 1983) decides instead: it is 1 inside, 0
//! outside, and continuous elsewhere, with no degenerate direction.

use crate::bvh::{box_dist2, ray_hits_box};
use crate::polyhedron::Polyhedron;
use granula_core::math::DVec3;

/// Where a point lies relative to a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointClass {
    /// Strictly inside (farther than the tolerance from the surface along the ray).
    Inside,
    /// On the surface, within the tolerance: 1e-9 × the bounding radius.
    OnSurface,
    /// Strictly outside.
    Outside,
}

/// Barycentric tolerance under which a ray counts as passing through an edge or a vertex.
pub const EDGE_TOLERANCE: f64 = 1e-9;

/// Distance tolerance, relative to the body's bounding radius.
pub const SURFACE_TOLERANCE: f64 = 1e-9;

/// Number of ray directions tried before the winding-number fallback.
pub const RAY_ATTEMPTS: usize = 8;

/// The k-th ray direction: points of a golden-angle (Fibonacci) spiral on the unit sphere,
/// rotated by an irrational phase so that none lies along a coordinate axis or in a
/// coordinate plane, where built-in meshes have their edges.
pub fn ray_direction(k: usize) -> DVec3 {
    const GOLDEN_ANGLE: f64 = 2.399_963_229_728_653;
    let z = 0.93 - 1.7 * (k as f64 + 0.5) / RAY_ATTEMPTS as f64;
    let phi = 0.377_777 + GOLDEN_ANGLE * k as f64;
    let s = (1.0 - z * z).sqrt();
    DVec3::new(s * phi.cos(), s * phi.sin(), z)
}

/// Outcome of one ray–triangle test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RayHit {
    /// The ray misses the triangle.
    Miss,
    /// A clean crossing at this distance.
    Cross,
    /// The origin lies on the triangle.
    Origin,
    /// Through an edge or a vertex, or in the triangle's plane: do not count.
    Degenerate,
}

/// Ray–triangle test (Möller & Trumbore 1997) with the tolerances above; `d` is unit,
/// `eps` a distance.
pub fn ray_triangle(o: DVec3, d: DVec3, [a, b, c]: [DVec3; 3], eps: f64) -> RayHit {
    let (e1, e2) = (b - a, c - a);
    let p = d.cross(e2);
    let det = e1.dot(p);
    let s = o - a;
    if det * det <= 1e-24 * e1.length_squared() * e2.length_squared() {
        // Parallel to the plane: a hit only if the ray runs in it.
        let n = e1.cross(e2).normalize();
        return if n.dot(s).abs() <= eps { RayHit::Degenerate } else { RayHit::Miss };
    }
    let inv = 1.0 / det;
    let u = s.dot(p) * inv;
    let q = s.cross(e1);
    let v = d.dot(q) * inv;
    let w = 1.0 - u - v;
    let t = e2.dot(q) * inv;
    let tol = EDGE_TOLERANCE;
    if u < -tol || v < -tol || w < -tol || t < -eps {
        return RayHit::Miss;
    }
    if t <= eps {
        RayHit::Origin
    } else if u < tol || v < tol || w < tol {
        RayHit::Degenerate
    } else {
        RayHit::Cross
    }
}

/// Classifies `p` (body frame) by ray parity (003 §4).
pub fn classify(poly: &Polyhedron, p: DVec3) -> PointClass {
    classify_counted(poly, p).0
}

/// As [`classify`], also returning the number of rays tried: more than 1 means a ray met an
/// edge or a vertex and was cast again; 0 means the winding number decided. A point outside
/// the bounding box is decided without a ray and counts as 1.
pub fn classify_counted(poly: &Polyhedron, p: DVec3) -> (PointClass, usize) {
    let eps = SURFACE_TOLERANCE * poly.bounding_radius();
    let bounds = poly.local_aabb();
    if box_dist2(&bounds, p) > eps * eps {
        return (PointClass::Outside, 1);
    }
    for k in 0..RAY_ATTEMPTS {
        let d = ray_direction(k);
        let inv = d.recip();
        let mut crossings = 0usize;
        let mut verdict = None;
        poly.bvh().visit(
            |b| ray_hits_box(&b.inflated(eps), p, inv, f64::INFINITY),
            |f| match ray_triangle(p, d, poly.triangle(f), eps) {
                RayHit::Miss => true,
                RayHit::Cross => {
                    crossings += 1;
                    true
                }
                RayHit::Origin => {
                    verdict = Some(Some(PointClass::OnSurface));
                    false
                }
                RayHit::Degenerate => {
                    verdict = Some(None);
                    false
                }
            },
        );
        match verdict {
            Some(Some(class)) => return (class, k + 1),
            Some(None) => continue,
            None => {
                let class = if crossings % 2 == 1 { PointClass::Inside } else { PointClass::Outside };
                return (class, k + 1);
            }
        }
    }
    let w = winding_number(poly, p);
    (if w > 0.5 { PointClass::Inside } else { PointClass::Outside }, 0)
}

/// Generalised winding number of the surface about `p`: Σ Ω_f / 4π over the faces, Ω_f
/// the signed solid angle of face f seen from p (Van Oosterom & Strackee 1983). 1 inside,
/// 0 outside a closed outward mesh. O(F): the fallback of [`classify`], and an
/// independent check in tests.
pub fn winding_number(poly: &Polyhedron, p: DVec3) -> f64 {
    let mut total = 0.0;
    for f in 0..poly.faces().len() as u32 {
        let [a, b, c] = poly.triangle(f).map(|x| x - p);
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let num = a.dot(b.cross(c));
        let den = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
        total += 2.0 * num.atan2(den);
    }
    total / (4.0 * std::f64::consts::PI)
}

/// The point of the surface nearest to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfacePoint {
    /// The face it lies on.
    pub face: u32,
    /// The point itself, body frame.
    pub point: DVec3,
    /// Its distance to the query point.
    pub distance: f64,
}

/// The nearest point of the surface to `p` (body frame), exact, by branch and bound over
/// the face hierarchy.
pub fn nearest_surface(poly: &Polyhedron, p: DVec3) -> SurfacePoint {
    let (face, d2) = poly.bvh().nearest(p, |f| (closest_on_triangle(p, poly.triangle(f)) - p).length_squared());
    let point = closest_on_triangle(p, poly.triangle(face));
    SurfacePoint { face, point, distance: d2.sqrt() }
}

/// The point of triangle (a, b, c) nearest to `p`, by the Voronoi regions of its vertices,
/// edges and interior (Ericson 2005, §5.1.5).
pub fn closest_on_triangle(p: DVec3, [a, b, c]: [DVec3; 3]) -> DVec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    a + ab * (vb * denom) + ac * (vc * denom)
}

#[cfg(test)]
mod tests;
