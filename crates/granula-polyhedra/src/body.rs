//! A builder of polyhedral rigid bodies for a core world.

use crate::core_shape::PolyhedronShape;
use crate::error::{PolyError, Result};
use crate::polyhedron::{BodyFrame, Polyhedron};
use granula_core::math::{DQuat, DVec3};
use granula_core::Shape;
use granula_core::{MaterialId, RigidBody, RigidBodyBuilder};
use std::sync::Arc;

/// Builds a dynamic rigid body of a polyhedron (a [`PolyhedronShape`]), its mass and
/// principal moments exact from the mesh at its material's density (or at
/// [`PolyhedronBuilder::density`]). The body's position is the polyhedron's centre of mass
/// and its orientation turns the polyhedron's body frame into the world.
///
/// The integrators need the body frame along the principal axes of inertia. A polyhedron
/// built in them ([`crate::BodyFrame::PrincipalAxes`], or any shape whose inertia tensor is
/// already diagonal, like the cube) is shared as it is. Any other (a
/// [`shapes::random_convex`](crate::shapes::random_convex), an L-block, a mesh read in
/// [`crate::BodyFrame::CentreOfMass`]) is re-meshed in its principal axes by `build`, and
/// the body is placed so that the shape sits exactly where `position` and `orientation`
/// put the given one. That copy is made for each body built: to share one mesh among many
/// bodies, build the polyhedron in principal axes once and place it with
/// [`crate::Placement::rotation`].
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
    position: DVec3,
    orientation: DQuat,
    inner: RigidBodyBuilder,
}

impl PolyhedronBuilder {
    /// A dynamic body of `poly` with its centre of mass at `position`.
    pub fn new(poly: Arc<Polyhedron>, position: DVec3) -> Self {
        // The shape is checked in `build`; the inner builder holds a placeholder until then.
        let inner = RigidBodyBuilder::new(Shape::Sphere { radius: 1.0 }, position);
        PolyhedronBuilder { poly, position, orientation: DQuat::IDENTITY, inner }
    }

    /// Initial orientation (the given polyhedron's body frame to world). Default identity.
    pub fn orientation(mut self, q: DQuat) -> Self {
        self.orientation = q;
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

    /// Validates and returns the body, re-meshed in its principal axes if the polyhedron is
    /// not in them (see the type's documentation). Errors: the core's errors for the state
    /// and density ([`crate::PolyError::Core`], naming the field).
    pub fn build(self) -> Result<RigidBody> {
        let (shape, position, orientation) = match PolyhedronShape::new(self.poly.clone()) {
            Ok(shape) => (shape, self.position, self.orientation),
            Err(PolyError::NotPrincipalAxes { .. }) => {
                // x_given = offset + R x_principal, so the world point pos + q x_given is
                // (pos + q offset) + (q R) x_principal.
                let (principal, place) = Polyhedron::from_mesh(
                    self.poly.vertices().to_vec(),
                    self.poly.faces().to_vec(),
                    BodyFrame::PrincipalAxes,
                )?;
                let shape = PolyhedronShape::new(Arc::new(principal))?;
                (shape, self.position + self.orientation * place.offset, self.orientation * place.rotation)
            }
            Err(e) => return Err(e),
        };
        let mut body = self.inner.orientation(orientation).build()?;
        body.state.position = position;
        body.shape = Shape::Custom(Arc::new(shape));
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

    /// The principal shape that `build` makes of `given` and the body's placement.
    fn built(given: &Arc<Polyhedron>, position: DVec3, orientation: DQuat) -> (Arc<Polyhedron>, RigidBody) {
        let body = PolyhedronBuilder::new(given.clone(), position).orientation(orientation).build().unwrap();
        let Shape::Custom(custom) = &body.shape else { panic!("a polyhedron is a custom shape") };
        let shape = custom.as_any().downcast_ref::<PolyhedronShape>().expect("a PolyhedronShape");
        (shape.polyhedron().clone(), body)
    }

    #[test]
    fn a_shape_off_its_principal_axes_is_remeshed_where_it_was_put() {
        let (position, orientation) = (DVec3::new(0.1, -0.2, 0.3), DQuat::from_rotation_x(0.4));
        for given in [shapes::random_convex(14, 0.05, 3).unwrap(), shapes::l_block(0.1).unwrap()] {
            let given = Arc::new(given);
            let (principal, body) = built(&given, position, orientation);
            // Every vertex lands where the given shape put it: the placement only composes
            // rotations of 0.1 m vectors, a few 1e-17 m of round-off, far below 1e-12 m.
            assert_eq!(principal.vertices().len(), given.vertices().len());
            for v in principal.vertices() {
                let world = body.state.position + body.state.orientation * *v;
                let nearest = given
                    .vertices()
                    .iter()
                    .map(|g| (position + orientation * *g - world).length())
                    .fold(f64::INFINITY, f64::min);
                assert!(nearest < 1e-12, "vertex {v} is {nearest} m from every given vertex");
            }
            // In principal axes: the products of inertia vanish (to the 1e-9 of the shape check).
            let i = principal.inertia_per_density();
            let product = i.x_axis.y.abs().max(i.x_axis.z.abs()).max(i.y_axis.z.abs());
            assert!(product <= 1e-9 * i.x_axis.x.max(i.y_axis.y).max(i.z_axis.z));
            assert!((principal.volume() - given.volume()).abs() < 1e-12 * given.volume());
        }
    }

    #[test]
    fn a_principal_shape_is_shared_as_it_is() {
        let cube = Arc::new(shapes::cube(0.1).unwrap());
        let q = DQuat::from_rotation_z(0.3);
        let (shared, body) = built(&cube, DVec3::Z, q);
        assert!(Arc::ptr_eq(&shared, &cube));
        assert_eq!((body.state.position, body.state.orientation), (DVec3::Z, q));
    }

    #[test]
    fn bad_state_is_named() {
        let cube = Arc::new(shapes::cube(0.1).unwrap());
        let e = PolyhedronBuilder::new(cube, DVec3::NAN).build().unwrap_err();
        assert!(e.to_string().contains("position"), "{e}");
    }
}
