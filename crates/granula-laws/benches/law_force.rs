//! Cost of one call of a contact law's `force`, on a cycle of realistic kinematics.
//!
//! `cargo bench -p granula-laws --bench law_force`: criterion reports the time per batch of
//! 1024 calls; divide by 1024 for ns per contact.
#![allow(missing_docs)] // criterion_group! generates an undocumented function.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use glam::DVec3;
use granula_core::{ContactKinematics, ContactLaw, Material, PairMaterial};
use granula_laws::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const N: usize = 1024;

fn kinematics(mat: &PairMaterial) -> Vec<ContactKinematics<'_>> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut v = || DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
    (0..N)
        .map(|_| {
            let n = v().normalize();
            let overlap = 1e-6 * (1.0 + v().x.abs());
            ContactKinematics {
                normal: n,
                overlap,
                relative_velocity: 0.01 * v(),
                relative_angular_velocity: 1.0 * v(),
                branch1: n * 1e-3,
                branch2: -n * 1e-3,
                effective_radius: 5e-4,
                effective_mass: 5e-6,
                material: mat,
                pair: &(),
                dt: 5e-6,
                rotation1: DVec3::ZERO,
                rotation2: DVec3::ZERO,
                overlap_volume: 0.0,
            }
        })
        .collect()
}

fn bench_law<L: ContactLaw<Pair = ()>>(c: &mut Criterion, name: &str, law: &L, mat: &PairMaterial) {
    let ks = kinematics(mat);
    let mut hs = [L::History::default(); N];
    c.bench_function(name, |b| {
        b.iter(|| {
            let mut acc = DVec3::ZERO;
            for (k, h) in ks.iter().zip(hs.iter_mut()) {
                acc += law.force(black_box(k), h).force;
            }
            acc
        })
    });
}

fn laws(c: &mut Criterion) {
    let m = Material::default();
    let mat = PairMaterial::mix(&m, &m);
    bench_law(c, "hertz_mindlin x1024", &hertz_mindlin(), &mat);
    bench_law(c, "linear_cundall_strack x1024", &linear_cundall_strack(1e3, 1.0 / 3.0).expect("valid"), &mat);
    let full = hertz_mindlin()
        .with_rolling(RollingResistance::from_material())
        .with_twisting(TwistingResistance::from_material());
    bench_law(c, "hertz_mindlin+rolling+twisting x1024", &full, &mat);
}

criterion_group!(benches, laws);
criterion_main!(benches);
