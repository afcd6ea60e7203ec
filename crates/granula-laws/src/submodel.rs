//! The sub-model traits a [`Composed`](crate::Composed) law is built from, their small
//! input/output structs, and the empty slots.
//!
//! Data flows through arguments and return values: the normal model returns a
//! [`NormalElastic`], the damping model reads it and returns a [`NormalDamping`], and the
//! tangential, rolling and twisting models read the resulting [`NormalState`]. The order is
//! fixed by the types, not by a comment.

use crate::error::LawError;
use crate::history::SubHistory;
use glam::{DQuat, DVec3};
use granula_core::{ContactKinematics, PairMaterial};
use std::fmt::Debug;

/// Whether the normal force (elastic + damping) may become attractive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TensionPolicy {
    /// Elastic + damping is clamped at zero: contacts only push (the default; attraction
    /// comes only from a cohesion sub-model). The viscous term then dissipates only what
    /// keeps the force non-negative.
    #[default]
    NoAttraction,
    /// The damping force may pull while the overlap shrinks: the textbook damped oscillator
    /// of 002 eq. 8 and 004 §2.2.1, for validation against its closed forms.
    AllowDampingTension,
}

/// Elastic (conservative) part of the normal response at the current overlap.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NormalElastic {
    /// Repulsive elastic force F_e ≥ 0 (N) along the normal, on body 2.
    pub force: f64,
    /// Tangent stiffness dF_e/dδ (N/m) at the current overlap.
    pub stiffness: f64,
    /// Elastic energy stored, ∫₀^δ F_e dδ (J).
    pub stored: f64,
}

/// Normal damping force at the current overlap and overlap rate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NormalDamping {
    /// Damping force along the normal on body 2 (N); positive (repulsive) while the overlap
    /// grows, negative while it shrinks.
    pub force: f64,
    /// The current viscous coefficient γ = F_d / δ̇ (N s/m), for tangential damping models
    /// that scale with it.
    pub coefficient: f64,
}

/// What the tangential, rolling and twisting models know about the normal direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NormalState {
    /// The load of the friction laws (N), ≥ 0: the repulsive normal force (elastic +
    /// damping, clamped at zero). With cohesion this is R_n + F_C, the DMT shift of
    /// 001 §1.8.
    pub load: f64,
    /// Tangent normal stiffness dF_e/dδ (N/m).
    pub stiffness: f64,
    /// Normal viscous coefficient γ_n (N s/m).
    pub damping: f64,
    /// The elastic normal force F_e (N) alone, without the damping: the load of 002's
    /// Coulomb limit |k_t ξ| ≤ μ F_n^e (002 §2 below eq. 7).
    pub elastic: f64,
}

/// Output of a tangential, rolling or twisting model.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ResistanceOut {
    /// Force (tangential models) or couple (rolling, twisting) on body 2; body 1 receives
    /// the opposite.
    pub value: DVec3,
    /// Elastic energy stored in the model's spring after this step (J).
    pub stored: f64,
    /// Energy dissipated during this step (J).
    pub dissipated: f64,
    /// `true` when the model is at its Coulomb-like limit.
    pub sliding: bool,
}

/// Output of a cohesion model.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CohesionOut {
    /// Attractive force magnitude (N), ≥ 0; acts on body 2 along −n.
    pub attraction: f64,
    /// Potential energy of the attraction (J), ≤ 0, zero at the edge of the range.
    pub stored: f64,
}

/// An elastic normal force law F_e(δ).
pub trait NormalModel: Clone + Debug + Send + Sync {
    /// Stable name, e.g. `"hertz"`.
    fn name(&self) -> &'static str;
    /// The elastic response at overlap `k.overlap > 0`.
    fn elastic(&self, k: &ContactKinematics<'_>) -> NormalElastic;
    /// Duration (s) of an undamped head-on contact with impact speed `v_impact`.
    fn contact_time(&self, material: &PairMaterial, m_eff: f64, r_eff: f64, v_impact: f64) -> f64;
    /// Checks that the model can handle a pair with these values.
    fn check_pair(&self, material: &PairMaterial, r_eff: f64, m_eff: f64) -> Result<(), LawError>;
    /// The model's form in the batched kernel ([`LawBatch`](crate::LawBatch)), if it has one; `None`
    /// (the default) keeps the law on the scalar path.
    fn batch_form(&self) -> Option<crate::batched::NormalBatch> {
        None
    }
}

/// A normal damping law F_d(δ, δ̇), possibly with history.
pub trait DampingModel: Clone + Debug + Send + Sync {
    /// Per-contact state.
    type History: SubHistory;
    /// Stable name, e.g. `"hertz_viscous"`.
    fn name(&self) -> &'static str;
    /// Damping force at overlap `k.overlap > 0` and overlap rate `rate` = δ̇ = −𝒱·n.
    fn damping(
        &self,
        k: &ContactKinematics<'_>,
        rate: f64,
        elastic: &NormalElastic,
        h: &mut Self::History,
    ) -> NormalDamping;
    /// The restitution coefficient the model produces with its normal model under the given
    /// tension policy, if it can claim one (used by the conformance kit).
    fn claimed_restitution(&self, material: &PairMaterial, tension: TensionPolicy) -> Option<f64>;
    /// Checks that the model can handle a pair with these values.
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError>;
    /// The model's form in the batched kernel ([`LawBatch`](crate::LawBatch)), if it has one (only a
    /// model without history may have one); `None` (the default) keeps the scalar path.
    fn batch_form(&self) -> Option<crate::batched::DampingBatch> {
        None
    }
}

/// A tangential (friction) law.
pub trait TangentialModel: Clone + Debug + Send + Sync {
    /// Per-contact state.
    type History: SubHistory;
    /// Stable name, e.g. `"cundall_strack"`.
    fn name(&self) -> &'static str;
    /// Tangential force on body 2.
    fn tangential(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut Self::History) -> ResistanceOut;
    /// Checks that the model can handle a pair with these values.
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError>;
    /// Whether the model reads the rotation increments of the kinematics (002 eq. 15);
    /// `false` unless overridden.
    fn uses_rotations(&self) -> bool {
        false
    }
    /// The model's form in the batched kernel ([`LawBatch`](crate::LawBatch)), if it has one; `None`
    /// (the default) keeps the scalar path. A model that has one also gives its history's
    /// spring through [`TangentialModel::batch_spring`].
    fn batch_form(&self) -> Option<crate::batched::SpringBatch> {
        None
    }
    /// The spring of a history, for the batched kernel; `None` unless the model has a
    /// batch form.
    fn batch_spring(_history: &mut Self::History) -> Option<&mut crate::tangential::SpringState> {
        None
    }
}

/// A rolling-resistance law (couple about a tangential axis).
pub trait RollingModel: Clone + Debug + Send + Sync {
    /// Per-contact state.
    type History: SubHistory;
    /// Stable name.
    fn name(&self) -> &'static str;
    /// Rolling couple on body 2.
    fn rolling(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut Self::History) -> ResistanceOut;
    /// Checks that the model can handle a pair with these values.
    fn check_pair(&self, material: &PairMaterial, r_eff: f64) -> Result<(), LawError>;
}

/// A twisting (torsion) resistance law (couple about the normal).
pub trait TwistingModel: Clone + Debug + Send + Sync {
    /// Per-contact state.
    type History: SubHistory;
    /// Stable name.
    fn name(&self) -> &'static str;
    /// Twisting couple on body 2.
    fn twisting(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut Self::History) -> ResistanceOut;
    /// Checks that the model can handle a pair with these values.
    fn check_pair(&self, material: &PairMaterial, r_eff: f64) -> Result<(), LawError>;
}

/// An attractive (cohesion) law acting up to a gap [`CohesionModel::range`].
pub trait CohesionModel: Clone + Debug + Send + Sync {
    /// Stable name.
    fn name(&self) -> &'static str;
    /// Largest gap (m) at which the attraction acts.
    fn range(&self, material: &PairMaterial) -> f64;
    /// The attraction at the current gap g = −δ (called for g ≤ range).
    fn cohesion(&self, k: &ContactKinematics<'_>) -> CohesionOut;
    /// Checks that the model can handle a pair with these values.
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError>;
}

/// Empty damping slot: an elastic (energy-conserving) normal law.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoDamping;

impl DampingModel for NoDamping {
    type History = ();
    fn name(&self) -> &'static str {
        "no_damping"
    }
    fn damping(&self, _: &ContactKinematics<'_>, _: f64, _: &NormalElastic, _: &mut ()) -> NormalDamping {
        NormalDamping::default()
    }
    fn claimed_restitution(&self, _: &PairMaterial, _: TensionPolicy) -> Option<f64> {
        Some(1.0)
    }
    fn check_pair(&self, _: &PairMaterial) -> Result<(), LawError> {
        Ok(())
    }
}

/// Empty tangential slot: frictionless contacts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoFriction;

impl TangentialModel for NoFriction {
    type History = ();
    fn name(&self) -> &'static str {
        "frictionless"
    }
    fn tangential(&self, _: &ContactKinematics<'_>, _: &NormalState, _: &mut ()) -> ResistanceOut {
        ResistanceOut::default()
    }
    fn check_pair(&self, _: &PairMaterial) -> Result<(), LawError> {
        Ok(())
    }
}

/// Empty rolling slot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoRolling;

impl RollingModel for NoRolling {
    type History = ();
    fn name(&self) -> &'static str {
        "no_rolling"
    }
    fn rolling(&self, _: &ContactKinematics<'_>, _: &NormalState, _: &mut ()) -> ResistanceOut {
        ResistanceOut::default()
    }
    fn check_pair(&self, _: &PairMaterial, _: f64) -> Result<(), LawError> {
        Ok(())
    }
}

/// Empty twisting slot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoTwisting;

impl TwistingModel for NoTwisting {
    type History = ();
    fn name(&self) -> &'static str {
        "no_twisting"
    }
    fn twisting(&self, _: &ContactKinematics<'_>, _: &NormalState, _: &mut ()) -> ResistanceOut {
        ResistanceOut::default()
    }
    fn check_pair(&self, _: &PairMaterial, _: f64) -> Result<(), LawError> {
        Ok(())
    }
}

/// Empty cohesion slot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoCohesion;

impl CohesionModel for NoCohesion {
    fn name(&self) -> &'static str {
        "no_cohesion"
    }
    fn range(&self, _: &PairMaterial) -> f64 {
        0.0
    }
    fn cohesion(&self, _: &ContactKinematics<'_>) -> CohesionOut {
        CohesionOut::default()
    }
    fn check_pair(&self, _: &PairMaterial) -> Result<(), LawError> {
        Ok(())
    }
}

impl SubHistory for () {
    fn reversed(&self) -> Self {}
    fn rotated(&self, _: DQuat) -> Self {}
}
