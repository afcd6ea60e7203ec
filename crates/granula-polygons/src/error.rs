//! The one error type of this crate.

use thiserror::Error;

/// Everything that can go wrong when building a polygon. Errors about the outline name
/// the vertex (its index in the list given) at fault.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PolygonError {
    /// Fewer than three vertices.
    #[error("a polygon needs at least 3 vertices, got {count}")]
    TooFewVertices {
        /// How many were given.
        count: usize,
    },
    /// A coordinate is NaN or infinite.
    #[error("vertex {vertex} has a non-finite coordinate")]
    NonFiniteVertex {
        /// Index of the vertex.
        vertex: usize,
    },
    /// Two consecutive vertices coincide (within 1e-12 of the polygon's size).
    #[error("vertex {vertex} coincides with the vertex before it")]
    DuplicateVertex {
        /// Index of the second of the two.
        vertex: usize,
    },
    /// The outline turns the wrong way (or not at all) at this vertex: the polygon is
    /// not strictly convex. A vertex on a straight edge is reported here too.
    #[error("the polygon is not strictly convex at vertex {vertex} (turn {cross:e}, relative to its size squared)")]
    NotConvex {
        /// Index of the vertex.
        vertex: usize,
        /// The cross product of the two edges at the vertex over the size squared.
        cross: f64,
    },
    /// Every vertex turns the same way but the outline winds around more than once (a
    /// star polygon): it intersects itself.
    #[error("the outline winds {turns} times around its interior: it intersects itself")]
    SelfIntersecting {
        /// Number of turns of the outline.
        turns: i64,
    },
    /// A parameter is outside its domain (a size, a count, a density).
    #[error("{name} = {value} is invalid: expected {expected}")]
    BadParameter {
        /// Which parameter.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What it should be.
        expected: &'static str,
    },
}

/// Result with this crate's error.
pub type Result<T> = std::result::Result<T, PolygonError>;
