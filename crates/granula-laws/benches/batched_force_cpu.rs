//! Plain bench binary: ns per contact of the scalar law (`ContactLaw::force`, one call per
//! contact) against its batched form (`granula_laws::force_batch_at`, 64 contacts
//! per call, constants and spring histories gathered and written back inside) at each
//! vector width, for `hertz_mindlin`, `hertz_mindlin_damped` and `linear_cundall_strack`.
//!
//! `cargo bench -p granula-laws --bench batched_force_cpu`. The kinematics are those of a
//! settled packing (as `law_force_cpu`'s `persistent` rows): overlaps of 1-2 µm, relative
//! speeds ~1e-4 m/s reversing every round, 5 % of the contacts sliding steadily at ~0.01 m/s;
//! each contact keeps its history from round to round. Each row gives the on-CPU time per
//! contact over all rounds (`/proc/thread-self/schedstat`, steady on a loaded machine;
//! wall time elsewhere) and the wall time per contact of the fastest round. A width the CPU
//! lacks runs the portable code.

use glam::DVec3;
use granula_core::{ContactBatch, ContactKinematics, ContactLaw, Material, PairMaterial, VectorWidth, BATCH_LANES};
use granula_laws::ComposedHistory;
use granula_laws::SpringState;
use granula_laws::{force_batch_at, LawBatch};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

const N: usize = 4096;
const ROUNDS: usize = 400;

type History = ComposedHistory<(), SpringState, (), ()>;

/// On-CPU nanoseconds of this thread, if the kernel tells.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// The contacts as batches of 64 lanes (material 0, Δt = 5e-6 s).
fn batches() -> Vec<ContactBatch> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut v = || DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
    let mut out = Vec::new();
    let mut b = ContactBatch { dt: 5e-6, ..Default::default() };
    for k in 0..N {
        let n = v().normalize();
        let overlap = 1e-6 * (1.0 + v().x.abs());
        let speed = if k % 20 == 0 { 1e-2 } else { 1e-4 };
        b.push(n, overlap, v() * speed, 2.5e-4, 1.3e-7, 0, (k % BATCH_LANES) as u32);
        if b.is_full() {
            out.push(b.clone());
            b.len = 0;
        }
    }
    out
}

/// One row: scalar or a width; returns (CPU ns, best wall ns) per contact.
fn time<L: ContactLaw<History = History, Pair = ()>>(
    law: &L,
    form: &LawBatch,
    width: Option<VectorWidth>,
    material: &[PairMaterial],
) -> (f64, f64) {
    let mut batches = batches();
    let mut histories = vec![History::default(); N];
    let (cpu0, mut best) = (cpu_ns(), f64::INFINITY);
    let start = Instant::now();
    for round in 0..ROUNDS {
        let t = Instant::now();
        for (b, h) in batches.iter_mut().zip(histories.chunks_mut(BATCH_LANES)) {
            // The vibrating contacts reverse every round.
            if round > 0 {
                for l in 0..b.len {
                    if l % 20 != 0 {
                        for c in 0..3 {
                            b.velocity[c][l] = -b.velocity[c][l];
                        }
                    }
                }
            }
            match width {
                Some(w) => force_batch_at(w, form, b, material, h, |h| &mut h.tangential),
                None => {
                    for (l, h) in h.iter_mut().enumerate().take(b.len) {
                        let k = ContactKinematics {
                            normal: b.normal_of(l),
                            overlap: b.overlap[l],
                            relative_velocity: b.velocity_of(l),
                            relative_angular_velocity: DVec3::ZERO,
                            branch1: DVec3::ZERO,
                            branch2: DVec3::ZERO,
                            effective_radius: b.effective_radius[l],
                            effective_mass: b.effective_mass[l],
                            material: &material[0],
                            pair: &(),
                            dt: b.dt,
                            rotation1: DVec3::ZERO,
                            rotation2: DVec3::ZERO,
                            overlap_volume: 0.0,
                        };
                        let cf = law.force(&k, h);
                        b.force[0][l] = cf.force.x;
                        b.force[1][l] = cf.force.y;
                        b.force[2][l] = cf.force.z;
                        b.stored[l] = cf.stored;
                        b.dissipated_normal[l] = cf.dissipated.normal;
                        b.dissipated_sliding[l] = cf.dissipated.sliding;
                        b.status[l] = cf.status;
                    }
                }
            }
            black_box(&b.force);
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e9 / N as f64);
    }
    let calls = (ROUNDS * N) as f64;
    let cpu = match (cpu0, cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 / calls,
        _ => start.elapsed().as_secs_f64() * 1e9 / calls,
    };
    (cpu, best)
}

/// The four rows of one law of batch form `form`.
fn row<L: ContactLaw<History = History, Pair = ()>>(name: &str, law: &L, form: LawBatch, material: &[PairMaterial]) {
    for (label, width) in [
        ("scalar", None),
        ("batched AVX-512", Some(VectorWidth::Avx512)),
        ("batched AVX2", Some(VectorWidth::Avx2)),
        ("batched portable", Some(VectorWidth::Portable)),
    ] {
        let (cpu, best) = time(law, &form, width, material);
        println!("{name:<24} {label:<18} {cpu:>8.1} {best:>8.1}");
    }
}

fn main() {
    let glass =
        Material { young_modulus: 1e7, poisson_ratio: 0.3, restitution: 0.5, friction: 0.5, ..Default::default() };
    let material = [PairMaterial::mix(&glass, &glass)];
    println!("{:<24} {:<18} {:>8} {:>8}", "law", "path", "CPU ns", "best ns");
    println!("(per contact; CPU: on-CPU time over all rounds; best: wall time of the fastest round)");
    let hm = granula_laws::hertz_mindlin();
    row("hertz_mindlin", &hm, hm.batch_form().expect("batch form"), &material);
    let hmd = granula_laws::hertz_mindlin_damped();
    row("hertz_mindlin_damped", &hmd, hmd.batch_form().expect("batch form"), &material);
    let lcs = granula_laws::linear_cundall_strack(1e3, 1.0 / 3.0).expect("valid law");
    row("linear_cundall_strack", &lcs, lcs.batch_form().expect("batch form"), &material);
}
