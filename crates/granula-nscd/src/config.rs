//! Solver settings: configuration structs with public fields and defaults.

use crate::apgd::ApgdSettings;
use crate::coarse::CoarseCorrection;
use crate::convergence::Criterion;
use crate::error::NscdError;
use crate::newton::NewtonSettings;
use crate::subspace::SubspaceCorrection;
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
    /// to the report (default).
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
    /// Order in which the Gauss-Seidel sweep visits the contacts. Default: a fresh random
    /// permutation each sweep (000 §2.5).
    pub sweep: SweepOrder,
    /// Convergence criterion with its cap (000 eqs. 35-37). Default: local relative
    /// change, ε = 1e-4, cutoff δ = 1e-9 N, cap 1000 sweeps.
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
    /// Relaxation parameter ω of the Gauss-Seidel update (LMGC90's `RELAX`, 004 §2.3.3.4):
    /// the new impulse is P ← (1 − ω) P_old + ω P_local, P_local the local solution, then
    /// projected back onto the law's admissible set (ω ≤ 1 keeps it; ω > 1 is
    /// over-relaxation). In (0, 2). Default 1 (plain Gauss-Seidel).
    pub relaxation: f64,
    /// Nesterov momentum on the impulses between sweeps: after sweep k the impulses are
    /// extrapolated by β_k (P_k − P_{k−1}), β_k = (k − 1)/(k + 2), projected onto the law's
    /// admissible set and exchanged with the bodies; the schedule restarts when the
    /// criterion's residual grows (Nesterov 1983; the adaptive restart of O'Donoghue and
    /// Candès 2015; used on impulses by Chrono's APGD, Mazhar et al. 2015). Laws without a
    /// projection are not accelerated. Default off.
    pub momentum: bool,
    /// Subspace correction of the long-wavelength modes: every
    /// [`SubspaceCorrection::sweeps_between`] sweeps, a conjugate-gradient solve of the
    /// linear problem of the active contacts (sticking: U = (u_min, 0, 0); sliding:
    /// U_n = u_min), matrix-free on W, projected onto the admissible set
    /// ([`crate::subspace`]; Silcowitz, Niebe and Erleben 2010). Not applied under
    /// [`Criterion::Fixed`] (the fixed-N_I model of 000 §3.3 is about the sweeps alone), nor
    /// to laws without [`NonSmoothLaw::shock_params`](crate::NonSmoothLaw::shock_params)
    /// and a projection. Default `None` (sweeps only): on dense_1000 it reaches the
    /// natural-map residual 1e-6 in 1047 sweeps and 2600 CG iterations where the random
    /// sweep alone stalls at 1.6e-5 after 20000, but on dense_8000 it needs 15498 sweeps to
    /// 1e-4 and can lose ground at 1e-6 (docs/contact-dynamics.md).
    pub correction: Option<SubspaceCorrection>,
    /// The nonsmooth Newton method on the whole step ([`crate::newton`]: Alart-Curnier
    /// function, matrix-free Jacobian, block-Jacobi preconditioned GMRES, Armijo line
    /// search, Gauss-Seidel sweeps as warm start and fallback) instead of sweeps alone.
    /// It stops on the natural-map residual (Siconos' measure, [`crate::residual`]) at the
    /// criterion's tolerance whatever the criterion, and counts W products and sweeps
    /// together against the criterion's cap. Not applied under [`Criterion::Fixed`] nor to
    /// laws without a Signorini-Coulomb form or with couples (sweeps only then). Default
    /// `None` (sweeps only): on dense_1000 it needs 4843 units of work (sweeps + products)
    /// to the natural map 1e-4, fewer than the random sweep (5666) but more than the
    /// forward sweep with momentum (1315), and it does not reach 1e-4 on dense_8000 within
    /// 6000 (docs/contact-dynamics.md).
    pub newton: Option<NewtonSettings>,
    /// Two-level aggregation correction of the long-wavelength modes ([`crate::coarse`]):
    /// every [`CoarseCorrection::sweeps_between`] sweeps, the bodies grouped into rigid
    /// aggregates, a small frictional contact problem between the aggregates solved for
    /// the interface force corrections, spread over the interfaces' contacts and
    /// projected onto their cones. Not applied under [`Criterion::Fixed`], nor to laws
    /// without a Signorini-Coulomb form and a projection, nor with
    /// [`NscdConfig::newton`]. Default `None` (sweeps only): it needs 32 times fewer
    /// sweeps on the 40-sphere chain of 000 §3.3.1, but on the dense packings it does not
    /// beat the sweeps (dense_1000: 3474 sweeps and 115 corrections to the natural map
    /// 1e-4 with the forward sweep, more than the 1315 of forward + momentum; dense_8000
    /// and dense_27000: no better or worse; docs/contact-dynamics.md).
    pub coarse: Option<CoarseCorrection>,
    /// Accelerated projected gradient descent on the whole step ([`crate::apgd`]; Mazhar
    /// et al. 2015) instead of sweeps: it solves the cone-constrained quadratic program
    /// (Coulomb's law without De Saxcé's term) and stops on the natural-map residual at the
    /// criterion's tolerance whatever the criterion, counting W products against the cap.
    /// Not applied under [`Criterion::Fixed`], with couples, or with
    /// [`NscdConfig::newton`]. Default `None`.
    pub apgd: Option<ApgdSettings>,
    /// Block solve of hyperstatic pairs ([`crate::pair_lock`]): the contacts of every pair
    /// with at least three contacts between a fully mobile body and a fixed or kinematic
    /// one, or between two fully mobile bodies, are one unknown of the Gauss-Seidel loop, solved together before each sweep (and
    /// each block of sweeps under [`NscdConfig::newton`]) for the pair's exact
    /// Signorini-Coulomb solution, sticking (the least-norm impulses of the locked state)
    /// or sliding, and left alone by the point updates; a pair whose solve does not
    /// converge is left to the sweeps for the rest of the step. Not applied under
    /// [`Criterion::Fixed`], nor to laws without a Signorini-Coulomb form or with couples,
    /// nor under [`NscdConfig::apgd`]. One contact per pair (spheres, discs) makes no group:
    /// their results are unchanged. Default on: with it, the M7 block (six corners) stops
    /// and rests under the default sweeps and under the nonsmooth Newton method at a
    /// friction margin of 0.45 % (drift 0 m), and slides at μ below tan α at the Coulomb
    /// rate (VALIDATION M7, docs/contact-dynamics.md).
    pub lock_pairs: bool,
}

impl Default for NscdConfig {
    fn default() -> Self {
        NscdConfig {
            theta: 1.0,
            sweep: SweepOrder::Random,
            criterion: Criterion::default(),
            gap: GapMode::Positive,
            warm_start: true,
            margin: 0.0,
            seed: 0,
            spatial_sort: false,
            on_cap: NonConvergence::Warn,
            relaxation: 1.0,
            momentum: false,
            correction: None,
            newton: None,
            coarse: None,
            apgd: None,
            lock_pairs: true,
        }
    }
}

impl NscdConfig {
    /// Checks every setting; the error names the one at fault.
    pub fn validate(&self) -> Result<(), NscdError> {
        if !(self.theta >= 0.5 && self.theta <= 1.0) {
            return Err(NscdError::ThetaOutOfRange { value: self.theta });
        }
        self.criterion.validate()?;
        if !(self.margin.is_finite() && self.margin >= 0.0) {
            return Err(NscdError::InvalidSetting { param: "margin", value: self.margin, expected: "finite and >= 0" });
        }
        if !(self.relaxation > 0.0 && self.relaxation < 2.0) {
            return Err(NscdError::InvalidSetting {
                param: "relaxation",
                value: self.relaxation,
                expected: "in (0, 2)",
            });
        }
        if let Some(c) = self.correction {
            if c.sweeps_between == 0 {
                return Err(NscdError::InvalidSetting { param: "sweeps_between", value: 0.0, expected: ">= 1" });
            }
            if c.cg_iterations == 0 {
                return Err(NscdError::InvalidSetting { param: "cg_iterations", value: 0.0, expected: ">= 1" });
            }
            if !(c.cg_reduction > 0.0 && c.cg_reduction < 1.0) {
                return Err(NscdError::InvalidSetting {
                    param: "cg_reduction",
                    value: c.cg_reduction,
                    expected: "in (0, 1)",
                });
            }
        }
        if let Some(n) = self.newton {
            for (param, value) in [
                ("fallback_sweeps", n.fallback_sweeps),
                ("gmres_iterations", n.gmres_iterations),
                ("line_search_steps", n.line_search_steps),
            ] {
                if value == 0 {
                    return Err(NscdError::InvalidSetting { param, value: 0.0, expected: ">= 1" });
                }
            }
            if !(n.regularization >= 0.0 && n.regularization.is_finite()) {
                return Err(NscdError::InvalidSetting {
                    param: "regularization",
                    value: n.regularization,
                    expected: "finite and >= 0",
                });
            }
            if !(n.forcing > 0.0 && n.forcing < 1.0) {
                return Err(NscdError::InvalidSetting { param: "forcing", value: n.forcing, expected: "in (0, 1)" });
            }
        }
        if self.apgd.is_some_and(|a| a.check_every == 0) {
            return Err(NscdError::InvalidSetting { param: "apgd check_every", value: 0.0, expected: ">= 1" });
        }
        if let Some(c) = self.coarse {
            if !(c.cell > 0.0 && c.cell.is_finite()) {
                return Err(NscdError::InvalidSetting {
                    param: "coarse cell",
                    value: c.cell,
                    expected: "finite and > 0",
                });
            }
            for (param, value) in [("coarse sweeps_between", c.sweeps_between), ("coarse_sweeps", c.coarse_sweeps)] {
                if value == 0 {
                    return Err(NscdError::InvalidSetting { param, value: 0.0, expected: ">= 1" });
                }
            }
            if !(c.coarse_tolerance > 0.0 && c.coarse_tolerance < 1.0) {
                return Err(NscdError::InvalidSetting {
                    param: "coarse_tolerance",
                    value: c.coarse_tolerance,
                    expected: "in (0, 1)",
                });
            }
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
