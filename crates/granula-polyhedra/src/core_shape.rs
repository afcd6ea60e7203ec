//! A polyhedron as a core [`CustomShape`], so that the solvers of today can already hold
//! polyhedral bodies against spheres (the only pair a custom shape supports); pairs of
//! polyhedra wait for the narrowphase plug-in.

use crate::contact::sphere_contact;
use crate::error::{PolyError, Result};
use crate::polyhedron::{Polyhedron, Pose};
use granula_core::math::{DQuat, DVec3};
use granula_core::shape::{Aabb, CustomShape, MassProperties};
use granula_core::ContactGeometry;
use std::sync::Arc;

/// A shared polyhedron in its principal axes, as a core custom shape
/// (`Shape::Custom(Arc::new(PolyhedronShape::new(p)?))`).
#[derive(Clone, Debug)]
pub struct PolyhedronShape {
    poly: Arc<Polyhedron>,
}

impl PolyhedronShape {
    /// Wraps a polyhedron built in [`crate::BodyFrame::PrincipalAxes`] (or symmetric enough
    /// that its inertia tensor is diagonal to 1e-9 of its largest moment): the core's mass
    /// properties are principal moments about the body axes.
    pub fn new(poly: Arc<Polyhedron>) -> Result<Self> {
        let i = poly.inertia_per_density();
        let product = i.x_axis.y.abs().max(i.x_axis.z.abs()).max(i.y_axis.z.abs());
        let largest = i.x_axis.x.max(i.y_axis.y).max(i.z_axis.z);
        if product > 1e-9 * largest {
            return Err(PolyError::NotPrincipalAxes { product });
        }
        Ok(PolyhedronShape { poly })
    }

    /// The polyhedron.
    pub fn polyhedron(&self) -> &Arc<Polyhedron> {
        &self.poly
    }
}

impl CustomShape for PolyhedronShape {
    fn name(&self) -> &'static str {
        "polyhedron"
    }

    fn aabb(&self, position: DVec3, orientation: DQuat) -> Aabb {
        self.poly.world_aabb(&Pose::new(position, orientation))
    }

    fn mass_properties(&self, density: f64) -> Option<MassProperties> {
        let i = self.poly.inertia_per_density() * density;
        Some(MassProperties {
            mass: density * self.poly.volume(),
            inertia: DVec3::new(i.x_axis.x, i.y_axis.y, i.z_axis.z),
        })
    }

    fn contact_sphere(
        &self,
        position: DVec3,
        orientation: DQuat,
        center: DVec3,
        radius: f64,
        margin: f64,
    ) -> Option<ContactGeometry> {
        sphere_contact(&self.poly, &Pose::new(position, orientation), center, radius, margin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes;
    use crate::BodyFrame;
    use granula_core::shape::Shape;

    #[test]
    fn a_cube_as_a_core_shape() {
        let shape = Shape::Custom(Arc::new(PolyhedronShape::new(Arc::new(shapes::cube(0.2).unwrap())).unwrap()));
        let Shape::Custom(c) = &shape else { unreachable!() };
        assert_eq!(shape.name(), "polyhedron");
        let m = c.mass_properties(1000.0).unwrap();
        assert!((m.mass - 8.0).abs() < 1e-12);
        assert!((m.inertia.x - 8.0 * 0.04 / 6.0).abs() < 1e-12);
        let b = shape.aabb(DVec3::new(1.0, 0.0, 0.0), DQuat::IDENTITY);
        assert!((b.min - DVec3::new(0.9, -0.1, -0.1)).length() < 1e-15);
        let g = c.contact_sphere(DVec3::ZERO, DQuat::IDENTITY, DVec3::new(0.0, 0.0, 0.149), 0.05, 0.0).unwrap();
        assert!((g.gap + 0.001).abs() < 1e-12);
        assert_eq!(g.normal, DVec3::Z);
    }

    #[test]
    fn a_shape_outside_its_principal_axes_is_refused() {
        let (v, f) = shapes::l_block_mesh(1.0);
        let (l, _) = Polyhedron::from_mesh(v.clone(), f.clone(), BodyFrame::CentreOfMass).unwrap();
        assert!(matches!(PolyhedronShape::new(Arc::new(l)), Err(PolyError::NotPrincipalAxes { .. })));
        let (l, _) = Polyhedron::from_mesh(v, f, BodyFrame::PrincipalAxes).unwrap();
        assert!(PolyhedronShape::new(Arc::new(l)).is_ok());
    }
}
