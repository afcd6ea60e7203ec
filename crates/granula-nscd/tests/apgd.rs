//! Accelerated projected gradient descent (`NscdConfig::apgd`, Mazhar et al. 2015): the
//! chain's unique static answer and Janssen's balance on the 3×3×6 column.

mod common;

use common::column;
use granula_broadphase::BruteForce;
use granula_nscd::{ApgdSettings, Criterion, NscdConfig, NscdSolver};
use granula_validation::scenes::chain;

#[test]
fn apgd_finds_the_chains_static_forces() {
    // The frictionless chain of 000 §3.3.1 (40 spheres pressed by F against a wall): the
    // quadratic program APGD solves is Signorini's problem exactly (no friction, so no
    // De Saxcé term), with one solution, F in every contact. The natural map 1e-9 of |q|
    // bounds each impulse error by about 1e-9 F Δt times the chain's length of 40, so 1e-6
    // of F holds.
    let f = 1e-3;
    let (mut w, _) = chain(40, 1.0, 1.0, f, 0.0).unwrap();
    let cfg = NscdConfig {
        criterion: Criterion::NaturalMap { epsilon: 1e-9, max_iterations: 200_000 },
        apgd: Some(ApgdSettings::default()),
        ..Default::default()
    };
    let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
    let r = w.step(&mut s, 1.0).unwrap();
    assert!(r.warnings.is_empty() && r.residual <= 1e-9, "residual {}", r.residual);
    let worst =
        s.impulses().filter(|&(i, j, _)| j == i + 1).map(|(_, _, p)| (p.x.abs() / f - 1.0).abs()).fold(0.0, f64::max);
    assert!(worst < 1e-6, "force error {worst}");
    eprintln!("chain: APGD (iterations, products) {:?}", s.last_apgd_work());
}

#[test]
fn apgd_balances_the_columns_weight() {
    // The column at rest: APGD to the natural map 1e-8; the walls' and floor's vertical
    // impulses balance the weight (m g Δt per sphere) to 1e-6 of it (the residual bounds
    // each impulse error by about 1e-8 of |q| = g Δt √(contacts), times the depth of 6).
    let dt = 1e-4;
    let mut w = column();
    let cfg = NscdConfig {
        criterion: Criterion::NaturalMap { epsilon: 1e-8, max_iterations: 200_000 },
        apgd: Some(ApgdSettings::default()),
        ..Default::default()
    };
    let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
    let r = w.step(&mut s, dt).unwrap();
    assert!(r.warnings.is_empty() && r.residual <= 1e-8, "residual {}", r.residual);
    let b = &w.bodies;
    let weight: f64 = (0..b.len()).filter(|&i| b.inv_mass[i] > 0.0).map(|i| 9.81 / b.inv_mass[i]).sum();
    let support: f64 = s
        .impulses()
        .filter(|&(i, j, _)| (b.inv_mass[i as usize] == 0.0) != (b.inv_mass[j as usize] == 0.0))
        .map(|(i, _, p)| if b.inv_mass[i as usize] == 0.0 { p.z } else { -p.z })
        .sum::<f64>()
        / dt;
    assert!((support / weight - 1.0).abs() < 1e-6, "walls and floor {support} N vs weight {weight} N");
    eprintln!("column: APGD (iterations, products) {:?}", s.last_apgd_work());
}
