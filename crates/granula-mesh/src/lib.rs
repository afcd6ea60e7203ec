//! Triangle-mesh walls for granula: hoppers, drums with lifters, chutes, any fixed
//! boundary drawn in a CAD program and exported as a triangle mesh.
//!
//! - [`TriangleMesh`]: a mesh, open or closed, checked and repaired on construction
//!   ([`MeshOptions`]: scale, merging of duplicate vertices, zero-area triangles dropped
//!   and listed in its [`MeshReport`] or refused), with its edges, smooth regions and a
//!   bounding-volume hierarchy ([`TriangleMesh::triangles_near`]).
//! - [`read_mesh`], [`read_stl`] (ASCII or binary), [`read_obj`]: mesh files, through the
//!   parsers of `granula-polyhedra`; errors ([`MeshError`]) name the file, the triangle
//!   and its line.
//! - [`MeshWall`]: a mesh as a core `CustomShape` that is a wall; [`MeshWallBuilder`]: its
//!   body, placed by a position and an orientation, fixed or moving with prescribed
//!   velocities (core drives: a rotation, an orbit, a vibration, a table, a belt).
//! - [`sphere_mesh`]: the contacts of a sphere with a mesh wall, one per contact patch
//!   (local minima of the distance over the surface, one feature key per smooth region);
//!   [`MeshSphere`] is its narrowphase generator and [`register_all`] registers it.
//! - [`polyhedron_mesh`]: the contacts of a polyhedron (`granula_polyhedra`) with a mesh
//!   wall, the points a polyhedron gets against a plane (its vertices below a smooth
//!   region, keyed by vertex and region) and against a polyhedron (the mesh's sharp convex
//!   corners inside it, crossings of its edges with the mesh's sharp convex edges);
//!   [`MeshPolyhedron`] is its generator, also registered by [`register_all`], and
//!   [`PolyhedronMeshKey`] tells what a point's key stands for.
//!
//! A V-shaped trough as a wall of a world, and a sphere above it:
//!
//! ```
//! use granula_core::prelude::*;
//! use granula_mesh::{register_all, MeshOptions, MeshWallBuilder, TriangleMesh};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Two 45° slopes meeting along the y axis (a real file: granula_mesh::read_mesh).
//! let v = [(-1.0, -1.0, 1.0), (-1.0, 1.0, 1.0), (0.0, -1.0, 0.0), (0.0, 1.0, 0.0), (1.0, -1.0, 1.0), (1.0, 1.0, 1.0)];
//! let vertices = v.iter().map(|&(x, y, z)| DVec3::new(x, y, z)).collect();
//! let trough = TriangleMesh::new(vertices, vec![[0, 2, 3], [0, 3, 1], [2, 4, 5], [2, 5, 3]], &MeshOptions::default())?;
//!
//! let mut narrowphase = Narrowphase::new();
//! register_all(&mut narrowphase)?;
//! let mut world = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).narrowphase(narrowphase).build()?;
//! world.insert(MeshWallBuilder::new(trough, DVec3::ZERO).build()?)?;
//! let ball = world.insert(SphereBuilder::new(0.05, DVec3::new(0.02, 0.0, 0.3)).build()?)?;
//! # Ok(())
//! # }
//! ```
//!
//! See `docs/meshes.md` for the contact rule and why, and the limits.

mod closest;
mod error;
mod mesh;
mod polyhedron;
mod read;
mod register;
mod sphere;
mod topology;
mod wall;
mod weld;

pub use error::{MeshError, Result, TrianglePlace};
/// Where a triangle is in its file (line or bytes), as [`TrianglePlace::origin`] gives it.
pub use granula_polyhedra::TriangleOrigin;
pub use mesh::{DegenerateTriangles, DroppedTriangle, MeshOptions, MeshReport, TriangleMesh, MAX_TRIANGLES};
pub use polyhedron::{polyhedron_mesh, MeshPolyhedron, PolyhedronMeshKey};
pub use read::{read_mesh, read_obj, read_stl};
pub use register::register_all;
pub use sphere::{sphere_mesh, MeshSphere};
pub use wall::{MeshWall, MeshWallBuilder, MESH_WALL};
