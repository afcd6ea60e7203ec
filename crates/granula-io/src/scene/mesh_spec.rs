//! `[[meshes]]`: a fixed wall made of a triangle mesh read from an STL or OBJ file.

use serde::{Deserialize, Serialize};

/// `[[meshes]]`: one mesh wall, a fixed body whose surface is the triangles of `file`
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
}

fn one() -> f64 {
    1.0
}
