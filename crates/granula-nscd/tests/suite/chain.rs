//! N5, N6, N8: the 1D chain of 000 §3.3.1 and its spurious sound, the iteration scaling
//! (000 eq. 48) and the equivalent stiffness (000 eq. 67).

use granula_broadphase::BruteForce;
use granula_nscd::{NscdConfig, NscdSolver};
use granula_validation::chain_run::{run_chain, ChainRun};
use granula_validation::scenes::{chain, chain_theory, equivalent_stiffness};

/// Least-squares slope of ln y against ln x.
fn log_slope(x: &[f64], y: &[f64]) -> f64 {
    log_fit(x, y).0
}

/// Least-squares line through (ln x, ln y): its slope and the slope's standard error,
/// √(Σ r²/(n − 2) / Σ (ln x − mean)²) with r the residuals.
fn log_fit(x: &[f64], y: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let (lx, ly): (Vec<f64>, Vec<f64>) = x.iter().zip(y).map(|(a, b)| (a.ln(), b.ln())).unzip();
    let (mx, my) = (lx.iter().sum::<f64>() / n, ly.iter().sum::<f64>() / n);
    let cov: f64 = lx.iter().zip(&ly).map(|(a, b)| (a - mx) * (b - my)).sum();
    let var: f64 = lx.iter().map(|a| (a - mx) * (a - mx)).sum();
    let slope = cov / var;
    let sse: f64 = lx.iter().zip(&ly).map(|(a, b)| (b - my - slope * (a - mx)).powi(2)).sum();
    (slope, (sse / (n - 2.0) / var).sqrt())
}

#[test]
fn n5_spurious_sound_matches_000_eqs_58_60_and_scales_with_n_i() {
    let n_is = [10u32, 20, 40, 80];
    let mut omegas = Vec::new();
    let mut taus = Vec::new();
    for &n_i in &n_is {
        let r = run_chain(&ChainRun { n_i, ..Default::default() }, BruteForce).unwrap();
        let (w, t) = r.theory;
        // VALIDATION N5: ω within 2 %, τ within 5 % (fit window from 5τ after the hit;
        // measured deviations are below 0.5 % and 1 %).
        assert!((r.fit.omega / w - 1.0).abs() < 0.02, "N_I = {n_i}: ω Δt = {} vs {w}", r.fit.omega);
        assert!((r.fit.tau / t - 1.0).abs() < 0.05, "N_I = {n_i}: τ/Δt = {} vs {t}", r.fit.tau);
        omegas.push(r.fit.omega);
        taus.push(r.fit.tau);
    }
    let x: Vec<f64> = n_is.iter().map(|&n| n as f64).collect();
    // ω ∝ √N_I and τ ∝ 1/N_I; eq. 58's D²k²/4 term lowers the ω exponent to 0.497 here,
    // so 0.02 leaves room for the fit scatter only.
    let sw = log_slope(&x, &omegas);
    let st = log_slope(&x, &taus);
    assert!((sw - 0.5).abs() < 0.02, "ω exponent {sw}");
    assert!((st + 1.0).abs() < 0.03, "τ exponent {st}");
}

/// Sweeps needed on the first step of a chain of `n` spheres touching the wall, pressed by
/// F at the free end, until every contact force is within 1e-3 F of the exact F. The
/// random sweep stream is the same for every cap, so the k-sweep result is the prefix of
/// longer runs and bisection on the cap finds the first k that meets the tolerance.
fn sweeps_to_converge(n: usize) -> u32 {
    let error_after = |k: u32| {
        // F = 1e-3 d m/Δt²: even an unconverged first step moves a sphere by 1e-3 d only.
        let f = 1e-3;
        let (mut w, _) = chain(n, 1.0, 1.0, f, 0.0).unwrap();
        let cfg = NscdConfig::fixed_random_sweeps(k);
        let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
        w.step(&mut s, 1.0).unwrap();
        // Neighbours only: the detection margin also lists open next-nearest pairs.
        s.impulses().filter(|&(i, j, _)| j == i + 1).map(|(_, _, p)| (p.x.abs() / f - 1.0).abs()).fold(0.0, f64::max)
    };
    let (mut lo, mut hi) = (1u32, 1u32);
    while error_after(hi) > 1e-3 && hi < 1 << 22 {
        lo = hi;
        hi *= 2;
    }
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if error_after(mid) > 1e-3 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

#[test]
fn n6_iterations_grow_as_the_square_of_the_chain_length() {
    let ns = [10usize, 20, 40, 80, 160];
    let its: Vec<f64> = ns.iter().map(|&n| sweeps_to_converge(n) as f64).collect();
    let x: Vec<f64> = ns.iter().map(|&n| n as f64).collect();
    let (slope, se) = log_fit(&x, &its);
    let local: Vec<f64> = (1..ns.len()).map(|k| (its[k] / its[k - 1]).ln() / (x[k] / x[k - 1]).ln()).collect();
    eprintln!("N6: sweeps {its:?} for n = {ns:?}, exponent {slope:.4} ± {se:.4}, between neighbours {local:.4?}");
    // 000 eq. 48 / 001 eq. 1.34: N_I ∝ (L/d)², an asymptotic law. The fit gives
    // 1.9943 ± 0.0021 (standard error); its residuals are not noise but the approach to
    // the law: the exponent between neighbouring lengths rises 1.980, 1.997, 1.997, 2.000
    // (the 10-sphere chain is short for a diffusion estimate), which leaves the fit 2.7
    // standard errors below 2. Allowed: 5 standard errors, ±0.011 here (the matrix's
    // ±0.3 would pass N_I ∝ L^1.7 or L^2.3).
    assert!((slope - 2.0).abs() < 5.0 * se, "exponent {slope} ± {se}, sweeps {its:?}");
    assert!(se < 5e-3, "a power law should fit: standard error {se}");
    // The longest chains are nearest the asymptote: 2 within 0.005 (measured 1.9997).
    assert!((local[local.len() - 1] - 2.0).abs() < 5e-3, "exponents between neighbours {local:?}");
}

/// Shrinkage of a 50-sphere chain, first touching the wall, under a step load `force`
/// (units d = m = Δt = 1) after 20 τ with N_I sweeps per step.
fn shrinkage(force: f64, n_i: u32) -> f64 {
    let (mut w, last) = chain(50, 1.0, 1.0, force, 0.0).unwrap();
    let cfg = NscdConfig { seed: 3, ..NscdConfig::fixed_random_sweeps(n_i) };
    let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
    let steps = (20.0 * chain_theory(n_i, 50).1) as usize;
    for _ in 0..steps {
        w.step(&mut s, 1.0).unwrap();
    }
    // At rest (the slowest mode has decayed by e^−20).
    assert!(w.bodies.velocity[last].x.abs() < 1e-6);
    49.5 - w.bodies.position[last].x
}

#[test]
fn n8_global_shrinkage_is_proportional_to_load_with_stiffness_of_000_eq_67() {
    for n_i in [20u32, 40, 80] {
        let s1 = shrinkage(0.05, n_i);
        let s2 = shrinkage(0.1, n_i);
        // The chain starts touching with zero gaps and zero impulses, so the step (the
        // shock law with g_pos, the projection onto P ≥ 0) is positively homogeneous in
        // the load: the same random stream gives twice the shrinkage up to round-off
        // (measured 3e-12; 1e-10 is a few thousand steps' rounding).
        assert!((s2 / s1 - 2.0).abs() < 1e-10, "N_I = {n_i}: {s1} {s2}");
        // 50 contacts in series, each of stiffness κ = q m N_I/Δt²: shrinkage 50 F/κ.
        // With seed 3 the deviations are +3.4 %, −4.5 %, −5.3 %. They are not a fit error:
        // the overlaps freeze the history of the random sweeps during the transient, and
        // over eight seeds the deviation is +4.1 ± 3.2 % (N_I = 20, where contacts unload
        // during the transient), −3.9 ± 1.3 % and −7.6 ± 2.5 % (mean ± spread), single
        // seeds from −11.3 % to +9.6 %. Not tightened: 8 % is not a bound for every seed,
        // and no model here predicts the N_I-dependent mean (docs/validation.md, N8).
        let expected = 50.0 * 0.05 / equivalent_stiffness(1.0, n_i, 1.0);
        assert!((s1 / expected - 1.0).abs() < 0.08, "N_I = {n_i}: {s1} vs {expected}");
    }
}
