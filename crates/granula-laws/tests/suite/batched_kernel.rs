//! The batched kernel against the scalar law on random contacts: every vector width gives
//! the scalar [`ContactLaw::force`] result to the bit (the kernel runs the same IEEE
//! operations in the same order; see `granula_laws::batched`), so the bound tested is zero
//! ulps, for the force, the energies, the status and the updated history.

use granula_core::VectorWidth;
use granula_core::{ContactBatch, ContactKinematics, ContactLaw, DVec3, Material, PairMaterial, BATCH_LANES};
use granula_laws::force_batch_at;
use granula_laws::prelude::*;
use granula_laws::{ComposedHistory, TensionPolicy};
use granula_laws::{Friction, SpringState, TangentialDamping, TangentialStiffness};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type History = ComposedHistory<(), SpringState, (), ()>;

/// Two materials and their three pairs, different enough to change every constant.
fn materials() -> Vec<PairMaterial> {
    let a = Material { young_modulus: 1e7, poisson_ratio: 0.3, restitution: 0.5, friction: 0.5, ..Default::default() };
    let b = Material {
        young_modulus: 5e8,
        poisson_ratio: 0.2,
        restitution: 0.8,
        friction: 0.3,
        dynamic_friction: Some(0.2),
        ..Default::default()
    };
    vec![PairMaterial::mix(&a, &a), PairMaterial::mix(&a, &b), PairMaterial::mix(&b, &b)]
}

fn unit(rng: &mut ChaCha8Rng) -> DVec3 {
    loop {
        let v = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        if v.length_squared() > 1e-4 && v.length_squared() <= 1.0 {
            return v.normalize();
        }
    }
}

/// A random contact and history: overlaps over four decades, approaching and separating
/// rates up to 2 m/s (the separating ones reach the no-attraction clamp), tangential
/// springs empty, purely normal, small (sticking) or long (sliding), with and without a
/// previous stiffness, masses down to where the damping cap acts.
fn random_contact(rng: &mut ChaCha8Rng, batch: &mut ContactBatch, slot: u32) -> History {
    let n = unit(rng);
    let overlap = 10f64.powf(rng.random_range(-8.0..-4.0));
    let v = unit(rng) * rng.random_range(0.0..2.0);
    let r = rng.random_range(1e-3..1e-2);
    let m = 10f64.powf(rng.random_range(-7.0..-3.0));
    let material = rng.random_range(0..3u32);
    batch.push(n, overlap, v, r, m, material, slot);
    let xi = match rng.random_range(0..4) {
        0 => DVec3::ZERO,
        1 => n * 1e-6,
        2 => unit(rng) * 10f64.powf(rng.random_range(-9.0..-7.0)),
        _ => unit(rng) * 10f64.powf(rng.random_range(-6.0..-4.0)),
    };
    let stiffness = if rng.random_bool(0.2) { 0.0 } else { 10f64.powf(rng.random_range(2.0..6.0)) };
    History { tangential: SpringState { xi, stiffness }, ..Default::default() }
}

fn check<L: ContactLaw<History = History, Pair = ()>>(name: &str, law: &L, form: granula_laws::LawBatch) {
    let materials = materials();
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let widths = [VectorWidth::Avx512, VectorWidth::Avx2, VectorWidth::Portable];
    let (mut sliding, mut open, mut sticking) = (0, 0, 0);
    for round in 0..200 {
        let mut batch = ContactBatch { dt: 10f64.powf(rng.random_range(-7.0..-4.5)), ..Default::default() };
        // A partly filled batch every fourth round.
        let len = if round % 4 == 3 { rng.random_range(1..BATCH_LANES) } else { BATCH_LANES };
        let histories: Vec<History> = (0..len as u32).map(|s| random_contact(&mut rng, &mut batch, s)).collect();
        for width in widths {
            let mut b = batch.clone();
            let mut h = histories.clone();
            force_batch_at(width, &form, &mut b, &materials, &mut h, |h| &mut h.tangential);
            for l in 0..len {
                let k = ContactKinematics {
                    normal: batch.normal_of(l),
                    overlap: batch.overlap[l],
                    relative_velocity: batch.velocity_of(l),
                    relative_angular_velocity: DVec3::ZERO,
                    branch1: DVec3::ZERO,
                    branch2: DVec3::ZERO,
                    effective_radius: batch.effective_radius[l],
                    effective_mass: batch.effective_mass[l],
                    material: &materials[batch.material[l] as usize],
                    pair: &(),
                    dt: batch.dt,
                    rotation1: DVec3::ZERO,
                    rotation2: DVec3::ZERO,
                    overlap_volume: 0.0,
                };
                let mut hs = histories[l];
                let cf = law.force(&k, &mut hs);
                let what = format!("{name}, {width:?}, round {round}, lane {l}");
                assert_eq!(b.force_of(l).to_array().map(f64::to_bits), cf.force.to_array().map(f64::to_bits), "{what}");
                assert_eq!(b.stored[l].to_bits(), cf.stored.to_bits(), "{what}: stored");
                assert_eq!(b.dissipated_normal[l].to_bits(), cf.dissipated.normal.to_bits(), "{what}: normal");
                assert_eq!(b.dissipated_sliding[l].to_bits(), cf.dissipated.sliding.to_bits(), "{what}: sliding");
                assert_eq!(b.status[l], cf.status, "{what}: status");
                assert_eq!(h[l], hs, "{what}: history");
                if width == VectorWidth::Portable {
                    match cf.status {
                        granula_core::ContactStatus::Sliding => sliding += 1,
                        granula_core::ContactStatus::Open => open += 1,
                        _ => sticking += 1,
                    }
                }
            }
        }
    }
    // The random set reaches every branch the kernel replaces by a select (a test that only
    // saw sticking contacts could not fail on the sliding ones).
    assert!(sliding > 100 && sticking > 100, "{name}: {sliding} sliding, {sticking} sticking, {open} open");
}

#[test]
fn hertz_mindlin_batches_to_the_bit() {
    let law = hertz_mindlin();
    check("hertz_mindlin", &law, law.batch_form().expect("batch form"));
}

#[test]
fn hertz_mindlin_damped_batches_to_the_bit() {
    let law = hertz_mindlin_damped();
    check("hertz_mindlin_damped", &law, law.batch_form().expect("batch form"));
}

#[test]
fn hertz_mindlin_with_damping_tension_batches_to_the_bit() {
    let law = hertz_mindlin().with_tension(TensionPolicy::AllowDampingTension);
    check("hertz_mindlin, tension", &law, law.batch_form().expect("batch form"));
}

#[test]
fn linear_cundall_strack_batches_to_the_bit() {
    let law = linear_cundall_strack(1e4, 1.0 / 3.0).unwrap();
    check("linear_cundall_strack", &law, law.batch_form().expect("batch form"));
    // Fixed coefficients and a fixed k_t take the constant path of the kernel.
    let fixed = Composed::new(
        LinearSpring::new(2e4).unwrap(),
        LinearViscous::new(DampingCoefficient::Fixed(0.3)).unwrap(),
        CundallStrack::new(
            TangentialStiffness::Fixed(5e3),
            TangentialDamping::Ratio(0.5),
            Friction::new(0.4, 0.3).unwrap(),
        )
        .unwrap(),
    );
    check("linear, fixed", &fixed, fixed.batch_form().expect("batch form"));
}

#[test]
fn laws_with_other_submodels_stay_scalar() {
    let rolling = hertz_mindlin().with_rolling(RollingResistance::from_material());
    assert!(rolling.batch_form().is_none() && !rolling.batches());
    let bd = hunt_crossley_brendel_dippel(1e6, 1.5).unwrap();
    assert!(!bd.batches());
    assert!(hertz_mindlin().batches() && hertz_mindlin_damped().batches());
}
