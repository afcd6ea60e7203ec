//! Two equal cubes stacked on a plane under the MD solver, the upper one turned 0.4 rad
//! about the vertical: the cube–cube contact is the eight corners of an octagon, all edge
//! crossings (no vertex of either cube is inside the other). With an undamped linear
//! spring per point the total energy (kinetic + gravitational + the springs' stored
//! energy) is conserved to the integrator's error; with viscous damping it never grows;
//! the upper cube neither slides nor turns. Before the edge–edge rule was fixed, the pair
//! got one point whose feature changed from step to step and the stack gained energy.

use granula_broadphase::BruteForce;
use granula_core::{DQuat, DVec3, Material, PlaneBuilder, World};
use granula_integrators::VelocityVerlet;
use granula_laws::prelude::*;
use granula_md::{MdConfig, MdSolver};
use granula_polyhedra::contact::{plane_polyhedron, polyhedron_polyhedron};
use granula_polyhedra::{register_all, shapes, Polyhedron, PolyhedronBuilder, Pose};
use std::sync::Arc;

const G: f64 = 9.81;
/// Edge of the cubes (m).
const EDGE: f64 = 0.1;
/// Stiffness per contact point (N/m): the upper cube (2.7 kg) on eight points rings at
/// ω = √(8K/m) ≈ 1.7e3 rad/s, 365 steps per period at Δt = 1e-5 s.
const K: f64 = 1e6;
const DT: f64 = 1e-5;
const TURN: f64 = 0.4;

/// The plane z = 0, the lower cube on it and the upper one turned by `TURN`, each `gap`
/// above what it stands on (gap < 0: pressed in); returns the world and the cubes'
/// indices.
fn stack(material: Material, gap: f64) -> (World, [usize; 2], Arc<Polyhedron>) {
    let mut narrowphase = granula_core::Narrowphase::new();
    register_all(&mut narrowphase).unwrap();
    let mut world =
        World::builder().gravity(DVec3::new(0.0, 0.0, -G)).material(material).narrowphase(narrowphase).build().unwrap();
    world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let cube = Arc::new(shapes::cube(EDGE).unwrap());
    let mut ids = [0; 2];
    for (k, (z, turn)) in [(0.5 * EDGE + gap, 0.0), (1.5 * EDGE + 2.0 * gap, TURN)].into_iter().enumerate() {
        let body = PolyhedronBuilder::new(cube.clone(), DVec3::new(0.0, 0.0, z))
            .orientation(DQuat::from_rotation_z(turn))
            .build()
            .unwrap();
        let h = world.insert(body).unwrap();
        ids[k] = world.bodies.index(h).unwrap();
    }
    (world, ids, cube)
}

/// Kinetic + gravitational energy of the cubes and ½ K δ² over every contact point, the
/// points found by the same contact functions the registered generators call (margin 0).
fn energy(world: &World, ids: [usize; 2], cube: &Polyhedron) -> f64 {
    let pose = |i: usize| Pose::new(world.bodies.position[i], world.bodies.orientation[i]);
    let mut points = Vec::new();
    plane_polyhedron(DVec3::ZERO, DVec3::Z, cube, &pose(ids[0]), 0.0, &mut points);
    polyhedron_polyhedron(cube, &pose(ids[0]), cube, &pose(ids[1]), 0.0, &mut points);
    let elastic: f64 = points.iter().map(|g| 0.5 * K * g.gap.min(0.0).powi(2)).sum();
    let potential: f64 = ids.iter().map(|&i| world.bodies.mass[i] * G * world.bodies.position[i].z).sum();
    world.kinetic_energy() + potential + elastic
}

fn solver<D: DampingModel>(damping: D) -> MdSolver<Composed<LinearSpring, D, NoFriction>, VelocityVerlet, BruteForce> {
    let law = Composed::new(LinearSpring::new(K).unwrap(), damping, NoFriction);
    let config = MdConfig { skin: 1e-3, threads: Some(1), ..Default::default() };
    MdSolver::new(law, VelocityVerlet::new(), BruteForce, config).unwrap()
}

#[test]
fn undamped_stack_conserves_energy_and_stays_put() {
    // Dropped from 1e-4 m above each other: the upper cube hits at √(2 g h) ≈ 0.044 m/s and
    // both bounce for good (no damping), through about 14 contact periods in 5000 steps.
    let material = Material { density: 2700.0, friction: 0.0, restitution: 1.0, ..Material::named("cube") };
    let (mut world, ids, cube) = stack(material, 1e-4);
    let mut solver = solver(NoDamping);
    let e0 = energy(&world, ids, &cube);
    let scale = world.bodies.mass[ids[1]] * G * 1e-4; // the energy exchanged in a bounce
    let (mut worst, mut pair_points) = (0.0_f64, 0);
    for _ in 0..5000 {
        let report = world.step(&mut solver, DT).unwrap();
        pair_points = pair_points.max(report.contacts);
        // Two pairs at most (cube on floor, cube on cube), each with its corners.
        assert!(report.pairs <= 2 && report.pairs <= report.contacts, "{} pairs", report.pairs);
        worst = worst.max((energy(&world, ids, &cube) - e0).abs());
    }
    let top = ids[1];
    let turn = world.bodies.orientation[top].to_euler(glam::EulerRot::ZYX).0;
    println!(
        "energy error {:.2e} J of {scale:.2e} J exchanged ({:.1e}), {pair_points} contacts at most, drift {:.1e} m, turn {:.1e} rad",
        worst,
        worst / scale,
        world.bodies.position[top].truncate().length(),
        turn - TURN
    );
    // Velocity Verlet keeps a linear oscillator's energy to ~(ωΔt)²/8 ≈ 4e-5 of the
    // oscillation energy; switching a spring on or off between steps adds ~K (vΔt)² ≈ 2e-7 J
    // per point, 1e-4 of the exchanged energy. 1e-3 of it is ten times both; the runaway
    // the missing crossings caused grew without bound (the solver's guard stopped it).
    assert!(worst < 1e-3 * scale, "energy error {worst} J against {scale} J");
    // The plane's four corners and the octagon's eight.
    assert!(pair_points >= 12, "{pair_points}");
    // A symmetric stack: no sideways push, no twist, but round-off (1e-12 m, 1e-10 rad).
    assert!(world.bodies.position[top].truncate().length() < 1e-12);
    assert!((turn - TURN).abs() < 1e-10);
}

#[test]
fn damped_stack_loses_energy_and_settles() {
    let material = Material { density: 2700.0, friction: 0.0, restitution: 0.5, ..Material::named("cube") };
    let (mut world, ids, cube) = stack(material, 1e-4);
    let mut solver = solver(LinearViscous::from_material());
    let e0 = energy(&world, ids, &cube);
    let mut last = e0;
    let slack = 1e-7; // the undamped run's step-to-step wobble is below this (J)
    for step in 0..5000 {
        world.step(&mut solver, DT).unwrap();
        let e = energy(&world, ids, &cube);
        assert!(e <= last + slack, "step {step}: energy grew from {last} to {e}");
        last = last.min(e);
    }
    let top = ids[1];
    // Static overlaps m g/(8K) and 2 m g/(4K) under the two cubes, all from rest.
    let m = world.bodies.mass[top];
    let z_rest = 1.5 * EDGE - m * G / (8.0 * K) - 2.0 * m * G / (4.0 * K);
    println!(
        "energy {e0:.6} -> {last:.6} J, top at {:.9} m (rest {z_rest:.9}), speed {:.1e}",
        world.bodies.position[top].z,
        world.bodies.velocity[top].length()
    );
    assert!(last < e0);
    // e = 0.5 takes 3/4 of the energy per bounce: after 0.05 s (14 periods) the rest
    // overlap is reached to 1 % of it (4e-8 m).
    assert!((world.bodies.position[top].z - z_rest).abs() < 0.01 * 3.0 * m * G / (8.0 * K));
    assert!(world.bodies.position[top].truncate().length() < 1e-12);
}
