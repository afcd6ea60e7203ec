//! A host shape with a two-point contact generator, for the tests of multi-point pairs: a
//! rod whose two ends touch a plane, each end a contact point with its own feature key
//! (0 for the −x end, 1 for the +x end).

use granula_core::narrowphase::{ContactGenerator, DegenerateGeometry, Narrowphase, PosedShape, ShapeKind};
use granula_core::{
    Aabb, BodyHandle, ContactGeometry, CustomShape, DQuat, DVec3, MassProperties, PlaneBuilder, RigidBodyBuilder,
    Shape, World,
};
use std::sync::Arc;

/// A host shape: a rod along the body's x axis, touching planes at its two ends.
#[derive(Debug)]
pub struct Rod {
    /// Half of the rod's length (m).
    pub half_length: f64,
}

impl CustomShape for Rod {
    fn name(&self) -> &'static str {
        "rod"
    }
    fn aabb(&self, position: DVec3, orientation: DQuat) -> Aabb {
        Aabb::around(position, (orientation * DVec3::X * self.half_length).abs() + DVec3::splat(1e-3))
    }
    fn mass_properties(&self, _density: f64) -> Option<MassProperties> {
        Some(MassProperties { mass: 1.0, inertia: DVec3::ONE })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Plane (body 1) against rod (body 2): each end within the margin is a contact point,
/// feature 0 for the −x end, 1 for the +x end.
pub struct PlaneRod;

impl ContactGenerator for PlaneRod {
    fn max_contacts(&self) -> u16 {
        2
    }
    fn generate(
        &self,
        plane: PosedShape<'_>,
        rod: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (Shape::Plane { normal }, Some(r)) = (plane.shape, rod.custom::<Rod>()) else { return Ok(()) };
        let n = plane.orientation * *normal;
        let a = rod.orientation * DVec3::X * r.half_length;
        for (feature, end) in [rod.position - a, rod.position + a].into_iter().enumerate() {
            let gap = (end - plane.position).dot(n);
            if gap <= margin {
                let point = end - n * (0.5 * gap);
                out.push(ContactGeometry {
                    point,
                    normal: n,
                    gap,
                    branch1: point - plane.position,
                    branch2: point - rod.position,
                    effective_radius: 1e-2,
                    feature: feature as u32,
                    overlap_volume: 0.0,
                    twist_arm: 0.0,
                });
            }
        }
        Ok(())
    }
}

/// A world with the rod–plane generator registered, a floor z = 0 and a rod of half length
/// 0.1 m along x at height `z` spinning at `spin` about z.
pub fn rod_world(gravity: DVec3, z: f64, spin: f64) -> (World, BodyHandle, BodyHandle) {
    let mut narrowphase = Narrowphase::new();
    narrowphase.register(ShapeKind::Plane, ShapeKind::Custom("rod"), PlaneRod).unwrap();
    let mut w = World::builder().gravity(gravity).energy_guard(None).narrowphase(narrowphase).build().unwrap();
    let floor = w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let rod = RigidBodyBuilder::new(Shape::Custom(Arc::new(Rod { half_length: 0.1 })), DVec3::new(0.0, 0.0, z))
        .angular_velocity(DVec3::Z * spin)
        .build()
        .unwrap();
    let rod = w.insert(rod).unwrap();
    (w, floor, rod)
}
