//! Contact geometry (the narrowphase): for a candidate pair, the contact points, normals,
//! gaps and branch vectors, reported when the gap is at most a margin so that incipient
//! contacts (g > 0) exist for contact dynamics.
//!
//! One file per built-in shape pair; a host adds a pair through a [`ContactGenerator`]
//! registered in the world's [`Narrowphase`] (see `registry.rs`). The normal always points
//! from the first body of the call to the second.

mod memory;
mod registry;
mod sphere_cylinder;
mod sphere_plane;
mod sphere_sphere;

pub use memory::PairMemory;
pub use registry::{ContactGenerator, DegenerateGeometry, Narrowphase, NarrowphaseError, PosedShape, Route, ShapeKind};
pub use sphere_cylinder::sphere_cylinder;
pub use sphere_plane::sphere_plane;
pub use sphere_sphere::sphere_sphere;

use crate::body_set::BodySet;
use crate::contact::ContactGeometry;
use crate::error::Result;
use crate::math::DVec3;
use crate::shape::Shape;

impl ContactGeometry {
    /// The same contact seen with the bodies swapped.
    #[inline]
    pub fn swapped(self) -> Self {
        ContactGeometry { normal: -self.normal, branch1: self.branch2, branch2: self.branch1, ..self }
    }
}

/// Contact between bodies `i` and `j` of `bodies` (normal from `i` to `j`) for the built-in
/// pairs, or `None` when the gap exceeds `margin`. A world's full dispatch, host pairs
/// included, is [`Narrowphase::collide`].
///
/// Errors: [`CoreError::DegenerateContact`](crate::CoreError::DegenerateContact) when the
/// geometry is undefined (concentric spheres, a sphere on the axis of a cylinder it
/// overlaps), and [`CoreError::UnsupportedPair`](crate::CoreError::UnsupportedPair) for
/// shape pairs without built-in geometry (two walls, custom shapes).
pub fn collide(bodies: &BodySet, i: usize, j: usize, margin: f64) -> Result<Option<ContactGeometry>> {
    Ok(collide_builtin(bodies, i, j, margin)?)
}

/// The built-in pairs, matched inline (no virtual call).
#[inline]
pub(crate) fn collide_builtin(
    bodies: &BodySet,
    i: usize,
    j: usize,
    margin: f64,
) -> std::result::Result<Option<ContactGeometry>, NarrowphaseError> {
    collide_builtin_at(bodies, i, j, bodies.position[j], margin)
}

/// [`collide_builtin`] with body `j` at position `xj` instead of its own (a periodic image).
#[inline]
pub(crate) fn collide_builtin_at(
    bodies: &BodySet,
    i: usize,
    j: usize,
    xj: DVec3,
    margin: f64,
) -> std::result::Result<Option<ContactGeometry>, NarrowphaseError> {
    let xi = bodies.position[i];
    let degenerate = |reason| NarrowphaseError::Degenerate { body1: bodies.handle[i], body2: bodies.handle[j], reason };
    let result = match (&bodies.shape[i], &bodies.shape[j]) {
        (Shape::Sphere { radius: ri }, Shape::Sphere { radius: rj }) => sphere_sphere(xi, *ri, xj, *rj, margin),
        (Shape::Plane { normal }, Shape::Sphere { radius }) => {
            Ok(sphere_plane(xi, bodies.orientation[i] * *normal, xj, *radius, margin))
        }
        (Shape::Sphere { radius }, Shape::Plane { normal }) => {
            Ok(sphere_plane(xj, bodies.orientation[j] * *normal, xi, *radius, margin).map(ContactGeometry::swapped))
        }
        (Shape::Cylinder(c), Shape::Sphere { radius }) => {
            sphere_cylinder(xi, bodies.orientation[i], c, xj, *radius, margin)
        }
        (Shape::Sphere { radius }, Shape::Cylinder(c)) => {
            sphere_cylinder(xj, bodies.orientation[j], c, xi, *radius, margin).map(|g| g.map(ContactGeometry::swapped))
        }
        (a, b) => {
            return Err(NarrowphaseError::UnsupportedPair {
                body1: bodies.handle[i],
                shape1: a.name(),
                body2: bodies.handle[j],
                shape2: b.name(),
            })
        }
    };
    result.map_err(degenerate)
}

/// `true` when a contact between these shapes is worth testing: not two walls (planes,
/// cylinders, custom shapes whose [`CustomShape::is_wall`](crate::CustomShape::is_wall) is
/// `true`). Whether the pair has a geometry is [`Narrowphase::supports`].
#[inline]
pub fn can_touch(a: &Shape, b: &Shape) -> bool {
    let wall = |s: &Shape| match s {
        Shape::Plane { .. } | Shape::Cylinder(_) => true,
        Shape::Custom(c) => c.is_wall(),
        Shape::Sphere { .. } => false,
    };
    !(wall(a) && wall(b))
}
