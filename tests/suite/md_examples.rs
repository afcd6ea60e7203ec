//! The granula-laws examples `restitution` and `custom_law`, run small with checks.

#[allow(dead_code)]
#[path = "../../examples/restitution.rs"]
mod restitution;

use crate::custom_law;

#[test]
fn restitution_example_matches_theory() {
    // 200 steps per contact: the M1 accuracy (0.5 %) for the smooth laws; the clamped laws
    // (linear, plain and calibrated Tsuji) converge at first order (see
    // crates/granula-laws/tests/suite/head_on.rs and hertz_tsuji_clamped.rs), 1 % here.
    for row in restitution::run(200.0) {
        let tol = if row.law.contains("no attraction") { 1e-2 } else { 5e-3 };
        if let Some(e) = row.e_theory {
            // Hunt-Crossley's e is a target valid for e near 1 (003): 2 % at e = 0.9.
            let tol = if row.law.starts_with("power_law+hunt_crossley") { 2e-2 } else { tol };
            assert!((row.e - e).abs() <= tol * e, "{}: e = {} vs {}", row.law, row.e, e);
        }
        if let Some(t) = row.tc_theory {
            assert!((row.tc / t - 1.0).abs() <= tol, "{}: t_c = {} vs {}", row.law, row.tc, t);
        }
    }
}

#[test]
fn custom_law_example_passes_the_kit_and_runs_in_the_solver() {
    let o = custom_law::run(60_000);
    assert!(o.direct.passed(), "{}", o.direct);
    assert!(o.composed.passed(), "{}", o.composed);
    assert!(o.material_pair.passed(), "{}", o.material_pair);
    // Gear 6-value at Δt = t_c/200 over 60 ms: the ledger closes to 1e-4 (measured 2.1e-5).
    assert!(o.ledger_error < 1e-4, "ledger error {}", o.ledger_error);
    // One bounce within 60 000 steps (60 ms; the fall takes 32 ms): rebound height ratio e²
    // within 2 % (gravity acts during the 0.2 ms contact, and the clamp is first order in Δt;
    // measured 0.5 %).
    assert!((o.rebound_ratio / o.rebound_theory - 1.0).abs() < 2e-2, "{} vs {}", o.rebound_ratio, o.rebound_theory);
    // The same law on a square in a planar world (002's flat face: overlap = depth): the
    // same bounds for the same reasons.
    assert!(o.planar_ledger_error < 1e-4, "planar ledger error {}", o.planar_ledger_error);
    let (ratio, theory) = (o.planar_rebound_ratio, o.planar_rebound_theory);
    assert!((ratio / theory - 1.0).abs() < 2e-2, "planar rebound {ratio} vs {theory}");
}

#[allow(dead_code)]
#[path = "../../examples/restitution_order.rs"]
mod restitution_order;

#[test]
fn restitution_order_example_shows_second_order_verlet() {
    // 8 onset phases instead of 32: the phase-averaged error then differs from the
    // 32-phase one by about 1e-4 at t_c/100 (measured 1.2e-4 at e = 0.1; the phase-dependent
    // part is ±1 % there), far inside the 0.2 % target checked here (Verlet measured −0.08 %
    // at most with 8 phases). Ratio measured 3.9 for Verlet, 2.01 for half-step Verlet.
    let cells = restitution_order::run(8);
    let at = |name: &str, e: f64, n: f64| {
        cells.iter().find(|c| c.integrator == name && c.e == e && c.steps == n).expect("cell").mean
    };
    for e in restitution_order::RESTITUTIONS {
        assert!(at("verlet", e, 100.0).abs() < 2e-3, "verlet, e = {e}: {}", at("verlet", e, 100.0));
    }
    // Halving Δt from t_c/100: second order divides the error by ~4 (Verlet), first order
    // by ~2 (half-step Verlet, symplectic Euler); the bounds 3 and 2 ± 0.3 separate them.
    assert!(at("verlet", 0.2, 100.0) / at("verlet", 0.2, 200.0) > 3.0);
    let half = at("verlet (half-step)", 0.2, 100.0) / at("verlet (half-step)", 0.2, 200.0);
    assert!((half - 2.0).abs() < 0.3, "half-step ratio {half}");
    let dir = std::env::temp_dir().join("granula-restitution-order-test");
    restitution_order::write_outputs(&cells, &dir).expect("outputs");
    let svg = std::fs::read_to_string(dir.join("restitution_order.svg")).expect("svg");
    assert!(svg.contains("t_c / Δt") && svg.contains("gear5"), "the SVG carries its axis title and legend");
    assert!(std::fs::metadata(dir.join("restitution_order.png")).expect("png").len() > 0);
}
