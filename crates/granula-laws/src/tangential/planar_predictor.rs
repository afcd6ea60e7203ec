//! The predictor-based elongation of 002 §4 for the planar world (002 eqs. 14-15 and their
//! polygon version), with the Coulomb limit and the dashpot of 002's Cundall spring.

use super::planar_cundall::planar_spring_step;
use super::settings::{Friction, SpringSettings, TangentialDamping, TangentialStiffness};
use super::spring::SpringState;
use crate::error::LawError;
use crate::history::SubHistory;
use crate::submodel::{NormalState, ResistanceOut, TangentialModel};
use glam::{DQuat, DVec3};
use granula_core::{rotation_quat, ContactKinematics, PairMaterial};

/// The predictor-based tangential elongation of 002 §4 (002 eqs. 14-15, and the polygon
/// form of the text after them), with [`PlanarCundall`](super::PlanarCundall)'s Coulomb
/// limit on the elastic normal force and its uncapped dashpot −γ_t v_t (002 eqs. 2, 6):
/// only the rule that advances ξ differs from 002 eq. 7.
///
/// **The increment.** The history keeps the branch vectors l₁⁰, l₂⁰ (centre to contact
/// point; for polygons the centroid of the overlap area) of the last evaluation. At the
/// next one, with branches l₁, l₂ and the turns θ₁, θ₂ of the bodies in between
/// ([`ContactKinematics::rotation1`], `rotation2`), the material point of body k that sat
/// at the old contact point has moved, relative to the new contact point, by
/// s_k = l_k − R(θ_k) l_k⁰ (the branch now minus the old one turned with the body: 002 §4's
/// rotational part "from the branch vectors"); the contact point itself moved by Δr_c
/// (002 §4's translational part "from the overlap centroid"), which is common to both
/// bodies and cancels in the displacement of body 2's material point relative to body 1's,
///
/// Δξ = [(Δr_c − s₂) − (Δr_c − s₁)]_t = [s₁ − s₂]_t,
///
/// projected on the current tangent plane. Under the Gear predictor-corrector (002
/// Appendix A) the MD solver evaluates forces at the predicted positions and measures θ_k
/// between two predicted orientations, so every quantity here is of the predictor step
/// (002 eq. 14's Rᵖ, eq. 15's θᵖ) and ξ carries the predictor's error instead of the
/// (Δt)² of 002 eq. 7. Special cases:
/// - discs with rotation locked: l₁ − l₂ = R (the centre-to-centre vector x₂ − x₁), so
///   Δξ = (ΔR)_t, 002 eq. 14 with weight 1 (the printed aᵢ/(aᵢ + aⱼ) is the share of one
///   particle; [`PredictorElongation`](super::PredictorElongation) gives the reasons for
///   not applying it to the contact);
/// - a disc turning by θ about a fixed centre against a fixed body: the chord of the arc
///   θa of 002 eq. 15, projected on t;
/// - a rigid motion of the pair (the contact point carried with it): l_k = R(θ) l_k⁰,
///   s₁ = s₂ = 0 and Δξ = 0.
///
/// The first evaluation of a contact takes no increment (there is no previous position).
/// The stored ξ is turned into the current tangent plane with its length kept, which in the
/// plane is 002's scalar ξ along the tangent that turns with the contact. Energy is booked
/// as in [`PlanarCundall`](super::PlanarCundall): `stored` = ½ k_t |ξ|², `dissipated` the
/// spring's balance with the work −f_t·v_t Δt the bodies receive plus the dashpot's
/// γ_t |v_t|² Δt, so the ledger stays the integrator's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarPredictor {
    /// k_t.
    pub stiffness: TangentialStiffness,
    /// γ_t of the viscous force outside the limit.
    pub damping: TangentialDamping,
    /// μ_s (the limit of the sticking spring) and μ_d (the spring's value while sliding);
    /// 002 has one μ for both.
    pub friction: Friction,
}

impl PlanarPredictor {
    /// A validated model (the settings of [`PlanarCundall::new`](super::PlanarCundall::new)).
    pub fn new(
        stiffness: TangentialStiffness,
        damping: TangentialDamping,
        friction: Friction,
    ) -> Result<Self, LawError> {
        let s = SpringSettings { stiffness, damping, friction }.checked("planar_predictor")?;
        Ok(PlanarPredictor { stiffness: s.stiffness, damping: s.damping, friction: s.friction })
    }

    #[inline(always)]
    fn settings(&self) -> SpringSettings {
        SpringSettings { stiffness: self.stiffness, damping: self.damping, friction: self.friction }
    }
}

/// History of [`PlanarPredictor`]: the spring and the branch vectors of the last
/// evaluation (002 §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlanarPredictorState {
    /// The elongation ξ (world frame) and the k_t of the last evaluation.
    pub spring: SpringState,
    /// Branch vector of body 1 at the last evaluation (m).
    pub branch1: DVec3,
    /// Branch vector of body 2 at the last evaluation (m).
    pub branch2: DVec3,
    /// Whether the contact has been evaluated before.
    pub evaluated: bool,
}

impl SubHistory for PlanarPredictorState {
    /// Seen from the other body ξ changes sign and the branches trade places.
    fn reversed(&self) -> Self {
        PlanarPredictorState {
            spring: self.spring.reversed(),
            branch1: self.branch2,
            branch2: self.branch1,
            evaluated: self.evaluated,
        }
    }
    fn rotated(&self, q: DQuat) -> Self {
        PlanarPredictorState {
            spring: self.spring.rotated(q),
            branch1: q * self.branch1,
            branch2: q * self.branch2,
            evaluated: self.evaluated,
        }
    }
}

/// The increment of ξ of [`PlanarPredictor`] (002 eqs. 14-15, polygon form): the
/// displacement [s₁ − s₂]_t of body 2's material point relative to body 1's since the
/// evaluation that left `h`, s_k = l_k − R(θ_k) l_k⁰; zero at a contact's first evaluation.
#[inline]
fn predictor_increment(k: &ContactKinematics<'_>, h: &PlanarPredictorState) -> DVec3 {
    if !h.evaluated {
        return DVec3::ZERO;
    }
    let s1 = k.branch1 - rotation_quat(k.rotation1) * h.branch1;
    let s2 = k.branch2 - rotation_quat(k.rotation2) * h.branch2;
    let d = s1 - s2;
    d - d.dot(k.normal) * k.normal
}

impl TangentialModel for PlanarPredictor {
    type History = PlanarPredictorState;
    fn name(&self) -> &'static str {
        "planar_predictor"
    }
    #[inline]
    fn tangential(
        &self,
        k: &ContactKinematics<'_>,
        normal: &NormalState,
        h: &mut PlanarPredictorState,
    ) -> ResistanceOut {
        let d = predictor_increment(k, h);
        let out = planar_spring_step(&self.settings(), k, normal, &mut h.spring, |_| d);
        h.branch1 = k.branch1;
        h.branch2 = k.branch2;
        h.evaluated = true;
        out
    }
    /// Reads θ₁, θ₂ (002 eq. 15): the solver must measure the bodies' rotations.
    fn uses_rotations(&self) -> bool {
        true
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        self.settings().check_pair("planar_predictor", material)
    }
}
