//! The point of a triangle nearest to a point, and the feature it lies on.

use granula_core::math::DVec3;

/// The feature of a triangle a nearest point lies on: its interior, an edge (k joins
/// corners k and k + 1 mod 3) or a corner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Nearest {
    /// Inside the triangle.
    Face,
    /// On edge k, between its ends.
    Edge(u8),
    /// At corner k.
    Corner(u8),
}

/// The point of triangle `abc` nearest to `p`, and its feature: the Voronoi regions of the
/// corners, then of the edges, tested with the barycentric signs of Ericson, *Real-Time
/// Collision Detection* (2005), §5.1.5 ("Closest point on triangle to point"), which need no
/// normal and stay defined for any triangle of non-zero area.
pub(crate) fn nearest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> (DVec3, Nearest) {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Nearest::Corner(0));
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Nearest::Corner(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (a + ab * v, Nearest::Edge(0));
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Nearest::Corner(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        // Edge c-a is edge 2 (corner 2 to corner 0).
        return (a + ac * w, Nearest::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, Nearest::Edge(1));
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    (a + ab * v + ac * w, Nearest::Face)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_region_of_a_triangle() {
        let (a, b, c) = (DVec3::ZERO, DVec3::X, DVec3::Y);
        let at = |x: f64, y: f64| nearest_on_triangle(DVec3::new(x, y, 0.7), a, b, c);
        let (q, inside) = at(0.2, 0.2);
        // The barycentric weights 0.2 are rounded: the point to an ulp.
        assert!(inside == Nearest::Face && (q - DVec3::new(0.2, 0.2, 0.0)).length() < 1e-16, "{q}");
        assert_eq!(at(-1.0, -1.0), (a, Nearest::Corner(0)));
        assert_eq!(at(2.0, -0.5), (b, Nearest::Corner(1)));
        assert_eq!(at(-0.5, 2.0), (c, Nearest::Corner(2)));
        assert_eq!(at(0.5, -1.0), (DVec3::new(0.5, 0.0, 0.0), Nearest::Edge(0)));
        assert_eq!(at(1.0, 1.0), (DVec3::new(0.5, 0.5, 0.0), Nearest::Edge(1)));
        assert_eq!(at(-1.0, 0.25), (DVec3::new(0.0, 0.25, 0.0), Nearest::Edge(2)));
    }
}
