//! Cost of periodic boundaries in the MD solver: the same simple cubic crystal of N
//! spheres (r = 1 mm, spacing 2r (1 − 10⁻³), so that every sphere touches its six
//! neighbours; random velocities of 0.1 m/s, no gravity) stepped in a cube periodic along
//! x, y and z, and in a world without periodic axes (the same bodies, no walls: the faces
//! then lack their bonds across the boundary, and over the few hundred steps measured the
//! crystal barely expands). Prints the wall-clock
//! time per particle-step of both and the number of candidate pairs, one thread.
//!
//! `cargo bench -p granula-md --bench periodic_bench [N] [steps]`
//! (defaults 8000 and 400).

use granula_broadphase::LinkedCells;
use granula_core::{Axis, DVec3, SphereBuilder, World};
use granula_integrators::VelocityVerlet;
use granula_laws::hertz_mindlin;
use granula_md::{MdConfig, MdSolver};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

fn world(n: usize, periodic: bool) -> World {
    let r = 1e-3;
    let side = (n as f64).cbrt().round() as usize;
    let a = 2.0 * r * (1.0 - 1e-3);
    let l = side as f64 * a;
    let mut b = World::builder().gravity(DVec3::ZERO);
    if periodic {
        b = b.periodic(Axis::X, 0.0, l).periodic(Axis::Y, 0.0, l).periodic(Axis::Z, 0.0, l);
    }
    let mut w = b.build().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut velocity =
        || DVec3::new(rng.random_range(-0.1..0.1), rng.random_range(-0.1..0.1), rng.random_range(-0.1..0.1));
    for i in 0..side {
        for j in 0..side {
            for k in 0..side {
                let x = (DVec3::new(i as f64, j as f64, k as f64) + 0.5) * a;
                w.insert(SphereBuilder::new(r, x).velocity(velocity()).build().unwrap()).unwrap();
            }
        }
    }
    w
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let n = args.first().copied().unwrap_or(8000);
    let steps = args.get(1).copied().unwrap_or(400);
    for periodic in [false, true] {
        let mut w = world(n, periodic);
        let config = MdConfig { skin: 1e-4, threads: Some(1), ..Default::default() };
        let mut s = MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config).unwrap();
        for _ in 0..50 {
            w.step(&mut s, 1e-6).unwrap();
        }
        let t = Instant::now();
        for _ in 0..steps {
            w.step(&mut s, 1e-6).unwrap();
        }
        let n = w.bodies.len();
        let ns = t.elapsed().as_secs_f64() * 1e9 / (steps * n) as f64;
        println!(
            "periodic = {periodic:5}: N = {n}, {steps} steps: {ns:.1} ns per particle-step, {} candidate pairs, {} rebuilds",
            s.candidate_pairs(),
            s.rebuilds()
        );
    }
}
