//! Shapes of rigid bodies, their bounding boxes and mass properties.
//!
//! Built-in shapes are an enum so the hot loops dispatch without a virtual call; a host adds
//! its own shape through [`CustomShape`] (the [`Shape::Custom`] variant) and its contacts
//! through the narrowphase's plug-in ([`crate::narrowphase::ContactGenerator`]).

mod aabb;
mod mass;

pub use aabb::Aabb;
pub use mass::MassProperties;

use crate::math::{DQuat, DVec3};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A cylindrical wall: the lateral surface of a circular cylinder, open at both ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CylinderWall {
    /// Radius of the surface (m).
    pub radius: f64,
    /// Unit axis in the body frame.
    pub axis: DVec3,
    /// `true`: particles live inside (a drum or a silo); `false`: outside (an obstacle).
    pub inside: bool,
    /// Half of the length along the axis, or `None` for an infinite cylinder. A sphere whose
    /// centre projects beyond the ends does not touch the wall (there are no caps).
    pub half_length: Option<f64>,
}

/// What a host implements to add a shape: its name, bounding box and mass properties. Its
/// contacts come from the [`ContactGenerator`](crate::narrowphase::ContactGenerator)s the
/// host registers for it in the world's [`Narrowphase`](crate::narrowphase::Narrowphase),
/// against spheres, walls or other custom shapes; a generator reaches the host type through
/// [`PosedShape::custom`](crate::narrowphase::PosedShape::custom).
pub trait CustomShape: Send + Sync + fmt::Debug {
    /// A short name for messages, e.g. `"cone"`; it is also the shape's kind
    /// ([`ShapeKind::Custom`](crate::narrowphase::ShapeKind::Custom)), under which its
    /// contact generators are registered, so distinct host types need distinct names.
    fn name(&self) -> &'static str;
    /// World-space bounding box for a body at `position` with `orientation`.
    fn aabb(&self, position: DVec3, orientation: DQuat) -> Aabb;
    /// Mass properties for a density, if the shape is a finite solid; `None` for a wall.
    fn mass_properties(&self, density: f64) -> Option<MassProperties>;
    /// The host type itself, for contact generators to downcast (implement as `self`).
    fn as_any(&self) -> &dyn Any;
    /// The shape's surface as a triangle mesh in the body frame, for outputs that draw
    /// bodies (VTK). Default `None`: the shape is not drawn.
    fn surface(&self) -> Option<SurfaceMesh<'_>> {
        None
    }
    /// The index, among [`CustomShape::surface`]'s triangles, of the triangle nearest to
    /// `point` (body frame): where outputs put a contact's load when they spread loads over
    /// a wall's faces. Default `None`: the loads are not spread.
    fn surface_face(&self, point: DVec3) -> Option<usize> {
        let _ = point;
        None
    }
    /// The call that registers this shape's contact generators, e.g.
    /// `"granula_polyhedra::register_all(&mut narrowphase)"`, named in the error of
    /// [`World::insert`](crate::World::insert) when a pair has none. Default `None`.
    fn registration(&self) -> Option<&'static str> {
        None
    }
    /// Whether the shape exists only in a planar world ([`WorldBuilder::planar`](crate::WorldBuilder::planar)):
    /// a flat outline given a unit thickness, as a convex polygon of seed 002 is. A world
    /// that is not planar refuses such a body on insertion
    /// ([`World::insert`](crate::World::insert)). Default `false`.
    fn planar_only(&self) -> bool {
        false
    }
    /// Whether the shape is a wall, as planes and cylinders are: a fixed boundary that
    /// never touches another wall, so that two walls need no contact geometry between them
    /// ([`can_touch`](crate::narrowphase::can_touch) is `false` for the pair, and
    /// [`World::insert`](crate::World::insert) does not ask for one). A triangle-mesh wall
    /// is one. Default `false`.
    fn is_wall(&self) -> bool {
        false
    }
}

/// A closed surface in a body frame: vertices and triangles (vertex indices,
/// counter-clockwise seen from outside). A point x of the body frame is at
/// `position + orientation * x` in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceMesh<'a> {
    /// Vertices, body frame (m).
    pub vertices: &'a [DVec3],
    /// Triangles as indices into `vertices`.
    pub triangles: &'a [[u32; 3]],
}

/// The shape of a body.
#[derive(Clone, Debug)]
pub enum Shape {
    /// A sphere of this radius (m), centred at the body's position.
    Sphere {
        /// Radius (m).
        radius: f64,
    },
    /// An infinite plane through the body's position; `normal` (body frame, unit) points
    /// to the free side, where particles are.
    Plane {
        /// Unit normal in the body frame.
        normal: DVec3,
    },
    /// A cylindrical wall centred at the body's position.
    Cylinder(CylinderWall),
    /// A host-defined shape.
    Custom(Arc<dyn CustomShape>),
}

impl Shape {
    /// A short name for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Shape::Sphere { .. } => "sphere",
            Shape::Plane { .. } => "plane",
            Shape::Cylinder(_) => "cylinder",
            Shape::Custom(c) => c.name(),
        }
    }

    /// The sphere radius, if this is a sphere.
    #[inline]
    pub fn sphere_radius(&self) -> Option<f64> {
        match self {
            Shape::Sphere { radius } => Some(*radius),
            _ => None,
        }
    }

    /// World-space bounding box at a pose. Planes and infinite cylinders have unbounded
    /// boxes (infinite bounds on the free directions); the box of a plane normal to an axis
    /// is the half-space behind it, which holds every sphere that touches or crossed it.
    pub fn aabb(&self, position: DVec3, orientation: DQuat) -> Aabb {
        match self {
            Shape::Sphere { radius } => Aabb::around(position, DVec3::splat(*radius)),
            Shape::Plane { normal } => {
                let n = orientation * *normal;
                // A plane normal to an axis is bounded along that axis on its free side: the
                // box is the whole half-space behind it (the solid side), not a zero-thickness
                // slab, so that a sphere that crossed the plane in one step is still a
                // candidate and the narrowphase reports its deep overlap.
                let mut min = DVec3::splat(f64::NEG_INFINITY);
                let mut max = DVec3::splat(f64::INFINITY);
                for k in 0..3 {
                    if n[k].abs() > 1.0 - 1e-12 {
                        if n[k] > 0.0 {
                            max[k] = position[k];
                        } else {
                            min[k] = position[k];
                        }
                    }
                }
                Aabb { min, max }
            }
            Shape::Cylinder(c) => {
                let a = (orientation * c.axis).normalize();
                match c.half_length {
                    None => {
                        let mut min = DVec3::splat(f64::NEG_INFINITY);
                        let mut max = DVec3::splat(f64::INFINITY);
                        for k in 0..3 {
                            // Along an axis perpendicular to the cylinder axis the extent is finite.
                            if a[k].abs() < 1e-12 {
                                min[k] = position[k] - c.radius;
                                max[k] = position[k] + c.radius;
                            }
                        }
                        Aabb { min, max }
                    }
                    Some(h) => {
                        // Exact box of a finite cylinder: h|a_k| + R sqrt(1 - a_k²) per axis.
                        let ext = DVec3::new(
                            h * a.x.abs() + c.radius * (1.0 - a.x * a.x).max(0.0).sqrt(),
                            h * a.y.abs() + c.radius * (1.0 - a.y * a.y).max(0.0).sqrt(),
                            h * a.z.abs() + c.radius * (1.0 - a.z * a.z).max(0.0).sqrt(),
                        );
                        Aabb::around(position, ext)
                    }
                }
            }
            Shape::Custom(c) => c.aabb(position, orientation),
        }
    }
}
