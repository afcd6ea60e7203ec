//! A builder of polyhedral rigid bodies for a core world.

use crate::core_shape::PolyhedronShape;
use crate::error::Result;
use crate::polyhedron::Polyhedron;
use granula_core::math::{DQuat, DVec3};
use granula_core::Shape;
use granula_core::{MaterialId, RigidBody, RigidBodyBuilder};
use std::sync::Arc;

/// Builds a dynamic rigid body of a polyhedron (a [`PolyhedronShape`]), its mass and
/// principal moments exact from the mesh at its material's density (or at
/// [`PolyhedronBuilder::density`]). The body's position is the polyhedron's centre of mass
/// and its orientation turns the polyhedron's body frame, which must be its principal axes
/// ([`crate::BodyFrame::PrincipalAxes`]), into the world.
///
/// ```
/// use granula_core::math::{DQuat, DVec3};
/// use granula_core::World;
/// use granula_polyhedra::{shapes, PolyhedronBuilder};
/// use std::sync::Arc;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut world = World::builder().build()?;
/// let cube = Arc::new(shapes::cube(0.1)?);
/// let body = PolyhedronBuilder::new(cube, DVec3::new(0.0, 0.0, 1.0))
///     .orientation(DQuat::from_rotation_z(0.3))
///     .velocity(DVec3::X)
///     .density(2700.0)
///     .build()?;
/// let h = world.insert(body)?;
/// let i = world.bodies.index(h)?;
/// // 2700 kg/m³ × 1e-3 m³, and m a²/6 about every axis.
/// assert!((world.bodies.mass[i] - 2.7).abs() < 1e-12);
/// # Ok(())
/// # }
/// ```
#[must_use = "call build() to get the body"]
#[derive(Clone, Debug)]
pub struct PolyhedronBuilder {
    poly: Arc<Polyhedron>,
    inner: RigidBodyBuilder,
}

impl PolyhedronBuilder {
    /// A dynamic body of `poly` with its centre of mass at `position`.
    pub fn new(poly: Arc<Polyhedron>, position: DVec3) -> Self {
        // The shape is checked in `build`; the inner builder holds a placeholder until then.
        let inner = RigidBodyBuilder::new(Shape::Sphere { radius: 1.0 }, position);
        PolyhedronBuilder { poly, inner }
    }

    /// Initial orientation (body frame to world). Default identity.
    pub fn orientation(mut self, q: DQuat) -> Self {
        self.inner = self.inner.orientation(q);
        self
    }

    /// Initial velocity of the centre of mass (m/s). Default zero.
    pub fn velocity(mut self, v: DVec3) -> Self {
        self.inner = self.inner.velocity(v);
        self
    }

    /// Initial angular velocity, world frame (rad/s). Default zero.
    pub fn angular_velocity(mut self, w: DVec3) -> Self {
        self.inner = self.inner.angular_velocity(w);
        self
    }

    /// Material. Default `MaterialId(0)`; the mass comes from its density unless
    /// [`PolyhedronBuilder::density`] is given.
    pub fn material(mut self, m: MaterialId) -> Self {
        self.inner = self.inner.material(m);
        self
    }

    /// Density (kg/m³), overriding the material's.
    pub fn density(mut self, rho: f64) -> Self {
        self.inner = self.inner.density(rho);
        self
    }

    /// Makes the body fixed (a polyhedral obstacle).
    pub fn fixed(mut self) -> Self {
        self.inner = self.inner.fixed();
        self
    }

    /// Validates and returns the body. Errors: a polyhedron not in its principal axes
    /// ([`crate::PolyError::NotPrincipalAxes`]), or the core's errors for the state and
    /// density ([`crate::PolyError::Core`], naming the field).
    pub fn build(self) -> Result<RigidBody> {
        let shape = Shape::Custom(Arc::new(PolyhedronShape::new(self.poly)?));
        let mut body = self.inner.build()?;
        body.shape = shape;
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes;
    use granula_core::World;

    #[test]
    fn the_l_block_gets_its_mass_and_principal_moments() {
        let (v, f) = shapes::l_block_mesh(0.1);
        let block = Arc::new(Polyhedron::from_mesh(v, f, crate::BodyFrame::PrincipalAxes).unwrap().0);
        let not_principal = Arc::new(shapes::l_block(0.1).unwrap());
        let e = PolyhedronBuilder::new(not_principal, DVec3::Z).build().unwrap_err();
        assert!(matches!(e, crate::PolyError::NotPrincipalAxes { .. }), "{e}");
        let mut world = World::builder().build().unwrap();
        let h = world.insert(PolyhedronBuilder::new(block.clone(), DVec3::Z).density(2700.0).build().unwrap()).unwrap();
        let i = world.bodies.index(h).unwrap();
        assert!((world.bodies.mass[i] - 2700.0 * block.volume()).abs() < 1e-12 * world.bodies.mass[i]);
        let t = block.inertia_per_density() * 2700.0;
        let expected = DVec3::new(t.x_axis.x, t.y_axis.y, t.z_axis.z);
        let inv = world.bodies.inv_inertia[i];
        for k in 0..3 {
            assert!((inv[k] * expected[k] - 1.0).abs() < 1e-12, "axis {k}: {inv} vs {expected}");
        }
    }

    #[test]
    fn bad_state_is_named() {
        let cube = Arc::new(shapes::cube(0.1).unwrap());
        let e = PolyhedronBuilder::new(cube, DVec3::NAN).build().unwrap_err();
        assert!(e.to_string().contains("position"), "{e}");
    }
}
