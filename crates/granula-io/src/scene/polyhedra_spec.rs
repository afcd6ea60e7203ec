//! The polyhedra tables of the scene schema: `[[polyhedra]]` (one body each) and the
//! `polyhedra` key of `[[packings]]` (random convex bodies in place of the spheres).

use super::body_spec::MotionSpec;
use serde::{Deserialize, Serialize};

/// The shape of a polyhedron, by `kind`. Sizes in m; built-ins are centred on their
/// centre of mass in their usual axes, mesh files are read as they lie (then moved to their
/// centre of mass).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ShapeSpec {
    /// A box with these edge lengths.
    Box {
        /// Edge lengths along x, y, z (m).
        #[serde(deserialize_with = "super::exact::array")]
        size: [f64; 3],
    },
    /// A cube of edge `size`.
    Cube {
        /// Edge (m).
        size: f64,
    },
    /// A regular tetrahedron of edge `size`.
    Tetrahedron {
        /// Edge (m).
        size: f64,
    },
    /// A regular octahedron of edge `size`.
    Octahedron {
        /// Edge (m).
        size: f64,
    },
    /// A regular icosahedron of edge `size`.
    Icosahedron {
        /// Edge (m).
        size: f64,
    },
    /// A regular dodecahedron of edge `size`.
    Dodecahedron {
        /// Edge (m).
        size: f64,
    },
    /// A right prism on a regular polygon.
    Prism {
        /// Sides of the polygon, ≥ 3.
        sides: u32,
        /// Circumradius of the polygon (m).
        radius: f64,
        /// Height (m).
        height: f64,
    },
    /// The non-convex L-shaped block of 003 §6 (three cubes of edge `size`).
    LBlock {
        /// Edge of each of the three cubes (m).
        size: f64,
    },
    /// The convex hull of `points` seeded random points at radii in [0.7, 1] × `radius`.
    RandomConvex {
        /// Largest radius of the points (m).
        radius: f64,
        /// Number of points, ≥ 4 (12 give about 20 faces).
        points: u32,
        /// Seed of the points.
        #[serde(default)]
        seed: u64,
    },
    /// An icosphere: the icosahedron subdivided `subdivisions` times (20·4ˢ faces).
    Icosphere {
        /// Radius (m).
        radius: f64,
        /// Subdivisions, at most 6.
        subdivisions: u32,
    },
    /// A triangle mesh given in the scene (closed, faces counter-clockwise seen from
    /// outside), read as it lies (then moved to its centre of mass), as a mesh file is.
    Mesh {
        /// The vertices `[[x, y, z], ...]` (m).
        #[serde(deserialize_with = "super::exact::vec_of_arrays")]
        vertices: Vec<[f64; 3]>,
        /// The triangles, three indices into `vertices` each (from 0).
        #[serde(deserialize_with = "super::exact::vec_of_arrays")]
        faces: Vec<[u32; 3]>,
    },
    /// A Wavefront OBJ mesh (closed, faces counter-clockwise seen from outside).
    Obj {
        /// Path, relative to the scene file's folder.
        file: String,
        /// Factor on the file's coordinates. Default 1.
        #[serde(default = "one")]
        scale: f64,
    },
    /// An STL mesh, ASCII or binary.
    Stl {
        /// Path, relative to the scene file's folder.
        file: String,
        /// Factor on the file's coordinates. Default 1.
        #[serde(default = "one")]
        scale: f64,
    },
}

fn one() -> f64 {
    1.0
}

/// `[[polyhedra]]`: one polyhedral body.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PolyhedronSpec {
    /// Optional name.
    pub name: Option<String>,
    /// The shape.
    pub shape: ShapeSpec,
    /// Centre of mass (m).
    #[serde(deserialize_with = "super::exact::array")]
    pub position: [f64; 3],
    /// Rotation vector (axis × angle, rad) turning the shape from its description. Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub rotation: [f64; 3],
    /// Initial velocity (m/s). Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub velocity: [f64; 3],
    /// Initial angular velocity (rad/s). Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub angular_velocity: [f64; 3],
    /// Material name. Default: the first material.
    pub material: Option<String>,
    /// `"dynamic"` (default) or `"fixed"` (a polyhedral obstacle).
    #[serde(default)]
    pub motion: MotionSpec,
}

/// The `polyhedra` key of `[[packings]]`: each placed sphere becomes a random convex
/// polyhedron inscribed in it (its own seed, drawn from the packing's), turned at random.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PackedPolyhedraSpec {
    /// Hull points per body, ≥ 4. Default 12 (about 20 faces).
    #[serde(default = "twelve")]
    pub points: u32,
}

fn twelve() -> u32 {
    12
}
