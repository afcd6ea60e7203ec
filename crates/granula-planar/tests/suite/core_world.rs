//! The same collision on the 2D engine and on the core's planar world: two squares
//! meeting face to face under the overlap-area law of 002 eq. 5 with the viscous force of
//! 002 eqs. 2-3, run by this crate's Gear solver and by the MD solver of `granula-md` (Gear
//! and velocity Verlet) with `granula_laws::planar_area_law` on polygons of
//! `granula_polygons::PolygonShape`. Both must give 002 eq. 8's restitution and eq. 10's
//! contact time, and each other's.

use granula_broadphase::BruteForce;
use granula_core::narrowphase::Narrowphase;
use granula_core::{DVec3, Integrator, Solver, World};
use granula_integrators::{Gear, VelocityVerlet};
use granula_laws::{planar_area_law, PlanarAreaLaw};
use granula_md::{MdConfig, MdSolver};
use granula_planar::prelude::*;
use granula_polygons::{register_all, shapes, PolygonBuilder};
use std::f64::consts::PI;
use std::sync::Arc;

/// Side (m), mass (kg) of each square, approach speed of each (m/s), k_n (N/m).
const SIDE: f64 = 0.1;
const MASS: f64 = 1.0;
const SPEED: f64 = 0.5;
const KN: f64 = 1e4;

/// What a run measured: restitution, contact duration (s), final spin of body 0 (rad/s).
#[derive(Debug)]
struct Outcome {
    restitution: f64,
    duration: f64,
    spin: f64,
}

/// The 2D engine's run.
fn planar_run(nu: f64, dt: f64) -> Outcome {
    let law = ContactLaw::builder(KN).normal_damping(nu).build().unwrap();
    let square = Arc::new(shapes::rectangle(SIDE, SIDE).unwrap());
    let body =
        |x: f64, v: f64| BodyBuilder::polygon(square.clone()).position(DVec2::new(x, 0.0)).velocity(DVec2::X * v);
    let gap = 0.5 * SIDE + 5e-4;
    let mut sim = Simulation::builder(law)
        .dt(dt)
        .body(body(-gap, SPEED).mass(MASS))
        .body(body(gap, -SPEED).mass(MASS))
        .build()
        .unwrap();
    let (mut steps, mut seen) = (0usize, false);
    for _ in 0..100_000 {
        sim.step().unwrap();
        let touching = !sim.contacts().is_empty();
        steps += touching as usize;
        seen |= touching;
        if seen && !touching {
            break;
        }
    }
    let v = &sim.bodies.velocity;
    Outcome {
        restitution: (v[1].x - v[0].x) / (2.0 * SPEED),
        duration: steps as f64 * dt,
        spin: sim.bodies.angular_velocity[0],
    }
}

/// The core's run, the MD solver with `integrator`.
fn core_run<I: Integrator>(integrator: I, nu: f64, dt: f64) -> Outcome {
    let mut narrowphase = Narrowphase::new();
    register_all(&mut narrowphase).unwrap();
    let mut world = World::builder().planar(true).gravity(DVec3::ZERO).narrowphase(narrowphase).build().unwrap();
    let square = Arc::new(shapes::rectangle(SIDE, SIDE).unwrap());
    let gap = 0.5 * SIDE + 5e-4;
    for (x, v) in [(-gap, SPEED), (gap, -SPEED)] {
        let body = PolygonBuilder::new(square.clone(), DVec2::new(x, 0.0)).velocity(DVec2::X * v).mass(MASS);
        world.insert(body.build().unwrap()).unwrap();
    }
    let law: PlanarAreaLaw = planar_area_law(KN, nu).unwrap();
    let mut md = MdSolver::new(law, integrator, BruteForce, MdConfig::default()).unwrap();
    md.publish_contacts(true);
    let (mut steps, mut seen) = (0usize, false);
    for _ in 0..100_000 {
        world.step(&mut md, dt).unwrap();
        let touching = !md.contacts().unwrap().is_empty();
        steps += touching as usize;
        seen |= touching;
        if seen && !touching {
            break;
        }
    }
    let v = &world.bodies.velocity;
    Outcome {
        restitution: (v[1].x - v[0].x) / (2.0 * SPEED),
        duration: steps as f64 * dt,
        spin: world.bodies.angular_velocity[0].z,
    }
}

#[test]
fn a_face_to_face_collision_is_the_same_on_the_core_and_on_the_2d_engine() {
    // The overlap is a SIDE × δ strip, so F = k_n SIDE δ / l_c with l_c = 2 SIDE/√π: a
    // linear spring k = k_n √π/2 on the reduced mass m_r = 0.5 kg. ν is the rate that gives
    // ε = 0.9 at stiffness k_n; at the true k, 002 eq. 8 predicts ε = exp(−π η/ω) and eq. 10
    // t_c = π/ω, ω = √(k/m_r − η²), η = ν/2 (the force may pull, as in 002: no clamp).
    let mr = 0.5 * MASS;
    let nu = damping_from_restitution(0.9, KN, mr);
    let k = KN * PI.sqrt() / 2.0;
    let eta = 0.5 * nu;
    let omega = (k / mr - eta * eta).sqrt();
    let (e_theory, tc_theory) = ((-PI * eta / omega).exp(), PI / omega);
    let dt = tc_theory / 2000.0;
    let planar = planar_run(nu, dt);
    let gear = core_run(Gear::six(), nu, dt);
    let verlet = core_run(VelocityVerlet::new(), nu, dt);
    println!("theory: ε = {e_theory:.7}, t_c = {tc_theory:.7e} s");
    for (name, o) in [("granula-planar (Gear)", &planar), ("core MD, Gear", &gear), ("core MD, Verlet", &verlet)] {
        println!("{name}: ε = {:.12}, t_c = {:.12e} s, spin {:.1e}", o.restitution, o.duration, o.spin);
    }
    // Restitution: each run ends its contact between two steps with the dashpot still
    // pulling, an impulse error of order ν Δt ~ 1e-5 of the total, and Verlet's phase error
    // (ω Δt)² ~ 2.5e-6 adds to it; 1e-4 bounds both against theory and between engines.
    // The same scheme (Gear, six values, force at the predicted state) on the same law: the
    // two engines differ by round-off only (3-vectors and another order of operations;
    // measured: equal to the 12 digits printed), so 1e-9 is the check.
    assert!((gear.restitution - planar.restitution).abs() < 1e-9, "{gear:?} against {planar:?}");
    for o in [&planar, &gear, &verlet] {
        assert!((o.restitution - e_theory).abs() < 1e-4, "{o:?} against ε = {e_theory}");
        assert!((o.restitution - planar.restitution).abs() < 1e-4, "{o:?} against {planar:?}");
        // Duration: counted in whole steps of t_c/2000, each end within a step: 2 steps.
        assert!((o.duration - tc_theory).abs() <= 2.0 * dt + 1e-12 * tc_theory, "{o:?} against t_c = {tc_theory}");
        assert!((o.duration - planar.duration).abs() <= 2.0 * dt + 1e-12 * tc_theory, "{o:?} against {planar:?}");
        // Faces parallel: no torque, no spin.
        assert!(o.spin.abs() < 1e-9, "{o:?}");
    }
}
