//! Contact geometry (the narrowphase): for a candidate pair, the contact point, normal,
//! gap and branch vectors, reported when the gap is at most a margin so that incipient
//! contacts (g > 0) exist for contact dynamics.
//!
//! One file per shape pair. The normal always points from the first body of the call to
//! the second.

mod sphere_cylinder;
mod sphere_plane;
mod sphere_sphere;

pub use sphere_cylinder::sphere_cylinder;
pub use sphere_plane::sphere_plane;
pub use sphere_sphere::sphere_sphere;

use crate::body_set::BodySet;
use crate::contact::ContactGeometry;
use crate::error::{CoreError, Result};
use crate::shape::Shape;

impl ContactGeometry {
    /// The same contact seen with the bodies swapped.
    #[inline]
    pub fn swapped(self) -> Self {
        ContactGeometry { normal: -self.normal, branch1: self.branch2, branch2: self.branch1, ..self }
    }
}

/// Contact between bodies `i` and `j` of `bodies` (normal from `i` to `j`), or `None` when
/// the gap exceeds `margin`.
///
/// Errors: [`CoreError::DegenerateContact`] when the geometry is undefined (concentric
/// spheres, a sphere on the axis of a cylinder it overlaps), and
/// [`CoreError::UnsupportedPair`] for shape pairs without geometry (two walls, two custom
/// shapes).
pub fn collide(bodies: &BodySet, i: usize, j: usize, margin: f64) -> Result<Option<ContactGeometry>> {
    let (xi, xj) = (bodies.position[i], bodies.position[j]);
    let degenerate = |reason| CoreError::DegenerateContact { body1: bodies.handle[i], body2: bodies.handle[j], reason };
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
        (Shape::Custom(c), Shape::Sphere { radius }) => {
            Ok(c.contact_sphere(xi, bodies.orientation[i], xj, *radius, margin))
        }
        (Shape::Sphere { radius }, Shape::Custom(c)) => {
            Ok(c.contact_sphere(xj, bodies.orientation[j], xi, *radius, margin).map(ContactGeometry::swapped))
        }
        (a, b) => {
            return Err(CoreError::UnsupportedPair {
                body1: bodies.handle[i],
                shape1: a.name(),
                body2: bodies.handle[j],
                shape2: b.name(),
            })
        }
    };
    result.map_err(degenerate)
}

/// `true` when a contact between these shapes is worth testing: at least one sphere or
/// custom shape, i.e. not two walls.
#[inline]
pub fn can_touch(a: &Shape, b: &Shape) -> bool {
    matches!(a, Shape::Sphere { .. }) || matches!(b, Shape::Sphere { .. })
}
