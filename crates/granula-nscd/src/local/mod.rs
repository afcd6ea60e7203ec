//! Local non-smooth laws: the problem of one contact α with the others frozen
//! (004 §2.3.3.4), and the trait a user implements to plug in a new law.
//!
//! Everything here is in impulse units over one step: P = R Δt, and velocities in the
//! local frame (n, t, s) of the contact, n from body 1 to body 2 (000 eq. 3).

mod cohesive;
mod planar_graph;
mod rolling;

pub use rolling::{RollingParams, RollingSignoriniCoulomb};
mod signorini_coulomb;

pub use cohesive::{Bond, CohesiveParams, CohesiveSignoriniCoulomb};
pub use planar_graph::graph_intersection_2d;
pub use signorini_coulomb::{
    coulomb_status, coupled_shock_law, diagonal_shock_law, signorini_bound, Restitution, ShockParams, SignoriniCoulomb,
};

use crate::config::GapMode;
use granula_core::{DMat3, DVec3, PairMaterial};
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
    /// Normal relative velocity U_n⁻ at the start of the step (for Newton restitution).
    pub normal_velocity_before: f64,
}

/// The state of a contact at the end of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactStatus {
    /// No impulse (incipient or opening contact).
    Open,
    /// Tangential impulse strictly inside the Coulomb cone.
    Sticking,
    /// Tangential impulse on the Coulomb cone.
    Sliding,
}

/// A non-smooth contact law: solves the local problem of one contact given W_αα and the
/// local free velocity b. The built-in [`SignoriniCoulomb`] is an ordinary implementation.
///
/// Contract: [`NonSmoothLaw::params`] is called once per contact and step (after
/// detection); [`NonSmoothLaw::solve`] many times per step, and must return the impulse
/// P (local frame, N s) that satisfies the law for `problem`; it must not allocate.
/// [`NonSmoothLaw::finish`] is called once per contact after the last sweep.
pub trait NonSmoothLaw: Send + Sync {
    /// Per-contact constants of one step (friction, velocity bound...).
    type Params: Copy + Send + Sync + Debug;
    /// State carried from step to step by contact key (e.g. a cohesive bond).
    type State: Copy + Default + PartialEq + Send + Sync + Debug;

    /// A stable name, e.g. `"signorini_coulomb"`.
    fn name(&self) -> String;

    /// Largest gap (m) at which the law can act (0 without cohesion).
    fn range(&self, _material: &PairMaterial) -> f64 {
        0.0
    }

    /// The constants of one contact for this step.
    fn params(&self, setup: &ContactSetup<'_>, state: &Self::State) -> Self::Params;

    /// The impulse solving the local problem.
    fn solve(&self, problem: &LocalProblem, params: &Self::Params) -> DVec3;

    /// `true` when the law also acts on the relative rotation (rolling and torsion
    /// friction): the solver then keeps a couple impulse per contact and calls
    /// [`NonSmoothLaw::solve_couple`] after each force update. Default `false`.
    const COUPLES: bool = false;

    /// The couple impulse Q (local frame (n, t, s), N m s) of the angular problem
    /// Ω = b + diag(w_ang) Q, Ω the relative angular velocity ω₂ − ω₁, given the contact's
    /// current impulse `p`. Default: none.
    fn solve_couple(&self, _w_ang: DVec3, _b: DVec3, _params: &Self::Params, _p: DVec3) -> DVec3 {
        DVec3::ZERO
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
