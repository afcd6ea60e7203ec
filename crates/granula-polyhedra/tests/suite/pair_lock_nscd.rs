//! The block solve of a hyperstatic pair under NSCD (`granula_nscd::pair_lock`): a cube
//! resting on its face on an incline touches the plane at four corners (12 impulse
//! components on 6 degrees of freedom, the reactions not unique). With μ above tan α the
//! pair locks: the cube does not move, and every corner's impulse lies in its Coulomb
//! cone; with μ below tan α the lock is impossible and the cube slides at
//! g (sin α − μ cos α).

use granula_broadphase::BruteForce;
use granula_core::{DVec3, Material, Narrowphase, PlaneBuilder, World};
use granula_nscd::{Criterion, NscdConfig, NscdSolver};
use granula_polyhedra::{register_all, shapes, PolyhedronBuilder};
use std::sync::Arc;

const G: f64 = 9.81;
/// Slope angle (rad): 25°, away from the M7 block's 30°.
const ALPHA: f64 = 25.0 * std::f64::consts::PI / 180.0;
const EDGE: f64 = 0.1;
const DENSITY: f64 = 2700.0;
const DT: f64 = 1e-4;

/// The plane z = 0, gravity turned by α about y, and the cube at rest on its face.
fn scene(mu: f64) -> (World, usize) {
    let mut narrowphase = Narrowphase::new();
    register_all(&mut narrowphase).unwrap();
    let gravity = G * DVec3::new(-ALPHA.sin(), 0.0, -ALPHA.cos());
    let material = Material { density: DENSITY, friction: mu, ..Material::named("cube") };
    let mut world = World::builder().gravity(gravity).material(material).narrowphase(narrowphase).build().unwrap();
    world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let cube = Arc::new(shapes::cube(EDGE).unwrap());
    let h = world.insert(PolyhedronBuilder::new(cube, DVec3::new(0.0, 0.0, 0.5 * EDGE)).build().unwrap()).unwrap();
    let i = world.bodies.index(h).unwrap();
    (world, i)
}

/// μ = 1.001 tan α (a margin of 0.1 %, thinner than M7's 0.45 %): the four corners lock.
#[test]
fn a_cube_on_an_incline_locks_with_every_impulse_in_its_cone() {
    let mu = 1.001 * ALPHA.tan();
    let (mut world, i) = scene(mu);
    let mut solver = NscdSolver::new(BruteForce, NscdConfig::default()).unwrap();
    let x0 = world.bodies.position[i];
    let mut drift: f64 = 0.0;
    for _ in 0..2000 {
        let report = world.step(&mut solver, DT).unwrap();
        assert_eq!((report.contacts, report.pairs), (4, 1), "the four corners of the bottom face");
        assert!(solver.last_pair_locks() >= 1, "the pair locks on every step");
        drift = drift.max((world.bodies.position[i] - x0).length());
    }
    println!("cube, mu = 1.001 tan(alpha): drift {drift:.3e} m over 0.2 s");
    // The lock sets the velocity to the least-squares solution of v + ω × l = 0, exactly 0,
    // and the impulses reach it to the Newton tolerance 1e-12 of the velocity removed
    // (g Δt ~ 1e-3 m/s): 1e-15 m/s, 2e-19 m over the 2000 steps; 1e-12 m leaves room.
    assert!(drift < 1e-12, "drift {drift} m");
    let mass = DENSITY * EDGE.powi(3);
    let mut total = DVec3::ZERO;
    for (_, _, p) in solver.impulses() {
        // The plane is body 1, its normal +z: P_n = p.z, P_t the horizontal part.
        let (pn, pt) = (p.z, (p.x * p.x + p.y * p.y).sqrt());
        assert!(pn >= 0.0, "Signorini: P_n = {pn}");
        // Coulomb's cone to round-off (the projection is exact to a few ulps).
        assert!(pt <= mu * pn * (1.0 + 1e-12), "Coulomb: |P_t| = {pt} > mu P_n = {}", mu * pn);
        total += p;
    }
    // Equilibrium: the impulses cancel the weight over the step, to the Newton tolerance.
    let weight = mass * G * DT * DVec3::new(ALPHA.sin(), 0.0, ALPHA.cos());
    assert!((total - weight).length() < 1e-9 * weight.length(), "impulses {total}, weight {weight}");
}

/// μ = 0.9 tan α: no locked state exists (the resultant would leave the cone), the lock
/// fails and the cube slides down at g (sin α − μ cos α).
#[test]
fn a_cube_on_an_incline_below_the_friction_angle_slides_at_the_coulomb_rate() {
    let mu = 0.9 * ALPHA.tan();
    let (mut world, i) = scene(mu);
    let criterion = Criterion::LocalRelative { epsilon: 1e-8, cutoff: 1e-12, max_iterations: 1000 };
    let mut solver = NscdSolver::new(BruteForce, NscdConfig { criterion, ..Default::default() }).unwrap();
    // The first step starts all four corners sliding from rest, a hyperstatic change of
    // regime the sweeps reach their cap on; the acceleration is measured after it, from
    // 0.02 s to 0.1 s.
    let mut v_start = 0.0;
    for k in 1..=1000 {
        world.step(&mut solver, DT).unwrap();
        assert_eq!(solver.last_pair_locks(), 0, "a sliding pair must not lock");
        if k == 200 {
            v_start = world.bodies.velocity[i].x;
        }
    }
    let a = (world.bodies.velocity[i].x - v_start) / (800.0 * DT);
    let expected = -G * (ALPHA.sin() - mu * ALPHA.cos());
    println!("cube, mu = 0.9 tan(alpha): a = {a:.6} m/s², expected {expected:.6}");
    // Implicit Euler is exact for the constant acceleration; the sweeps' tolerance 1e-8
    // bounds the friction's error, and 1e-5 of a covers it (measured below).
    assert!((a / expected - 1.0).abs() < 1e-5, "a = {a}, expected {expected}");
}
