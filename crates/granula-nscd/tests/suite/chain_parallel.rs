//! The parallel update of the chain (000 §2.5 and eq. 45): "in contrast to this sequential
//! process a simple parallel update would be unstable", where q = ½ of eq. 45 is the
//! diffusion factor of that parallel (Jacobi) update of eq. 38.
//!
//! granula's solver sweeps sequentially only, so the Jacobi update is written here on a
//! small, independent model of granula's chain scene (`granula_validation::scenes::chain`):
//! n spheres of diameter d and mass m on a line, a fixed wall at x = 0, a force F on the
//! last sphere, implicit Euler (000 eqs. 1-2), the inelastic shock law with g_pos
//! (000 eqs. 33-34) and warm-started impulses, in units d = m = Δt = 1. The first test
//! checks that the model, swept forward, is granula's solver swept forward, step by step to
//! round-off; the others swap the sweep for the parallel update.
//!
//! Linear analysis (the chain pressed at rest, all contacts closed with overlaps, so that
//! g_pos = 0 and the shock law asks for zero relative velocity): let W be the chain's
//! Delassus matrix (1 on the wall contact, 2 on the others, −1 between neighbours) and A
//! the error propagator of the N_I sweeps of a step, P the impulses. A step maps the
//! relative velocities u and the warm-start responses W P, mode by mode of A with
//! eigenvalue a, as u' = a (u + W P), (W P)' = a W P − (1 − a) u: its eigenvalues solve
//! z² − 2 a z + a = 0. For 0 < a < 1 they are the damped sound of 000 eqs. 58-60
//! (|z|² = a); for a < −⅓ one of them, |a| + √(a² + |a|), exceeds 1. The Jacobi update
//! relaxes eq. 38's error by the eigenvalues μ of J = 1 − D⁻¹W, which lie in (−1, 1)
//! symmetric about 0, so a = μ^N_I: with an odd N_I the eigenvalue nearest −1 (the
//! shortest wave, neighbouring contacts in opposite phase) gives a ≈ −1 and the chain
//! blows up by a factor ≈ 1 + √2 per step, while the continuum of eq. 45 (μ ≈ 1 − k²d²/2,
//! q = ½) sees none of it. With an even N_I, a = μ^N_I ≥ 0 and the parallel update is
//! stable in this chain, but its shortest wave then decays as slowly as its longest,
//! |z| = μ_max^(N_I/2) per step, where the sequential sweep over-damps it (000 eq. 59).

use granula_broadphase::BruteForce;
use granula_nscd::{Criterion, NscdConfig, NscdSolver, SweepOrder};
use granula_validation::scenes::chain;

/// Which update the model's iteration uses.
#[derive(Clone, Copy, PartialEq)]
enum Update {
    /// Sequential, contact 0 (the wall) to contact n − 1: granula's forward sweep.
    Forward,
    /// Parallel (Jacobi): every contact from the impulses of the previous sweep.
    Parallel,
}

/// The chain model: sphere i at x[i] with velocity v[i]; contact 0 is the wall and sphere
/// 0, contact c ≥ 1 is spheres c − 1 and c; p[c] is its normal impulse (pushing sphere c
/// towards +x and sphere c − 1 towards −x).
struct Model {
    x: Vec<f64>,
    v: Vec<f64>,
    p: Vec<f64>,
    force: f64,
}

impl Model {
    /// The scene of `chain(n, 1, 1, force, 0)`: touching spheres from the wall, at rest.
    fn touching(n: usize, force: f64) -> Model {
        Model { x: (0..n).map(|i| 0.5 + i as f64).collect(), v: vec![0.0; n], p: vec![0.0; n], force }
    }

    /// Velocities after applying the impulses `p` to the free velocities `vf`.
    fn velocities(vf: &[f64], p: &[f64]) -> Vec<f64> {
        let n = vf.len();
        (0..n).map(|i| vf[i] + p[i] - if i + 1 < n { p[i + 1] } else { 0.0 }).collect()
    }

    /// One step with `n_i` iterations of `update`.
    fn step(&mut self, n_i: u32, update: Update) {
        let n = self.x.len();
        let mut vf = self.v.clone();
        vf[n - 1] -= self.force;
        // Gaps at the start of the step and the smallest admissible relative velocity
        // −g_pos/Δt (000 eqs. 26, 33); Delassus diagonal 1/m (wall) and 2/m.
        let gap = |c: usize| if c == 0 { self.x[0] - 0.5 } else { self.x[c] - self.x[c - 1] - 1.0 };
        let u_min: Vec<f64> = (0..n).map(|c| -gap(c).max(0.0)).collect();
        let w = |c: usize| if c == 0 { 1.0 } else { 2.0 };
        let rel = |v: &[f64], c: usize| if c == 0 { v[0] } else { v[c] - v[c - 1] };
        let mut v = Model::velocities(&vf, &self.p);
        for _ in 0..n_i {
            match update {
                Update::Forward => {
                    for c in 0..n {
                        let new = (self.p[c] - (rel(&v, c) - u_min[c]) / w(c)).max(0.0);
                        let dp = new - self.p[c];
                        v[c] += dp;
                        if c > 0 {
                            v[c - 1] -= dp;
                        }
                        self.p[c] = new;
                    }
                }
                Update::Parallel => {
                    let new: Vec<f64> = (0..n).map(|c| (self.p[c] - (rel(&v, c) - u_min[c]) / w(c)).max(0.0)).collect();
                    self.p = new;
                    v = Model::velocities(&vf, &self.p);
                }
            }
        }
        self.v = v;
        for (x, v) in self.x.iter_mut().zip(&self.v) {
            *x += v;
        }
    }
}

/// The largest eigenvalue of the Jacobi matrix J = 1 − D⁻¹W of the chain's n contacts,
/// from its symmetric form D^½ J D^−½ (zero diagonal; 1/√2 between the wall contact and
/// the next, ½ elsewhere) by bisection on the Sturm sequence. The spectrum is symmetric
/// about 0, so the smallest eigenvalue is minus this one.
fn jacobi_spectral_radius(n: usize) -> f64 {
    let off = |c: usize| if c == 0 { std::f64::consts::FRAC_1_SQRT_2 } else { 0.5 };
    // Number of eigenvalues below s (LDLᵀ of J − s with zero diagonal).
    let below = |s: f64| {
        let mut count = 0;
        let mut d = -s;
        for c in 0..n {
            if c > 0 {
                d = -s - off(c - 1) * off(c - 1) / if d == 0.0 { 1e-300 } else { d };
            }
            if d < 0.0 {
                count += 1;
            }
        }
        count
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if below(mid) == n {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

#[test]
fn the_chain_model_swept_forward_is_granulas_forward_sweep() {
    // The same scene stepped by granula (forward sweep, N_I fixed sweeps, no momentum) and
    // by the model: positions and velocities agree to round-off at every step, through
    // the wall hit and the spurious sound (300 steps, 11 sweeps per step).
    let (n, n_i, force) = (50, 11, 0.05);
    let (mut world, _) = chain(n, 1.0, 1.0, force, 0.0).unwrap();
    let config = NscdConfig {
        sweep: SweepOrder::Forward,
        momentum: false,
        criterion: Criterion::Fixed { iterations: n_i },
        ..Default::default()
    };
    let mut solver = NscdSolver::new(BruteForce, config).unwrap();
    let mut model = Model::touching(n, force);
    let mut worst: f64 = 0.0;
    for _ in 0..300 {
        world.step(&mut solver, 1.0).unwrap();
        model.step(n_i, Update::Forward);
        for i in 0..n {
            worst = worst.max((world.bodies.position[i + 1].x - model.x[i]).abs());
            worst = worst.max((world.bodies.velocity[i + 1].x - model.v[i]).abs());
        }
    }
    // Shrinkage ~0.1 d and speeds ~1e-3 d/Δt; the two codes add the same terms in a
    // different order, so they differ by a few ulps of the positions (~50 d): 1e-12.
    eprintln!("chain model against granula's forward sweep: largest difference {worst:.1e}");
    assert!(worst < 1e-12, "largest difference {worst}");
}

/// The chain at rest under the load, its velocities perturbed by `eps` times a fixed
/// irregular pattern. Every contact carries F and overlaps by 1e-3 d, as the contacts of a
/// chain settled with N_I sweeps do (by F/κ, 000 eq. 67: 5e-3 d at N_I = 10): with g < 0,
/// g_pos = 0 and the step is linear as long as no contact's motion exceeds its overlap
/// (the perturbations below move the spheres by less than 1e-4 d). From zero gaps, half
/// of the contacts would open by round-off and see −g_pos/Δt, a different (piecewise)
/// dynamics.
fn perturbed_equilibrium(n: usize, force: f64, eps: f64) -> Model {
    let mut m = Model::touching(n, force);
    let overlap = 1e-3;
    for (i, x) in m.x.iter_mut().enumerate() {
        *x = 0.5 - overlap + i as f64 * (1.0 - overlap);
    }
    m.p = vec![force; n];
    for (i, v) in m.v.iter_mut().enumerate() {
        *v = eps * ((i as f64 * 0.7).sin() + 0.3 * (i as f64 * 2.9).cos());
    }
    m
}

/// Largest speed of any sphere.
fn amplitude(m: &Model) -> f64 {
    m.v.iter().fold(0.0, |a: f64, v| a.max(v.abs()))
}

/// The asymptotic factor per step of a perturbation of the chain at rest, by power
/// iteration: the deviation of the velocities and impulses from the rest state is
/// measured after every step and the deviation of the whole state rescaled to 1e-12 (far
/// inside the linear range, see [`perturbed_equilibrium`]); the logarithms of its growth
/// are averaged over the last half of `steps` steps. The positions are left out of the
/// measure: while every contact overlaps, g_pos = 0 and they do not act on the dynamics
/// (an overlap, once made, stays: the factor 1 of 000 eq. 33's choice).
fn growth_per_step(n: usize, n_i: u32, update: Update, steps: usize) -> f64 {
    let (force, size) = (0.05, 1e-12);
    let rest = perturbed_equilibrium(n, force, 0.0);
    let mut m = perturbed_equilibrium(n, force, size);
    let deviation = |m: &Model| {
        let dp = m.p.iter().zip(&rest.p).map(|(a, b)| (a - b).powi(2)).sum::<f64>();
        (dp + m.v.iter().map(|v| v * v).sum::<f64>()).sqrt()
    };
    let mut log_sum = 0.0;
    for k in 0..steps {
        let before = deviation(&m);
        m.step(n_i, update);
        let after = deviation(&m);
        if k >= steps / 2 {
            log_sum += (after / before).ln();
        }
        let scale = size / after;
        for i in 0..n {
            m.x[i] = rest.x[i] + scale * (m.x[i] - rest.x[i]);
            m.v[i] *= scale;
            m.p[i] = rest.p[i] + scale * (m.p[i] - rest.p[i]);
        }
    }
    (log_sum / (steps - steps / 2) as f64).exp()
}

#[test]
fn parallel_update_with_an_odd_n_i_blows_up_at_the_rate_of_the_linear_analysis() {
    let n = 50;
    let mu = jacobi_spectral_radius(n);
    for n_i in [1u32, 11, 41] {
        // Predicted growth per step: a = (−μ_max)^N_I, ρ = |a| + √(a² + |a|).
        let a = mu.powi(n_i as i32);
        let rho = a + (a * a + a).sqrt();
        // From the chain at rest with a perturbation of 1e-14 d/Δt: 25 steps of the
        // parallel update amplify it more than a millionfold (it is still far inside
        // the overlaps and far below the speed F Δt/m at which an impulse would vanish).
        let mut m = perturbed_equilibrium(n, 0.05, 1e-14);
        let start = amplitude(&m);
        for _ in 0..25 {
            m.step(n_i, Update::Parallel);
        }
        assert!(amplitude(&m) > 1e6 * start, "N_I = {n_i}: {} from {start}", amplitude(&m));
        // The rate: the next eigenvalues of J lie within 1 % of μ_max, so the power
        // iteration needs a few thousand steps to isolate the largest; measured within
        // 1.3e-5 of the prediction, 1e-4 bounds the remaining mixture.
        let rate = growth_per_step(n, n_i, Update::Parallel, 4000);
        let forward = growth_per_step(n, n_i, Update::Forward, 4000);
        eprintln!(
            "parallel update, N_I = {n_i}: growth {rate:.6} per step, predicted {rho:.6} (μ_max = {mu:.6}); \
             forward sweep {forward:.6}"
        );
        assert!((rate / rho - 1.0).abs() < 1e-4, "N_I = {n_i}: growth {rate} per step against {rho}");
        // The sequential sweep on the same state: every perturbation decays.
        assert!(forward < 1.0, "N_I = {n_i}: forward sweep {forward} per step");
    }
}

#[test]
fn parallel_update_with_an_even_n_i_rings_where_the_sequential_sweep_over_damps() {
    // Even N_I: a = μ^N_I ≥ 0, no growth; the slowest modes, the longest wave and the
    // shortest (μ = ±μ_max), both decay at |z| = √a = μ_max^(N_I/2) per step.
    let n = 50;
    let mu = jacobi_spectral_radius(n);
    let n_i = 10u32;
    let expected = mu.powi(n_i as i32 / 2);
    let rate = growth_per_step(n, n_i, Update::Parallel, 4000);
    eprintln!("parallel update, N_I = {n_i}: slowest decay {rate:.6} per step, predicted {expected:.6}");
    // The complex pairs make the norm oscillate from step to step; averaged over 2000
    // steps the logarithm's error is ~1e-4 (measured 7e-5): 5e-4.
    assert!((rate / expected - 1.0).abs() < 5e-4, "decay {rate} per step against {expected}");
    // The shortest wave (neighbours in opposite phase) excited alone: the parallel update
    // keeps most of it for tens of steps, the sequential sweep removes it in a few.
    let zigzag = |m: &mut Model| {
        for (i, v) in m.v.iter_mut().enumerate() {
            *v = 1e-7 * if i % 2 == 0 { 1.0 } else { -1.0 };
        }
    };
    let mut parallel = perturbed_equilibrium(n, 0.05, 0.0);
    zigzag(&mut parallel);
    let mut forward = perturbed_equilibrium(n, 0.05, 0.0);
    zigzag(&mut forward);
    let start = amplitude(&parallel);
    for _ in 0..20 {
        parallel.step(n_i, Update::Parallel);
        forward.step(n_i, Update::Forward);
    }
    let (kept_parallel, kept_forward) = (amplitude(&parallel) / start, amplitude(&forward) / start);
    eprintln!("shortest wave after 20 steps: parallel keeps {kept_parallel:.3e}, forward {kept_forward:.3e}");
    assert!(kept_parallel <= 1.0, "parallel: grew to {kept_parallel}");
    assert!(kept_parallel > 0.3, "parallel: {kept_parallel} left");
    assert!(kept_forward < 0.03, "forward: {kept_forward} left");
}
