//! N9 (convergence criteria, 000 eqs. 35-37), the iteration-cap warning, determinism and
//! bad input.

use granula_broadphase::BruteForce;
use granula_core::{DVec3, Material, MaterialId, SphereBuilder, StepReport, StepWarning, World};
use granula_nscd::{Criterion, NscdConfig, NscdError, NscdSolver, SweepOrder};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A small dense packing: 4×4×4 polydisperse spheres in a box, settled for a few steps.
fn packing() -> World {
    let mut w = World::builder().material(Material { friction: 0.5, ..Material::named("m") }).build().unwrap();
    let l = 0.04;
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for i in 0..4 {
        for j in 0..4 {
            for k in 0..4 {
                let r = 0.0045 + 0.0005 * rng.random::<f64>();
                let c = DVec3::new(0.005 + 0.01 * i as f64, 0.005 + 0.01 * j as f64, 0.005 + 0.01 * k as f64);
                w.insert(SphereBuilder::new(r, c).build().unwrap()).unwrap();
            }
        }
    }
    let mut s = NscdSolver::new(BruteForce, NscdConfig::default()).unwrap();
    for _ in 0..30 {
        w.step(&mut s, 1e-3).unwrap();
    }
    w
}

fn one_step(criterion: Criterion) -> (StepReport, Vec<DVec3>) {
    let mut w = packing();
    // The random sweep without momentum: the sweeps of 000 §2.5 that the criteria were
    // written for.
    let cfg = NscdConfig { criterion, seed: 5, sweep: SweepOrder::Random, momentum: false, ..Default::default() };
    let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
    let r = w.step(&mut s, 1e-3).unwrap();
    (r, w.bodies.velocity.clone())
}

#[test]
fn n9_each_criterion_stops_the_loop_as_defined() {
    // Fixed N_I (eq. 37): exactly N_I sweeps, no warning.
    let (r, _) = one_step(Criterion::Fixed { iterations: 17 });
    assert_eq!(r.iterations, 17);
    assert!(r.warnings.is_empty());
    assert!(r.contacts > 64, "a dense packing: {} contacts", r.contacts);
    // Local (eq. 35), global (eq. 36) and Siconos' natural map: converged below ε, and one sweep fewer (same
    // seed, hence the same sweeps) would not have met the criterion.
    for criterion in [
        Criterion::LocalRelative { epsilon: 1e-6, cutoff: 1e-6, max_iterations: 100_000 },
        Criterion::GlobalMean { epsilon: 1e-6, max_iterations: 100_000 },
        Criterion::NaturalMap { epsilon: 1e-6, max_iterations: 100_000 },
    ] {
        let (r, _) = one_step(criterion);
        assert!(r.warnings.is_empty(), "{criterion:?}");
        assert!(r.residual <= 1e-6 && r.iterations > 1, "{criterion:?}: {} sweeps, {}", r.iterations, r.residual);
        let capped = criterion.with_cap(r.iterations - 1);
        let (rc, _) = one_step(capped);
        assert_eq!(rc.iterations, r.iterations - 1);
        assert!(rc.residual > 1e-6);
        // The cap is reported, never silent.
        assert_eq!(
            rc.warnings,
            vec![StepWarning::IterationCapReached { iterations: rc.iterations, residual: rc.residual }]
        );
    }
    // The local criterion is stricter than the global one at equal ε.
    let (rl, _) = one_step(Criterion::LocalRelative { epsilon: 1e-4, cutoff: 1e-9, max_iterations: 100_000 });
    let (rg, _) = one_step(Criterion::GlobalMean { epsilon: 1e-4, max_iterations: 100_000 });
    assert!(rl.iterations > rg.iterations, "{} vs {}", rl.iterations, rg.iterations);
}

#[test]
fn same_seed_gives_bit_identical_results_and_orders_differ() {
    let c = Criterion::Fixed { iterations: 5 };
    let (_, a) = one_step(c);
    let (_, b) = one_step(c);
    assert_eq!(a, b);
    let mut w = packing();
    let cfg = NscdConfig { criterion: c, sweep: SweepOrder::Forward, momentum: false, ..Default::default() };
    let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
    w.step(&mut s, 1e-3).unwrap();
    assert_ne!(a, w.bodies.velocity, "another order gives another unconverged iterate");
}

#[test]
fn bad_input_gives_named_errors() {
    for theta in [0.49, 1.01, f64::NAN] {
        let e = NscdSolver::new(BruteForce, NscdConfig { theta, ..Default::default() }).unwrap_err();
        assert!(matches!(e, NscdError::ThetaOutOfRange { .. }), "{e}");
    }
    let e = NscdSolver::new(
        BruteForce,
        NscdConfig {
            criterion: Criterion::LocalRelative { epsilon: -1.0, cutoff: 1.0, max_iterations: 3 },
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(e, NscdError::NonPositiveTolerance { param: "epsilon", .. }));
    let e = NscdSolver::new(
        BruteForce,
        NscdConfig { criterion: Criterion::GlobalMean { epsilon: 1e-3, max_iterations: 0 }, ..Default::default() },
    )
    .unwrap_err();
    assert!(matches!(e, NscdError::NonPositiveIterations { param: "max_iterations", .. }));
    let e =
        NscdSolver::new(BruteForce, NscdConfig { criterion: Criterion::Fixed { iterations: 0 }, ..Default::default() })
            .unwrap_err();
    assert!(matches!(e, NscdError::NonPositiveIterations { .. }));
}

#[test]
fn energy_ledger_balances_the_kinetic_energy_change_of_the_contact_stage() {
    // No gravity, two spheres colliding head-on and obliquely with friction: the whole
    // kinetic energy change comes from the contact impulses, so
    // K_before − K_after = dissipated (000 eq. 20 with F_ext = 0).
    let mut w = World::builder().gravity(DVec3::ZERO).build().unwrap();
    w.insert(SphereBuilder::new(0.01, DVec3::ZERO).velocity(DVec3::new(1.0, 0.2, 0.0)).build().unwrap()).unwrap();
    w.insert(
        SphereBuilder::new(0.01, DVec3::new(0.02, 0.005, 0.0)).velocity(DVec3::new(-1.0, 0.0, 0.3)).build().unwrap(),
    )
    .unwrap();
    let mut s = NscdSolver::new(BruteForce, NscdConfig::default()).unwrap();
    let k0 = w.kinetic_energy();
    let mut d = 0.0;
    for _ in 0..40 {
        d += w.step(&mut s, 1e-4).unwrap().dissipated.total();
    }
    let k1 = w.kinetic_energy();
    assert!(d > 0.1 * k0, "the collision dissipates");
    // Exact identity up to round-off of ~1e3 additions.
    assert!((k0 - k1 - d).abs() < 1e-12 * k0, "{k0} {k1} {d}");
}
