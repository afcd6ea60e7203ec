//! Convergence criteria of the Gauss-Seidel loop (000 §2.5.1, eqs. 35-37).
//!
//! Contact forces are R_α = P_α / Δt (P_α the impulse of the step); ΔR_α is the change of
//! R_α during the last sweep, ⟨·⟩ the average over all contacts.

use crate::error::NscdError;
use granula_core::DVec3;

/// When the iteration loop stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Criterion {
    /// Local relative change with small-force cutoff (000 eq. 35 with the δ of the text):
    /// stop when |ΔR_α| ≤ ε |R_α| + δ for every contact α. Reported residual:
    /// max_α |ΔR_α| / (|R_α| + δ/ε), to be compared with ε.
    LocalRelative {
        /// ε, the relative accuracy.
        epsilon: f64,
        /// δ (N), the small-force cutoff.
        cutoff: f64,
        /// Cap on the number of sweeps.
        max_iterations: u32,
    },
    /// Global mean force (000 eq. 36): stop when |Δ⟨|R_α|⟩| ≤ ε ⟨|R_α|⟩. Reported residual:
    /// |Δ⟨|R_α|⟩| / ⟨|R_α|⟩.
    GlobalMean {
        /// ε, the relative accuracy.
        epsilon: f64,
        /// Cap on the number of sweeps.
        max_iterations: u32,
    },
    /// The natural-map residual of the whole problem as Siconos defines it
    /// (`residual`): stop when e ≤ ε, e = |r − proj_{K_μ}(r − û)| / |q|. Evaluated
    /// after every sweep (a pass over the contacts, about a third of a sweep). For laws
    /// other than Signorini-Coulomb's it falls back to the local criterion (eq. 35) with
    /// δ = 1e-9 N.
    NaturalMap {
        /// ε, the relative accuracy.
        epsilon: f64,
        /// Cap on the number of sweeps.
        max_iterations: u32,
    },
    /// A fixed number N_I of sweeps per step (000 eq. 37). Reported residual: the global
    /// relative change of eq. 36 after the last sweep (for information).
    Fixed {
        /// N_I.
        iterations: u32,
    },
}

/// The natural map at ε = 1e-4 with a cap of 1000 sweeps: it measures the whole step's
/// solution, where the local criterion (eq. 35) can stall far above its tolerance during
/// impacts while the solution has converged (docs/contact-dynamics.md).
impl Default for Criterion {
    fn default() -> Self {
        Criterion::NaturalMap { epsilon: 1e-4, max_iterations: 1000 }
    }
}

impl Criterion {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), NscdError> {
        let positive = |param, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(NscdError::NonPositiveTolerance { param, value: v })
            }
        };
        let count =
            |param, n: u32| if n > 0 { Ok(()) } else { Err(NscdError::NonPositiveIterations { param, value: n }) };
        match *self {
            Criterion::LocalRelative { epsilon, cutoff, max_iterations } => {
                positive("epsilon", epsilon)?;
                positive("cutoff", cutoff)?;
                count("max_iterations", max_iterations)
            }
            Criterion::GlobalMean { epsilon, max_iterations } | Criterion::NaturalMap { epsilon, max_iterations } => {
                positive("epsilon", epsilon)?;
                count("max_iterations", max_iterations)
            }
            Criterion::Fixed { iterations } => count("iterations", iterations),
        }
    }

    /// The tolerance ε (`None` for a fixed number of sweeps).
    pub fn tolerance(&self) -> Option<f64> {
        match *self {
            Criterion::LocalRelative { epsilon, .. }
            | Criterion::GlobalMean { epsilon, .. }
            | Criterion::NaturalMap { epsilon, .. } => Some(epsilon),
            Criterion::Fixed { .. } => None,
        }
    }

    /// The same criterion with the cap `cap` (a fixed N_I is left as it is).
    pub fn with_cap(self, cap: u32) -> Criterion {
        match self {
            Criterion::LocalRelative { epsilon, cutoff, .. } => {
                Criterion::LocalRelative { epsilon, cutoff, max_iterations: cap }
            }
            Criterion::GlobalMean { epsilon, .. } => Criterion::GlobalMean { epsilon, max_iterations: cap },
            Criterion::NaturalMap { epsilon, .. } => Criterion::NaturalMap { epsilon, max_iterations: cap },
            fixed => fixed,
        }
    }

    /// The largest number of sweeps this criterion allows.
    pub fn cap(&self) -> u32 {
        match *self {
            Criterion::LocalRelative { max_iterations, .. }
            | Criterion::GlobalMean { max_iterations, .. }
            | Criterion::NaturalMap { max_iterations, .. } => max_iterations,
            Criterion::Fixed { iterations } => iterations,
        }
    }
}

/// Accumulates the quantities of one sweep and decides whether to stop.
#[derive(Clone, Copy, Debug)]
pub struct ConvergenceMonitor {
    criterion: Criterion,
    /// `δ Δt / ε`: the cutoff in impulse units, divided by ε.
    cutoff_over_eps: f64,
    max_ratio: f64,
    sum_abs: f64,
    previous_mean: f64,
    count: usize,
}

impl ConvergenceMonitor {
    /// A monitor for a step of size `dt`.
    pub fn new(criterion: Criterion, dt: f64) -> Self {
        let criterion = match criterion {
            // The fallback of laws without a natural map: the local criterion, δ = 1e-9 N.
            Criterion::NaturalMap { epsilon, max_iterations } => {
                Criterion::LocalRelative { epsilon, cutoff: 1e-9, max_iterations }
            }
            other => other,
        };
        let cutoff_over_eps = match criterion {
            Criterion::LocalRelative { epsilon, cutoff, .. } => cutoff * dt / epsilon,
            _ => 0.0,
        };
        ConvergenceMonitor { criterion, cutoff_over_eps, max_ratio: 0.0, sum_abs: 0.0, previous_mean: 0.0, count: 0 }
    }

    /// Records the starting impulses (warm start) as the reference of the first sweep.
    pub fn start(&mut self, impulses: impl Iterator<Item = DVec3>, count: usize) {
        let s: f64 = impulses.map(|p| p.length()).sum();
        self.previous_mean = if count > 0 { s / count as f64 } else { 0.0 };
    }

    /// Resets the per-sweep accumulators.
    #[inline]
    pub fn begin_sweep(&mut self) {
        self.max_ratio = 0.0;
        self.sum_abs = 0.0;
        self.count = 0;
    }

    /// Records one contact update: new impulse `p` after a change `dp` (local frame).
    #[inline]
    pub fn record(&mut self, p: DVec3, dp: DVec3) {
        let abs = p.length();
        self.sum_abs += abs;
        self.count += 1;
        if let Criterion::LocalRelative { .. } = self.criterion {
            let ratio = dp.length() / (abs + self.cutoff_over_eps);
            if ratio > self.max_ratio {
                self.max_ratio = ratio;
            }
        }
    }

    /// Ends a sweep (1-based number `sweeps`); returns `(stop, converged, residual)`.
    pub fn end_sweep(&mut self, sweeps: u32) -> (bool, bool, f64) {
        let mean = if self.count > 0 { self.sum_abs / self.count as f64 } else { 0.0 };
        let global = if mean > 0.0 {
            (mean - self.previous_mean).abs() / mean
        } else if self.previous_mean > 0.0 {
            1.0
        } else {
            0.0
        };
        self.previous_mean = mean;
        match self.criterion {
            Criterion::LocalRelative { epsilon, max_iterations, .. } => {
                let ok = self.max_ratio <= epsilon;
                (ok || sweeps >= max_iterations, ok, self.max_ratio)
            }
            Criterion::GlobalMean { epsilon, max_iterations } => {
                let ok = global <= epsilon;
                (ok || sweeps >= max_iterations, ok, global)
            }
            // Not held by a monitor (`new` maps it to the local criterion); the solver
            // decides on the natural map itself.
            Criterion::NaturalMap { max_iterations, .. } => (sweeps >= max_iterations, false, self.max_ratio),
            Criterion::Fixed { iterations } => (sweeps >= iterations, sweeps >= iterations, global),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_criterion_uses_the_cutoff_for_tiny_forces() {
        // ε = 0.1, δ = 1 N, Δt = 1 s: a change of 0.05 on a zero force passes
        // (0.05 ≤ 0.1·0 + 1·... scaled: 0.05/(0 + 10) = 0.005 ≤ 0.1).
        let mut m =
            ConvergenceMonitor::new(Criterion::LocalRelative { epsilon: 0.1, cutoff: 1.0, max_iterations: 9 }, 1.0);
        m.begin_sweep();
        m.record(DVec3::ZERO, DVec3::new(0.05, 0.0, 0.0));
        assert!(m.end_sweep(1).1);
        // A change of 2 on a force of 1: 2/(1 + 10) = 0.18 > 0.1, not converged, not capped.
        m.begin_sweep();
        m.record(DVec3::X, DVec3::new(2.0, 0.0, 0.0));
        let (stop, ok, r) = m.end_sweep(2);
        assert!(!stop && !ok);
        assert!((r - 2.0 / 11.0).abs() < 1e-15, "residual {r}");
    }

    #[test]
    fn global_criterion_compares_successive_means_and_cap_stops() {
        let mut m = ConvergenceMonitor::new(Criterion::GlobalMean { epsilon: 0.01, max_iterations: 3 }, 1.0);
        m.start([DVec3::X].into_iter(), 1);
        m.begin_sweep();
        m.record(DVec3::X * 1.5, DVec3::X * 0.5);
        let (stop, ok, r) = m.end_sweep(1);
        // mean went from 1 to 1.5: relative change 0.5/1.5.
        assert!(!stop && !ok && (r - 1.0 / 3.0).abs() < 1e-15);
        m.begin_sweep();
        m.record(DVec3::X * 1.501, DVec3::X * 0.001);
        assert!(m.end_sweep(2).1, "a 0.07 % change meets ε = 1 %");
        m.begin_sweep();
        m.record(DVec3::X * 3.0, DVec3::X);
        let (stop, ok, _) = m.end_sweep(3);
        assert!(stop && !ok, "the cap stops an unconverged loop");
    }

    #[test]
    fn invalid_parameters_are_named() {
        let e = Criterion::LocalRelative { epsilon: 0.0, cutoff: 1.0, max_iterations: 1 }.validate().unwrap_err();
        assert!(matches!(e, NscdError::NonPositiveTolerance { param: "epsilon", .. }));
        let e = Criterion::LocalRelative { epsilon: 1.0, cutoff: -1.0, max_iterations: 1 }.validate().unwrap_err();
        assert!(matches!(e, NscdError::NonPositiveTolerance { param: "cutoff", .. }));
        let e = Criterion::GlobalMean { epsilon: 1.0, max_iterations: 0 }.validate().unwrap_err();
        assert!(matches!(e, NscdError::NonPositiveIterations { param: "max_iterations", .. }));
        let e = Criterion::Fixed { iterations: 0 }.validate().unwrap_err();
        assert!(matches!(e, NscdError::NonPositiveIterations { .. }));
    }
}
