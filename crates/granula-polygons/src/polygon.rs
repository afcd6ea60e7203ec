//! The convex polygon: a validated outline in its body frame, with its exact mass
//! properties.

use crate::error::{PolygonError, Result};
use crate::pose::{cross, Pose2};
use glam::DVec2;
use std::f64::consts::TAU;

/// Relative tolerance of the outline checks, against the polygon's size squared (areas)
/// or size (lengths). Far above round-off (1e-16) and far below any real particle detail.
const RELATIVE_TOLERANCE: f64 = 1e-12;

/// A strictly convex polygon in its body frame: counter-clockwise vertices, the origin at
/// its centroid (the centre of mass at uniform density). Built by
/// [`ConvexPolygon::from_vertices`], which checks the outline.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon {
    vertices: Vec<DVec2>,
    area: f64,
    polar_second_moment: f64,
    circumradius: f64,
}

impl ConvexPolygon {
    /// A polygon from its vertices in order, counter-clockwise or clockwise (a clockwise
    /// list is reversed), in any frame. Returns the polygon in its body frame and the
    /// centroid of the outline in the input frame (where to put the body to have it where
    /// the vertices were).
    ///
    /// Checks, each with an error naming the vertex: at least three vertices, finite
    /// coordinates, no two consecutive vertices within 1e-12 of the size, a strict turn the
    /// same way at every vertex (convex, no vertex on a straight edge), and an outline that
    /// winds once (a pentagram turns the same way at every vertex but winds twice).
    pub fn from_vertices(points: &[DVec2]) -> Result<(Self, DVec2)> {
        let n = points.len();
        if n < 3 {
            return Err(PolygonError::TooFewVertices { count: n });
        }
        if let Some(vertex) = points.iter().position(|p| !p.is_finite()) {
            return Err(PolygonError::NonFiniteVertex { vertex });
        }
        let (lo, hi) = points.iter().fold((points[0], points[0]), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        let size = (hi - lo).length();
        for i in 0..n {
            let previous = points[(i + n - 1) % n];
            if (points[i] - previous).length() <= RELATIVE_TOLERANCE * size {
                return Err(PolygonError::DuplicateVertex { vertex: i });
            }
        }
        // Orientation from the shoelace sum (twice the signed area).
        let twice_area: f64 = (0..n).map(|i| cross(points[i], points[(i + 1) % n])).sum();
        let orientation = twice_area.signum();
        let mut winding = 0.0;
        for i in 0..n {
            let before = points[i] - points[(i + n - 1) % n];
            let after = points[(i + 1) % n] - points[i];
            let turn = cross(before, after);
            if orientation * turn <= RELATIVE_TOLERANCE * size * size {
                return Err(PolygonError::NotConvex { vertex: i, cross: turn / (size * size) });
            }
            winding += (orientation * turn).atan2(before.dot(after));
        }
        let turns = (winding / TAU).round() as i64;
        if turns != 1 {
            return Err(PolygonError::SelfIntersecting { turns });
        }
        let mut outline: Vec<DVec2> = points.to_vec();
        if orientation < 0.0 {
            outline.reverse();
        }
        let centroid = centroid_of(&outline);
        for v in &mut outline {
            *v -= centroid;
        }
        Ok((Self::from_checked(outline), centroid))
    }

    /// A polygon from vertices already checked, counter-clockwise, centred on the origin.
    pub(crate) fn from_checked(vertices: Vec<DVec2>) -> Self {
        let n = vertices.len();
        let mut twice_area = 0.0;
        let mut twelve_j = 0.0;
        for i in 0..n {
            let (a, b) = (vertices[i], vertices[(i + 1) % n]);
            let c = cross(a, b);
            twice_area += c;
            twelve_j += c * (a.length_squared() + a.dot(b) + b.length_squared());
        }
        let circumradius = vertices.iter().map(|v| v.length()).fold(0.0, f64::max);
        Self { vertices, area: 0.5 * twice_area, polar_second_moment: twelve_j / 12.0, circumradius }
    }

    /// The vertices in the body frame, counter-clockwise, centroid at the origin.
    pub fn vertices(&self) -> &[DVec2] {
        &self.vertices
    }

    /// Area A (m²), by the shoelace formula ½ Σ pᵢ × pᵢ₊₁.
    pub fn area(&self) -> f64 {
        self.area
    }

    /// The radius of the disc of equal area, r = √(A/π): the length of 002 eq. 5's
    /// characteristic length l_c = rᵢ + rⱼ.
    pub fn equivalent_radius(&self) -> f64 {
        (self.area / std::f64::consts::PI).sqrt()
    }

    /// The largest distance from the centroid to a vertex (m): the radius of the bounding
    /// disc about the centre of mass.
    pub fn circumradius(&self) -> f64 {
        self.circumradius
    }

    /// Polar second moment of area about the centroid, J = ∫ |x|² dA (m⁴), exactly from the
    /// outline: J = 1/12 Σ (pᵢ × pᵢ₊₁)(|pᵢ|² + pᵢ·pᵢ₊₁ + |pᵢ₊₁|²) (Green's theorem over the
    /// triangles from the centroid).
    pub fn polar_second_moment(&self) -> f64 {
        self.polar_second_moment
    }

    /// Mass m = ρ A for an areal density ρ (kg/m²): the mass of 002 eq. 1a.
    pub fn mass(&self, areal_density: f64) -> f64 {
        areal_density * self.area
    }

    /// Moment of inertia about the centre of mass, I = ρ J (kg m²): the I of 002 eq. 1b.
    pub fn moment_of_inertia(&self, areal_density: f64) -> f64 {
        areal_density * self.polar_second_moment
    }

    /// The vertices in the world frame at `pose`, written into `out` (cleared first), so a
    /// caller reuses one buffer.
    pub fn world_vertices_into(&self, pose: &Pose2, out: &mut Vec<DVec2>) {
        out.clear();
        out.extend(self.vertices.iter().map(|&v| pose.to_world(v)));
    }

    /// The exact axis-aligned bounding box (min, max) of the polygon at `pose`.
    pub fn world_aabb(&self, pose: &Pose2) -> (DVec2, DVec2) {
        let first = pose.to_world(self.vertices[0]);
        self.vertices.iter().fold((first, first), |(lo, hi), &v| {
            let w = pose.to_world(v);
            (lo.min(w), hi.max(w))
        })
    }

    /// Whether a body-frame point is inside or on the outline: left of (or on) every
    /// counter-clockwise edge.
    pub fn contains(&self, p: DVec2) -> bool {
        let n = self.vertices.len();
        (0..n).all(|i| {
            let (a, b) = (self.vertices[i], self.vertices[(i + 1) % n]);
            cross(b - a, p - a) >= 0.0
        })
    }
}

/// Centroid of a simple polygon, (1/6A) Σ (pᵢ + pᵢ₊₁)(pᵢ × pᵢ₊₁).
pub(crate) fn centroid_of(points: &[DVec2]) -> DVec2 {
    let n = points.len();
    // Relative to the first vertex, so far-away polygons keep their digits.
    let origin = points[0];
    let mut twice_area = 0.0;
    let mut moment = DVec2::ZERO;
    for i in 0..n {
        let (a, b) = (points[i] - origin, points[(i + 1) % n] - origin);
        let c = cross(a, b);
        twice_area += c;
        moment += (a + b) * c;
    }
    origin + moment / (3.0 * twice_area)
}
