//! A bead bouncing without damping on a floor of many triangles, level and tilted, under
//! Hooke's and Hertz's laws: its energy is conserved to the integrator's error, as on the
//! plane, and its motion is the plane's.

use crate::common::{random_floor, world};
use granula_broadphase::BruteForce;
use granula_core::{ContactLaw, DQuat, DVec3, Material, PlaneBuilder, SphereBuilder};
use granula_integrators::VelocityVerlet;
use granula_laws::{Composed, Hertz, LinearSpring, NoDamping, NoFriction};
use granula_md::{MdConfig, MdSolver};
use granula_mesh::MeshWallBuilder;

/// What a run gives: the largest departure of the energy from its initial value relative
/// to it, the positions at every step and the number of steps in contact.
struct Run {
    drift: f64,
    positions: Vec<DVec3>,
    in_contact: usize,
}

/// A 1 cm bead (10.5 g) dropped from 1 cm above a floor tilted by `tilt` about y (the
/// random floor of 2 cm triangles, or the plane it lies in), frictionless, for `steps`
/// steps of `dt`. Energy: kinetic + gravitational + the law's stored elastic energy.
fn bounce<L: ContactLaw>(law: L, tilt: f64, mesh: bool, dt: f64, steps: usize) -> Run {
    let material = Material { friction: 0.0, restitution: 1.0, ..Material::default() };
    let mut w = world(DVec3::new(0.0, 0.0, -9.81), material);
    let turn = DQuat::from_rotation_y(tilt);
    if mesh {
        let floor = random_floor(0.5, 50, 5);
        w.insert(MeshWallBuilder::new(floor, DVec3::ZERO).orientation(turn).build().unwrap()).unwrap();
    } else {
        w.insert(PlaneBuilder::new(DVec3::ZERO, turn * DVec3::Z).build().unwrap()).unwrap();
    }
    let r = 0.01;
    // Dropped over a point 0.3 m up the slope (level: anywhere).
    let start = turn * DVec3::new(-0.3, 0.05, r + 0.01);
    let h = w.insert(SphereBuilder::new(r, start).build().unwrap()).unwrap();
    let config = MdConfig { skin: 1e-3, threads: Some(1), ..Default::default() };
    let mut solver = MdSolver::new(law, VelocityVerlet::new(), BruteForce, config).unwrap();
    let energy = |w: &granula_core::World, stored: f64| w.kinetic_energy() + w.potential_energy() + stored;
    let e0 = energy(&w, 0.0);
    let mut run = Run { drift: 0.0, positions: Vec::with_capacity(steps), in_contact: 0 };
    for _ in 0..steps {
        let report = w.step(&mut solver, dt).unwrap();
        run.drift = run.drift.max((energy(&w, report.stored_elastic) - e0).abs() / e0);
        run.in_contact += usize::from(report.contacts > 0);
        run.positions.push(w.bodies.position[w.bodies.index(h).unwrap()]);
    }
    run
}

#[test]
fn a_bead_bouncing_on_a_tiled_floor_keeps_its_energy() {
    let k = 1e4;
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-6;
    let omega = (k / m).sqrt();
    let dt = 1e-5;
    // 0.6 s: six bounces of the 0.44 m/s impact (flight 0.09 s), 3 ms contacts.
    let steps = 60_000;
    let hooke = || Composed::new(LinearSpring::new(k).unwrap(), NoDamping, NoFriction);
    let hertz = || Composed::new(Hertz::from_material(), NoDamping, NoFriction);
    for tilt in [0.0, 25f64.to_radians()] {
        for law in ["hooke", "hertz"] {
            let (on_mesh, on_plane) = match law {
                "hooke" => (bounce(hooke(), tilt, true, dt, steps), bounce(hooke(), tilt, false, dt, steps)),
                _ => (bounce(hertz(), tilt, true, dt, steps), bounce(hertz(), tilt, false, dt, steps)),
            };
            // Velocity Verlet keeps a modified energy of a linear spring exactly; the true
            // energy departs from it by (ω Δt)²/4 of the energy in the spring while in
            // contact, and each impact, whose force starts within a step, adds an error
            // of order (ω Δt)² of the bead's energy: with ω Δt = 0.0098 (Hooke; Hertz's
            // stiffness at these impacts is of the same order), (ω Δt)² ≈ 1e-4 and six
            // impacts, 1e-3 bounds it (it is a few 1e-5 measured). A ghost contact at an
            // edge, or a jump of the normal there, would do work of the order of the
            // stored energy, some 1e-1 of the whole.
            let bound = 10.0 * (omega * dt).powi(2);
            assert!(on_mesh.drift < bound, "{law}, tilt {tilt}: drift {:e} (bound {bound:e})", on_mesh.drift);
            assert!(on_mesh.in_contact > 1500, "{law}: {} steps in contact", on_mesh.in_contact);
            // And the bead moves as on the plane the floor lies in: to the bit when level
            // (the contacts are the plane's), to the round-off of the turned coordinates
            // (1e-16 of 0.5 m), grown by the six impacts' sensitivity, when tilted.
            let worst =
                on_mesh.positions.iter().zip(&on_plane.positions).map(|(a, b)| (*a - *b).length()).fold(0.0, f64::max);
            assert!(worst < 1e-12, "{law}, tilt {tilt}: {worst:e} m from the plane's run");
            println!(
                "{law} tilt {tilt:.3}: drift {:e}, plane {:e}, from plane {worst:e}",
                on_mesh.drift, on_plane.drift
            );
        }
    }
}
