//! Passive bodies (`MdSolver::set_passive_bodies`): pairs of two passive bodies are left
//! out of the candidate list, and the active bodies move exactly as without the marks when
//! the passive ones are overwritten after every step with the states, loads and integrator
//! memory of a reference run (what a distributed run does to its ghost copies).

use granula_broadphase::LinkedCells;
use granula_core::{DVec3, Integrator, SphereBuilder, World};
use granula_integrators::VelocityVerlet;
use granula_laws::{hertz_mindlin, HertzMindlin};
use granula_md::{MdConfig, MdSolver};

type Md = MdSolver<HertzMindlin, VelocityVerlet, LinkedCells>;

fn solver() -> Md {
    let config = MdConfig { skin: 1e-3, threads: Some(1), ..Default::default() };
    MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config).unwrap()
}

/// A row of four 1 cm spheres along x, each overlapping the next by 0.1 mm, pressed
/// together (the outer ones move inwards at 5 cm/s, the inner ones slide along y and z in
/// opposite senses, so that the tangential springs load), no gravity.
fn row() -> World {
    let mut w = World::builder().gravity(DVec3::ZERO).build().unwrap();
    let velocities = [
        DVec3::new(0.05, 0.01, 0.0),
        DVec3::new(0.0, -0.02, 0.01),
        DVec3::new(0.0, 0.02, -0.01),
        DVec3::new(-0.05, -0.01, 0.0),
    ];
    for (k, v) in velocities.into_iter().enumerate() {
        let x = DVec3::new(k as f64 * 0.0199, 0.0, 0.0);
        w.insert(SphereBuilder::new(0.01, x).velocity(v).build().unwrap()).unwrap();
    }
    w.accept_overlaps();
    w
}

/// Bodies 2 and 3 passive: their pair (2, 3) is not computed, so body 3, whose only
/// partner is body 2, gets no contact force; bodies 0 and 1 (pairs (0, 1) and (1, 2)) end
/// every step with the reference run's bits, and so does the contact force on body 0.
#[test]
fn active_bodies_are_unchanged_when_passive_ones_are_overwritten_each_step() {
    let (mut reference, mut marked) = (row(), row());
    let (mut s_ref, mut s_marked) = (solver(), solver());
    let dt = 1e-6;
    // The first step primes with every pair (a distributed run marks its ghosts only after
    // its first step), then the marks hold for the rest.
    reference.step(&mut s_ref, dt).unwrap();
    marked.step(&mut s_marked, dt).unwrap();
    s_marked.set_passive_bodies(&[false, false, true, true]);
    let mut loaded = 0;
    for step in 0..400 {
        reference.step(&mut s_ref, dt).unwrap();
        marked.step(&mut s_marked, dt).unwrap();
        let (r, m) = (&reference.bodies, &marked.bodies);
        // Pair (2, 3) left out: body 3 has no partner in the marked run, while the
        // reference pushes it (overlap 0.1 mm and growing).
        assert_eq!(m.force[3], DVec3::ZERO, "step {step}");
        assert!(r.force[3].length() > 0.0, "step {step}");
        for i in 0..2 {
            assert_eq!(m.position[i], r.position[i], "body {i}, step {step}");
            assert_eq!(m.velocity[i], r.velocity[i], "body {i}, step {step}");
            assert_eq!(m.angular_velocity[i], r.angular_velocity[i], "body {i}, step {step}");
            assert_eq!(m.force[i], r.force[i], "body {i}, step {step}");
            assert_eq!(m.torque[i], r.torque[i], "body {i}, step {step}");
        }
        loaded += usize::from(r.torque[1].length() > 0.0);
        // The owners' overwrite: states, loads and accelerations of the passive bodies.
        let memory = s_ref.integrator.save_state();
        let m = &mut marked.bodies;
        for i in 2..4 {
            m.position[i] = r.position[i];
            m.orientation[i] = r.orientation[i];
            m.velocity[i] = r.velocity[i];
            m.angular_velocity[i] = r.angular_velocity[i];
            m.force[i] = r.force[i];
            m.torque[i] = r.torque[i];
            let values = &memory.per_body[6 * i..6 * i + 6];
            assert!(s_marked.integrator.set_body_memory(m, i, values), "memory of body {i} in step");
        }
    }
    // The comparison covered steps where the tangential springs were loaded (torques on the
    // active bodies), not only a head-on push.
    assert!(loaded > 100, "{loaded} steps with a torque on body 1");
}

/// Without marks, every pair of the row is computed: the passive slice cleared by an
/// empty slice puts pair (2, 3) back.
#[test]
fn clearing_the_marks_puts_the_pairs_back() {
    let mut w = row();
    let mut s = solver();
    s.set_passive_bodies(&[false, false, true, true]);
    w.step(&mut s, 1e-6).unwrap();
    assert_eq!(s.candidate_pairs(), 2, "pairs (0, 1) and (1, 2)");
    s.set_passive_bodies(&[]);
    assert!(s.passive_bodies().is_empty());
    w.step(&mut s, 1e-6).unwrap();
    assert_eq!(s.candidate_pairs(), 3, "pairs (0, 1), (1, 2) and (2, 3)");
}
