//! The non-convex block on an incline of 003 §6 (validation M7), under the MD solver.
//!
//! An L-shaped block (V = 0.001 m³, ρ = 2700 kg/m³) lying on its L-shaped face is sent up
//! a 30° slope at 5 m/s. It stops at t = v₀/(g sin α + μ g cos α); with μ < tan α it then
//! slides back down at g(sin α − μ cos α), otherwise it stays. The slope is the plane
//! z = 0 under gravity turned by α about y. Contacts: the six corners of the face, one
//! pair of the plane–polyhedron generator, each point with its own Brendel-Dippel
//! tangential spring (003 eqs. 5-6) beside a Hunt-Crossley normal force (003 eq. 3).
//!
//! Usage: `cargo run --release --example incline_block`.

use granula_broadphase::BruteForce;
use granula_core::{DVec3, Material, Narrowphase, PlaneBuilder, World};
use granula_integrators::VelocityVerlet;
use granula_laws::prelude::*;
use granula_laws::tangential::{Friction, TangentialDamping, TangentialStiffness};
use granula_md::{MdConfig, MdSolver};
use granula_polyhedra::{register_all, shapes, BodyFrame, Polyhedron, PolyhedronBuilder};
use std::error::Error;
use std::sync::Arc;

const G: f64 = 9.81;
const V0: f64 = 5.0;
/// Normal stiffness per contact point (N/m) and time step (s): ~42 steps per period of
/// the block on its six springs.
const STIFFNESS: f64 = 1e8;
const DT: f64 = 1e-5;

/// Stop time (s) and the velocity along the slope 0.5 s later (m/s) for friction `mu`.
fn run(alpha: f64, mu: f64) -> Result<(f64, f64), Box<dyn Error>> {
    let material = Material { density: 2700.0, friction: mu, restitution: 0.3, ..Material::named("block") };
    let mut narrowphase = Narrowphase::new();
    register_all(&mut narrowphase)?;
    let gravity = G * DVec3::new(-alpha.sin(), 0.0, -alpha.cos());
    let mut world = World::builder().gravity(gravity).material(material).narrowphase(narrowphase).build()?;
    world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build()?)?;
    let (v, f) = shapes::l_block_mesh((0.001f64 / 3.0).cbrt());
    let (block, place) = Polyhedron::from_mesh(v, f, BodyFrame::PrincipalAxes)?;
    let sink = 2700.0 * block.volume() * G * alpha.cos() / (6.0 * STIFFNESS);
    let body = PolyhedronBuilder::new(Arc::new(block), DVec3::new(0.0, 0.0, place.offset.z - sink))
        .orientation(place.rotation)
        .velocity(DVec3::new(V0, 0.0, 0.0))
        .build()?;
    let h = world.insert(body)?;
    let i = world.bodies.index(h)?;
    let tangential = BrendelDippel::new(
        TangentialStiffness::FromNormal,
        TangentialDamping::SameDampingRatio,
        Friction::from_material(),
    )?;
    let law = Composed::new(PowerLaw::new(STIFFNESS, 1.0)?, HuntCrossley::from_material(), tangential);
    let config = MdConfig { skin: 1e-3, threads: Some(1), ..Default::default() };
    let mut solver = MdSolver::new(law, VelocityVerlet::new(), BruteForce, config)?;
    let mut t = 0.0;
    let mut stop = None;
    loop {
        let before = world.bodies.velocity[i].x;
        world.step(&mut solver, DT)?;
        t += DT;
        let vx = world.bodies.velocity[i].x;
        match stop {
            None if vx <= 0.0 => stop = Some(t - DT + DT * before / (before - vx)),
            Some(ts) if t >= ts + 0.5 => return Ok((ts, vx)),
            _ => {}
        }
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let alpha = 30f64.to_radians();
    println!("L-block (V = 0.001 m³, 2700 kg/m³) sent up a 30° slope at {V0} m/s, MD:");
    for mu in [0.5, 0.58, 0.6] {
        let (stop, v) = run(alpha, mu)?;
        let expected = V0 / (G * (alpha.sin() + mu * alpha.cos()));
        let slide = -G * (alpha.sin() - mu * alpha.cos()).max(0.0) * 0.5;
        println!(
            "  mu = {mu:<4}: stops at {stop:.5} s (v0/(g sin a + mu g cos a) = {expected:.5} s, rel. {:+.1e}); \
             0.5 s later v = {v:+.3e} m/s (expected {slide:+.3e})",
            stop / expected - 1.0
        );
    }
    Ok(())
}
