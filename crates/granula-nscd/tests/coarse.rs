//! The two-level aggregation correction (`NscdConfig::coarse`): Janssen's balance of floor
//! and side walls on the 3×3×6 column, the unique static answer of the 1D chain of
//! 000 §3.3.1 (aggregates with locked degrees of freedom) reached like the sweeps alone,
//! and its settings checked by name.

mod common;

use common::column;
use granula_broadphase::BruteForce;
use granula_core::World;
use granula_nscd::{Aggregates, CoarseCorrection, Criterion, NscdConfig, NscdError, NscdSolver, SweepOrder};
use granula_validation::scenes::chain;

/// Total weight of the movable bodies (N), g = 9.81 m/s².
fn weight(w: &World) -> f64 {
    (0..w.bodies.len()).filter(|&i| w.bodies.inv_mass[i] > 0.0).map(|i| 9.81 / w.bodies.inv_mass[i]).sum()
}

/// (floor, side walls) vertical force (N): the vertical impulses of the wall contacts / Δt,
/// split by the height of the sphere (the lowest layer's centres are at z = 5 mm).
fn wall_forces(w: &World, s: &NscdSolver<BruteForce>, dt: f64) -> (f64, f64) {
    let b = &w.bodies;
    let (mut floor, mut sides) = (0.0, 0.0);
    for (i, j, p) in s.impulses() {
        let (i, j) = (i as usize, j as usize);
        if (b.inv_mass[i] == 0.0) == (b.inv_mass[j] == 0.0) {
            continue;
        }
        let (sphere, up) = if b.inv_mass[i] == 0.0 { (j, p.z) } else { (i, -p.z) };
        // The floor touches the lowest layer only, and pushes along +z.
        let on_floor = b.position[sphere].z < 0.0075 && up > 0.0 && (p.x * p.x + p.y * p.y) < (p.z * p.z);
        if on_floor {
            floor += up / dt;
        } else {
            sides += up / dt;
        }
    }
    (floor, sides)
}

fn coarse(cell: f64, aggregates: Aggregates) -> CoarseCorrection {
    CoarseCorrection { cell, aggregates, sweeps_between: 5, ..Default::default() }
}

#[test]
fn the_coarse_correction_meets_janssens_balance_on_the_column() {
    // The column of `policies.rs` (54 spheres, walls touching the outer ones) solved to the
    // natural map 1e-10 with and without the correction, with cubes of 2 diameters (about
    // 8 spheres per aggregate) and with columns of 2 × 2 diameters. With wall friction the
    // static problem has many solutions (a horizontal self-stress between the walls lets
    // their friction carry part of the weight, Janssen): the sweeps alone find the one
    // without wall friction, the correction others. Every one must balance the weight:
    // floor + side walls' friction = weight.
    let dt = 1e-4;
    let mut shares = Vec::new();
    for setting in [None, Some(coarse(2.0, Aggregates::Cubes)), Some(coarse(2.0, Aggregates::Columns))] {
        let mut w = column();
        let cfg = NscdConfig {
            criterion: Criterion::NaturalMap { epsilon: 1e-10, max_iterations: 100_000 },
            sweep: SweepOrder::Forward,
            coarse: setting,
            ..Default::default()
        };
        let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
        let r = w.step(&mut s, dt).unwrap();
        assert!(r.warnings.is_empty() && r.residual <= 1e-10, "{setting:?}: residual {}", r.residual);
        let (corrections, updates, _) = s.last_coarse_work();
        if setting.is_some() {
            // The correction ran (every 5 sweeps) and solved interface problems.
            assert!(corrections >= 1 && updates >= 1, "{setting:?}: {corrections} corrections");
        }
        // The natural map at 1e-10 of |q| (g Δt per contact) bounds the error of each
        // impulse far below 1e-8 of the weight in this 6-deep column.
        let (floor, sides) = wall_forces(&w, &s, dt);
        let g = weight(&w);
        assert!(((floor + sides) / g - 1.0).abs() < 1e-8, "{setting:?}: floor {floor} + sides {sides} vs {g}");
        // Friction holds the column up: the side walls never pull it down (beyond the same
        // 1e-8 of the weight).
        assert!(sides > -1e-8 * g && floor > 0.0, "{setting:?}: floor {floor}, sides {sides}");
        if setting.is_none() {
            // The sweeps' solution: no wall friction (a square lattice has no horizontal
            // stress), the floor carries the weight.
            assert!((floor / g - 1.0).abs() < 1e-8, "floor {floor} vs {g}");
        }
        shares.push((floor / g, r.iterations, corrections));
    }
    eprintln!("(floor share, sweeps, corrections) to 1e-10 (plain, cubes, columns): {shares:?}");
}

#[test]
fn the_coarse_correction_converges_on_the_chain() {
    // The chain of 000 §3.3.1: 40 spheres locked to x, pressed by F against a wall. Its
    // static answer is F in every contact (000 §3.3); aggregates translate along x only.
    // Each tolerance is met within the cap, so the correction never makes the residual
    // diverge; the forces are within 1e-6 F of F, the natural map 1e-9 of |q| bounding
    // each impulse error by about 1e-9 F Δt times the chain's length of 40.
    let f = 1e-3;
    for setting in [None, Some(coarse(3.0, Aggregates::Cubes)), Some(coarse(8.0, Aggregates::Cubes))] {
        let (mut w, _) = chain(40, 1.0, 1.0, f, 0.0).unwrap();
        let cfg = NscdConfig {
            criterion: Criterion::NaturalMap { epsilon: 1e-9, max_iterations: 200_000 },
            coarse: setting,
            ..Default::default()
        };
        let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
        let r = w.step(&mut s, 1.0).unwrap();
        assert!(r.warnings.is_empty() && r.residual <= 1e-9, "{setting:?}: residual {}", r.residual);
        assert!(setting.is_none() || s.last_coarse_work().0 >= 1, "{setting:?}: the correction ran");
        let worst = s
            .impulses()
            .filter(|&(i, j, _)| j == i + 1)
            .map(|(_, _, p)| (p.x.abs() / f - 1.0).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-6, "{setting:?}: force error {worst}");
        eprintln!("chain, {setting:?}: {} sweeps, coarse work {:?}", r.iterations, s.last_coarse_work());
    }
}

#[test]
fn coarse_settings_are_checked_by_name() {
    for (c, name) in [
        (CoarseCorrection { cell: 0.0, ..Default::default() }, "coarse cell"),
        (CoarseCorrection { cell: f64::NAN, ..Default::default() }, "coarse cell"),
        (CoarseCorrection { sweeps_between: 0, ..Default::default() }, "coarse sweeps_between"),
        (CoarseCorrection { coarse_sweeps: 0, ..Default::default() }, "coarse_sweeps"),
        (CoarseCorrection { coarse_tolerance: 1.0, ..Default::default() }, "coarse_tolerance"),
    ] {
        let cfg = NscdConfig { coarse: Some(c), ..Default::default() };
        match NscdSolver::new(BruteForce, cfg).unwrap_err() {
            NscdError::InvalidSetting { param, .. } => assert_eq!(param, name),
            e => panic!("{e}"),
        }
    }
}
