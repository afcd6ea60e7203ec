//! Periodic boundaries in the contact dynamics solver: a collision across the boundary
//! against the same collision away from it, a sphere resting in a groove that a face cuts
//! (the forces of statics), the momentum of a periodic gas, a checkpoint restart, and the
//! named error of a period too short for the bodies.

use granula_broadphase::{BruteForce, LinkedCells};
use granula_core::{Axis, CoreError, DVec3, Material, PlaneBuilder, SphereBuilder, World};
use granula_nscd::{Criterion, NscdConfig, NscdError, NscdSolver, Restitution, SignoriniCoulomb, SweepOrder};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const G: f64 = 9.81;

/// Local criterion tight enough that the converged impulses are exact to ~1e-9 relative,
/// with the random sweep and no momentum (the extrapolation keeps disturbing the largest
/// single change, which the local criterion measures).
fn tight() -> NscdConfig {
    NscdConfig {
        criterion: Criterion::LocalRelative { epsilon: 1e-12, cutoff: 1e-14, max_iterations: 200_000 },
        sweep: SweepOrder::Random,
        momentum: false,
        ..Default::default()
    }
}

/// Two spheres (r = 0.25 m, 1 kg) approaching along x at 0.2 m/s each, with Newton's
/// restitution e = 1: in a world periodic along x over [2, 4) with A at x = 3.74 and B at
/// 2.25 (they meet across x = 4), or, with `periodic = false`, in an open world with A
/// moved by −1 m and B by +1 m (they meet at x = 3). Returns the world and the solver.
fn head_on(periodic: bool) -> (World, NscdSolver<BruteForce, SignoriniCoulomb>) {
    let mut builder =
        World::builder().gravity(DVec3::ZERO).material(Material { restitution: 1.0, ..Material::named("ball") });
    if periodic {
        builder = builder.periodic(Axis::X, 2.0, 4.0);
    }
    let mut w = builder.build().unwrap();
    let shift = if periodic { 0.0 } else { 1.0 };
    let a = SphereBuilder::new(0.25, DVec3::new(3.74 - shift, 0.5, 0.5)).mass(1.0).velocity(DVec3::new(0.2, 0.0, 0.0));
    let b = SphereBuilder::new(0.25, DVec3::new(2.25 + shift, 0.5, 0.5)).mass(1.0).velocity(DVec3::new(-0.2, 0.0, 0.0));
    w.insert(a.build().unwrap()).unwrap();
    w.insert(b.build().unwrap()).unwrap();
    let law = SignoriniCoulomb { restitution: Restitution::NEWTON };
    let config = NscdConfig::fixed_random_sweeps(20);
    (w, NscdSolver::with_law(BruteForce, law, config).unwrap())
}

#[test]
fn a_collision_across_the_face_is_the_collision_away_from_it() {
    let (mut across, mut s1) = head_on(true);
    let (mut inside, mut s2) = head_on(false);
    let mut collided = false;
    for step in 0..100 {
        across.step(&mut s1, 1e-3).unwrap();
        inside.step(&mut s2, 1e-3).unwrap();
        for i in 0..2 {
            // The velocities come from the same impulses on the same Delassus blocks; the
            // branch vectors differ only by the round-off of the shifted positions (1e-16 m
            // on coordinates of a few metres), which moves the velocities by less than 1e-12.
            let (va, vb) = (across.bodies.velocity[i], inside.bodies.velocity[i]);
            assert!((va - vb).length() < 1e-12, "step {step}, body {i}: {va} vs {vb}");
        }
        collided |= across.bodies.velocity[0].x < 0.0;
    }
    assert!(collided, "the spheres met within 100 steps");
    // e = 1 between equal masses: the velocities are exchanged (004 §2.2.2.2), to round-off.
    assert!((across.bodies.velocity[0].x + 0.2).abs() < 1e-12, "{}", across.bodies.velocity[0]);
    assert!((across.bodies.velocity[1].x - 0.2).abs() < 1e-12, "{}", across.bodies.velocity[1]);
    // Positions are unwrapped: each body is exactly its open-world twin moved back by the
    // shift of the set-up (A by +1 m, B by −1 m), to round-off of the coordinates.
    let da = across.bodies.position[0] - inside.bodies.position[0];
    let db = across.bodies.position[1] - inside.bodies.position[1];
    assert!((da - DVec3::X).length() < 1e-12, "{da}");
    assert!((db + DVec3::X).length() < 1e-12, "{db}");
}

/// A ring of four frictionless spheres (radius r, mass m) on a floor, touching along x in a
/// world periodic along x with a period of four diameters, so the ring closes across the
/// face, and a fifth sphere on top in the groove between the first and the last, its centre
/// on the face (x = lo). Returns the world (floor first).
fn groove(lo: f64) -> World {
    let (r, m) = (0.01, 0.05);
    let mut w = World::builder()
        .gravity(DVec3::new(0.0, 0.0, -G))
        .material(Material { friction: 0.0, ..Material::named("smooth") })
        .periodic(Axis::X, lo, lo + 8.0 * r)
        .build()
        .unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    for k in 0..4 {
        let x = lo + (2 * k + 1) as f64 * r;
        w.insert(SphereBuilder::new(r, DVec3::new(x, 0.0, r)).mass(m).build().unwrap()).unwrap();
    }
    let top = DVec3::new(lo, 0.0, r + 3f64.sqrt() * r);
    w.insert(SphereBuilder::new(r, top).mass(m).build().unwrap()).unwrap();
    w
}

#[test]
fn a_sphere_resting_in_a_groove_cut_by_the_face_carries_the_statics_forces() {
    let (m, dt) = (0.05, 1e-3);
    let mut w = groove(0.0);
    let mut s = NscdSolver::new(LinkedCells::new(), tight()).unwrap();
    let start = w.bodies.position.clone();
    for step in 0..20 {
        let r = w.step(&mut s, dt).unwrap();
        assert!(r.warnings.is_empty(), "step {step} converged: {:?}", r.warnings);
        // The top sphere (body 5) touches body 1 directly and body 4 only through the face.
        let top: Vec<DVec3> = s
            .impulses()
            .filter(|&(i, j, _)| i == 5 || j == 5)
            .map(|(i, _, p)| if i == 5 { -p / dt } else { p / dt })
            .collect();
        assert_eq!(top.len(), 2, "step {step}: the top sphere has its two contacts, one across the face");
        // Frictionless statics: each contact pushes along its normal at 30° from the vertical,
        // and the two vertical parts carry the weight: |F| = m g / (2 cos 30°) = m g / √3.
        // The criterion ε = 1e-12 leaves the forces exact well below 1e-8 relative.
        for f in &top {
            assert!((f.length() / (m * G / 3f64.sqrt()) - 1.0).abs() < 1e-8, "step {step}: {f}");
        }
        let sum = top[0] + top[1];
        assert!((sum - DVec3::new(0.0, 0.0, m * G)).length() < 1e-8 * m * G, "step {step}: {sum}");
        // The floor carries the five weights.
        let floor: f64 = s.impulses().filter(|&(i, j, _)| i == 0 || j == 0).map(|(_, _, p)| p.z.abs() / dt).sum();
        assert!((floor / (5.0 * m * G) - 1.0).abs() < 1e-8, "step {step}: floor {floor}");
    }
    // At rest: nothing moved beyond round-off (the impulses cancel gravity to ~1e-12 of
    // g Δt each step).
    for (i, (x, x0)) in w.bodies.position.iter().zip(&start).enumerate() {
        assert!((*x - *x0).length() < 1e-12, "body {i} drifted by {}", (*x - *x0).length());
    }
}

#[test]
fn the_groove_gives_the_same_forces_wherever_the_face_cuts_it() {
    // The same ring with the face moved by a radius: now the top sphere's contacts are both
    // away from the face and the ring closes across it between bodies 4 and 1.
    let dt = 1e-3;
    let forces = |lo: f64| {
        let mut w = groove(lo);
        let mut s = NscdSolver::new(BruteForce, tight()).unwrap();
        w.step(&mut s, dt).unwrap();
        let mut top: Vec<f64> =
            s.impulses().filter(|&(i, j, _)| i == 5 || j == 5).map(|(_, _, p)| p.length() / dt).collect();
        top.sort_by(f64::total_cmp);
        top
    };
    let (a, b) = (forces(0.0), forces(-0.01));
    assert_eq!(a.len(), 2);
    for (x, y) in a.iter().zip(&b) {
        // Both converged to ε = 1e-12 on the same statics: equal to well below 1e-8.
        assert!((x / y - 1.0).abs() < 1e-8, "{a:?} vs {b:?}");
    }
}

/// 64 spheres on a jittered lattice in a box periodic along x, y and z, random velocities,
/// no gravity, Newton's restitution e = 0.8 and friction 0.3.
fn gas(seed: u64) -> World {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut w = World::builder()
        .gravity(DVec3::ZERO)
        .material(Material { restitution: 0.8, friction: 0.3, ..Material::named("gas") })
        .periodic(Axis::X, 0.0, 0.1)
        .periodic(Axis::Y, 0.0, 0.1)
        .periodic(Axis::Z, 0.0, 0.1)
        .build()
        .unwrap();
    for k in 0..64 {
        let (a, b, c) = (k % 4, (k / 4) % 4, k / 16);
        let jitter =
            DVec3::new(rng.random_range(-2e-3..2e-3), rng.random_range(-2e-3..2e-3), rng.random_range(-2e-3..2e-3));
        let x = DVec3::new(a as f64, b as f64, c as f64) * 0.025 + DVec3::splat(0.0125) + jitter;
        let v = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        w.insert(SphereBuilder::new(0.01, x).density(2500.0).velocity(v).build().unwrap()).unwrap();
    }
    w
}

fn momentum(w: &World) -> (DVec3, f64) {
    let mut p = DVec3::ZERO;
    let mut scale = 0.0;
    for i in 0..w.bodies.len() {
        let m = 1.0 / w.bodies.inv_mass[i];
        p += w.bodies.velocity[i] * m;
        scale += w.bodies.velocity[i].length() * m;
    }
    (p, scale)
}

#[test]
fn a_periodic_gas_keeps_its_momentum_and_restarts_to_the_same_bits() {
    let law = SignoriniCoulomb { restitution: Restitution::NEWTON };
    let config = NscdConfig::default();
    let mut w = gas(11);
    let mut s = NscdSolver::with_law(LinkedCells::new(), law, config.clone()).unwrap();
    let (p0, scale) = momentum(&w);
    let mut contacts = 0;
    let mut saved = None;
    for step in 0..600 {
        if step == 337 {
            saved = Some((w.save_state(), s.save_state()));
        }
        contacts += w.step(&mut s, 2e-4).unwrap().contacts;
    }
    assert!(contacts > 200, "the gas collided ({contacts} contact-steps), across faces too");
    // Every impulse acts on two bodies with opposite signs: the total momentum changes only
    // by round-off, ~1e-16 of Σ m|v| per contact and step.
    let (p, _) = momentum(&w);
    assert!((p - p0).length() < 1e-12 * scale, "momentum {p0} -> {p}");
    // Every sphere left its starting cell: positions are unwrapped, so some are outside
    // [0, 0.1) by now, and the wrapped ones are all inside.
    let outside = w.bodies.position.iter().filter(|x| x.min_element() < 0.0 || x.max_element() >= 0.1).count();
    assert!(outside > 0, "some bodies crossed a face");
    // Restart from step 337 (the bodies copied, the solver's state through bincode, as a
    // checkpoint does): same bits at step 600.
    let (world_state, state) = saved.unwrap();
    let mut again = gas(11);
    again.restore_state(&world_state).unwrap();
    let state = bincode::deserialize(&bincode::serialize(&state).unwrap()).unwrap();
    let mut s2 = NscdSolver::with_law(LinkedCells::new(), law, config).unwrap();
    s2.restore_state(&state, &again).unwrap();
    while again.step_count() < 600 {
        again.step(&mut s2, 2e-4).unwrap();
    }
    assert!(again.bodies.position == w.bodies.position, "positions differ after the restart");
    assert!(again.bodies.velocity == w.bodies.velocity, "velocities differ after the restart");
}

#[test]
fn a_period_shorter_than_twice_a_body_is_an_error_naming_it() {
    // A 2 cm sphere fits a 4.1 cm period at rest (the world accepts it), but moving at
    // 1 m/s its detection box grows by 2θΔt|v| = 1 mm: 2.1 cm, more than half the period.
    let mut w = World::builder().gravity(DVec3::ZERO).periodic(Axis::Y, 0.0, 0.041).build().unwrap();
    let sphere = SphereBuilder::new(0.01, DVec3::new(0.0, 0.015, 0.0)).velocity(DVec3::new(0.0, 1.0, 0.0));
    let h = w.insert(sphere.build().unwrap()).unwrap();
    let mut s = NscdSolver::new(BruteForce, NscdConfig::default()).unwrap();
    let err = w.step(&mut s, 1e-3).expect_err("a 2.1 cm detection box in a 4.1 cm period");
    let CoreError::Solver { source, .. } = &err else { panic!("expected a solver error, got {err}") };
    let inner = source.downcast_ref::<NscdError>().expect("the NSCD solver's error");
    assert!(matches!(inner, NscdError::PeriodTooShort { axis: Axis::Y, body, .. } if *body == h), "{inner}");
    assert!(err.to_string().contains("periodic axis y"), "{err}");
    assert_eq!(w.step_count(), 0, "nothing stepped");
}
