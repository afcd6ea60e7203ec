//! Lees-Edwards boundaries in the planar world: a dilute gas of discs, at rest on average at
//! the start, sheared at rate γ̇ through the sliding periodic faces, reaches the linear
//! velocity profile v_x = γ̇ (y − y₀) + c; one and two threads give the same bits.

use granula_broadphase::LinkedCells;
use granula_core::{Axis, DVec3, SphereBuilder, World};
use granula_integrators::VelocityVerlet;
use granula_laws::{planar_area_law, PlanarAreaLaw, ReducedMassViscous};
use granula_md::{MdConfig, MdSolver};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const L: f64 = 2.0;
const RATE: f64 = 1.0;

/// 100 discs of radius 0.05 in a 2 × 2 box (area fraction 0.2), inelastic (ε = 0.9 by
/// 002 eq. 8), frictionless: the shear heats the gas, the collisions cool it. Returns the
/// world, its solver on `threads` threads and Δt = t_c/20.
fn gas(threads: usize) -> (World, MdSolver<PlanarAreaLaw, VelocityVerlet, LinkedCells>, f64) {
    let a = 0.05;
    let mr = 0.5 * std::f64::consts::PI * a * a;
    let nu = ReducedMassViscous::from_restitution(0.9, 1e3, mr).unwrap().rate();
    let tc = std::f64::consts::PI / (1e3 / mr - 0.25 * nu * nu).sqrt();
    let mut world = World::builder()
        .planar(true)
        .gravity(DVec3::ZERO)
        .periodic(Axis::X, 0.0, L)
        .periodic(Axis::Y, 0.0, L)
        .shear(Axis::X, Axis::Y, RATE)
        .build()
        .unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for k in 0..100 {
        let (cx, cy) = (k % 10, k / 10);
        let p = DVec3::new((cx as f64 + 0.5) * 0.2, (cy as f64 + 0.5) * 0.2, 0.0);
        let v = DVec3::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5, 0.0) * 0.5;
        world.insert(SphereBuilder::new(a, p).velocity(v).density(1.0).build().unwrap()).unwrap();
    }
    let config = MdConfig { threads: Some(threads), parallel_min_pairs: 0, skin: 0.01, ..MdConfig::default() };
    let md = MdSolver::new(planar_area_law(1e3, nu).unwrap(), VelocityVerlet::new(), LinkedCells::new(), config);
    (world, md.unwrap(), tc / 20.0)
}

#[test]
fn a_sheared_gas_reaches_the_linear_velocity_profile() {
    let (mut world, mut md, dt) = gas(1);
    // The profile builds up by momentum diffusion, over a time ~L²/(λ v) ≈ 15 s for this
    // gas (mean free path λ ≈ 0.3 m, thermal speed v ≈ 1 m/s): after 20 s the slope is
    // still short of γ̇ with an S-shaped profile. Average the profile over the last 30 s of
    // 60 s, every 100 steps, from the in-box state (velocities less γ̇ L_y per period
    // crossed upwards).
    let total = (60.0 / dt) as usize;
    let bins = 5;
    let (mut sum, mut count) = (vec![0.0; bins], vec![0usize; bins]);
    for s in 0..total {
        world.step(&mut md, dt).unwrap();
        if s > total / 2 && s % 100 == 0 {
            for i in 0..world.bodies.len() {
                let (p, v, _) =
                    world.periodic.wrap_state(world.bodies.position[i], world.bodies.velocity[i], world.time());
                let b = ((p.y / L * bins as f64) as usize).min(bins - 1);
                sum[b] += v.x;
                count[b] += 1;
            }
        }
    }
    let profile: Vec<(f64, f64)> =
        (0..bins).map(|b| ((b as f64 + 0.5) * L / bins as f64, sum[b] / count[b] as f64)).collect();
    let n = bins as f64;
    let (my, mv) = profile.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    let (sxy, sxx) = profile.iter().fold((0.0, 0.0), |a, p| (a.0 + (p.0 - my) * (p.1 - mv), a.1 + (p.0 - my).powi(2)));
    let slope = sxy / sxx;
    let worst = profile.iter().map(|p| (p.1 - (mv + slope * (p.0 - my))).abs()).fold(0.0, f64::max);
    println!("profile {profile:?}\nslope {slope} (γ̇ = {RATE}), worst deviation from the line {worst}");
    // Statistical noise of a 5-bin average over ~100 samples of 20 bodies at thermal speed
    // ~0.3 m/s is ~0.01 m/s per bin; a 15 % tolerance on the slope (0.3 m/s across the box)
    // is several times that, and a gas that had not reached the profile (slope 0 at the
    // start) fails it.
    assert!((slope / RATE - 1.0).abs() < 0.15, "slope {slope}");
    assert!(worst < 0.1 * RATE * L, "profile {profile:?}");
}

#[test]
fn one_and_two_threads_give_the_same_bits() {
    let run = |threads: usize| {
        let (mut world, mut md, dt) = gas(threads);
        for _ in 0..3000 {
            world.step(&mut md, dt).unwrap();
        }
        world
    };
    let (one, two) = (run(1), run(2));
    assert!(one.time() > 0.0);
    for i in 0..one.bodies.len() {
        assert_eq!(one.bodies.position[i], two.bodies.position[i], "body {i}");
        assert_eq!(one.bodies.velocity[i], two.bodies.velocity[i], "body {i}");
    }
}
