//! A polyhedron as a core [`CustomShape`], with the contact generator of the
//! polyhedron–sphere pair for the core's narrowphase plug-in ([`register_sphere_pair`]), so
//! that the solvers can already hold polyhedral bodies against spheres. Pairs of polyhedra
//! and polyhedron–wall pairs give many points with feature keys of their own, and wait
//! for the solvers' contact lists to carry more than a few slots per pair.

use crate::contact::sphere_contact;
use crate::error::{PolyError, Result};
use crate::polyhedron::{Polyhedron, Pose};
use granula_core::math::{DQuat, DVec3};
use granula_core::narrowphase::{ContactGenerator, DegenerateGeometry, Narrowphase, PosedShape, ShapeKind};
use granula_core::shape::{Aabb, CustomShape, MassProperties};
use granula_core::{ContactGeometry, CoreError};
use std::any::Any;
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

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The contact generator of a [`PolyhedronShape`] (body 1) against a sphere (body 2): one
/// point, by [`sphere_contact`] (nearest surface point, inside by ray parity, 003 §4).
#[derive(Clone, Copy, Debug, Default)]
pub struct PolyhedronSphere;

impl ContactGenerator for PolyhedronSphere {
    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> std::result::Result<(), DegenerateGeometry> {
        let (Some(shape), Some(radius)) = (a.custom::<PolyhedronShape>(), b.shape.sphere_radius()) else {
            return Ok(());
        };
        let pose = Pose::new(a.position, a.orientation);
        out.extend(sphere_contact(&shape.poly, &pose, b.position, radius, margin));
        Ok(())
    }
}

/// Registers [`PolyhedronSphere`] in `narrowphase` for the pair (polyhedron, sphere).
/// Errors as [`Narrowphase::register`] does, e.g. when the pair is registered already.
pub fn register_sphere_pair(narrowphase: &mut Narrowphase) -> std::result::Result<(), CoreError> {
    narrowphase.register(ShapeKind::Custom("polyhedron"), ShapeKind::Sphere, PolyhedronSphere)
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
        let sphere = Shape::Sphere { radius: 0.05 };
        let posed = |shape, position| PosedShape { shape, position, orientation: DQuat::IDENTITY };
        let mut out = Vec::new();
        PolyhedronSphere
            .generate(posed(&shape, DVec3::ZERO), posed(&sphere, DVec3::new(0.0, 0.0, 0.149)), 0.0, &mut out)
            .unwrap();
        // The sphere's bottom is 1 mm below the cube's top face (z = 0.1).
        assert_eq!(out.len(), 1);
        assert!((out[0].gap + 0.001).abs() < 1e-12);
        assert_eq!(out[0].normal, DVec3::Z);
        let mut registry = Narrowphase::new();
        register_sphere_pair(&mut registry).unwrap();
        assert!(registry.supports(&shape, &sphere) && registry.supports(&sphere, &shape));
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
