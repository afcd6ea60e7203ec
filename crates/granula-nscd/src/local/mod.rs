//! Local non-smooth laws: the problem of one contact α with the others frozen
//! (004 §2.3.3.4), and the trait a user implements to plug in a new law.
//!
//! Everything here is in impulse units over one step: P = R Δt, and velocities in the
//! local frame (n, t, s) of the contact, n from body 1 to body 2 (000 eq. 3).

mod cohesive;
mod impact;
mod planar_graph;
mod rolling;
mod signorini_coulomb;
mod six_dof;

pub use cohesive::{Bond, CohesionRule, CohesiveParams, CohesiveSignoriniCoulomb};
pub(crate) use impact::restitution_ratio;
pub use impact::{ImpactLaw, ImpactProcess, JointShock};
pub use rolling::{RollingParams, RollingSignoriniCoulomb};
pub(crate) use signorini_coulomb::{restitution_law, shock_law};
pub use signorini_coulomb::{Restitution, ShockParams, SignoriniCoulomb};
pub(crate) use six_dof::delassus_block6;

use crate::config::GapMode;
use granula_core::{DMat3, DVec3, PairMaterial};
use nalgebra::{Matrix6, Vector6};
use std::fmt::Debug;

/// The local problem of contact α: U = b + W_αα P (004 §2.3.3.4, ELG form), with
/// b = U_free + Σ_{β≠α} W_αβ P_β the local velocity the other contacts and the external
/// loads give, in the frame (n, t, s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalProblem {
    /// W_αα = H*_α M⁻¹ H_α in the local frame (000 eq. 15; 004 §2.3.3.3).
    pub w: DMat3,
    /// Local velocity without this contact's own impulse.
    pub b: DVec3,
    /// `true` when W_αα is diagonal (spheres and walls, 000 eq. 19): the closed form
    /// (000 eq. 34) applies.
    pub diagonal: bool,
}

/// What a law may know about a contact when the step starts.
#[derive(Clone, Copy, Debug)]
pub struct ContactSetup<'a> {
    /// Material values of the pair.
    pub material: &'a PairMaterial,
    /// Gap g (m) at the intermediate configuration q_m (004 §2.3.3.1); negative is overlap.
    pub gap: f64,
    /// θ Δt (s): the gap at the end of the step is g + θ Δt U_n (000 eq. 24, 004 §2.3.3.1).
    pub theta_dt: f64,
    /// The step Δt (s).
    pub step_dt: f64,
    /// Which gap the Signorini condition uses (000 eq. 33).
    pub gap_mode: GapMode,
    /// Normal relative velocity U_n⁻ at the start of the step: the pre-impact velocity of
    /// the impact laws (004 §2.2.2.2).
    pub normal_velocity_before: f64,
    /// Normal relative velocity of the free motion U_n,free = (H* v_free)_n (004 §2.3.3.3):
    /// with `gap` it predicts whether the contact closes within the step
    /// (`predicted_gap`).
    pub normal_velocity_free: f64,
}

/// The state of a contact at the end of a step: the core's status, of which the local
/// solvers report [`ContactStatus::Open`] (no impulse), [`ContactStatus::Sticking`]
/// (tangential impulse strictly inside the Coulomb cone) and [`ContactStatus::Sliding`] (on
/// the cone).
pub(crate) use granula_core::ContactStatus;

/// A non-smooth contact law: solves the local problem of one contact given W_αα and the
/// local free velocity b. The built-in [`SignoriniCoulomb`] is an ordinary implementation.
///
/// Contract: [`NonSmoothLaw::params`] and [`NonSmoothLaw::impact`] are called once per
/// contact and step (after detection); [`NonSmoothLaw::solve`] (or
/// [`NonSmoothLaw::solve_impact`] for a contact with an impact process) many times per
/// step, and must return the impulse P (local frame, N s) that satisfies the law for
/// `problem`; it must not allocate.
/// [`NonSmoothLaw::finish`] is called once per contact after the last sweep.
pub trait NonSmoothLaw: Send + Sync {
    /// Per-contact constants of one step (friction, velocity bound...).
    type Params: Copy + Send + Sync + Debug;
    /// State carried from step to step by contact key (e.g. a cohesive bond).
    type State: Copy + Default + PartialEq + Send + Sync + Debug;

    /// A stable name, e.g. `"signorini_coulomb"`.
    fn name(&self) -> String;

    /// Checks the law's own settings; the solver calls it when built and before each step.
    /// Default: nothing to check.
    fn validate(&self) -> Result<(), crate::error::NscdError> {
        Ok(())
    }

    /// Largest gap (m) at which the law can act (0 without cohesion).
    fn range(&self, _material: &PairMaterial) -> f64 {
        0.0
    }

    /// The constants of one contact for this step.
    fn params(&self, setup: &ContactSetup<'_>, state: &Self::State) -> Self::Params;

    /// The impulse solving the local problem.
    fn solve(&self, problem: &LocalProblem, params: &Self::Params) -> DVec3;

    /// The impact process of a contact whose shock the law follows along the impulse in
    /// this step (Poisson's or Stronge's law on a contact of the impact set, 004 §2.2.2.2),
    /// or `None` (default) for a contact that [`NonSmoothLaw::solve`] solves. Called once
    /// per contact and step, after [`NonSmoothLaw::params`]. The solver keeps the processes
    /// in a table beside the contact list and solves those contacts by
    /// [`NonSmoothLaw::solve_impact`], so that a step without any reads only `Params` per
    /// contact; a contact with a process is not held to the linear law U_n = u_min (it has
    /// no block solve, and its natural-map term is the change its own solve would still
    /// make, see [`NonSmoothLaw::shock_params`]).
    /// Not called for laws with couples ([`NonSmoothLaw::COUPLES`]), whose 6-D solve has no
    /// process.
    fn impact(&self, _setup: &ContactSetup<'_>, _state: &Self::State) -> Option<ImpactProcess> {
        None
    }

    /// The impulse solving the local problem of a contact with the impact process
    /// `process` ([`NonSmoothLaw::impact`]). Default: [`NonSmoothLaw::solve`]. Must not
    /// allocate.
    fn solve_impact(&self, problem: &LocalProblem, params: &Self::Params, _process: &ImpactProcess) -> DVec3 {
        self.solve(problem, params)
    }

    /// The admissible impulse nearest to `p` (e.g. onto Coulomb's cone), used after the
    /// momentum's extrapolation ([`NscdConfig::momentum`](crate::NscdConfig::momentum)),
    /// which may leave the admissible set. `None` (default): the law has no projection and
    /// its impulses are not extrapolated.
    fn project(&self, _params: &Self::Params, _p: DVec3) -> Option<DVec3> {
        None
    }

    /// The contact's Signorini-Coulomb constants (μ and the normal velocity u_min an active
    /// contact asks for at the end of the step) when the law is Signorini-Coulomb's: then
    /// a closed contact obeys the linear law U_n = u_min, and U_t = 0 while sticking (001
    /// eq. 1.27), the block solve of hyperstatic pairs applies
    /// ([`NscdConfig::lock_pairs`](crate::NscdConfig::lock_pairs)), and the natural-map
    /// residual is defined ([`Criterion::NaturalMap`](crate::Criterion::NaturalMap)).
    /// `None` (default): neither applies. A contact with an impact process
    /// ([`NonSmoothLaw::impact`]) is not a linear law: a pair with one is left to the
    /// sweeps, and its natural-map term is the change its own solve would still make.
    fn shock_params(&self, _params: &Self::Params) -> Option<ShockParams> {
        None
    }

    /// `true` when the law also acts on the relative rotation (rolling and torsion
    /// friction): the solver then keeps a couple impulse per contact, builds the contact's
    /// 6×6 block W6 (force and couple) and calls [`NonSmoothLaw::solve6`] instead of
    /// [`NonSmoothLaw::solve`]. Default `false`.
    const COUPLES: bool = false;

    /// The generalized impulse x = (P, Q) (local frame (n, t, s) twice: force impulse N s,
    /// couple impulse N m s) solving the 6-D local problem (U, Ω) = b + W6 x, Ω the relative
    /// angular velocity ω₂ − ω₁, started from `start` (the contact's current impulses).
    /// Default (laws without couples): the force law on the 3×3 force block, no couple.
    fn solve6(
        &self,
        w6: &Matrix6<f64>,
        b: &Vector6<f64>,
        params: &Self::Params,
        _start: &Vector6<f64>,
    ) -> Vector6<f64> {
        let w = DMat3::from_cols_array_2d(&[
            [w6[(0, 0)], w6[(1, 0)], w6[(2, 0)]],
            [w6[(0, 1)], w6[(1, 1)], w6[(2, 1)]],
            [w6[(0, 2)], w6[(1, 2)], w6[(2, 2)]],
        ]);
        let problem = LocalProblem { w, b: DVec3::new(b[0], b[1], b[2]), diagonal: crate::delassus::is_diagonal(&w) };
        let p = self.solve(&problem, params);
        Vector6::new(p.x, p.y, p.z, 0.0, 0.0, 0.0)
    }

    /// Classifies a final impulse.
    fn status(&self, params: &Self::Params, impulse: DVec3) -> ContactStatus;

    /// Splits a final normal impulse into its shock part and its cohesive (tensile) part,
    /// for the energy ledger: the work of the cohesive part goes to `Dissipation::cohesion`.
    /// Default: all shock.
    fn normal_split(&self, _params: &Self::Params, impulse: DVec3) -> (f64, f64) {
        (impulse.x, 0.0)
    }

    /// Updates the carried state after the step, given the final impulse and the end-of-step
    /// gap; returns energy (J) dissipated by breaking bonds (cohesion).
    fn finish(&self, _params: &Self::Params, _impulse: DVec3, _gap_after: f64, _state: &mut Self::State) -> f64 {
        0.0
    }
}
