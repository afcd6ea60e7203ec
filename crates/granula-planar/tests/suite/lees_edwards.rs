//! Lees-Edwards boundaries: a dilute gas of discs, at rest on average at the start, under
//! shear at rate γ̇ reaches the linear velocity profile v_x = γ̇ (y − y₀) + c.

use granula_planar::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const L: f64 = 2.0;
const RATE: f64 = 1.0;

fn gas(threshold: usize) -> Simulation {
    // 100 discs of radius 0.05 in a 2 × 2 box: area fraction 0.2. Inelastic (ε = 0.9),
    // frictionless; the shear heats the gas, the collisions cool it.
    let a = 0.05;
    let m = std::f64::consts::PI * a * a;
    let law = ContactLaw::builder(1e3).restitution(0.9, 0.5 * m).build().unwrap();
    let tc = contact_time(1e3, law.normal_damping, 0.5 * m);
    let mut b = Simulation::builder(law)
        .domain(Domain::periodic(DVec2::ZERO, DVec2::splat(L)).with_shear(RATE))
        .dt(tc / 20.0)
        .parallel_threshold(threshold);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for k in 0..100 {
        let (cx, cy) = (k % 10, k / 10);
        let p = DVec2::new((cx as f64 + 0.5) * 0.2, (cy as f64 + 0.5) * 0.2);
        let v = DVec2::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5) * 0.5;
        b = b.body(BodyBuilder::disc(a).position(p).velocity(v));
    }
    b.build().unwrap()
}

/// The streaming velocity of body i in the box: its unwrapped velocity minus γ̇ L_y for
/// each period it has crossed upwards (the unwrapped trajectory is an image's).
fn in_box_velocity(sim: &Simulation, i: usize) -> (f64, f64) {
    let p = sim.bodies.position[i];
    let k = (p.y / L).floor();
    let y = p.y - k * L;
    (y, sim.bodies.velocity[i].x - k * RATE * L)
}

#[test]
fn a_sheared_gas_reaches_the_linear_velocity_profile() {
    let mut sim = gas(usize::MAX);
    let dt = sim.dt();
    // The profile builds up by momentum diffusion, over a time ~L²/(λ v) ≈ 15 s for this
    // gas (mean free path λ ≈ 0.3 m, thermal speed v ≈ 1 m/s): after 20 s the measured
    // slope was still 0.81 γ̇ with an S-shaped profile, after 60 s (averaged over the last
    // 30 s) 0.98 γ̇. Average the profile over the last 30 s, every 100 steps.
    let total = (60.0 / dt) as usize;
    let bins = 5;
    let (mut sum, mut count) = (vec![0.0; bins], vec![0usize; bins]);
    for s in 0..total {
        sim.step().unwrap();
        if s > total / 2 && s % 100 == 0 {
            for i in 0..sim.bodies.len() {
                let (y, vx) = in_box_velocity(&sim, i);
                let b = ((y / L * bins as f64) as usize).min(bins - 1);
                sum[b] += vx;
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
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut sim = gas(0);
            sim.run(3000).unwrap();
            sim
        })
    };
    let (one, two) = (run(1), run(2));
    for i in 0..one.bodies.len() {
        assert_eq!(one.bodies.position[i], two.bodies.position[i], "body {i}");
        assert_eq!(one.bodies.velocity[i], two.bodies.velocity[i], "body {i}");
    }
}
