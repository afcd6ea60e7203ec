//! A polyhedron as a core [`CustomShape`], with the contact generators of its pairs for the
//! core's narrowphase plug-in: polyhedron–sphere ([`PolyhedronSphere`]), plane–polyhedron
//! ([`PlanePolyhedron`]), cylindrical wall–polyhedron ([`CylinderPolyhedron`], particles
//! inside the wall) and polyhedron–polyhedron ([`PolyhedronPair`]), all registered by
//! [`register_all`]. A pair of polyhedra or a polyhedron on a wall gives several points,
//! keyed by vertex or edge ids ([`crate::contact::FeatureKey`]); the solvers call a
//! generator once per pair and step and match the points to their histories by key.

use crate::coherence::{Coherence, Screen};
use crate::contact::{
    cylinder_polyhedron, pair_points, plane_polyhedron, polyhedron_polyhedron, sphere_contact, Method,
};
use crate::error::{PolyError, Result};
use crate::polyhedron::{Polyhedron, Pose};
use granula_core::math::{DQuat, DVec3};
use granula_core::narrowphase::{ContactGenerator, DegenerateGeometry, Narrowphase, PairMemory, PosedShape, ShapeKind};
use granula_core::{Aabb, CustomShape, MassProperties, Shape, SurfaceMesh};
use granula_core::{BodySet, ContactGeometry, CoreError};
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
        POLYHEDRON_NAME
    }

    /// Point contacts; `register_all_volumetric` registers the overlap-volume ones instead.
    fn registration(&self) -> Option<&'static str> {
        Some("granula_polyhedra::register_all(&mut narrowphase)")
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

    /// The mesh's vertices and triangles in the body frame (principal axes).
    fn surface(&self) -> Option<SurfaceMesh<'_>> {
        Some(SurfaceMesh { vertices: self.poly.vertices(), triangles: self.poly.faces() })
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
    narrowphase.register(POLYHEDRON, ShapeKind::Sphere, PolyhedronSphere)
}

/// The shape kind of a [`PolyhedronShape`].
pub const POLYHEDRON: ShapeKind = ShapeKind::Custom("polyhedron");

/// The name of a [`PolyhedronShape`], one `&'static str` (a static, so one address) for
/// its `CustomShape::name` and for the kinds [`register_all`] registers: the registry then
/// matches them by address, without comparing the bytes.
static POLYHEDRON_NAME: &str = "polyhedron";

/// The contact generator of a plane wall (body 1) against a [`PolyhedronShape`] (body 2):
/// one point per vertex within the margin, by [`plane_polyhedron`].
#[derive(Clone, Copy, Debug, Default)]
pub struct PlanePolyhedron;

impl ContactGenerator for PlanePolyhedron {
    /// A face resting on the plane: one point per corner (3 for a triangle, 4 for a box).
    fn max_contacts(&self) -> u16 {
        4
    }

    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> std::result::Result<(), DegenerateGeometry> {
        let (Shape::Plane { normal }, Some(shape)) = (a.shape, b.custom::<PolyhedronShape>()) else {
            return Ok(());
        };
        let n = (a.orientation * *normal).normalize();
        plane_polyhedron(a.position, n, &shape.poly, &Pose::new(b.position, b.orientation), margin, out);
        Ok(())
    }
}

/// The contact generator of a cylindrical wall (body 1) against a [`PolyhedronShape`]
/// (body 2), by [`cylinder_polyhedron`]: walls with the particles inside only; a wall with
/// them outside (an obstacle) is a degenerate-geometry error naming the pair.
#[derive(Clone, Copy, Debug, Default)]
pub struct CylinderPolyhedron;

impl ContactGenerator for CylinderPolyhedron {
    fn max_contacts(&self) -> u16 {
        4
    }

    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> std::result::Result<(), DegenerateGeometry> {
        let (Shape::Cylinder(wall), Some(shape)) = (a.shape, b.custom::<PolyhedronShape>()) else {
            return Ok(());
        };
        let pose = Pose::new(b.position, b.orientation);
        match cylinder_polyhedron(a.position, a.orientation, wall, &shape.poly, &pose, margin, out) {
            Some(_) => Ok(()),
            None => Err(DegenerateGeometry { reason: "a polyhedron outside a cylindrical wall is not supported" }),
        }
    }
}

/// The contact generator of two [`PolyhedronShape`]s, by [`polyhedron_polyhedron`] (vertex
/// contacts of each body in the other and edge–edge crossings; face planes for convex
/// bodies, ray parity over the face hierarchy otherwise), after a bounding-sphere test and
/// a proof of separation by GJK on the vertex sets.
#[derive(Clone, Copy, Debug, Default)]
pub struct PolyhedronPair;

impl ContactGenerator for PolyhedronPair {
    /// Face on face: the corners of the overlap polygon, a handful.
    fn max_contacts(&self) -> u16 {
        8
    }

    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> std::result::Result<(), DegenerateGeometry> {
        let (Some(pa), Some(pb)) = (a.custom::<PolyhedronShape>(), b.custom::<PolyhedronShape>()) else {
            return Ok(());
        };
        let (pose_a, pose_b) = (Pose::new(a.position, a.orientation), Pose::new(b.position, b.orientation));
        polyhedron_polyhedron(&pa.poly, &pose_a, &pb.poly, &pose_b, margin, out);
        Ok(())
    }
}

/// [`PolyhedronPair`] with the bodies prepared once per step ([`ContactGenerator::prepare`]):
/// each polyhedral body's vertices turned into the world axes, its world box and bounding
/// radius, in body order in one contiguous store. A candidate pair is then tested against
/// its world boxes, its bounding spheres and the plane normal to its centre line from the
/// store, without reading the shapes (most pairs of a packing end there), and the solvers' broadphase
/// takes the world boxes from it ([`ContactGenerator::prepared_aabb`]). With a pair memory
/// ([`ContactGenerator::generate_remembering`]), a proof that the pair is apart is kept
/// from step to step and carried by the bodies. turns. A body
/// whose entry does not match its shape and orientation (not prepared in this pose) is
/// computed from its shape, as [`PolyhedronPair`] does. The points are the same bits as
/// [`PolyhedronPair`]'s: only the proof that a pair is apart reads the store.
///
/// Clones share the store; [`register_all`] registers one.
#[derive(Clone, Debug, Default)]
pub struct PreparedPolyhedronPair {
    coherence: Coherence,
}

impl PreparedPolyhedronPair {
    /// The points of a pair, with the pair's memory when the solver keeps one: the
    /// screening of `Coherence::screen` with the centre-line test, then the full search
    /// ([`pair_points`]).
    fn generate_with(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        memory: Option<&PairMemory>,
        out: &mut Vec<ContactGeometry>,
    ) -> std::result::Result<(), DegenerateGeometry> {
        let recall = match self.coherence.screen(&a, &b, margin, memory, true) {
            Screen::Unprepared => return PolyhedronPair.generate(a, b, margin, out),
            Screen::Apart => return Ok(()),
            Screen::Search(recall) => recall,
        };
        let (Some(pa), Some(pb)) = (a.custom::<PolyhedronShape>(), b.custom::<PolyhedronShape>()) else {
            return Ok(());
        };
        let (pose_a, pose_b) = (Pose::new(a.position, a.orientation), Pose::new(b.position, b.orientation));
        let found = pair_points(Method::Auto, &pa.poly, &pose_a, &pb.poly, &pose_b, margin, out);
        if let Some(recall) = recall {
            recall.searched(found > 0);
        }
        Ok(())
    }
}

impl ContactGenerator for PreparedPolyhedronPair {
    /// As [`PolyhedronPair`].
    fn max_contacts(&self) -> u16 {
        PolyhedronPair.max_contacts()
    }

    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> std::result::Result<(), DegenerateGeometry> {
        self.generate_with(a, b, margin, None, out)
    }

    /// [`ContactGenerator::generate`] keeping a separating direction of the pair in its
    /// memory (temporal coherence, docs/polyhedra.md).
    fn generate_remembering(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        memory: &PairMemory,
        out: &mut Vec<ContactGeometry>,
    ) -> std::result::Result<(), DegenerateGeometry> {
        self.generate_with(a, b, margin, Some(memory), out)
    }

    /// Turns every polyhedral body's vertices once for the step (O(total vertices)).
    fn prepare(&self, bodies: &BodySet) {
        self.coherence.prepare(bodies);
    }

    fn prepared_aabb(&self, bodies: &BodySet, i: usize) -> Option<Aabb> {
        self.coherence.prepared_aabb(bodies, i)
    }
}

/// Registers the point-contact generators of every pair with a polyhedron in `narrowphase`
/// (`granula_polyhedra::register_all`): polyhedron–sphere, plane–polyhedron,
/// cylinder–polyhedron and polyhedron–polyhedron; a world with polyhedra needs it before
/// the first polyhedron is inserted. [`crate::register_all_volumetric`] registers the
/// overlap-volume contacts instead. Errors as
/// [`Narrowphase::register`] does, e.g. when one of the pairs is registered already.
/// The pair of polyhedra is registered first, as a [`PreparedPolyhedronPair`]: the registry
/// looks pairs up in order, and it is by far the most frequent pair of a packing.
pub fn register_all(narrowphase: &mut Narrowphase) -> std::result::Result<(), CoreError> {
    let polyhedron = ShapeKind::Custom(POLYHEDRON_NAME);
    narrowphase.register(polyhedron, polyhedron, PreparedPolyhedronPair::default())?;
    narrowphase.register(polyhedron, ShapeKind::Sphere, PolyhedronSphere)?;
    narrowphase.register(ShapeKind::Plane, polyhedron, PlanePolyhedron)?;
    narrowphase.register(ShapeKind::Cylinder, polyhedron, CylinderPolyhedron)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes;
    use crate::BodyFrame;

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
        let posed = |shape, position| PosedShape::new(shape, position, DQuat::IDENTITY);
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
