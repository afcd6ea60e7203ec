//! Plain bench binary: ns of CPU time per `force` call of the built-in laws.
//!
//! `cargo bench -p granula-laws --bench law_force_cpu [-- FILTER]`. On Linux the time is the
//! thread's on-CPU time from `/proc/thread-self/schedstat`, so the figure holds on a loaded
//! machine; elsewhere it falls back to wall time. Rows whose name does not contain FILTER
//! are skipped.
//!
//! Two kinds of kinematics:
//! - `random`: every contact has random kinematics (relative speeds ~0.01 m/s), the same at
//!   every round. Most springs reach the Coulomb cap within a few rounds: with
//!   `hertz_mindlin`, after the warm-up 86 % of the calls slide and 0.4 % lose their load
//!   to the no-attraction clamp (the damping is comparable to the elastic force here).
//!   Each contact keeps its state from round to round (0.7 % change), but sliding and
//!   sticking contacts alternate at random along the loop.
//! - `persistent`: the kinematics of a settled packing: relative speeds ~1e-4 m/s that
//!   reverse every round (the contacts vibrate about rest and stick), except 5 % of the
//!   contacts, which slide steadily at ~0.01 m/s; no clamp acts (`hertz_mindlin`: 4.9 % of
//!   the calls slide, 0.04 % change state from one round to the next).
//!
//! Each row reports the mean CPU time per call over all rounds and the wall time per call
//! of the fastest round; on a machine shared with other work the latter is the one to
//! compare between builds.

use glam::DVec3;
use granula_core::{ContactForce, ContactKinematics, ContactLaw, Dissipation, Material, PairMaterial};
use granula_laws::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

const N: usize = 4096;
const ROUNDS: usize = 400;

/// Fraction of the contacts that slide in the `persistent` kinematics.
const SLIDING_FRACTION: f64 = 0.05;

/// The kinematics the rows are timed on.
#[derive(Clone, Copy, PartialEq)]
enum Scenario {
    /// Random kinematics, the same every round (see the module doc).
    Random,
    /// States that persist: vibrating sticking contacts and a few steady sliders.
    Persistent,
}

/// On-CPU nanoseconds of this thread, if the kernel tells.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn kinematics(mat: &PairMaterial, scenario: Scenario) -> Vec<ContactKinematics<'_>> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut v = || DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
    let mut slide = ChaCha8Rng::seed_from_u64(3);
    (0..N)
        .map(|_| {
            let n = v().normalize();
            let overlap = 1e-6 * (1.0 + v().x.abs());
            let speed = match scenario {
                Scenario::Random => 0.01,
                Scenario::Persistent if slide.random_bool(SLIDING_FRACTION) => 0.01,
                Scenario::Persistent => 1e-4,
            };
            let mut relative_velocity = speed * v();
            if scenario == Scenario::Persistent && speed > 1e-4 {
                // A steady slider: no normal rate, so the load stays the elastic force.
                relative_velocity -= relative_velocity.dot(n) * n;
            }
            ContactKinematics {
                normal: n,
                overlap,
                relative_velocity,
                relative_angular_velocity: v(),
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

/// Timing of `law` on the kinematics of `scenario`. The rotation increments (002 eq. 15) are random, ~1e-4 rad,
/// from a stream of their own (the other kinematics are those of the laws without them).
/// In the persistent scenario, odd rounds use the opposite velocities and rotations of the
/// vibrating contacts.
fn measure<L: ContactLaw<Pair = ()>>(law: &L, mat: &PairMaterial, scenario: Scenario) -> Timing {
    let mut even = kinematics(mat, scenario);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for k in &mut even {
        let mut v =
            || DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        k.rotation1 = 1e-4 * v();
        k.rotation2 = 1e-4 * v();
    }
    let mut odd = even.clone();
    if scenario == Scenario::Persistent {
        for k in odd.iter_mut().filter(|k| k.relative_velocity.length() < 1e-3) {
            k.relative_velocity = -k.relative_velocity;
            k.relative_angular_velocity = -k.relative_angular_velocity;
            k.rotation1 = -k.rotation1;
            k.rotation2 = -k.rotation2;
        }
    }
    let mut hs = vec![L::History::default(); N];
    let mut acc = Sums::default();
    let round = |ks: &[ContactKinematics<'_>], hs: &mut [L::History], acc: &mut Sums| {
        for (k, h) in ks.iter().zip(hs.iter_mut()) {
            let f = law.force(black_box(k), h);
            acc.add(&f);
        }
    };
    for r in 0..20 {
        round(if r % 2 == 0 { &even } else { &odd }, &mut hs, &mut acc);
    }
    let (c0, w0) = (cpu_ns(), Instant::now());
    let mut best = f64::INFINITY;
    for r in 0..ROUNDS {
        let t = Instant::now();
        round(if r % 2 == 0 { &even } else { &odd }, &mut hs, &mut acc);
        best = best.min(t.elapsed().as_nanos() as f64);
    }
    black_box(acc);
    let calls = (N * ROUNDS) as f64;
    let mean = match (c0, cpu_ns()) {
        (Some(a), Some(b)) => ((b - a) as f64 / calls, "thread CPU time"),
        _ => (w0.elapsed().as_nanos() as f64 / calls, "wall time"),
    };
    Timing { mean: mean.0, clock: mean.1, best_round: best / N as f64 }
}

/// What a solver keeps of each call: the force and couple (loads of the bodies) and, as a
/// solver's energy ledger does, the stored and dissipated energies per mechanism, so that
/// the energy accounting is timed too (a bench that dropped it would let the compiler
/// remove it).
#[derive(Default)]
struct Sums {
    load: DVec3,
    stored: f64,
    dissipated: Dissipation,
}

impl Sums {
    #[inline(always)]
    fn add(&mut self, f: &ContactForce) {
        self.load += f.force + f.torque;
        self.stored += f.stored;
        self.dissipated += f.dissipated;
    }
}

/// What [`measure`] reports.
struct Timing {
    /// ns per call over all the timed rounds.
    mean: f64,
    /// The clock of `mean`.
    clock: &'static str,
    /// ns per call of the fastest round (wall time): the figure least disturbed by other
    /// work on a shared machine.
    best_round: f64,
}

fn predictor(rotation: RotationalIncrement) -> LinearPredictor {
    linear_predictor(1e3, 1.0 / 3.0, rotation).expect("valid")
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--")).unwrap_or_default();
    let m = Material { rolling_friction: 1e-5, torsion_friction: 5e-6, ..Material::default() };
    let mat = PairMaterial::mix(&m, &m);
    let full = hertz_mindlin()
        .with_rolling(RollingResistance::from_material())
        .with_twisting(TwistingResistance::from_material());
    let linear = linear_cundall_strack(1e3, 1.0 / 3.0).expect("valid");
    type Row<'a> = (&'a str, Box<dyn Fn(Scenario) -> Timing + 'a>);
    let rows: [Row<'_>; 6] = [
        ("hertz_mindlin", Box::new(|s| measure(&hertz_mindlin(), &mat, s))),
        ("linear_cundall_strack", Box::new(|s| measure(&linear, &mat, s))),
        ("hertz_mindlin + rolling + twisting", Box::new(|s| measure(&full, &mat, s))),
        (
            "linear_predictor translation_only",
            Box::new(|s| measure(&predictor(RotationalIncrement::TranslationOnly), &mat, s)),
        ),
        (
            "linear_predictor velocity_residual",
            Box::new(|s| measure(&predictor(RotationalIncrement::VelocityResidual), &mat, s)),
        ),
        (
            "linear_predictor from_orientations",
            Box::new(|s| measure(&predictor(RotationalIncrement::FromOrientations), &mat, s)),
        ),
    ];
    for (name, run) in rows.iter().filter(|(name, _)| name.contains(filter.as_str())) {
        for (label, scenario) in [("random", Scenario::Random), ("persistent", Scenario::Persistent)] {
            let t = run(scenario);
            println!(
                "{name:<36} {label:<10} {:>7.1} ns per force call ({}, {} calls; best round {:.1} ns)",
                t.mean,
                t.clock,
                N * ROUNDS,
                t.best_round
            );
        }
    }
}
