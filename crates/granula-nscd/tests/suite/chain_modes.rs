//! The spurious sound of the chain mode by mode (000 eqs. 56-60): each normal mode of the
//! 50-sphere chain of 000 §3.3.1, excited alone, against ω(k) of eq. 58, τ(k) of eq. 60
//! and the over-damping of the short waves beyond k_c (eq. 59), at N_I = 10, 20, 40, 80.
//!
//! The modes: sphere i (i = 0..n−1, centre at (i + ½) d from the wall) moves as
//! sin(k (i + 1)) with k_j = (2j + 1) π/((2n + 1) d): zero at i = −1 (the wall acts as a
//! sphere at rest), zero slope between the last sphere and its missing neighbour (free
//! end). They are the exact eigenvectors of the chain's
//! velocity-space Laplacian, with eigenvalues λ_j = 4 sin²(k_j d/2) (k² d² in the
//! continuum). For the slowest mode k_0 = π/((2n + 1) d) against the paper's λ = 4L,
//! k = π/(2n d): 1 % apart.
//!
//! A step's map, mode by mode (derivation in `chain_parallel.rs`): with x = q N_I λ, the
//! N_I warm-started sweeps leave the fraction a = e^(−x) of the force error (the force
//! diffusion of 000 eqs. 42-46 over Δt* = Δt/N_I), and the step's eigenvalues z solve
//! z² − 2 a z + a = 0: |z|² = a, so τ = 2/x steps, which is eq. 60 with λ for k² d²; and
//! cos(ω Δt) = √a = e^(−x/2), whose small-x expansion ω Δt = √(x − x²/4) (1 + O(x)) is
//! eq. 58. Eq. 58 is the limit ω Δt ≪ 1 of this discrete-time form; near k_c it is not:
//! at k = k_c, eq. 60 gives τ = Δt/2, a mode that lives half a step, where eq. 58's
//! continuum in time (000 eq. 56) does not apply. The paper's claim that eq. 58 "works
//! well for all oscillating modes" from N_I ≥ 10 concerns the spatial discreteness
//! (λ against k² d², within 4 % below k_c at N_I ≥ 10); the time discreteness makes it
//! hold only for the long modes, as the test shows.

use granula_broadphase::BruteForce;
use granula_nscd::{NscdConfig, NscdSolver};
use granula_validation::scenes::{chain, random_sweep_q};
use std::f64::consts::PI;

const N: usize = 50;

/// Wavenumber k_j d of mode j.
fn wavenumber(j: usize) -> f64 {
    (2 * j + 1) as f64 * PI / (2 * N + 1) as f64
}

/// The chain under the load F = 0.05 (units d = m = Δt = 1) with `n_i` random sweeps per
/// step, run for 3 τ of its slowest mode, when every contact is closed and loaded (its
/// force within ~5 % of F): the world's and the solver's states, from which each mode's
/// run starts bit for bit.
struct Settled {
    n_i: u32,
    world: granula_core::WorldState,
    solver: granula_nscd::NscdState<()>,
}

fn fresh(n_i: u32) -> (granula_core::World, NscdSolver<BruteForce>) {
    let (world, _) = chain(N, 1.0, 1.0, 0.05, 0.0).unwrap();
    let config = NscdConfig { seed: 5, ..NscdConfig::fixed_random_sweeps(n_i) };
    (world, NscdSolver::new(BruteForce, config).unwrap())
}

fn settle(n_i: u32) -> Settled {
    let (mut world, mut solver) = fresh(n_i);
    let steps = (3.0 * 2.0 / (random_sweep_q() * n_i as f64 * wavenumber(0).powi(2))) as usize;
    for _ in 0..steps {
        world.step(&mut solver, 1.0).unwrap();
    }
    Settled { n_i, world: world.save_state(), solver: solver.save_state() }
}

/// Modal amplitude of the velocity perturbation of mode `j` after 0, 1, ..., `steps` steps
/// of granula's solver from the settled chain. Two copies run in lockstep, one perturbed
/// by 1e-6 sin(k (i + 1)); while every contact stays closed and loaded the dynamics is
/// linear with the same random stream, so their difference is the mode's own evolution,
/// whatever the background still does.
fn modal_series(settled: &Settled, j: usize, steps: usize) -> Vec<f64> {
    let restore = || {
        let (mut world, mut solver) = fresh(settled.n_i);
        world.restore_state(&settled.world).unwrap();
        solver.restore_state(&settled.solver, &world).unwrap();
        (world, solver)
    };
    let (mut a, mut sa) = restore();
    let (mut b, mut sb) = restore();
    let shape: Vec<f64> = (0..N).map(|i| (wavenumber(j) * (i + 1) as f64).sin()).collect();
    let norm: f64 = shape.iter().map(|s| s * s).sum();
    let eps = 1e-6;
    for (i, s) in shape.iter().enumerate() {
        b.bodies.velocity[i + 1].x += eps * s;
    }
    let mut out = vec![eps];
    for _ in 0..steps {
        a.step(&mut sa, 1.0).unwrap();
        b.step(&mut sb, 1.0).unwrap();
        let dv = |i: usize| b.bodies.velocity[i + 1].x - a.bodies.velocity[i + 1].x;
        out.push((0..N).map(|i| dv(i) * shape[i]).sum::<f64>() / norm);
    }
    out
}

/// (ω Δt, τ/Δt) of a sampled damped oscillation from the two-term recurrence
/// s_{t+1} = α s_t + β s_{t−1} fitted by least squares (Prony): z² = α z + β, so
/// |z|² = −β and cos(ω Δt) = α/(2√−β). ω = 0 when the roots are real.
fn prony(s: &[f64]) -> (f64, f64) {
    let (mut s11, mut s12, mut s22, mut r1, mut r2) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for t in 1..s.len() - 1 {
        let (x1, x2, y) = (s[t], s[t - 1], s[t + 1]);
        s11 += x1 * x1;
        s12 += x1 * x2;
        s22 += x2 * x2;
        r1 += x1 * y;
        r2 += x2 * y;
    }
    let det = s11 * s22 - s12 * s12;
    let alpha = (r1 * s22 - r2 * s12) / det;
    let beta = (s11 * r2 - s12 * r1) / det;
    let omega = if alpha * alpha + 4.0 * beta < 0.0 { (alpha / (2.0 * (-beta).sqrt())).acos() } else { 0.0 };
    (omega, -2.0 / (-beta).ln())
}

#[test]
fn n5_modes_follow_000_eqs_58_60_and_the_short_waves_are_over_damped() {
    let q = random_sweep_q();
    for n_i in [10u32, 20, 40, 80] {
        let qn = q * n_i as f64;
        // 000 eq. 59 in units d = Δt = 1: c = √(qN_I), D = qN_I, k_c = 2c/D.
        let k_c = 2.0 / qn.sqrt();
        let settled = settle(n_i);
        for j in 0..N {
            let k = wavenumber(j);
            let x = qn * 4.0 * (k / 2.0).sin().powi(2);
            if k < k_c {
                let omega_58 = k * (qn - qn * qn * k * k / 4.0).sqrt();
                let tau_60 = 2.0 / (qn * k * k);
                let omega_discrete = (-x / 2.0).exp().acos();
                // Four damping times, at least 6 steps, so that the fit sees the decay.
                let steps = ((4.0 * tau_60).ceil() as usize).max(6);
                let (omega, tau) = prony(&modal_series(&settled, j, steps));
                eprintln!(
                    "N_I = {n_i:2}, mode {j:2}, k d = {k:.4}, x = {x:.3}: ω Δt {omega:.4} \
                     (eq. 58 {omega_58:.4}, rel. {:+.4}; discrete {omega_discrete:.4}, rel. {:+.4}), \
                     τ/Δt {tau:.3} (eq. 60 {tau_60:.3}, rel. {:+.4})",
                    omega / omega_58 - 1.0,
                    omega / omega_discrete - 1.0,
                    tau / tau_60 - 1.0
                );
                // τ: eq. 60 for every oscillating mode. Measured −0.2 % to −4.8 % over the
                // modes, the N_I and three seeds: the random sweep acts on this chain with a q about 2 %
                // above eq. 46's (the slowest modes: τ −1.4 % to −2.5 %, ω +0.8 % to
                // +1.0 %, both as q + 2 %), and the modes that live a step or less scatter
                // by a few per cent with the random order. 8 % bounds both.
                assert!((tau / tau_60 - 1.0).abs() < 0.08, "N_I = {n_i}, mode {j}: τ {tau} against eq. 60's {tau_60}");
                // ω: the discrete-time form for every oscillating mode. Measured over three
                // seeds: within 4.9 % where the mode lives more than a step (x ≤ 2, the q
                // offset and the random order), 6 % bounds it; the modes that live less
                // than a step (x > 2) are fitted on a few samples before they sink into the
                // random sweep's noise (~1e-2 of the start), and scatter up to 8.4 %: 12 %.
                let tol = if x <= 2.0 { 0.06 } else { 0.12 };
                assert!(
                    (omega / omega_discrete - 1.0).abs() < tol,
                    "N_I = {n_i}, mode {j}: ω {omega} against {omega_discrete}"
                );
                // ω: eq. 58 itself where ω Δt is small, x ≤ 0.4 (ω Δt ≤ 0.63): there the
                // discrete-time form is within 1.6 % of eq. 58, plus the 1 % of the q
                // offset: 4 %. Beyond, eq. 58 falls below the measured ω (+11 % at
                // x = 1.5, +90 % at x = 3.3), by as much as the discrete form predicts.
                if x <= 0.4 {
                    assert!(
                        (omega / omega_58 - 1.0).abs() < 0.04,
                        "N_I = {n_i}, mode {j}: ω {omega} against eq. 58's {omega_58}"
                    );
                }
            } else {
                // Beyond k_c, 000 eq. 59: over-damped. In the continuum (eq. 56) an
                // over-damped mode decays at least at the rate c²/D = 1/Δt of its slow
                // root (2/Δt at k_c), so at most e^−1 of it is left after a step; the
                // discrete form leaves e^(−x/2) < e^−2 (x > 4). Measured: at most 1.7e-2.
                let s = modal_series(&settled, j, 1);
                let left = (s[1] / s[0]).abs();
                eprintln!("N_I = {n_i:2}, mode {j:2}, k d = {k:.4} > k_c d = {k_c:.4}: {left:.2e} left after one step");
                assert!(left < (-1.0f64).exp(), "N_I = {n_i}, mode {j}: {left} left after one step");
                assert!(left < (-2.0f64).exp(), "N_I = {n_i}, mode {j}: {left} left after one step");
            }
        }
    }
}
