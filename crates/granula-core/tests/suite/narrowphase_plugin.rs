//! The narrowphase registry: built-in pairs in both orders, unregistered pairs, and a host
//! generator reporting several points per pair.

use granula_core::narrowphase::{
    ContactGenerator, DegenerateGeometry, Narrowphase, NarrowphaseError, PairMemory, PosedShape, Route, ShapeKind,
};
use granula_core::prelude::*;
use granula_core::{BodySet, CustomShape};
use std::sync::Arc;

/// A host shape: a horizontal rod along x with a point at each end.
#[derive(Debug)]
struct Rod {
    half_length: f64,
}

impl CustomShape for Rod {
    fn name(&self) -> &'static str {
        "rod"
    }
    fn aabb(&self, position: DVec3, _q: DQuat) -> Aabb {
        Aabb::around(position, DVec3::new(self.half_length, 0.0, 0.0))
    }
    fn mass_properties(&self, _density: f64) -> Option<MassProperties> {
        Some(MassProperties { mass: 1.0, inertia: DVec3::ONE })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Plane (body 1) against rod (body 2): one point per end below the margin, features 0
/// (−x end) and 1 (+x end).
struct PlaneRod;

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
        let h = rod.custom::<Rod>().expect("a rod").half_length;
        for (feature, end) in [rod.position - DVec3::X * h, rod.position + DVec3::X * h].into_iter().enumerate() {
            let gap = end.z - plane.position.z;
            if gap <= margin {
                let point = end - DVec3::Z * (0.5 * gap);
                out.push(ContactGeometry {
                    point,
                    normal: DVec3::Z,
                    gap,
                    branch1: point - plane.position,
                    branch2: point - rod.position,
                    effective_radius: 1.0,
                    feature: feature as u32,
                    overlap_volume: 0.0,
                    twist_arm: 0.0,
                });
            }
        }
        if out.is_empty() && rod.position.z < plane.position.z {
            return Err(DegenerateGeometry { reason: "rod below the floor" });
        }
        Ok(())
    }
}

fn rod(x: DVec3) -> RigidBodyBuilder {
    RigidBodyBuilder::new(Shape::Custom(Arc::new(Rod { half_length: 1.0 })), x)
        .mass_properties(MassProperties { mass: 1.0, inertia: DVec3::ONE })
}

fn world(narrowphase: Narrowphase) -> World {
    World::builder().gravity(DVec3::ZERO).narrowphase(narrowphase).build().unwrap()
}

#[test]
fn built_in_pairs_swapped_give_the_swapped_geometry() {
    let mut w = world(Narrowphase::new());
    w.insert(SphereBuilder::new(0.5, DVec3::new(0.2, 0.0, 0.0)).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(0.25, DVec3::new(0.5, 0.25, 0.0)).build().unwrap()).unwrap();
    w.insert(CylinderBuilder::new(DVec3::ZERO, DVec3::Z, 0.75).build().unwrap()).unwrap();
    let np = w.narrowphase();
    for (i, j) in [(0, 1), (2, 0), (2, 1)] {
        let (mut ab, mut ba) = (Vec::new(), Vec::new());
        np.collide(&w.bodies, i, j, 0.1, &mut ab).unwrap();
        np.collide(&w.bodies, j, i, 0.1, &mut ba).unwrap();
        assert_eq!(ab.len(), 1, "pair ({i}, {j})");
        assert_eq!(ba.len(), 1);
        let (g, s) = (ab[0], ba[0]);
        assert_eq!(s, g.swapped(), "pair ({i}, {j})");
        assert_eq!((g.feature, s.feature), (0, 0));
        assert_eq!(np.max_contacts(&w.bodies.shape[i], &w.bodies.shape[j]), 1);
    }
}

#[test]
fn an_unregistered_pair_names_both_bodies_and_shapes() {
    // The world refuses the rod next to a sphere (no generator for the pair), naming both
    // shapes and the call to make, and stays as it was.
    let mut w = world(Narrowphase::new());
    w.insert(SphereBuilder::new(0.5, DVec3::ZERO).build().unwrap()).unwrap();
    let err = w.insert(rod(DVec3::new(0.0, 0.0, 0.6)).build().unwrap()).unwrap_err();
    assert!(matches!(err, CoreError::MissingContactGeometry { shape1: "rod", shape2: "sphere", .. }), "{err}");
    assert!(err.to_string().contains("WorldBuilder::narrowphase"), "{err}");
    assert_eq!(w.bodies.len(), 1);
    // The narrowphase itself, asked for the pair in a body set assembled without a world,
    // names both bodies and shapes.
    let mut materials = MaterialTable::new();
    materials.add(Material::default()).unwrap();
    let mut bodies = BodySet::default();
    let s = bodies.insert(&SphereBuilder::new(0.5, DVec3::ZERO).build().unwrap(), &materials, false).unwrap();
    let r = bodies.insert(&rod(DVec3::new(0.0, 0.0, 0.6)).build().unwrap(), &materials, false).unwrap();
    let mut out = Vec::new();
    let err = w.narrowphase().collide(&bodies, 0, 1, 0.0, &mut out).unwrap_err();
    assert_eq!(err, NarrowphaseError::UnsupportedPair { body1: s, shape1: "sphere", body2: r, shape2: "rod" });
    let msg = CoreError::from(err).to_string();
    assert!(msg.contains("sphere") && msg.contains("rod"), "{msg}");
    assert!(msg.contains(&s.to_string()) && msg.contains(&r.to_string()), "{msg}");
    assert!(out.is_empty());
    assert!(!w.narrowphase().supports(&bodies.shape[0], &bodies.shape[1]));
}

#[test]
fn a_host_generator_gives_several_points_in_either_order() {
    let mut np = Narrowphase::new();
    np.register(ShapeKind::Plane, ShapeKind::Custom("rod"), PlaneRod).unwrap();
    let mut w = world(np);
    let floor = w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let r = w.insert(rod(DVec3::new(0.0, 0.0, -0.125)).build().unwrap()).unwrap();
    let (ip, ir) = (w.bodies.index(floor).unwrap(), w.bodies.index(r).unwrap());
    let np = w.narrowphase();
    assert!(np.supports(&w.bodies.shape[ir], &w.bodies.shape[ip]));
    assert_eq!(np.max_contacts(&w.bodies.shape[ir], &w.bodies.shape[ip]), 2);
    let (mut ab, mut ba) = (Vec::new(), Vec::new());
    np.collide(&w.bodies, ip, ir, 0.0, &mut ab).unwrap();
    np.collide(&w.bodies, ir, ip, 0.0, &mut ba).unwrap();
    assert_eq!(ab.iter().map(|g| g.feature).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(ab[0].point, DVec3::new(-1.0, 0.0, -0.0625));
    assert_eq!(ab[1].point, DVec3::new(1.0, 0.0, -0.0625));
    assert_eq!(ba, ab.iter().map(|g| g.swapped()).collect::<Vec<_>>(), "the rod first: normals turned");
    let f1 = np.collide_feature(&w.bodies, ir, ip, 0.0, 1, &mut Vec::new()).unwrap().unwrap();
    assert_eq!(f1, ba[1]);
    assert_eq!(np.collide_feature(&w.bodies, ir, ip, 0.0, 2, &mut Vec::new()).unwrap(), None);
}

#[test]
fn a_generator_failure_is_a_degenerate_contact_naming_the_bodies() {
    let mut np = Narrowphase::new();
    np.register(ShapeKind::Plane, ShapeKind::Custom("rod"), PlaneRod).unwrap();
    let mut w = world(np);
    let floor = w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let r = w.insert(rod(DVec3::new(0.0, 0.0, -0.5)).build().unwrap()).unwrap();
    let err = w.narrowphase().collide(&w.bodies, 1, 0, -1.0, &mut Vec::new()).unwrap_err();
    assert_eq!(err, NarrowphaseError::Degenerate { body1: r, body2: floor, reason: "rod below the floor" });
    assert!(matches!(CoreError::from(err), CoreError::DegenerateContact { .. }));
}

#[test]
fn registering_a_built_in_or_a_repeated_pair_is_refused() {
    let mut np = Narrowphase::new();
    let err = np.register(ShapeKind::Sphere, ShapeKind::Plane, PlaneRod).unwrap_err();
    assert!(matches!(err, CoreError::InvalidWorld { field: "contact generator", .. }), "{err}");
    np.register(ShapeKind::Plane, ShapeKind::Custom("rod"), PlaneRod).unwrap();
    let err = np.register(ShapeKind::Custom("rod"), ShapeKind::Plane, PlaneRod).unwrap_err();
    assert!(err.to_string().contains("one generator per pair"), "{err}");
}

/// Sphere (body 1) against rod (body 2): one point at the rod's centre with the feature
/// `tag`, so that tests see which generator answered.
struct Tagged(u32);

impl ContactGenerator for Tagged {
    fn generate(
        &self,
        sphere: PosedShape<'_>,
        rod: PosedShape<'_>,
        _margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let point = rod.position;
        out.push(ContactGeometry {
            point,
            normal: DVec3::Z,
            gap: 0.0,
            branch1: point - sphere.position,
            branch2: DVec3::ZERO,
            effective_radius: 1.0,
            feature: self.0,
            overlap_volume: 0.0,
            twist_arm: 0.0,
        });
        Ok(())
    }
}

/// A route found once gives the points of the lookup, in either order of the bodies; a
/// route of another registry, or of this one before a later registration, is looked up
/// again instead of calling whatever generator sits at its position.
#[test]
fn routes_give_the_points_of_the_lookup_and_only_in_their_registry() {
    let mut np = Narrowphase::new();
    np.register(ShapeKind::Plane, ShapeKind::Custom("rod"), PlaneRod).unwrap();
    np.register(ShapeKind::Custom("rod"), ShapeKind::Sphere, Tagged(7)).unwrap();
    let mut w = world(np);
    w.insert(SphereBuilder::new(0.5, DVec3::ZERO).build().unwrap()).unwrap();
    w.insert(rod(DVec3::new(0.0, 0.0, 0.6)).build().unwrap()).unwrap();
    let (b, np) = (&w.bodies, w.narrowphase());
    let memory = PairMemory::new();
    let points = |np: &Narrowphase, route: Option<Route>, i: usize, j: usize| {
        let mut out = Vec::new();
        match route {
            Some(r) => np.collide_routed(r, b, i, j, b.position[j], 0.0, &memory, &mut out).unwrap(),
            None => np.collide_remembering(b, i, j, b.position[j], 0.0, &memory, &mut out).unwrap(),
        }
        out
    };
    assert_eq!(np.route(&b.shape[0], &b.shape[0]), None, "a built-in pair has no route");
    for (i, j) in [(0, 1), (1, 0)] {
        let route = np.route(&b.shape[i], &b.shape[j]);
        assert!(route.is_some());
        let routed = points(np, route, i, j);
        assert_eq!(routed, points(np, None, i, j), "bodies ({i}, {j})");
        assert_eq!(routed[0].feature, 7);
    }
    // Another registry with another generator at the route's position: looked up there.
    let mut other = Narrowphase::new();
    other.register(ShapeKind::Custom("rod"), ShapeKind::Sphere, Tagged(9)).unwrap();
    other.register(ShapeKind::Plane, ShapeKind::Custom("rod"), PlaneRod).unwrap();
    let route = np.route(&b.shape[0], &b.shape[1]);
    assert_eq!(points(&other, route, 0, 1)[0].feature, 9);
    // A clone has the same entries: its routes are the original's.
    assert_eq!(np.clone().route(&b.shape[0], &b.shape[1]), route);
    // A registration after the route was found: looked up again.
    let mut grown = np.clone();
    grown.register(ShapeKind::Custom("rod"), ShapeKind::Custom("rod"), Tagged(3)).unwrap();
    assert_ne!(grown.route(&b.shape[0], &b.shape[1]), route);
    assert_eq!(points(&grown, route, 0, 1)[0].feature, 7);
}
