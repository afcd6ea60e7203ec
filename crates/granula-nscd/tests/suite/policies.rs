//! What a step does at its iteration cap (`NonConvergence`), and the sweep orders with and
//! without momentum: every choice reaches the same static answer.

use crate::common::column;

use granula_broadphase::BruteForce;
use granula_core::{CoreError, StepWarning, World};
use granula_nscd::{Criterion, NonConvergence, NscdConfig, NscdError, NscdSolver, SweepOrder};

fn local(max_iterations: u32) -> Criterion {
    Criterion::LocalRelative { epsilon: 1e-6, cutoff: 1e-9, max_iterations }
}

#[test]
fn the_error_policy_fails_the_step_with_a_named_error() {
    let mut w = column();
    let cfg = NscdConfig { criterion: local(3), on_cap: NonConvergence::Error, ..Default::default() };
    let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
    let e = w.step(&mut s, 1e-4).unwrap_err();
    let CoreError::Solver { step, time, source } = &e else { panic!("{e}") };
    assert_eq!((*step, *time), (0, 0.0));
    match source.downcast_ref::<NscdError>() {
        Some(NscdError::NotConverged { iterations: 3, residual, tolerance }) => {
            assert!(*residual > 1e-6 && *tolerance == 1e-6)
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("step 0") && e.to_string().contains("tolerance 1.0e-6"), "{e}");
}

#[test]
fn the_extend_policy_sweeps_past_the_cap_and_warns_only_at_the_hard_cap() {
    let mut w = column();
    let cfg = NscdConfig {
        criterion: local(3),
        on_cap: NonConvergence::Extend { hard_cap: 1_000_000 },
        ..Default::default()
    };
    let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
    let r = w.step(&mut s, 1e-4).unwrap();
    assert!(r.iterations > 3 && r.residual <= 1e-6 && r.warnings.is_empty(), "{} sweeps", r.iterations);
    let mut w = column();
    let cfg = NscdConfig { criterion: local(3), on_cap: NonConvergence::Extend { hard_cap: 4 }, ..Default::default() };
    let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
    let r = w.step(&mut s, 1e-4).unwrap();
    assert_eq!(r.warnings, vec![StepWarning::IterationCapReached { iterations: 4, residual: r.residual }]);
    // A hard cap below the criterion's cap is refused.
    let cfg = NscdConfig { criterion: local(3), on_cap: NonConvergence::Extend { hard_cap: 2 }, ..Default::default() };
    assert!(matches!(
        NscdSolver::new(BruteForce, cfg).unwrap_err(),
        NscdError::InvalidSetting { param: "hard_cap", .. }
    ));
}

#[test]
fn every_order_with_and_without_momentum_carries_the_weight() {
    // Force on the floor (vertical impulse / Δt) for each method, converged to 1e-10: the
    // column is statically determinate along z when the spheres sit exactly on each other
    // (no wedging, so the walls carry nothing), so every method must find the full weight.
    let mut floors = Vec::new();
    for (order, momentum) in [
        (SweepOrder::Random, false),
        (SweepOrder::Forward, false),
        (SweepOrder::Forward, true),
        (SweepOrder::Random, true),
    ] {
        let mut w = column();
        let weight: f64 =
            (0..w.bodies.len()).filter(|&i| w.bodies.inv_mass[i] > 0.0).map(|i| 9.81 / w.bodies.inv_mass[i]).sum();
        let cfg = NscdConfig {
            criterion: Criterion::LocalRelative { epsilon: 1e-10, cutoff: 1e-12, max_iterations: 1_000_000 },
            sweep: order,
            momentum,
            ..Default::default()
        };
        let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
        let r = w.step(&mut s, 1e-4).unwrap();
        assert!(r.warnings.is_empty(), "{order:?} momentum {momentum}");
        let floor = floor_force(&w, &s);
        // 1e-8 relative: ε = 1e-10 per contact over a column 6 deep, far above round-off.
        assert!(
            (floor / weight - 1.0).abs() < 1e-8,
            "{order:?} momentum {momentum}: floor {floor} N, weight {weight} N"
        );
        floors.push((order, momentum, r.iterations));
    }
    eprintln!("sweeps to 1e-10: {floors:?}");
}

/// The floor's force (N): vertical impulses of the wall contacts of the lowest layer / Δt.
fn floor_force(w: &World, s: &NscdSolver<BruteForce>) -> f64 {
    let b = &w.bodies;
    s.impulses()
        .filter(|&(i, j, _)| (b.inv_mass[i as usize] == 0.0) != (b.inv_mass[j as usize] == 0.0))
        .filter(|&(i, j, _)| b.position[i.max(j) as usize].z < 0.0075)
        .map(|(i, _, p)| if b.inv_mass[i as usize] == 0.0 { p.z } else { -p.z })
        .sum::<f64>()
        / 1e-4
}

#[test]
fn the_exported_problem_reproduces_the_solvers_velocities_and_residual() {
    // W assembled body by body (problem_export.rs) must give W r + q = u for the solver's
    // own impulses and velocities, and the natural map computed from (W, q, μ, r) must be
    // the one the solver reports.
    let mut w = column();
    let cfg = NscdConfig {
        criterion: Criterion::NaturalMap { epsilon: 1e-8, max_iterations: 100_000 },
        ..Default::default()
    };
    let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
    let r = w.step(&mut s, 1e-4).unwrap();
    let p = s.contact_problem().unwrap();
    // 1e-12: sums of a dozen products of O(1) terms, round-off is ~1e-15.
    assert!(p.consistency() < 1e-12, "consistency {}", p.consistency());
    let e = p.natural_map();
    // The same formula on velocities that differ by round-off: u is the cancellation of
    // terms of size |q| (round-off ~1e-16 |q|) and e ~ 1e-8 |q|, so they agree to ~1e-8
    // relative; 1e-6 allows for the sum over the contacts.
    assert!((e / r.residual - 1.0).abs() < 1e-6, "{e} vs {}", r.residual);
}
