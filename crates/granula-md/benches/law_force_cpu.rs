//! Plain bench binary: ns of CPU time per `force` call of the built-in laws.
//!
//! `cargo bench -p granula-md --bench law_force_cpu`. On Linux the time is the thread's
//! on-CPU time from `/proc/thread-self/schedstat`, so the figure holds on a loaded machine;
//! elsewhere it falls back to wall time.

use glam::DVec3;
use granula_core::{ContactKinematics, ContactLaw, Material, PairMaterial};
use granula_md::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

const N: usize = 4096;
const ROUNDS: usize = 400;

/// On-CPU nanoseconds of this thread, if the kernel tells.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn kinematics(mat: &PairMaterial) -> Vec<ContactKinematics<'_>> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut v = || DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
    (0..N)
        .map(|_| {
            let n = v().normalize();
            ContactKinematics {
                normal: n,
                overlap: 1e-6 * (1.0 + v().x.abs()),
                relative_velocity: 0.01 * v(),
                relative_angular_velocity: v(),
                branch1: n * 1e-3,
                branch2: -n * 1e-3,
                effective_radius: 5e-4,
                effective_mass: 5e-6,
                material: mat,
                dt: 5e-6,
                rotation1: DVec3::ZERO,
                rotation2: DVec3::ZERO,
            }
        })
        .collect()
}

/// (ns per call, clock used). The rotation increments (002 eq. 15) are random, ~1e-4 rad,
/// from a stream of their own (the other kinematics are those of the laws without them).
fn measure<L: ContactLaw>(law: &L, mat: &PairMaterial) -> (f64, &'static str) {
    let mut ks = kinematics(mat);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for k in &mut ks {
        let mut v =
            || DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        k.rotation1 = 1e-4 * v();
        k.rotation2 = 1e-4 * v();
    }
    let mut hs = vec![L::History::default(); N];
    let mut acc = DVec3::ZERO;
    let round = |hs: &mut [L::History], acc: &mut DVec3| {
        for (k, h) in ks.iter().zip(hs.iter_mut()) {
            *acc += law.force(black_box(k), h).force;
        }
    };
    for _ in 0..20 {
        round(&mut hs, &mut acc);
    }
    let (c0, w0) = (cpu_ns(), Instant::now());
    for _ in 0..ROUNDS {
        round(&mut hs, &mut acc);
    }
    black_box(acc);
    let calls = (N * ROUNDS) as f64;
    match (c0, cpu_ns()) {
        (Some(a), Some(b)) => ((b - a) as f64 / calls, "thread CPU time"),
        _ => (w0.elapsed().as_nanos() as f64 / calls, "wall time"),
    }
}

fn predictor(rotation: RotationalIncrement) -> LinearPredictor {
    linear_predictor(1e3, 1.0 / 3.0, rotation).expect("valid")
}

fn main() {
    let m = Material { rolling_friction: 1e-5, torsion_friction: 5e-6, ..Material::default() };
    let mat = PairMaterial::mix(&m, &m);
    let full = hertz_mindlin()
        .with_rolling(RollingResistance::from_material())
        .with_twisting(TwistingResistance::from_material());
    let rows = [
        ("hertz_mindlin", measure(&hertz_mindlin(), &mat)),
        ("linear_cundall_strack", measure(&linear_cundall_strack(1e3, 1.0 / 3.0).expect("valid"), &mat)),
        ("hertz_mindlin + rolling + twisting", measure(&full, &mat)),
        ("linear_predictor translation_only", measure(&predictor(RotationalIncrement::TranslationOnly), &mat)),
        ("linear_predictor velocity_residual", measure(&predictor(RotationalIncrement::VelocityResidual), &mat)),
        ("linear_predictor from_orientations", measure(&predictor(RotationalIncrement::FromOrientations), &mat)),
    ];
    for (name, (ns, clock)) in rows {
        println!("{name:<36} {ns:>7.1} ns per force call ({clock}, {} calls)", N * ROUNDS);
    }
}
