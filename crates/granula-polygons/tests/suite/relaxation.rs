//! The stress-controlled relaxation of two bodies of 002 §§3-4 on the core's planar world
//! (`granula_validation::relaxation`): the relaxation time t_R of the kinetic energy (002
//! eq. 12) against Δt/t_c, rotation locked, with Cundall's spring (002 eqs. 6-7,
//! `planar_friction_law`) and with the predictor-based elongation (002 eqs. 14-15,
//! `planar_predictor_law`), for two polygons (002 Fig. 10) and two discs (002 Figs. 7a and
//! 9, translation only), under the Gear predictor-corrector with six values.
//!
//! The reference values are those of the separate 2D engine (`granula-planar`, its
//! `ContactLaw` with `Tangential::Cundall` and `Tangential::Predictor` on the same set-up),
//! measured before it was retired, all digits printed.

use granula_validation::relaxation::{Elongation, RelaxationPair, TwoBodyRelaxation};

/// t_R/t_c for each Δt/t_c of `ratios`.
fn curve(test: &TwoBodyRelaxation, rule: Elongation, ratios: &[f64]) -> Vec<f64> {
    ratios.iter().map(|&r| test.relaxation_ratio(rule, r).unwrap().expect("at least 4 energy peaks")).collect()
}

/// Largest over smallest, minus one.
fn spread(t: &[f64]) -> f64 {
    let (lo, hi) = t.iter().fold((f64::MAX, 0.0f64), |a, &v| (a.0.min(v), a.1.max(v)));
    hi / lo - 1.0
}

/// Checks a curve against the 2D engine's to `tolerance` relative.
fn same_as_the_2d_engine(name: &str, core: &[f64], planar: &[f64], tolerance: f64) {
    for (c, p) in core.iter().zip(planar) {
        assert!((c / p - 1.0).abs() < tolerance, "{name}: core {core:?} against the 2D engine's {planar:?}");
    }
}

/// How far the two engines may differ. Cundall's spring integrates velocities; the runs are
/// the same scheme on the same law in another order of operations, and the existing
/// comparison of the engines measured t_R equal to ≤ 4e-9 (1e-7 leaves a margin of 20).
/// The predictor's increment is a difference of positions: at Δt/t_c = 1e-4 the peaks in
/// the fit's tail (1e-8 of the largest E_k) move the contact by ~1e-14 m per step, against
/// ~1e-17 m of round-off in positions of 0.07 m, so t_R carries round-off of 1e-7 to 1e-6:
/// the whole scene translated by (0.37, −0.21) m changed it by 8.9e-8 (1e-3) and 4.0e-7
/// (1e-4), and the engines differ by at most 7.9e-7; 2e-6 is the check.
const CUNDALL_TOLERANCE: f64 = 1e-7;
const PREDICTOR_TOLERANCE: f64 = 2e-6;

#[test]
fn two_polygons_relax_at_a_time_step_independent_rate_with_the_predictor_002_fig_10() {
    // Δt/t_c = 1e-4 (1.5 million steps per law, t_R/t_c: predictor 13.41119178847833,
    // Cundall 13.378580585781288, 0.24 % apart; the 2D engine 13.411181207086543 and
    // 13.378580593016794) is left to the example `two_polygon_relaxation`: it alone took
    // ninety seconds of the suite. So is 1e-3 (150 000 steps per law, three times the
    // cost of the rest of the test; predictor 13.411197158271255, Cundall
    // 13.091582129241628, 2.4 % apart; the 2D engine 13.411188367313168 and
    // 13.091582129043227): the smallest step here is 3e-3, with no value of the 2D engine.
    let ratios = [1e-1, 1e-2, 3e-3];
    let test = TwoBodyRelaxation::default();
    let predictor = curve(&test, Elongation::Predictor, &ratios);
    let cundall = curve(&test, Elongation::Cundall, &ratios);
    println!("Δt/t_c {ratios:?}\npredictor t_R/t_c {predictor:?}\ncundall   t_R/t_c {cundall:?}");
    // Measured: predictor 13.40900324943899, 13.411126033493804, 13.411172557726863;
    // Cundall 4.741739999158697, 10.851790368718717, 12.49304381292052. The 2D engine's
    // values at 1e-1 and 1e-2:
    let planar_predictor = [13.409003256905203, 13.411125475488197];
    let planar_cundall = [4.74174001579627, 10.851790368389107];
    same_as_the_2d_engine("predictor", &predictor[..2], &planar_predictor, PREDICTOR_TOLERANCE);
    same_as_the_2d_engine("cundall", &cundall[..2], &planar_cundall, CUNDALL_TOLERANCE);
    // 002 Fig. 10 (circles): flat across the decades of Δt/t_c, to the size of its
    // symbols (a few %); 1 % is the check. Measured spread 1.6e-4 (also with 1e-3), the
    // scatter of the fit of t_R to the energy peaks.
    assert!(spread(&predictor) < 0.01, "predictor t_R varies by {:.3e}: {predictor:?}", spread(&predictor));
    // 002 Fig. 10 (squares): Cundall's spring depends on Δt/t_c, t_R rising as Δt falls
    // (measured a factor 2.6 from 1e-1 to 3e-3); 5 % is far above the fit's scatter ...
    assert!(spread(&cundall) > 0.05, "cundall t_R varies by only {:.3e}: {cundall:?}", spread(&cundall));
    assert!(cundall.windows(2).all(|w| w[1] > w[0]), "cundall t_R rises as Δt falls: {cundall:?}");
    // ... and meets the predictor's value as Δt → 0: Cundall's (Δt)² error per step is
    // O(Δt) over a relaxation, so the gap shrinks tenfold per decade of Δt (measured 19 %
    // at 1e-2, 2.4 % at 1e-3, 0.24 % at 1e-4), 3.3-fold from 1e-2 to 3e-3 (measured 6.85 %
    // at 3e-3, 2.79-fold). The checks: at least as fast as Δt^0.7 (2.3-fold here, a factor
    // 5 per decade; a gap that stopped shrinking or shrank as √Δt would fail) and 10 % at
    // 3e-3.
    let gap = |i: usize| 1.0 - cundall[i] / predictor[i];
    assert!(gap(2) < 0.1 && gap(2) < gap(1) / 2.3, "cundall {cundall:?} predictor {predictor:?}");
}

#[test]
fn two_discs_relax_at_a_time_step_independent_rate_with_the_predictor_002_figs_7a_and_9() {
    // Δt/t_c down to 3e-3, as for the polygons (at 1e-3: predictor 14.114386882252907,
    // Cundall 13.787075591383136; the 2D engine 14.114385547335077 and 13.787075591150982).
    let ratios = [1e-1, 1e-2, 3e-3];
    let test = TwoBodyRelaxation { pair: RelaxationPair::Discs, ..TwoBodyRelaxation::default() };
    let predictor = curve(&test, Elongation::Predictor, &ratios);
    let cundall = curve(&test, Elongation::Cundall, &ratios);
    println!("Δt/t_c {ratios:?}\npredictor t_R/t_c {predictor:?}\ncundall   t_R/t_c {cundall:?}");
    // Measured: predictor 14.114429951563691, 14.114387146305369, 14.114421391036538;
    // Cundall 4.7433259168746345, 11.382256206659354, 13.174950380197044. The 2D engine's
    // values at 1e-1 and 1e-2:
    let planar_predictor = [14.11443001164082, 14.114387371985742];
    let planar_cundall = [4.743325905962098, 11.382256206829204];
    same_as_the_2d_engine("predictor", &predictor[..2], &planar_predictor, PREDICTOR_TOLERANCE);
    same_as_the_2d_engine("cundall", &cundall[..2], &planar_cundall, CUNDALL_TOLERANCE);
    // 002 Fig. 9 (translation only): flat (measured spread 3.0e-6); 002 Fig. 7a: Cundall's
    // t_R rises with falling Δt (measured 2.40-fold from 1e-1 to 1e-2, 1.16-fold from 1e-2
    // to 3e-3) and is still 6.7 % short of the predictor at 3e-3 (2.3 % at 1e-3; 002:
    // converged only below T_t = 1e-4 with rotation suppressed), its gap shrinking as for
    // the polygons (19.4 % at 1e-2, 2.91-fold less at 3e-3; checked: 2.3-fold and 10 %).
    assert!(spread(&predictor) < 0.01, "predictor t_R varies by {:.3e}: {predictor:?}", spread(&predictor));
    assert!(cundall[1] / cundall[0] > 1.5 && cundall[2] / cundall[1] > 1.05, "cundall {cundall:?}");
    let gap = |i: usize| 1.0 - cundall[i] / predictor[i];
    assert!(gap(2) < 0.1 && gap(2) < gap(1) / 2.3, "cundall {cundall:?} predictor {predictor:?}");
}

#[test]
fn bad_parameters_are_named_errors() {
    use granula_validation::relaxation::RelaxationError;
    let bad = TwoBodyRelaxation { restitution: 1.5, ..TwoBodyRelaxation::default() };
    let e = bad.run(Elongation::Predictor, 1e-2, 1.0).unwrap_err();
    assert!(matches!(e, RelaxationError::BadParameter { name: "restitution", .. }), "{e}");
    let e = TwoBodyRelaxation::default().run(Elongation::Cundall, -1.0, 1.0).unwrap_err();
    assert!(matches!(e, RelaxationError::BadParameter { name: "ratio", .. }), "{e}");
    let bad = TwoBodyRelaxation { mass: f64::NAN, ..TwoBodyRelaxation::default() };
    assert!(matches!(bad.world(), Err(RelaxationError::BadParameter { name: "mass", .. })));
    let bad = TwoBodyRelaxation { vertical_force: f64::INFINITY, ..TwoBodyRelaxation::default() };
    assert!(matches!(bad.world(), Err(RelaxationError::BadParameter { name: "vertical_force", .. })));
}
