//! Periodic boundaries in the MD solver: a collision across the boundary against the same
//! collision away from it (bit for bit), a body wrapped by a period during a loaded
//! contact (same force history), momentum of a periodic gas, one and two threads, a
//! checkpoint restart across the boundary, and the named errors of bad periodic input.

use granula_broadphase::LinkedCells;
use granula_core::{Axis, CoreError, DVec3, PeriodicError, Solver, SphereBuilder, World};
use granula_integrators::VelocityVerlet;
use granula_laws::{hertz_mindlin, HertzMindlin};
use granula_md::{MdConfig, MdError, MdSolver};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Md = MdSolver<HertzMindlin, VelocityVerlet, LinkedCells>;

fn solver(threads: Option<usize>) -> Md {
    let config = MdConfig { skin: 1e-3, threads, parallel_min_pairs: 0, ..Default::default() };
    MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config).unwrap()
}

/// Two spheres (r = 0.25 m) 1 cm apart, approaching along x at 0.2 m/s with a sliding
/// velocity of 0.1 m/s along y: in a world periodic along x over [2, 4) with body A at
/// x = 3.74 and body B at 2.25 (they meet across x = 4), or, with `periodic = false`, in
/// a world without periodic axes with A moved by −1 m and B by +1 m (they meet at x = 3).
fn two_spheres(periodic: bool) -> World {
    let mut builder = World::builder().gravity(DVec3::ZERO);
    if periodic {
        builder = builder.periodic(Axis::X, 2.0, 4.0);
    }
    let mut w = builder.build().unwrap();
    let (mut a, mut b) = (DVec3::new(3.74, 3.0, 3.0), DVec3::new(2.25, 3.0, 3.0));
    if !periodic {
        // Exact: both coordinates stay in [2, 4), where doubles are spaced by 2⁻⁵¹.
        a.x -= 1.0;
        b.x += 1.0;
    }
    w.insert(SphereBuilder::new(0.25, a).velocity(DVec3::new(0.1, 0.05, 0.0)).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(0.25, b).velocity(DVec3::new(-0.1, -0.05, 0.0)).build().unwrap()).unwrap();
    w
}

/// The collision across the boundary is the collision away from it, to the bit, once the
/// positions are unwrapped. Bit for bit because every x coordinate stays in [2, 4), where a
/// translation by 1 m is exact and keeps the rounding of every sum (the grid of doubles is
/// uniform there and 1 m is an even number of its steps), and the minimum-image separation
/// (x_B − x_A) + 2 m is then exactly the separation away from the boundary: the same
/// forces, velocities, spins and tangential springs follow.
#[test]
fn a_collision_across_the_boundary_equals_the_one_away_from_it_bit_for_bit() {
    let (mut across, mut away) = (two_spheres(true), two_spheres(false));
    let (mut s1, mut s2) = (solver(Some(1)), solver(Some(1)));
    let mut touched = 0;
    for _ in 0..1500 {
        let r1 = across.step(&mut s1, 1e-4).unwrap();
        let r2 = away.step(&mut s2, 1e-4).unwrap();
        assert_eq!(r1.contacts, r2.contacts);
        touched += r1.contacts;
        let (p, q) = (&across.bodies, &away.bodies);
        assert_eq!(p.velocity, q.velocity);
        assert_eq!(p.angular_velocity, q.angular_velocity);
        assert_eq!(p.force, q.force);
        assert_eq!(p.torque, q.torque);
        assert_eq!(p.position[0] - DVec3::new(1.0, 0.0, 0.0), q.position[0]);
        assert_eq!(p.position[1] + DVec3::new(1.0, 0.0, 0.0), q.position[1]);
        assert_eq!(across.ledger, away.ledger);
    }
    // They did collide across the boundary, and the sliding spun them.
    assert!(touched > 100, "{touched} contact steps");
    assert!(across.bodies.velocity[0].x < 0.0 && across.bodies.velocity[1].x > 0.0);
    assert!(across.bodies.angular_velocity[0].length() > 0.0);
}

/// Two spheres (r = 0.1 m) pressed together along y, sliding along z, both drifting at
/// 0.5 m/s along x through the boundary x = 1 of a world periodic along x over [0, 1).
/// With `wrap`, each body is moved back by one period by hand once past x = 1 (A first,
/// B 25 steps later, so that for those steps the pair's bodies are a period apart and
/// interact through the image). Returns the force on A at every step, the number of
/// rebuilds of the candidate list and the step of A's wrap.
fn wrapped_pair(wrap: bool) -> (Vec<DVec3>, usize, Option<usize>) {
    let mut w = World::builder().gravity(DVec3::ZERO).periodic(Axis::X, 0.0, 1.0).build().unwrap();
    let v = |vy: f64, vz: f64| DVec3::new(0.5, vy, vz);
    w.insert(SphereBuilder::new(0.1, DVec3::new(0.99, 0.5, 0.5)).velocity(v(0.05, 0.03)).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(0.1, DVec3::new(0.99, 0.7, 0.5)).velocity(v(-0.05, -0.03)).build().unwrap()).unwrap();
    let mut s = solver(Some(1));
    let (mut forces, mut wrapped_a, mut wrapped_b) = (Vec::new(), None, false);
    for step in 0..400 {
        w.step(&mut s, 1e-4).unwrap();
        forces.push(w.bodies.force[0]);
        if wrap {
            if wrapped_a.is_none() && w.bodies.position[0].x >= 1.0 {
                w.bodies.position[0].x -= 1.0;
                wrapped_a = Some(step);
            }
            if wrapped_a.is_some_and(|s0| step >= s0 + 25) && !wrapped_b {
                w.bodies.position[1].x -= 1.0;
                wrapped_b = true;
            }
        }
    }
    assert_eq!(wrap, wrapped_b, "both bodies crossed x = 1 during the run");

    (forces, s.rebuilds() as usize, wrapped_a)
}

/// Wrapping bodies during a loaded contact changes nothing but round-off: the contact's
/// history is keyed by the bodies, the rebuild that the jump of a period triggers finds the
/// pair through the image and keeps the tangential spring. The two runs differ only in the
/// rounding of positions near 1 m and near 0 m (absolute 1.1e-16 m per operation, about
/// 1e-12 of the ~2e-4 m overlap), so the forces agree to 1e-9 of the largest force, a bound
/// well above what 400 steps of such differences can add up to and far below the change
/// a lost spring makes (the tangential force is ~10 % of the normal one).
#[test]
fn wrapping_a_body_during_a_loaded_contact_keeps_its_force_history() {
    let (reference, rebuilds_ref, _) = wrapped_pair(false);
    let (wrapped, rebuilds, first_wrap) = wrapped_pair(true);
    assert!(rebuilds > rebuilds_ref, "the wraps forced rebuilds ({rebuilds} vs {rebuilds_ref})");
    let scale = reference.iter().map(|f| f.length()).fold(0.0, f64::max);
    assert!(scale > 0.0);
    // The tangential (z) part was loaded during the wraps.
    // The tangential (z) part was loaded from before A's wrap to after B's.
    let first = first_wrap.expect("A was wrapped");
    assert!(
        reference[first - 10..first + 40].iter().all(|f| f.z.abs() > 0.05 * scale),
        "{:?}",
        &reference[first - 10..first + 40]
    );
    for (k, (a, b)) in reference.iter().zip(&wrapped).enumerate() {
        assert!((*a - *b).length() <= 1e-9 * scale, "step {k}: {a} vs {b}");
    }
}

/// 125 spheres (r = 1 cm, 5 % polydisperse) on a jittered lattice in a cube periodic
/// along x, y and z, random velocities of 0.5 m/s, no gravity.
fn gas() -> World {
    let l = 0.15;
    let mut w = World::builder()
        .gravity(DVec3::ZERO)
        .periodic(Axis::X, 0.0, l)
        .periodic(Axis::Y, 0.0, l)
        .periodic(Axis::Z, 0.0, l)
        .build()
        .unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut r = |a: f64| DVec3::new(rng.random_range(-a..a), rng.random_range(-a..a), rng.random_range(-a..a));
    for i in 0..5 {
        for j in 0..5 {
            for k in 0..5 {
                let x = (DVec3::new(i as f64, j as f64, k as f64) + 0.5) * (l / 5.0) + r(0.004);
                let radius = 0.0095 + r(0.0005).x;
                w.insert(SphereBuilder::new(radius, x).velocity(r(0.5)).build().unwrap()).unwrap();
            }
        }
    }
    w
}

/// The momentum of a periodic gas is conserved: every pair load enters its two bodies as
/// the same vector with opposite signs, across the boundary as inside, so the total
/// changes only by the rounding of the velocity updates, a few 1e-16 of Σ m|v| per step
/// and body in a random walk: 1e-12 of Σ m|v| after 1500 steps is a bound with margin.
/// Many contacts close across the boundaries (counted from the published contacts whose
/// bodies' stored positions are more than half a period apart).
#[test]
fn a_periodic_gas_conserves_momentum() {
    let mut w = gas();
    let mut s = solver(Some(1));
    s.publish_contacts(true);
    let p0 = w.momentum();
    let scale: f64 = (0..w.bodies.len()).map(|i| w.bodies.mass[i] * w.bodies.velocity[i].length()).sum();
    let mut across = 0;
    for _ in 0..1500 {
        w.step(&mut s, 2e-5).unwrap();
        across += s
            .contacts()
            .expect("published")
            .iter()
            .filter(|c| {
                let d = w.bodies.position[c.body2 as usize] - w.bodies.position[c.body1 as usize];
                d.abs().max_element() > 0.075
            })
            .count();
    }
    assert!(across > 50, "{across} contact steps across a boundary");
    // Bodies left the box: positions are unwrapped.
    assert!(w.bodies.position.iter().any(|x| x.min_element() < 0.0 || x.max_element() > 0.15));
    let dp = (w.momentum() - p0).length();
    assert!(dp <= 1e-12 * scale, "momentum drift {dp} of {scale}");
}

/// One and two threads give the same bits in a periodic gas (pairs across the boundary
/// included), and a run restarted from a checkpoint (bincode, as a file) after 300 steps
/// equals the straight run after 300 more, with the candidates across the boundary and
/// their image shifts restored.
#[test]
fn periodic_gas_is_the_same_on_two_threads_and_after_a_restart() {
    let run = |threads, steps| {
        let mut w = gas();
        let mut s = solver(threads);
        for _ in 0..steps {
            w.step(&mut s, 2e-5).unwrap();
        }
        (w, s)
    };
    let (one, _) = run(Some(1), 600);
    let (two, _) = run(Some(2), 600);
    assert_eq!(one.bodies.position, two.bodies.position);
    assert_eq!(one.bodies.velocity, two.bodies.velocity);
    assert_eq!(one.bodies.angular_velocity, two.bodies.angular_velocity);

    let (first, s1) = run(Some(1), 300);
    let bytes = bincode::serialize(&s1.save_state()).unwrap();
    let mut resumed = gas();
    resumed.restore_state(&first.save_state()).unwrap();
    let mut s = solver(Some(1));
    s.restore_state(&bincode::deserialize(&bytes).unwrap(), &resumed).unwrap();
    for _ in 0..300 {
        resumed.step(&mut s, 2e-5).unwrap();
    }
    assert_eq!(resumed.bodies.position, one.bodies.position);
    assert_eq!(resumed.bodies.velocity, one.bodies.velocity);
    assert_eq!(resumed.bodies.angular_velocity, one.bodies.angular_velocity);
    assert_eq!(resumed.ledger, one.ledger);
}

/// Bad periodic input gives named errors: bounds, a period shorter than two diameters
/// (at insertion, naming the axis), and a period too short for the solver's skin.
#[test]
fn bad_periodic_input_gives_named_errors() {
    let err = World::builder().periodic(Axis::Y, 1.0, 0.0).build().unwrap_err();
    assert!(matches!(err, CoreError::Periodic(PeriodicError::InvalidBounds { axis: Axis::Y, .. })), "{err}");
    let err = World::builder().periodic(Axis::Z, 0.0, 1.0).periodic(Axis::Z, 0.0, 2.0).build().unwrap_err();
    assert!(matches!(err, CoreError::Periodic(PeriodicError::DuplicateAxis { axis: Axis::Z })), "{err}");

    // Diameter 0.06 m, period 0.1 m < 2 × 0.06 m.
    let mut w = World::builder().gravity(DVec3::ZERO).periodic(Axis::X, 0.0, 0.1).build().unwrap();
    let err = w.insert(SphereBuilder::new(0.03, DVec3::splat(0.05)).build().unwrap()).unwrap_err();
    assert!(
        matches!(err, CoreError::Periodic(PeriodicError::PeriodTooShort { axis: Axis::X, extent, .. }) if extent == 0.06),
        "{err}"
    );
    assert!(err.to_string().contains("two particle diameters"), "{err}");

    // Diameter 0.04 m fits (0.1 ≥ 0.08), but not with a skin of 0.02 m: 2 × 0.06 > 0.1.
    let h = w.insert(SphereBuilder::new(0.02, DVec3::splat(0.05)).build().unwrap()).unwrap();
    let config = MdConfig { skin: 0.02, ..Default::default() };
    let mut s = MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config).unwrap();
    let err = w.step(&mut s, 1e-5).unwrap_err();
    let CoreError::Solver { source, .. } = &err else { panic!("{err}") };
    assert!(
        matches!(source.downcast_ref::<MdError>(), Some(MdError::PeriodTooShort { axis: Axis::X, body, .. }) if *body == h),
        "{err}"
    );
}
