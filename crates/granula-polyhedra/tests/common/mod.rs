//! The incline of VALIDATION M7 (003 §6), shared by the MD and NSCD tests: the plane
//! z = 0 with gravity turned by α = 30° about y, g = g(−sin α, 0, −cos α), and the
//! non-convex L-block (V = 0.001 m³, ρ = 2700 kg/m³) lying on its L-shaped face, sent up
//! the slope (+x) at v₀ = 5 m/s.

use granula_core::{DVec3, Material, PlaneBuilder, World};
use granula_polyhedra::{register_all, shapes, BodyFrame, Polyhedron, PolyhedronBuilder};
use std::sync::Arc;

/// Gravitational acceleration (m/s²).
pub const G: f64 = 9.81;
/// Slope angle α (rad).
pub const ALPHA: f64 = std::f64::consts::PI / 6.0;
/// Launch speed up the slope (m/s).
pub const V0: f64 = 5.0;

/// The incline world with the block of `material` (density 2700 kg/m³ expected), the
/// block's principal-axes frame placed as in the mesh (bottom face on z = 0), lowered by
/// `sink(volume)` (m); returns the world and the block's dense index.
pub fn incline(material: Material, sink: impl Fn(f64) -> f64) -> (World, usize) {
    let mut narrowphase = granula_core::Narrowphase::new();
    register_all(&mut narrowphase).unwrap();
    let gravity = G * DVec3::new(-ALPHA.sin(), 0.0, -ALPHA.cos());
    let mut world = World::builder().gravity(gravity).material(material).narrowphase(narrowphase).build().unwrap();
    world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    // V = 3 size³ = 0.001 m³.
    let (v, f) = shapes::l_block_mesh((0.001f64 / 3.0).cbrt());
    let (block, place) = Polyhedron::from_mesh(v, f, BodyFrame::PrincipalAxes).unwrap();
    assert!((block.volume() - 0.001).abs() < 1e-15);
    let z = place.offset.z - sink(block.volume());
    let body = PolyhedronBuilder::new(Arc::new(block), DVec3::new(0.0, 0.0, z))
        .orientation(place.rotation)
        .velocity(DVec3::new(V0, 0.0, 0.0))
        .build()
        .unwrap();
    let h = world.insert(body).unwrap();
    let i = world.bodies.index(h).unwrap();
    (world, i)
}
