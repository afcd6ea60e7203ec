//! How a scene gets polyhedral shapes without knowing polyhedra: the host (granula-run)
//! hands [`Scene::parse_with`](super::Scene::parse_with) a [`ShapeMaker`] that builds a
//! core custom shape from a [`ShapeSpec`] and registers its contact generators in a
//! world's narrowphase, and the wall shapes of `[[meshes]]` likewise. `granula-io` itself
//! depends on the core only.

use super::choices::PolyhedronContactKind;
use super::mesh_spec::MeshWallSpec;
use super::polyhedra_spec::ShapeSpec;
use glam::DQuat;
use granula_core::CustomShape;
use granula_core::{CoreError, Narrowphase};
use std::path::Path;
use std::sync::Arc;

/// A custom shape built for a scene.
#[derive(Clone, Debug)]
pub struct MadeShape {
    /// The shape in its body frame (principal axes, origin at the centre of mass).
    pub shape: Arc<dyn CustomShape>,
    /// The rotation from the body frame to the frame the shape was described in.
    pub rotation: DQuat,
    /// Radius of the bounding sphere about the centre of mass (m).
    pub radius: f64,
}

/// Builds the custom shapes of a scene's polyhedra.
pub trait ShapeMaker: Send + Sync + std::fmt::Debug {
    /// The shape of `spec`; mesh files are relative to `base`. The error is a sentence
    /// naming the parameter or the file at fault.
    fn make(&self, spec: &ShapeSpec, base: &Path) -> Result<MadeShape, String>;
    /// A random convex polyhedron of `points` hull points at radii in [0.7, 1] × `radius`,
    /// from `seed` (the same seed gives the same shape on every platform).
    fn random_convex(&self, points: u32, radius: f64, seed: u64) -> Result<MadeShape, String>;
    /// Registers the contact generators of the shapes in a world's narrowphase: point
    /// contacts, or overlap-volume contacts where `contacts` asks for them
    /// (`[solver] polyhedron_contacts`).
    fn register(&self, narrowphase: &mut Narrowphase, contacts: PolyhedronContactKind) -> Result<(), CoreError>;
    /// The wall shape of a `[[meshes]]` entry (a core custom shape whose
    /// [`CustomShape::is_wall`] is `true`, in the frame of its file, scaled by the entry's
    /// `scale`); its file is relative to `base`. The error is a sentence naming the file
    /// (and the line or triangle) at fault. The default builds none: a maker that knows no
    /// mesh walls refuses them.
    fn mesh_wall(&self, spec: &MeshWallSpec, base: &Path) -> Result<Arc<dyn CustomShape>, String> {
        let _ = (spec, base);
        Err("this scene reader builds no mesh walls".to_string())
    }
    /// Registers the contact generators of mesh walls in a world's narrowphase (called when
    /// the scene has `[[meshes]]`). The default registers nothing.
    fn register_mesh_walls(&self, narrowphase: &mut Narrowphase) -> Result<(), CoreError> {
        let _ = narrowphase;
        Ok(())
    }
}
