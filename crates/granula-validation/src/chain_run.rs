//! The chain experiment of 000 §3.3.1 (Fig. 7), shared by the test suite and the
//! `chain_sound` example: run the chain with N_I fixed sweeps per step and fit the motion
//! of the rightmost sphere after the transient with a damped sine (000 eq. 64).

use crate::fit::{fit_damped_sine, DampedSine};
use crate::scenes::{chain, chain_theory};
use granula_core::{Broadphase, CoreError};
use granula_nscd::NscdError;
use granula_nscd::{NscdConfig, NscdSolver};

/// Set-up of one chain run, in units of d, m and Δt (all set to 1 s, 1 kg, 1 m scaled by
/// the fields below).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainRun {
    /// Number of spheres (50 in 000).
    pub n: usize,
    /// Sweeps per step N_I (000 eq. 37).
    pub n_i: u32,
    /// Seed of the random sweep.
    pub seed: u64,
    /// Force on the rightmost sphere in units of d m/Δt² (0.05 in 000).
    pub force: f64,
    /// Fit window start, in units of the analytic τ after the chain hits the wall (≥ 3;
    /// default 5: at 3τ the arrival transient still biases τ by up to 10 % at N_I = 80).
    pub fit_from_tau: f64,
    /// Fit window length, in units of the analytic τ.
    pub fit_span_tau: f64,
}

impl Default for ChainRun {
    fn default() -> Self {
        ChainRun { n: 50, n_i: 40, seed: 1, force: 0.05, fit_from_tau: 5.0, fit_span_tau: 5.0 }
    }
}

/// What a chain run measured; times in units of Δt, lengths in units of d.
#[derive(Clone, Debug)]
pub struct ChainResult {
    /// Step at which the first sphere touched the wall (first non-zero wall impulse).
    pub hit_step: usize,
    /// Position of the rightmost sphere at every step (x(t_k), k = 1, 2, ...).
    pub x: Vec<f64>,
    /// The fit over the window (time origin at the start of the window).
    pub fit: DampedSine,
    /// First step of the fit window.
    pub fit_start: usize,
    /// Analytic (ω Δt, τ/Δt) of 000 eqs. 58 and 60.
    pub theory: (f64, f64),
}

/// Runs the chain with unit d, m and Δt and fits the rightmost sphere's motion.
pub fn run_chain<B: Broadphase>(spec: &ChainRun, broadphase: B) -> Result<ChainResult, NscdError> {
    let (d, m, dt) = (1.0, 1.0, 1.0);
    let (mut world, last) = chain(spec.n, d, m, spec.force * d * m / (dt * dt), d)?;
    let config = NscdConfig { seed: spec.seed, ..NscdConfig::fixed_random_sweeps(spec.n_i) };
    let mut solver = NscdSolver::new(broadphase, config)?;
    let theory = chain_theory(spec.n_i, spec.n);
    let tau = theory.1;
    let mut x = Vec::new();
    let mut hit_step = None;
    let mut k = 0usize;
    loop {
        k += 1;
        world.step(&mut solver, dt).map_err(core_error)?;
        x.push(world.bodies.position[last].x);
        if hit_step.is_none() && solver.impulses().any(|(i, _, p)| i == 0 && p.x > 0.0) {
            hit_step = Some(k);
        }
        if let Some(h) = hit_step {
            if k as f64 >= h as f64 + (spec.fit_from_tau + spec.fit_span_tau) * tau {
                break;
            }
        }
        if k > 1_000_000 {
            break;
        }
    }
    let hit = hit_step.unwrap_or(0);
    let fit_start = hit + (spec.fit_from_tau * tau).ceil() as usize;
    let t: Vec<f64> = (fit_start..x.len()).map(|s| (s - fit_start) as f64).collect();
    let fit = fit_damped_sine(&t, &x[fit_start - 1..], theory.0, theory.1);
    Ok(ChainResult { hit_step: hit, x, fit, fit_start, theory })
}

fn core_error(e: CoreError) -> NscdError {
    NscdError::Core(e)
}
