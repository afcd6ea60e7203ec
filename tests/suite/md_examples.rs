//! The granula-laws example `custom_law`, run small with checks (the examples `restitution`
//! and `restitution_order` carry their own tests: `cargo test` builds them once, as tests).

use crate::custom_law;

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
