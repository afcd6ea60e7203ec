//! Lees-Edwards (sheared periodic) boundaries in the MD solver: a sphere crossing the
//! sliding face, a contact across it against the same pair placed explicitly, a sheared
//! gas reaching the linear velocity profile with its momentum exchanged only through the
//! boundary, a restart mid-shear, and the named errors of bad input.

use granula_broadphase::LinkedCells;
use granula_core::{
    Axis, CoreError, DVec3, Material, MaterialId, PeriodicDomain, PeriodicError, PlaneBuilder, Solver, SphereBuilder,
    World,
};
use granula_integrators::VelocityVerlet;
use granula_laws::{hertz_mindlin, HertzMindlin};
use granula_md::{MdConfig, MdError, MdSolver};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Md = MdSolver<HertzMindlin, VelocityVerlet, LinkedCells>;

fn solver(skin: f64, threads: Option<usize>) -> Md {
    let config = MdConfig { skin, threads, parallel_min_pairs: 0, ..Default::default() };
    MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config).unwrap()
}

/// A world periodic over [0, 1) along x and y (z open), sheared at `rate` with flow x and
/// gradient y, without gravity.
fn sheared_unit_box(rate: f64) -> World {
    World::builder()
        .gravity(DVec3::ZERO)
        .periodic(Axis::X, 0.0, 1.0)
        .periodic(Axis::Y, 0.0, 1.0)
        .shear(Axis::X, Axis::Y, rate)
        .build()
        .unwrap()
}

/// A free sphere leaving the box through the top of the gradient axis, followed step by
/// step in the box by the Lees-Edwards rule applied by hand: it moves with its velocity,
/// and at the crossing y ≥ 1 it re-enters at y − 1, shifted by −s(t) along x (reduced into
/// [0, 1)), with v_x − γ̇ L_y. The solver's unwrapped state, taken into the box by
/// `wrap_state`, is that state. Velocities agree to the bit (the same subtraction of
/// γ̇ L_y); positions to 1e-12 m: the hand-made state adds v Δt in the box and subtracts
/// s once, where the solver adds v Δt to the unwrapped position and `wrap_state`
/// subtracts s(t) at the end, so the two differ by the rounding of ~600 additions of
/// numbers below 2 m (each ≤ 2.2e-16 m), about 1.3e-13 m at most.
#[test]
fn a_sphere_crossing_the_sheared_face_follows_the_lees_edwards_rule() {
    let rate = 2.5;
    let mut w = sheared_unit_box(rate);
    let v0 = DVec3::new(0.3, 0.8, 0.0);
    let x0 = DVec3::new(0.7, 0.85, 0.5);
    w.insert(SphereBuilder::new(0.05, x0).velocity(v0).build().unwrap()).unwrap();
    let mut s = solver(1e-3, Some(1));
    let dt = 1e-3;
    let (mut x, mut v, mut crossings) = (x0, v0, 0);
    for _ in 0..600 {
        w.step(&mut s, dt).unwrap();
        x += v * dt;
        if x.y >= 1.0 {
            // Lees-Edwards: through the top face, back in at the bottom.
            let offset = (rate * 1.0 * w.time()).rem_euclid(1.0);
            x.y -= 1.0;
            x.x = (x.x - offset).rem_euclid(1.0);
            v.x -= rate * 1.0;
            crossings += 1;
        }
        let (inside, velocity, images) = w.periodic.wrap_state(w.bodies.position[0], w.bodies.velocity[0], w.time());
        assert_eq!(velocity, v, "t = {}", w.time());
        // Compared modulo the x period: a point at x = 1 − ε is the point at −ε.
        let mut d = inside - x;
        d.x -= d.x.round();
        assert!(d.length() < 1e-12, "t = {}: {inside} vs {x}", w.time());
        assert_eq!(images[1], crossings);
    }
    // 0.85 + 0.8 × 0.6 = 1.33: one crossing; the body never changed its unwrapped velocity.
    assert_eq!(crossings, 1);
    assert_eq!(w.bodies.velocity[0], v0);
}

/// Two spheres (r = 5 cm) meeting across the sheared face y = 1 (A just below it, B just
/// above y = 0, whose image one period up is 0.5 mm from A, closing at 1 m/s), against the same pair placed
/// explicitly in an open world: B at its image's position x_B + s(t) e_x + L_y e_y with
/// the velocity of its image, v_B + γ̇ L_y e_x. γ̇ = 3 /s makes the image slide past A at
/// 3 m/s: friction and the tangential spring are loaded. At every step of contact the
/// relative velocity agrees with the explicit pair's to 1e-9 of its size and the force to
/// 1e-7 of the largest force: the runs differ only in round-off (the image position is
/// x_B + s(t) with s from the clock in one, an accumulated position in the other: about
/// 1e-16 m per step, measured 7e-15 m on the overlap at the first touch). The elastic
/// force F ∝ δ^{3/2} barely feels that, but the dashpot's coefficient grows as δ^{1/4}, whose
/// relative change ε/(4δ) is 8e-9 at the first step of contact (δ = 2e-7 m, closing at
/// 1 m/s, where the dashpot carries the force): 1e-7 of the peak force is above that with
/// margin, while a missing shear velocity would change the relative velocity by 3 m/s and
/// the force by the friction, O(1) of it. A's velocity agrees to 1e-12 m/s.
#[test]
fn a_contact_across_the_sheared_face_equals_the_explicit_pair() {
    contact_across_the_sheared_face(false);
}

/// The same pair as discs in the core's planar world (z = 0, no out-of-plane velocity):
/// the planar world uses the same sheared domain, with the same tolerances.
#[test]
fn a_contact_across_the_sheared_face_of_a_planar_world_equals_the_explicit_pair() {
    contact_across_the_sheared_face(true);
}

fn contact_across_the_sheared_face(planar: bool) {
    let rate = 3.0;
    let (z, vz) = if planar { (0.0, 0.0) } else { (0.5, 0.01) };
    let (xa, va) = (DVec3::new(0.5, 0.96, z), DVec3::new(0.02, 0.5, vz));
    let (xb, vb) = (DVec3::new(0.52, 0.0585, z), DVec3::new(-0.01, -0.5, -vz));
    let base = || World::builder().gravity(DVec3::ZERO).planar(planar);
    let mut sheared =
        base().periodic(Axis::X, 0.0, 1.0).periodic(Axis::Y, 0.0, 1.0).shear(Axis::X, Axis::Y, rate).build().unwrap();
    let mut open = base().build().unwrap();
    for (w, b, v) in [(&mut sheared, xb, vb), (&mut open, xb + DVec3::Y, vb + rate * DVec3::X)] {
        w.insert(SphereBuilder::new(0.05, xa).velocity(va).build().unwrap()).unwrap();
        w.insert(SphereBuilder::new(0.05, b).velocity(v).build().unwrap()).unwrap();
    }
    let (mut s1, mut s2) = (solver(1e-3, Some(1)), solver(1e-3, Some(1)));
    s1.publish_contacts(true);
    s2.publish_contacts(true);
    // (force, relative velocity) of the contact in the sheared and in the open world.
    let mut pairs = Vec::new();
    for step in 0..600 {
        sheared.step(&mut s1, 1e-5).unwrap();
        open.step(&mut s2, 1e-5).unwrap();
        let (c1, c2) = (s1.contacts().unwrap(), s2.contacts().unwrap());
        assert_eq!(c1.len(), c2.len(), "step {step}: the pair is in contact in both or in neither");
        if let (Some(c1), Some(c2)) = (c1.first(), c2.first()) {
            pairs.push((step, c1.force, c2.force, c1.relative_velocity, c2.relative_velocity, c2.normal));
        }
        let dv = (sheared.bodies.velocity[0] - open.bodies.velocity[0]).length();
        assert!(dv <= 1e-12, "step {step}: A's velocity differs by {dv} m/s");
    }
    let touching = pairs.len();
    assert!(touching > 100, "{touching} steps in contact");
    let scale = pairs.iter().map(|p| p.2.length()).fold(0.0, f64::max);
    let mut sliding = 0;
    for (step, f1, f2, v1, v2, n) in pairs {
        assert!((f1 - f2).length() <= 1e-7 * scale, "step {step}: {f1} vs {f2}");
        assert!((v1 - v2).length() <= 1e-9 * v2.length(), "step {step}: {v1} vs {v2}");
        if (f2 - f2.dot(n) * n).length() > 0.1 * f2.length() {
            sliding += 1;
        }
    }
    // The shear velocity (3 m/s along x) loaded the tangential part: over a tenth of the
    // force at most steps of the contact.
    assert!(2 * sliding > touching, "{sliding} of {touching} steps with a tangential force");
}

/// The side of the sheared gas's cube (m).
const GAS_SIDE: f64 = 0.15;

/// 216 spheres (r = 1 cm, 5 % polydisperse, solid fraction 0.27) on a jittered lattice in
/// a cube periodic along x, y and z, sheared at `rate` if any (flow x, gradient y); restitution
/// 0.8, friction 0.3, random velocities of up to 0.2 m/s with zero total momentum, no
/// gravity.
fn gas(rate: Option<f64>) -> World {
    let l = GAS_SIDE;
    let material = Material { restitution: 0.8, friction: 0.3, ..Material::default() };
    let mut builder = World::builder()
        .gravity(DVec3::ZERO)
        .material(material)
        .periodic(Axis::X, 0.0, l)
        .periodic(Axis::Y, 0.0, l)
        .periodic(Axis::Z, 0.0, l);
    if let Some(rate) = rate {
        builder = builder.shear(Axis::X, Axis::Y, rate);
    }
    let mut w = builder.build().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut r = |a: f64| DVec3::new(rng.random_range(-a..a), rng.random_range(-a..a), rng.random_range(-a..a));
    let mut spheres = Vec::new();
    for i in 0..6 {
        for j in 0..6 {
            for k in 0..6 {
                let x = (DVec3::new(i as f64, j as f64, k as f64) + 0.5) * (l / 6.0) + r(0.002);
                spheres.push((0.0095 + r(0.0005).x, x, r(0.2)));
            }
        }
    }
    let mean = spheres.iter().map(|s| s.2).sum::<DVec3>() / spheres.len() as f64;
    for (radius, x, v) in spheres {
        let b = SphereBuilder::new(radius, x).velocity(v - mean).material(MaterialId(0));
        w.insert(b.build().unwrap()).unwrap();
    }
    w
}

/// The least-squares line v = b (y − y_c) through the samples (y, v): (b, y_c).
fn fit(samples: &[(f64, f64)]) -> (f64, f64) {
    let n = samples.len() as f64;
    let (my, mv) = (samples.iter().map(|s| s.0).sum::<f64>() / n, samples.iter().map(|s| s.1).sum::<f64>() / n);
    let syy: f64 = samples.iter().map(|s| (s.0 - my) * (s.0 - my)).sum();
    let syv: f64 = samples.iter().map(|s| (s.0 - my) * (s.1 - mv)).sum();
    let slope = syv / syy;
    (slope, my - mv / slope)
}

/// The momentum of the bodies' states in the box ([`PeriodicDomain::wrap_state`]) and
/// the sum of m n_y over the bodies (n_y their image count along the gradient).
fn box_momentum(w: &World) -> (DVec3, f64) {
    let (mut p, mut mn) = (DVec3::ZERO, 0.0);
    for i in 0..w.bodies.len() {
        let (_, v, n) = w.periodic.wrap_state(w.bodies.position[i], w.bodies.velocity[i], w.time());
        p += w.bodies.mass[i] * v;
        mn += w.bodies.mass[i] * n[1] as f64;
    }
    (p, mn)
}

/// A sheared granular gas (216 frictional, inelastic spheres, γ̇ = 20 /s, started with no
/// mean flow) develops the linear profile u_x(y) = γ̇ (y − y_c) of simple shear, driven
/// only through the sliding faces, and its momentum changes only by the Lees-Edwards
/// exchange.
///
/// Profile: after a transient of strain 20 (1 s; the momentum diffusion time L²/ν with
/// ν ~ d √T at these densities is a few tenths of a second), the in-box velocities v_x
/// are fitted against the in-box y by least squares over every sphere of 100 snapshots
/// taken over strain 20 more. The slope must be γ̇ within 10 %: the fit's statistical
/// error, σ_v / (σ_y √N) with the thermal spread σ_v ≈ 0.2 m/s, σ_y = L/√12 and some
/// 20 000 correlated samples (snapshots 0.01 s apart, about one collision time, so
/// perhaps 2000 independent ones), is ~2 % of γ̇; the tolerance covers 4 such errors and
/// what is left of the transient (measured: 19.2 /s, 4 % low). The profile was not
/// imposed: the same fit at the start gives a slope under 0.2 γ̇. The intercept gives
/// y_c; with zero total momentum the profile crosses zero mid-box: |y_c − L/2| < L/10
/// (measured: 0.0749 m for L/2 = 0.075 m).
///
/// Momentum: the unwrapped total momentum is conserved to round-off (every pair load is
/// equal and opposite, across the sliding faces as inside), so the momentum in the box
/// changes by exactly −γ̇ L_y Σ m Δn_y along x, the Lees-Edwards exchange (1e-12 of
/// Σ m|v| as in the plain periodic gas). That exchange has zero mean: crossings upwards
/// and downwards balance, and the net count stays within 3 √(crossings) (a random walk's
/// spread; the velocity profile is symmetric about the mid-plane).
#[test]
fn a_sheared_gas_reaches_the_linear_profile_and_exchanges_momentum_through_the_faces() {
    let rate = 20.0;
    let dt = 1e-4;
    let mut w = gas(Some(rate));
    let mut s = solver(4e-3, Some(1));
    let p0 = w.momentum();
    let (q0, mn0) = box_momentum(&w);
    let initial: Vec<(f64, f64)> =
        (0..w.bodies.len()).map(|i| (w.bodies.position[i].y, w.bodies.velocity[i].x)).collect();
    let (slope0, _) = fit(&initial);
    assert!(slope0.abs() < 0.2 * rate, "initial slope {slope0}");
    let m_total: f64 = w.bodies.mass.iter().sum();
    let mut scale = 0.0f64;
    let (mut crossings, mut last_n) = (0i64, vec![0i64; w.bodies.len()]);
    let mut samples: Vec<(f64, f64)> = Vec::new();
    for step in 1..=20_000 {
        w.step(&mut s, dt).unwrap();
        scale = scale.max((0..w.bodies.len()).map(|i| w.bodies.mass[i] * w.bodies.velocity[i].length()).sum());
        for (i, n) in last_n.iter_mut().enumerate() {
            let (_, _, images) = w.periodic.wrap_state(w.bodies.position[i], w.bodies.velocity[i], w.time());
            crossings += (images[1] - *n).abs();
            *n = images[1];
        }
        if step > 10_000 && step % 100 == 0 {
            for i in 0..w.bodies.len() {
                let (x, v, _) = w.periodic.wrap_state(w.bodies.position[i], w.bodies.velocity[i], w.time());
                samples.push((x.y, v.x));
            }
        }
    }
    let (slope, y_c) = fit(&samples);
    eprintln!("sheared gas: slope {slope} 1/s for γ̇ = {rate}, y_c = {y_c} m, {crossings} crossings");
    assert!((slope - rate).abs() < 0.1 * rate, "slope {slope} vs γ̇ = {rate}");
    assert!((y_c - 0.5 * GAS_SIDE).abs() < 0.1 * GAS_SIDE, "y_c = {y_c}");

    let dp = (w.momentum() - p0).length();
    assert!(dp <= 1e-12 * scale, "unwrapped momentum drift {dp} of {scale}");
    let (q, mn) = box_momentum(&w);
    let exchange = -rate * GAS_SIDE * (mn - mn0);
    let expected = q0 + DVec3::new(exchange, 0.0, 0.0);
    assert!((q - expected).length() <= 1e-12 * scale, "box momentum {q} vs {expected}");
    let net = (mn - mn0) / (m_total / w.bodies.len() as f64);
    eprintln!("net crossings ≈ {net} (mass-weighted), total {crossings}");
    assert!(crossings > 100, "{crossings} crossings");
    assert!(net.abs() <= 3.0 * (crossings as f64).sqrt(), "net {net} of {crossings} crossings");
}

/// A run restarted mid-shear from the solver's and the world's checkpoints (bincode)
/// ends with the same bits as the uninterrupted run: the offset comes from the restored
/// clock, the sheared pairs and their image velocities from the restored list, and the
/// rebuilds the offset forces happen at the same steps. Two threads give the same bits.
#[test]
fn a_restart_mid_shear_is_bit_identical() {
    let run = |threads, steps| {
        let mut w = gas(Some(20.0));
        let mut s = solver(4e-3, threads);
        for _ in 0..steps {
            w.step(&mut s, 1e-4).unwrap();
        }
        (w, s)
    };
    let (straight, s_straight) = run(Some(1), 1000);
    let (two, _) = run(Some(2), 1000);
    assert_eq!(straight.bodies.position, two.bodies.position);
    assert_eq!(straight.bodies.velocity, two.bodies.velocity);

    let (first, s1) = run(Some(1), 537);
    let state = s1.save_state();
    assert_eq!(state.periodic, Some(first.periodic), "the shear is saved");
    let bytes = bincode::serialize(&state).unwrap();
    let world_bytes = bincode::serialize(&first.save_state()).unwrap();
    let mut resumed = gas(Some(20.0));
    resumed.restore_state(&bincode::deserialize(&world_bytes).unwrap()).unwrap();
    let mut s = solver(4e-3, Some(1));
    s.restore_state(&bincode::deserialize(&bytes).unwrap(), &resumed).unwrap();
    for _ in 537..1000 {
        resumed.step(&mut s, 1e-4).unwrap();
    }
    assert_eq!(resumed.bodies.position, straight.bodies.position);
    assert_eq!(resumed.bodies.velocity, straight.bodies.velocity);
    assert_eq!(resumed.bodies.angular_velocity, straight.bodies.angular_velocity);
    assert_eq!(resumed.ledger, straight.ledger);
    assert_eq!(s.rebuilds(), s_straight.rebuilds());

    // The state does not restore into a world without the shear.
    let mut plain = gas(None);
    plain.restore_state(&bincode::deserialize(&world_bytes).unwrap()).unwrap();
    let err = solver(4e-3, Some(1)).restore_state(&state, &plain).unwrap_err();
    assert!(err.to_string().contains("periodic domain"), "{err}");
}

/// Bad shear input gives named errors: a rate that is not finite, the flow axis equal to
/// the gradient axis, either axis not periodic (naming which), a shear given twice; and a
/// wall spanning the sheared faces is refused by the solver.
#[test]
fn bad_shear_input_gives_named_errors() {
    let periodic_xy = || World::builder().periodic(Axis::X, 0.0, 1.0).periodic(Axis::Y, 0.0, 1.0);
    let err = periodic_xy().shear(Axis::X, Axis::Y, f64::NAN).build().unwrap_err();
    assert!(matches!(err, CoreError::Periodic(PeriodicError::ShearRateNotFinite { .. })), "{err}");
    assert!(err.to_string().contains("shear rate"), "{err}");
    let err = periodic_xy().shear(Axis::Y, Axis::Y, 1.0).build().unwrap_err();
    assert!(matches!(err, CoreError::Periodic(PeriodicError::ShearAxesEqual { axis: Axis::Y })), "{err}");
    let err = periodic_xy().shear(Axis::Z, Axis::Y, 1.0).build().unwrap_err();
    assert!(
        matches!(err, CoreError::Periodic(PeriodicError::ShearAxisNotPeriodic { field: "flow", axis: Axis::Z })),
        "{err}"
    );
    let err = periodic_xy().shear(Axis::X, Axis::Z, 1.0).build().unwrap_err();
    assert!(
        matches!(err, CoreError::Periodic(PeriodicError::ShearAxisNotPeriodic { field: "gradient", axis: Axis::Z })),
        "{err}"
    );
    assert!(err.to_string().contains("gradient axis z"), "{err}");
    let d = PeriodicDomain::default().with_axis(Axis::X, 0.0, 1.0).unwrap().with_axis(Axis::Y, 0.0, 1.0).unwrap();
    let d = d.with_shear(Axis::X, Axis::Y, 1.0).unwrap();
    assert_eq!(d.with_shear(Axis::Y, Axis::X, 1.0), Err(PeriodicError::DuplicateShear));

    // A floor normal to z spans x and y: unbounded along both sheared axes.
    let mut w = sheared_unit_box(1.0);
    let floor = w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(0.05, DVec3::new(0.5, 0.5, 0.05)).build().unwrap()).unwrap();
    let err = w.step(&mut solver(1e-3, Some(1)), 1e-5).unwrap_err();
    let CoreError::Solver { source, .. } = &err else { panic!("{err}") };
    assert!(
        matches!(source.downcast_ref::<MdError>(), Some(MdError::ShearUnboundedBody { body, axis: Axis::X }) if *body == floor),
        "{err}"
    );
}
