//! Are two convex point sets farther apart than a margin? The Gilbert–Johnson–Keerthi
//! iteration (Gilbert, Johnson & Keerthi 1988) on the Minkowski difference D = A − B of
//! the two vertex sets (the bodies are their convex hulls), as a cheap early-out before the
//! contact search of a convex pair.
//!
//! Each iteration takes v, the point of the current simplex (a few points of D) closest to
//! the origin, and the support point s of D that minimises v·x. Since every point x of D
//! has v·x ≥ v·s, the bodies are at least v·s/|v| apart along u = v/|v|: when that exceeds
//! the margin the pair is proven apart, whatever the simplex was. The simplex only steers
//! the search toward the best direction, so the answer "apart" never depends on the
//! closest-point routine's round-off; the answer "not proven" (touching, overlapping, or
//! converged within the margin, or out of iterations) sends the pair to the full search.

use granula_core::math::DVec3;

/// Iterations before giving up (a pair of ~20-vertex bodies converges in a handful).
const MAX_ITERATIONS: usize = 24;

/// The point of `points` farthest along `dir` (its support point), O(n).
#[inline]
fn support(points: &[DVec3], dir: DVec3) -> DVec3 {
    let mut best = points[0];
    let mut best_dot = best.dot(dir);
    for &p in &points[1..] {
        let d = p.dot(dir);
        if d > best_dot {
            (best, best_dot) = (p, d);
        }
    }
    best
}

/// What the iteration proved about two convex point sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// Some direction separates the hulls by more than the margin.
    Separated,
    /// A tetrahedron of points of A − B encloses the origin: the hulls share a point
    /// (to the round-off of that enclosure test).
    Intersecting,
    /// Neither proven: touching, within the margin, or out of iterations.
    Undecided,
}

/// What can be proven about the convex hulls of `a` and `b` (same frame, non-empty): more
/// than `margin` apart (some direction u has min over the hull of A − B of u·x > margin),
/// intersecting, or neither. `start` is the first search direction (from b toward a, e.g.
/// the centre line); any non-zero vector works.
pub fn relation(a: &[DVec3], b: &[DVec3], margin: f64, start: DVec3) -> Relation {
    separated_by(|d| support(a, d), |d| support(b, d), margin, start)
}

/// Relative gap between the upper bound |v| and the lower bound v·s/|v| of the distance at
/// which [`separating_direction`] stops improving its direction: the direction it returns
/// then separates the sets by at least 99.9 % of their distance.
const CONVERGED: f64 = 1e-3;

/// A direction proving two convex sets, given by their support functions (`support_a(d)`:
/// the point of A farthest along d), more than `margin` apart: a unit vector u from A
/// toward B with max over A of u·a < min over B of u·b − margin, or the reason none was
/// found. `start` is the first search direction, from B toward A (any non-zero vector).
///
/// Unlike [`relation`], which stops at the first direction that proves the margin, the
/// iteration goes on until that direction separates the sets by nearly their distance
/// (within 0.1 % of their distance), so that a caller who keeps it for the next step, when the bodies
/// have moved a little, finds it still a proof as often as any direction can be.
pub fn separating_direction(
    support_a: impl Fn(DVec3) -> DVec3,
    support_b: impl Fn(DVec3) -> DVec3,
    margin: f64,
    start: DVec3,
) -> Result<DVec3, Relation> {
    let margin = margin.max(0.0);
    // The direction with the largest proven separation so far, and that separation.
    let (mut best, mut best_gap) = (DVec3::ZERO, f64::NEG_INFINITY);
    let mut simplex = [DVec3::ZERO; 4];
    let dir = if start.length_squared() > 0.0 { start } else { DVec3::X };
    simplex[0] = support_a(-dir) - support_b(dir);
    let gap = dir.dot(simplex[0]) / dir.length();
    if gap > best_gap {
        (best, best_gap) = (dir, gap);
    }
    let mut n = 1;
    let mut v = simplex[0];
    let mut relation = Relation::Undecided;
    for _ in 0..MAX_ITERATIONS {
        let vv = v.length_squared();
        if !(vv > 0.0) {
            break;
        }
        let s = support_a(-v) - support_b(v);
        let vs = v.dot(s);
        let gap = vs / vv.sqrt();
        if gap > best_gap {
            (best, best_gap) = (v, gap);
        }
        if vv - vs <= CONVERGED * vv {
            break;
        }
        simplex[n] = s;
        n += 1;
        v = closest(&mut simplex, &mut n);
        if n == 4 {
            relation = Relation::Intersecting;
            break;
        }
    }
    if best_gap > margin {
        Ok(-best.normalize())
    } else {
        Err(relation)
    }
}

/// The iteration over any two support functions (point of each set farthest along a
/// direction).
fn separated_by(
    support_a: impl Fn(DVec3) -> DVec3,
    support_b: impl Fn(DVec3) -> DVec3,
    margin: f64,
    start: DVec3,
) -> Relation {
    let margin = margin.max(0.0);
    let mut simplex = [DVec3::ZERO; 4];
    let dir = if start.length_squared() > 0.0 { start } else { DVec3::X };
    // The first point of D: a's point farthest toward b minus b's farthest toward a. Along
    // `dir` itself it is the smallest of D: the plane normal to the centre line separates
    // when that exceeds the margin (the usual case for neighbours of a packing).
    simplex[0] = support_a(-dir) - support_b(dir);
    let dd = dir.length_squared();
    if dir.dot(simplex[0]) > margin * dd.sqrt() {
        return Relation::Separated;
    }
    let mut n = 1;
    let mut v = simplex[0];
    for _ in 0..MAX_ITERATIONS {
        let vv = v.length_squared();
        if !(vv > 0.0) {
            return Relation::Undecided;
        }
        let s = support_a(-v) - support_b(v);
        let vs = v.dot(s);
        if vs > margin * vv.sqrt() {
            return Relation::Separated;
        }
        // No progress: v is (to round-off) the closest point of D, within the margin.
        if vv - vs <= 1e-12 * vv {
            return Relation::Undecided;
        }
        simplex[n] = s;
        n += 1;
        v = closest(&mut simplex, &mut n);
        if n == 4 {
            // The origin is inside the tetrahedron: overlap.
            return Relation::Intersecting;
        }
    }
    Relation::Undecided
}

/// The point of the simplex `s[..n]` closest to the origin; the simplex is reduced to the
/// smallest sub-simplex containing that point (n = 4 left only when the origin is inside).
fn closest(s: &mut [DVec3; 4], n: &mut usize) -> DVec3 {
    match *n {
        1 => s[0],
        2 => closest_segment(s, n),
        3 => closest_triangle(s, n),
        _ => closest_tetrahedron(s, n),
    }
}

fn closest_segment(s: &mut [DVec3; 4], n: &mut usize) -> DVec3 {
    let (a, b) = (s[0], s[1]);
    let ab = b - a;
    let t = -a.dot(ab);
    if t <= 0.0 {
        *n = 1;
        return a;
    }
    let len2 = ab.length_squared();
    if t >= len2 {
        s[0] = b;
        *n = 1;
        return b;
    }
    a + ab * (t / len2)
}

/// Closest point of triangle s[0..3] to the origin by its Voronoi regions (Ericson 2005,
/// §5.1.5), the simplex reduced to the region's feature.
fn closest_triangle(s: &mut [DVec3; 4], n: &mut usize) -> DVec3 {
    let (a, b, c) = (s[0], s[1], s[2]);
    let (ab, ac, ap) = (b - a, c - a, -a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        *n = 1;
        return a;
    }
    let bp = -b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        s[0] = b;
        *n = 1;
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        *n = 2;
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = -c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        s[0] = c;
        *n = 1;
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        s[1] = c;
        *n = 2;
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        s[0] = c;
        *n = 2;
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = va + vb + vc;
    if !(denom.abs() > 0.0) {
        // Degenerate (collinear) triangle: keep its longest edge.
        *n = 2;
        return closest_segment(s, n);
    }
    a + ab * (vb / denom) + ac * (vc / denom)
}

/// Closest point of tetrahedron s[0..4] to the origin: the nearest of the faces whose plane
/// has the origin outside (the side away from the fourth vertex); the origin inside when
/// there is none (n stays 4).
fn closest_tetrahedron(s: &mut [DVec3; 4], n: &mut usize) -> DVec3 {
    const FACES: [[usize; 4]; 4] = [[0, 1, 2, 3], [0, 1, 3, 2], [0, 2, 3, 1], [1, 2, 3, 0]];
    let mut best: Option<(f64, [DVec3; 4], usize, DVec3)> = None;
    for [i, j, k, l] in FACES {
        let (a, b, c, d) = (s[i], s[j], s[k], s[l]);
        let normal = (b - a).cross(c - a);
        let (side_origin, side_d) = (normal.dot(-a), normal.dot(d - a));
        // The origin strictly on the other side of this face from d (or d in the plane).
        if side_origin * side_d < 0.0 || (side_d == 0.0 && side_origin != 0.0) {
            let mut face = [a, b, c, DVec3::ZERO];
            let mut m = 3;
            let p = closest_triangle(&mut face, &mut m);
            let dist = p.length_squared();
            if best.is_none_or(|(bd, ..)| dist < bd) {
                best = Some((dist, face, m, p));
            }
        }
    }
    match best {
        Some((_, face, m, p)) => {
            *s = face;
            *n = m;
            p
        }
        None => DVec3::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn separated(a: &[DVec3], b: &[DVec3], margin: f64, start: DVec3) -> bool {
        relation(a, b, margin, start) == Relation::Separated
    }

    fn cube(centre: DVec3, h: f64) -> Vec<DVec3> {
        let mut v = Vec::new();
        for i in 0..8 {
            let s = DVec3::new([-1.0, 1.0][i & 1], [-1.0, 1.0][(i >> 1) & 1], [-1.0, 1.0][(i >> 2) & 1]);
            v.push(centre + s * h);
        }
        v
    }

    #[test]
    fn cubes_apart_touching_and_overlapping() {
        let a = cube(DVec3::ZERO, 0.5);
        // Face to face, 0.1 apart: proven apart for margins below 0.1, not above.
        let b = cube(DVec3::new(1.1, 0.0, 0.0), 0.5);
        assert!(separated(&a, &b, 0.0, DVec3::X));
        assert!(separated(&a, &b, 0.09, DVec3::Y));
        assert!(!separated(&a, &b, 0.11, DVec3::Z));
        // Edge to edge across a diagonal: gaps of 0.1 on x and on y, so the distance is
        // √(0.1² + 0.1²) = 0.14142, along (1, 1, 0), a direction no face normal gives.
        let c = cube(DVec3::new(1.1, 1.1, 0.0), 0.5);
        assert!(separated(&a, &c, 0.14, DVec3::Z));
        assert!(!separated(&a, &c, 0.1415, DVec3::Z));
        // Overlapping and coincident.
        assert!(!separated(&a, &cube(DVec3::new(0.9, 0.2, 0.0), 0.5), 0.0, DVec3::X));
        assert!(!separated(&a, &a, 0.0, DVec3::ZERO));
    }

    #[test]
    fn random_point_clouds_agree_with_the_distance_by_brute_force() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut proven = 0;
        for _ in 0..400 {
            let cloud = |rng: &mut rand_chacha::ChaCha8Rng, c: DVec3| -> Vec<DVec3> {
                (0..10).map(|_| c + DVec3::new(rng.random(), rng.random(), rng.random()) - 0.5).collect()
            };
            let a = cloud(&mut rng, DVec3::ZERO);
            let offset =
                DVec3::new(rng.random_range(-1.6..1.6), rng.random_range(-1.6..1.6), rng.random_range(-1.6..1.6));
            let b = cloud(&mut rng, offset);
            let margin = rng.random_range(0.0..0.2);
            // A proof of separation implies that no point of A is within the margin of a
            // point of B (a necessary condition, checked by brute force).
            if separated(&a, &b, margin, offset) {
                proven += 1;
                for p in &a {
                    for q in &b {
                        assert!((*p - *q).length() > margin);
                    }
                }
            }
        }
        // The cloud offsets are mostly beyond contact: a good share must be proven apart.
        assert!(proven > 100, "only {proven} of 400 pairs proven apart");
    }
}
