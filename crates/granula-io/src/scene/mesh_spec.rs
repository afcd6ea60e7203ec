//! `[[meshes]]`: a wall made of a triangle mesh read from an STL or OBJ file, fixed or
//! moving.

use serde::{Deserialize, Serialize};

/// `[[meshes]]`: one mesh wall, a fixed or kinematic body whose surface is the triangles of `file`
/// (open or closed, oriented either way). A point x of the file is at
/// `position + R(rotation) (scale · x)` in the world.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MeshWallSpec {
    /// Optional name.
    pub name: Option<String>,
    /// The STL (ASCII or binary) or OBJ file, relative to the scene file's folder.
    pub file: String,
    /// Factor on the file's coordinates (finite, > 0). Default 1.
    #[serde(default = "one")]
    pub scale: f64,
    /// Where the file's origin is placed (m). Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub position: [f64; 3],
    /// Rotation vector (axis × angle, rad) turning the file's frame. Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub rotation: [f64; 3],
    /// Material name. Default: the first material.
    pub material: Option<String>,
    /// Motion: `"fixed"` (default) or `"kinematic"`.
    #[serde(default = "super::body_spec::fixed")]
    pub motion: super::body_spec::MotionSpec,
    /// Velocity (m/s) of a kinematic mesh wall.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub velocity: [f64; 3],
    /// Angular velocity (rad/s) of a kinematic mesh wall, about `rotation_center`.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub angular_velocity: [f64; 3],
    /// Point of the rotation axis of a kinematic wall (m). Default: the wall's reference
    /// point.
    #[serde(default, deserialize_with = "super::exact::option_array")]
    pub rotation_center: Option<[f64; 3]>,
    /// Sinusoidal vibration of a kinematic wall, added to its other motions.
    pub vibration: Option<super::wall_motion::VibrationSpec>,
    /// Table of displacements of a kinematic wall, added to its other motions.
    pub path: Option<super::wall_motion::PathSpec>,
    /// Velocity of the surface of a kinematic wall that stays (a conveyor belt) (m/s).
    #[serde(default, deserialize_with = "super::exact::option_array")]
    pub surface_velocity: Option<[f64; 3]>,
}

fn one() -> f64 {
    1.0
}
