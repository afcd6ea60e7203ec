//! The polygon tables of the scene schema (planar scenes only): `[[polygons]]` (one body
//! each) and the shape of a lattice's polygon sites. Positions and velocities have two
//! components (x, y); the angle θ and the angular velocity θ̇ are about z.

use super::body_spec::MotionSpec;
use serde::{Deserialize, Serialize};

/// The outline of a convex polygon, by `kind`; sizes in m. The body frame's origin is the
/// outline's centroid.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PolygonShapeSpec {
    /// A regular polygon, its first vertex on the body's x axis.
    Regular {
        /// Number of sides, ≥ 3.
        sides: u32,
        /// Circumradius (m), > 0.
        radius: f64,
    },
    /// The convex hull given by its vertices (any order, no three collinear), placed at
    /// the body's `position` by its centroid.
    Vertices {
        /// The vertices `[[x, y], ...]` (m), relative to any origin.
        #[serde(deserialize_with = "super::exact::vec_of_arrays")]
        vertices: Vec<[f64; 2]>,
    },
    /// A seeded random convex polygon (`granula_polygons::shapes::random_convex`): vertices
    /// on the circle of `radius` at jittered angles, stretched by `elongation` along x. In a
    /// lattice every site draws its own vertex count in [`sides`, `sides_max`] and its own
    /// seed from the lattice's `seed`.
    Random {
        /// Fewest vertices, ≥ 3.
        sides: u32,
        /// Most vertices, ≥ `sides`; default `sides`.
        sides_max: Option<u32>,
        /// Radius of the circle of the vertices (m), > 0.
        radius: f64,
        /// Stretch along x, ≥ 1. Default 1.
        #[serde(default = "one")]
        elongation: f64,
        /// Seed of a single body's shape (a lattice draws its sites' seeds from its own
        /// `seed`). Default 0.
        #[serde(default)]
        seed: u64,
    },
}

fn one() -> f64 {
    1.0
}

/// `[[polygons]]`: one convex polygon of a planar scene (002 §2), a prism of unit
/// thickness (mass ρA, 002 eq. 1a, ρ the material's density in kg/m³ over 1 m).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PolygonSpec {
    /// Optional name.
    pub name: Option<String>,
    /// The outline.
    pub shape: PolygonShapeSpec,
    /// Centroid (x, y) (m).
    #[serde(deserialize_with = "super::exact::array")]
    pub position: [f64; 2],
    /// Angle θ about z (rad, counter-clockwise). Default 0.
    #[serde(default)]
    pub angle: f64,
    /// Initial (or kinematic) velocity (m/s). Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub velocity: [f64; 2],
    /// Initial (or kinematic) angular velocity θ̇ (rad/s). Default 0.
    #[serde(default)]
    pub angular_velocity: f64,
    /// Material name. Default: the first material.
    pub material: Option<String>,
    /// `"dynamic"` (default), `"fixed"` or `"kinematic"` (moves with its constant
    /// `velocity` and `angular_velocity`: a glued particle of a rough wall).
    #[serde(default)]
    pub motion: MotionSpec,
    /// Explicit mass (kg) instead of the material's density (the moment scales with it).
    pub mass: Option<f64>,
    /// Lock the rotation (the polygon only translates). Default false.
    #[serde(default)]
    pub lock_rotation: bool,
    /// Constant external force (N) in the plane. Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub force: [f64; 2],
}

/// `[[lattices]] arrangement`: how the sites are laid out.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ArrangementKind {
    /// Simple cubic: site (i, j, k) at origin + spacing (i, j, k).
    #[default]
    Cubic,
    /// Triangular (planar scenes only): row j, column i at
    /// origin + spacing ((i + (j mod 2)/2), j √3/2).
    Triangular,
}
