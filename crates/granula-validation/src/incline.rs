//! The incline of VALIDATION M7 (003 §6): the plane z = 0 with gravity turned by α = 30°
//! about y, g = g(−sin α, 0, −cos α), and the non-convex L-block (V = 0.001 m³, ρ = 2700
//! kg/m³) lying on its L-shaped face, sent up the slope (+x) at v₀ = 5 m/s. Shared by the
//! MD and NSCD tests of `granula-polyhedra` and the `incline_block` example.

use granula_core::{DVec3, Material, Narrowphase, PlaneBuilder, World};
use granula_polyhedra::{register_all, shapes, BodyFrame, Polyhedron, PolyhedronBuilder};
use std::error::Error;
use std::sync::Arc;

/// Gravitational acceleration (m/s²).
pub const G: f64 = 9.81;
/// Slope angle α (rad).
pub const ALPHA: f64 = std::f64::consts::PI / 6.0;
/// Launch speed up the slope (m/s).
pub const V0: f64 = 5.0;
/// Volume of the block (m³): 3 s³ for the L-block of edge s.
pub const VOLUME: f64 = 0.001;

/// Time at which the block stops, t = v₀ / (g sin α + μ g cos α) (003 §6: 0.546, 0.508,
/// 0.499 s for μ = 0.5, 0.58, 0.6).
pub fn stop_time(mu: f64) -> f64 {
    V0 / (G * (ALPHA.sin() + mu * ALPHA.cos()))
}

/// Acceleration along the slope after the stop: −g(sin α − μ cos α) when μ < tan α (it
/// slides back down), 0 otherwise (it stays).
pub fn slide_acceleration(mu: f64) -> f64 {
    -G * (ALPHA.sin() - mu * ALPHA.cos()).max(0.0)
}

/// The incline world with the block of `material` (its density should be 2700 kg/m³),
/// the block's principal-axes frame placed as in the mesh (bottom face on z = 0) and then
/// lowered by `sink(volume)` (m), so a soft contact can start at its static overlap;
/// returns the world and the block's dense index.
pub fn incline(material: Material, sink: impl Fn(f64) -> f64) -> Result<(World, usize), Box<dyn Error>> {
    let mut narrowphase = Narrowphase::new();
    register_all(&mut narrowphase)?;
    let gravity = G * DVec3::new(-ALPHA.sin(), 0.0, -ALPHA.cos());
    let mut world = World::builder().gravity(gravity).material(material).narrowphase(narrowphase).build()?;
    world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build()?)?;
    let (v, f) = shapes::l_block_mesh((VOLUME / 3.0).cbrt());
    let (block, place) = Polyhedron::from_mesh(v, f, BodyFrame::PrincipalAxes)?;
    let z = place.offset.z - sink(block.volume());
    let body = PolyhedronBuilder::new(Arc::new(block), DVec3::new(0.0, 0.0, z))
        .orientation(place.rotation)
        .velocity(DVec3::new(V0, 0.0, 0.0))
        .build()?;
    let h = world.insert(body)?;
    let i = world.bodies.index(h)?;
    Ok((world, i))
}
