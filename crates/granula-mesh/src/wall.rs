//! The mesh wall as a core shape, and the builder of its body (fixed or moving).

use crate::mesh::TriangleMesh;
use granula_core::math::{DQuat, DVec3};
use granula_core::{
    Aabb, CoreError, CustomShape, MassProperties, MaterialId, Prescribed, RigidBody, RigidBodyBuilder, Shape,
    SurfaceMesh,
};
use std::any::Any;
use std::sync::Arc;

/// The name of the mesh wall's shape kind, under which its contact generators are
/// registered ([`register_all`](crate::register_all)).
pub const MESH_WALL: &str = "mesh_wall";

/// A wall made of a triangle mesh: a core [`CustomShape`] whose body frame is the mesh's
/// frame. A point x of the mesh is at `position + orientation * x` in the world, so the
/// body's position and orientation place the mesh (its scale is the mesh's, set when it
/// was read: [`MeshOptions::scale`](crate::MeshOptions::scale)).
///
/// The shape is a wall ([`CustomShape::is_wall`]): it has no mass, touches no other wall,
/// and its surface has no inside: a sphere touches either side of a triangle. The mesh is
/// shared (`Arc`), so many walls of one mesh cost one copy.
#[derive(Clone, Debug)]
pub struct MeshWall {
    mesh: Arc<TriangleMesh>,
}

impl MeshWall {
    /// The wall of `mesh`.
    pub fn new(mesh: impl Into<Arc<TriangleMesh>>) -> Self {
        MeshWall { mesh: mesh.into() }
    }

    /// The mesh.
    pub fn mesh(&self) -> &TriangleMesh {
        &self.mesh
    }
}

impl CustomShape for MeshWall {
    fn name(&self) -> &'static str {
        MESH_WALL
    }

    /// The box of the mesh's box turned to the world: centre `position + R c`, half edges
    /// |R| h for the mesh box's centre c and half edges h (|R| the rotation matrix with
    /// absolute entries). It holds the mesh, costs O(1) whatever the number of triangles
    /// (solvers ask for it every step), and is the mesh's own box when the orientation is
    /// the identity or a quarter turn about an axis.
    fn aabb(&self, position: DVec3, orientation: DQuat) -> Aabb {
        let local = self.mesh.local_aabb();
        let c = 0.5 * (local.min + local.max);
        let h = 0.5 * (local.max - local.min);
        let m = granula_core::math::DMat3::from_quat(orientation);
        let abs = granula_core::math::DMat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs());
        Aabb::around(position + orientation * c, abs * h)
    }

    fn mass_properties(&self, _density: f64) -> Option<MassProperties> {
        None
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    /// The triangles, for outputs that draw bodies (an open surface is drawn as it is).
    fn surface(&self) -> Option<SurfaceMesh<'_>> {
        Some(SurfaceMesh { vertices: self.mesh.vertices(), triangles: self.mesh.triangles() })
    }

    /// The triangle nearest to the point ([`TriangleMesh::nearest_triangle`]).
    fn surface_face(&self, point: DVec3) -> Option<usize> {
        Some(self.mesh.nearest_triangle(point) as usize)
    }

    fn registration(&self) -> Option<&'static str> {
        Some("granula_mesh::register_all(&mut narrowphase)")
    }

    fn is_wall(&self) -> bool {
        true
    }
}

/// Builds the body of a mesh wall, placed by a position and an orientation: fixed, or
/// kinematic with prescribed velocities ([`MeshWallBuilder::kinematic`]).
///
/// ```
/// use granula_core::prelude::*;
/// use granula_mesh::{MeshOptions, MeshWallBuilder, TriangleMesh};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // A 1 m square of two triangles, turned to stand in the plane x = 0.5.
/// let square = TriangleMesh::new(
///     vec![DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y],
///     vec![[0, 1, 2], [0, 2, 3]],
///     &MeshOptions::default(),
/// )?;
/// let wall = MeshWallBuilder::new(square, DVec3::new(0.5, 0.0, 0.0))
///     .orientation(DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2))
///     .build()?;
/// assert_eq!(wall.shape().name(), "mesh_wall");
/// # Ok(())
/// # }
/// ```
#[must_use = "call build() to get the body"]
#[derive(Clone, Debug)]
pub struct MeshWallBuilder {
    wall: MeshWall,
    position: DVec3,
    orientation: DQuat,
    material: Option<MaterialId>,
    drive: Option<(Prescribed, Prescribed)>,
}

impl MeshWallBuilder {
    /// The wall of `mesh` with its frame's origin at `position` (world frame).
    pub fn new(mesh: impl Into<Arc<TriangleMesh>>, position: DVec3) -> Self {
        MeshWallBuilder {
            wall: MeshWall::new(mesh),
            position,
            orientation: DQuat::IDENTITY,
            material: None,
            drive: None,
        }
    }

    /// The orientation of the mesh's frame (default the identity).
    pub fn orientation(mut self, q: DQuat) -> Self {
        self.orientation = q;
        self
    }

    /// The wall's material (default the world's default material).
    pub fn material(mut self, m: MaterialId) -> Self {
        self.material = Some(m);
        self
    }

    /// A moving wall: the velocity of its position and its angular velocity about its
    /// position, prescribed functions of time (a rotating drum: a constant angular velocity
    /// with the position on the drum's axis, or an [`Orbit`](granula_core::Orbit) for the
    /// position when it is off the axis; a vibrating tray: an
    /// [`Oscillation`](granula_core::Oscillation); a belt: a
    /// [`SurfaceVelocity`](granula_core::SurfaceVelocity)). Contacts see the velocity of
    /// the wall's point they touch.
    pub fn kinematic(mut self, linear: Prescribed, angular: Prescribed) -> Self {
        self.drive = Some((linear, angular));
        self
    }

    /// The body, fixed unless [`MeshWallBuilder::kinematic`] was called. Errors: a
    /// non-finite position or an orientation that is not a finite unit quaternion
    /// ([`CoreError::InvalidBody`]).
    pub fn build(self) -> Result<RigidBody, CoreError> {
        let b = RigidBodyBuilder::new(Shape::Custom(Arc::new(self.wall)), self.position).orientation(self.orientation);
        let mut b = match self.drive {
            Some((linear, angular)) => b.kinematic(linear, angular),
            None => b.fixed(),
        };
        if let Some(m) = self.material {
            b = b.material(m);
        }
        b.build()
    }
}
