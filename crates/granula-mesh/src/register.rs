//! The registration of the mesh walls' contact generators in a narrowphase.

use crate::polyhedron::MeshPolyhedron;
use crate::sphere::MeshSphere;
use crate::wall::MESH_WALL;
use granula_core::narrowphase::{Narrowphase, ShapeKind};
use granula_core::CoreError;

/// Registers the contact generators of mesh walls in `narrowphase`: mesh wall–sphere
/// ([`MeshSphere`]) and mesh wall–polyhedron ([`MeshPolyhedron`], for the shapes of
/// `granula_polyhedra`). A world with mesh walls needs it before the first one is inserted
/// (`World::insert` names this call otherwise). Errors as [`Narrowphase::register`] does,
/// e.g. when a pair is registered already.
pub fn register_all(narrowphase: &mut Narrowphase) -> Result<(), CoreError> {
    narrowphase.register(ShapeKind::Custom(MESH_WALL), ShapeKind::Sphere, MeshSphere)?;
    narrowphase.register(ShapeKind::Custom(MESH_WALL), granula_polyhedra::POLYHEDRON, MeshPolyhedron)
}
