//! The shapes of the 2D mode: discs and convex polygons.

use granula_polygons::ConvexPolygon;
use std::f64::consts::PI;
use std::sync::Arc;

/// The shape of a body in the plane. Polygons are shared (`Arc`), so a packing of copies
/// of one outline stores it once.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape2 {
    /// A disc of the given radius (m).
    Disc {
        /// Radius (m).
        radius: f64,
    },
    /// A convex polygon in its body frame (origin at the centroid).
    Polygon(Arc<ConvexPolygon>),
}

impl Shape2 {
    /// Area (m²).
    pub fn area(&self) -> f64 {
        match self {
            Shape2::Disc { radius } => PI * radius * radius,
            Shape2::Polygon(p) => p.area(),
        }
    }

    /// Polar second moment of area about the centroid, J (m⁴): πr⁴/2 for a disc, exact
    /// from the outline for a polygon.
    pub fn polar_second_moment(&self) -> f64 {
        match self {
            Shape2::Disc { radius } => 0.5 * PI * radius.powi(4),
            Shape2::Polygon(p) => p.polar_second_moment(),
        }
    }

    /// The radius of the disc of equal area, r = √(A/π) (002 eq. 5's l_c = rᵢ + rⱼ).
    pub fn equivalent_radius(&self) -> f64 {
        match self {
            Shape2::Disc { radius } => *radius,
            Shape2::Polygon(p) => p.equivalent_radius(),
        }
    }

    /// The radius of the bounding disc about the centre of mass (m).
    pub fn circumradius(&self) -> f64 {
        match self {
            Shape2::Disc { radius } => *radius,
            Shape2::Polygon(p) => p.circumradius(),
        }
    }
}
