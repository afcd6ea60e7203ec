//! A host contact generator that reports two points for one pair of bodies (a rod's two
//! ends on a floor): the MD solver gives each point its own history, keyed by feature.

use granula_core::{ContactForce, ContactKey, ContactKinematics, ContactLaw, DVec3, Solver};
use granula_integrators::VelocityVerlet;
use granula_md::{MdConfig, MdSolver};
use granula_validation::rod::rod_world;

/// A linear normal spring whose history is the tangential displacement of the contact
/// points, ∫ 𝒱_t dt (no tangential force): it tells the two ends' histories apart.
#[derive(Clone, Copy, Debug)]
struct Tracer;

impl ContactLaw for Tracer {
    type History = DVec3;
    type Pair = ();

    fn name(&self) -> String {
        "tracer".into()
    }

    fn force(&self, k: &ContactKinematics<'_>, slip: &mut DVec3) -> ContactForce {
        if k.overlap <= 0.0 {
            *slip = DVec3::ZERO;
            return ContactForce::default();
        }
        let v = k.relative_velocity;
        *slip += (v - v.dot(k.normal) * k.normal) * k.dt;
        ContactForce { force: 1e4 * k.overlap * k.normal, ..Default::default() }
    }
}

#[test]
fn two_points_of_one_pair_carry_two_histories() {
    // Ends at ∓0.1 x, spinning at 1 rad/s about z: they move at ∓0.1 m/s along y.
    let (mut w, floor, rod) = rod_world(DVec3::ZERO, -1e-3, 1.0);
    let mut solver =
        MdSolver::new(Tracer, VelocityVerlet::new(), granula_broadphase::BruteForce, MdConfig::default()).unwrap();
    solver.publish_contacts(true);
    let dt = 1e-4;
    w.step(&mut solver, dt).unwrap();
    let key = |feature| ContactKey { body1: floor, body2: rod, feature };
    assert_eq!(solver.candidate_pairs(), 1, "one candidate for the pair");
    let points: Vec<(ContactKey, DVec3)> = solver.contact_histories().map(|(k, h)| (k, *h)).collect();
    assert_eq!(points.iter().map(|p| p.0).collect::<Vec<_>>(), [key(0), key(1)], "one history per point");
    let (s0, s1) = (points[0].1, points[1].1);
    // One step of 𝒱_t Δt: the ends slide in opposite directions by 0.1 m/s × 1e-4 s.
    assert!((s0.y + 1e-5).abs() < 1e-9 && (s1.y - 1e-5).abs() < 1e-9, "{s0} {s1}");
    let forces: Vec<(ContactKey, DVec3)> = solver
        .contacts()
        .expect("published")
        .iter()
        .filter(|c| c.force != DVec3::ZERO)
        .map(|c| (c.key, c.force))
        .collect();
    assert_eq!(forces.iter().map(|(k, _)| k.feature).collect::<Vec<_>>(), [0, 1]);
    assert!(forces.iter().all(|(_, f)| f.z > 0.0), "both ends pushed up: {forces:?}");
}

#[test]
fn a_checkpoint_carries_the_histories_of_both_features() {
    let (mut w, _, _) = rod_world(DVec3::ZERO, -1e-3, 1.0);
    let solver =
        || MdSolver::new(Tracer, VelocityVerlet::new(), granula_broadphase::BruteForce, MdConfig::default()).unwrap();
    let mut a = solver();
    for _ in 0..3 {
        w.step(&mut a, 1e-4).unwrap();
    }
    let state = a.save_state();
    let mut b = solver();
    b.restore_state(&state, &w).unwrap();
    assert_eq!(state.points.len(), 2, "both points saved");
    let histories = |s: &MdSolver<Tracer, VelocityVerlet, granula_broadphase::BruteForce>| {
        s.contact_histories().map(|(k, h)| (k, *h)).collect::<Vec<_>>()
    };
    assert_eq!(histories(&b), histories(&a));
    // And the next steps agree bit for bit.
    // A second world in the same state (the same steps from the same start).
    let (mut w2, _, _) = rod_world(DVec3::ZERO, -1e-3, 1.0);
    let mut c = solver();
    for _ in 0..3 {
        w2.step(&mut c, 1e-4).unwrap();
    }
    assert_eq!(w2.bodies.position, w.bodies.position);
    w.step(&mut a, 1e-4).unwrap();
    w2.step(&mut b, 1e-4).unwrap();
    assert_eq!(histories(&b), histories(&a));
    assert_eq!(w2.bodies.position, w.bodies.position);
}
