//! Solver settings: configuration structs with public fields and defaults.

use crate::convergence::Criterion;
use crate::error::NscdError;
use crate::sweep::SweepOrder;

/// Which gap enters the Signorini condition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GapMode {
    /// g_pos = max(g, 0) (000 eq. 33, after Jean 1999): existing overlaps are not pushed
    /// apart, only their growth is stopped, so no kinetic energy is pumped in. Overlaps
    /// then remain as the monitor of the solver's inaccuracy (001).
    #[default]
    Positive,
    /// The raw gap g (000 eqs. 28, 30): overlaps are removed within one step, at the
    /// price of the energy the correcting impulses inject.
    Correcting,
}

/// What a step does when the Gauss-Seidel loop reaches the criterion's cap without
/// meeting its tolerance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NonConvergence {
    /// Finish the step with the capped impulses and add
    /// [`StepWarning::IterationCapReached`](granula_core::StepWarning::IterationCapReached)
    /// to the report (default). With [`NscdConfig::momentum`] and the natural-map criterion
    /// the capped impulses are those of the step's best sweep on the natural map, not its
    /// last (the sweeps are not monotone; docs/contact-dynamics.md, "When a step reaches
    /// its cap").
    #[default]
    Warn,
    /// Stop: the step fails with [`NscdError::NotConverged`] (iterations, residual,
    /// tolerance; [`World::step`](granula_core::World::step) adds the step and the time).
    Error,
    /// Keep sweeping past the cap until the criterion is met or `hard_cap` sweeps are done;
    /// only reaching `hard_cap` adds the warning.
    Extend {
        /// The largest number of sweeps of a step, ≥ the criterion's cap.
        hard_cap: u32,
    },
}

/// Settings of [`NscdSolver`](crate::NscdSolver). Build with struct update syntax:
/// `NscdConfig { theta: 0.5, ..Default::default() }`.
#[derive(Clone, Debug, PartialEq)]
pub struct NscdConfig {
    /// θ of the θ-method, in [0.5, 1] (004 §2.3.3.1). Default 1: the implicit Euler scheme
    /// of 000 eqs. 1-2 (new velocities from the new impulses, positions from the new
    /// velocities).
    pub theta: f64,
    /// Order in which the Gauss-Seidel sweep visits the contacts. Default
    /// [`SweepOrder::Forward`]; [`SweepOrder::Random`] for the models of 000 §3.3.
    pub sweep: SweepOrder,
    /// Convergence criterion with its cap. Default: the natural-map residual of the whole
    /// step's problem at ε = 1e-4, cap 1000 sweeps ([`Criterion::NaturalMap`]); the
    /// criteria of the paper (000 eqs. 35-37) are the other variants.
    pub criterion: Criterion,
    /// Gap used in the Signorini condition. Default [`GapMode::Positive`] (000 eq. 33).
    pub gap: GapMode,
    /// Warm start: begin each step's iteration from the previous step's impulses (carried
    /// by contact key). Default on.
    pub warm_start: bool,
    /// Extra detection margin (m) on top of the automatic one. Contacts are detected
    /// when their gap at the intermediate configuration is below `margin + 2 θ Δt v_max`,
    /// v_max the largest speed of any body's free velocity, so that no contact that can
    /// close during the step is missed (incipient contacts, 004 §2.3.3.3). Default 0.
    pub margin: f64,
    /// Seed of the random sweep order. Default 0.
    pub seed: u64,
    /// Sort the contact list along a space-filling (Morton) curve of the contact points
    /// before sweeping, so that a forward sweep walks memory in a cache-friendly order.
    /// Default off (contacts in broadphase pair order).
    pub spatial_sort: bool,
    /// What a step does when the criterion's cap is reached unconverged. Default
    /// [`NonConvergence::Warn`].
    pub on_cap: NonConvergence,
    /// Nesterov momentum on the impulses between sweeps: after sweep k the impulses are
    /// extrapolated by β_k (P_k − P_{k−1}), β_k = (k − 1)/(k + 2), projected onto the law's
    /// admissible set and exchanged with the bodies; the schedule restarts when the
    /// criterion's residual grows (Nesterov 1983; the adaptive restart of O'Donoghue and
    /// Candès 2015; used on impulses by Chrono's APGD, Mazhar et al. 2015). Laws without a
    /// projection (the cohesive and the rolling laws) are not accelerated. Default on: with
    /// the forward sweep it needs 1.7 times fewer sweeps than the random sweep to the
    /// natural map 1e-4 on a settled packing of 1000 spheres, 3.7 times to 1e-6, and it is
    /// the one setting measured that converges on 27000 (docs/contact-dynamics.md). Turn
    /// it off for the fixed-N_I models of 000 §3.3, which are about the plain sweeps.
    pub momentum: bool,
    /// Block solve of hyperstatic pairs (`pair_lock`): the contacts of every pair
    /// with at least three contacts between a fully mobile body and a fixed or kinematic
    /// one, or between two fully mobile bodies, are one unknown of the Gauss-Seidel loop,
    /// solved together before each sweep for the pair's exact Signorini-Coulomb solution,
    /// sticking (the least-norm impulses of the locked state) or sliding, and left alone by
    /// the point updates; a pair whose solve does not converge is left to the sweeps for
    /// the rest of the step. Not applied under [`Criterion::Fixed`], nor to laws without a
    /// Signorini-Coulomb form or with couples. One contact per pair (spheres, discs) makes
    /// no group: their results are unchanged. Default on: with it a polyhedral block (six
    /// corners on an incline) rests at a friction margin of 0.45 % with no drift, and
    /// slides at μ below tan α at the Coulomb rate (docs/validation.md, row M7). Turn it
    /// off only to study the point sweeps alone.
    pub lock_pairs: bool,
}

impl Default for NscdConfig {
    fn default() -> Self {
        NscdConfig {
            theta: 1.0,
            sweep: SweepOrder::Forward,
            criterion: Criterion::default(),
            gap: GapMode::Positive,
            warm_start: true,
            margin: 0.0,
            seed: 0,
            spatial_sort: false,
            on_cap: NonConvergence::Warn,
            momentum: true,
            lock_pairs: true,
        }
    }
}

impl NscdConfig {
    /// The sweeps of the papers' models of the Gauss-Seidel loop (000 §2.5 and §3.3: the
    /// chain, the piston): a fresh random order each sweep, no momentum, and a fixed number
    /// N_I of sweeps per step (000 eq. 37); everything else at its default. Use it to
    /// reproduce the spurious sound and the shrinkage of 000 §3.3, which are properties of
    /// these plain sweeps.
    pub fn fixed_random_sweeps(iterations: u32) -> Self {
        NscdConfig {
            sweep: SweepOrder::Random,
            momentum: false,
            criterion: Criterion::Fixed { iterations },
            ..Default::default()
        }
    }

    /// The default settings with the sweep budget of a bed `depth` particle diameters deep
    /// (its settled height over the mean diameter) solved to the natural-map tolerance
    /// `epsilon`: the cap of [`Criterion::NaturalMap`] is the larger of the default 1000 and
    /// ten times
    ///
    /// N(ε) = 4 ln(1/ε) (L/d)² / (q π²), q = (4√e − 5)/2 ≈ 0.797,
    ///
    /// the sweeps after which the slowest mode of the diffusive force relaxation of a bed on
    /// a floor has decayed to ε (000 eqs. 42-48; the (L/d)² of eq. 48 with its prefactor;
    /// `granula check` prints the same estimate). The factor ten is what dense frictional 3D
    /// packings were measured to need over the estimate (docs/contact-dynamics.md): a bed 20
    /// diameters deep at ε = 1e-4 gets 18 724 sweeps; a 6 × 6 × 20 lattice settling under
    /// forward sweeps with momentum took up to 15 730 in a step. The cap bounds the steps of
    /// impacts and rearrangements; at rest the warm start meets the tolerance in a few
    /// sweeps. What the bed carries is reported by
    /// [`StepReport::support_imbalance`](granula_core::StepReport::support_imbalance).
    /// Errors name `depth` or `epsilon` when not finite and positive.
    pub fn for_depth(depth: f64, epsilon: f64) -> Result<Self, NscdError> {
        if !(depth.is_finite() && depth > 0.0) {
            return Err(NscdError::InvalidSetting { param: "depth", value: depth, expected: "finite and > 0" });
        }
        let criterion = Criterion::NaturalMap { epsilon, max_iterations: 1000 };
        criterion.validate()?;
        let cap = (10.0 * depth_sweeps(depth, epsilon)).ceil().min(u32::MAX as f64) as u32;
        Ok(NscdConfig { criterion: criterion.with_cap(cap.max(1000)), ..Default::default() })
    }

    /// Checks every setting; the error names the one at fault.
    pub fn validate(&self) -> Result<(), NscdError> {
        if !(self.theta >= 0.5 && self.theta <= 1.0) {
            return Err(NscdError::ThetaOutOfRange { value: self.theta });
        }
        self.criterion.validate()?;
        if !(self.margin.is_finite() && self.margin >= 0.0) {
            return Err(NscdError::InvalidSetting { param: "margin", value: self.margin, expected: "finite and >= 0" });
        }
        if let NonConvergence::Extend { hard_cap } = self.on_cap {
            if hard_cap < self.criterion.cap() {
                return Err(NscdError::InvalidSetting {
                    param: "hard_cap",
                    value: hard_cap as f64,
                    expected: "at least the criterion's max_iterations",
                });
            }
        }
        Ok(())
    }
}

/// q of 000 eq. 46 for the random sweep, (4√e − 5)/2.
const Q_RANDOM: f64 = 0.797_442_541_400_256_4;

/// N(ε) = 4 ln(1/ε) (L/d)² / (q π²): the sweeps after which the slowest force mode of a
/// bed `depth` diameters deep on a floor has decayed to `epsilon` (000 eqs. 42-48).
fn depth_sweeps(depth: f64, epsilon: f64) -> f64 {
    4.0 * (1.0 / epsilon).ln() * depth * depth / (Q_RANDOM * std::f64::consts::PI.powi(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_depth_budget_follows_eq_48() {
        // q = (4√e − 5)/2 to the digits written.
        assert!((Q_RANDOM - (4.0 * 0.5f64.exp() - 5.0) / 2.0).abs() < 1e-14);
        // Depth 20 at 1e-4: 10 × 4 ln(1e4) 400 / (q π²) = 18 724.
        let cap = NscdConfig::for_depth(20.0, 1e-4).unwrap().criterion.cap();
        assert_eq!(cap, 18_724);
        // (L/d)² of eq. 48: twice as deep, four times the sweeps (to the rounding up).
        let deeper = NscdConfig::for_depth(40.0, 1e-4).unwrap().criterion.cap();
        assert!((deeper as f64 / cap as f64 - 4.0).abs() < 1e-3, "{deeper}");
        // A shallow bed keeps the default cap.
        assert_eq!(NscdConfig::for_depth(2.0, 1e-4).unwrap().criterion.cap(), 1000);
        let e = NscdConfig::for_depth(f64::NAN, 1e-4).unwrap_err();
        assert!(matches!(e, NscdError::InvalidSetting { param: "depth", .. }), "{e}");
        let e = NscdConfig::for_depth(20.0, 0.0).unwrap_err();
        assert!(matches!(e, NscdError::NonPositiveTolerance { param: "epsilon", .. }), "{e}");
    }
}
