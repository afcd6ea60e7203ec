//! Contact geometry through the dispatcher `collide`, for every built-in pair and both orders,
//! and through a host generator registered in the world's narrowphase.

use granula_core::narrowphase::{collide, ContactGenerator, DegenerateGeometry, Narrowphase, PosedShape, ShapeKind};
use granula_core::prelude::*;
use granula_core::{point_relative_velocity, CustomShape};
use std::sync::Arc;

fn world() -> World {
    World::builder().gravity(DVec3::ZERO).build().unwrap()
}

#[test]
fn wall_first_or_sphere_first_gives_opposite_normals() {
    let mut w = world();
    let s = w.insert(SphereBuilder::new(0.5, DVec3::new(0.0, 0.0, 0.25)).build().unwrap()).unwrap();
    let p = w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let (is, ip) = (w.bodies.index(s).unwrap(), w.bodies.index(p).unwrap());
    let a = collide(&w.bodies, ip, is, 0.0).unwrap().unwrap();
    let b = collide(&w.bodies, is, ip, 0.0).unwrap().unwrap();
    assert_eq!(a.normal, DVec3::Z);
    assert_eq!(b.normal, -DVec3::Z);
    assert_eq!(a.gap, -0.25);
    assert_eq!(a.gap, b.gap);
    assert_eq!(a.point, b.point);
    assert_eq!(a.branch1, b.branch2);
}

#[test]
fn two_walls_are_an_unsupported_pair_not_a_panic() {
    let mut w = world();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    w.insert(CylinderBuilder::new(DVec3::ZERO, DVec3::Z, 1.0).build().unwrap()).unwrap();
    let err = collide(&w.bodies, 0, 1, 0.0).unwrap_err();
    assert!(matches!(err, CoreError::UnsupportedPair { shape1: "plane", shape2: "cylinder", .. }), "{err}");
}

#[test]
fn concentric_spheres_name_both_bodies() {
    let mut w = world();
    let a = w.insert(SphereBuilder::new(0.5, DVec3::ONE).build().unwrap()).unwrap();
    let b = w.insert(SphereBuilder::new(0.2, DVec3::ONE).build().unwrap()).unwrap();
    let err = collide(&w.bodies, 0, 1, 0.0).unwrap_err();
    assert!(matches!(err, CoreError::DegenerateContact { body1, body2, .. } if body1 == a && body2 == b), "{err}");
}

#[test]
fn relative_velocity_includes_rotation() {
    // Sphere 2 spinning on a floor: contact point velocity v + ω × l = (0,0,0) + (0,1,0) × (0,0,-1) = (-1,0,0).
    let mut w = world();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(1.0, DVec3::new(0.0, 0.0, 1.0)).angular_velocity(DVec3::Y).build().unwrap()).unwrap();
    let g = collide(&w.bodies, 0, 1, 0.0).unwrap().unwrap();
    let b = &w.bodies;
    let v = point_relative_velocity(
        b.velocity[0],
        b.angular_velocity[0],
        g.branch1,
        b.velocity[1],
        b.angular_velocity[1],
        g.branch2,
    );
    assert_eq!(v, DVec3::new(-1.0, 0.0, 0.0));
}

/// A host-defined shape: a half-space below z = 0 written as a custom shape.
#[derive(Debug)]
struct Ground;

impl CustomShape for Ground {
    fn name(&self) -> &'static str {
        "ground"
    }
    fn aabb(&self, position: DVec3, _q: DQuat) -> Aabb {
        Aabb {
            min: DVec3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY),
            max: DVec3::new(f64::INFINITY, f64::INFINITY, position.z),
        }
    }
    fn mass_properties(&self, _density: f64) -> Option<MassProperties> {
        None
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The ground's contacts with spheres, through the narrowphase plug-in.
struct GroundSphere;

impl ContactGenerator for GroundSphere {
    fn generate(
        &self,
        ground: PosedShape<'_>,
        sphere: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (position, center) = (ground.position, sphere.position);
        let radius = sphere.shape.sphere_radius().expect("registered against spheres");
        let gap = center.z - position.z - radius;
        if gap <= margin {
            let point = center - DVec3::Z * (radius + 0.5 * gap);
            out.push(ContactGeometry {
                point,
                normal: DVec3::Z,
                gap,
                branch1: point - position,
                branch2: point - center,
                effective_radius: radius,
                feature: 0,
                overlap_volume: 0.0,
                twist_arm: 0.0,
            });
        }
        Ok(())
    }
}

#[test]
fn custom_shapes_plug_into_the_dispatcher_and_are_walls() {
    let mut narrowphase = Narrowphase::new();
    narrowphase.register(ShapeKind::Custom("ground"), ShapeKind::Sphere, GroundSphere).unwrap();
    let mut w = World::builder().gravity(DVec3::ZERO).narrowphase(narrowphase).build().unwrap();
    let g =
        w.insert(RigidBodyBuilder::new(Shape::Custom(Arc::new(Ground)), DVec3::ZERO).fixed().build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(0.5, DVec3::new(0.0, 0.0, 0.4)).build().unwrap()).unwrap();
    let ig = w.bodies.index(g).unwrap();
    assert!(w.bodies.mass[ig].is_infinite(), "a custom shape without mass properties is a wall");
    let mut points = Vec::new();
    w.narrowphase().collide(&w.bodies, 1, 0, 0.0, &mut points).unwrap();
    let c = points[0];
    assert_eq!(c.normal, -DVec3::Z, "normal from the sphere (first) to the ground");
    // 0.4 - 0.5 = -0.1 up to one rounding.
    assert!((c.gap + 0.1).abs() < 1e-15);
}
