//! The predictor-based tangential elongation (002 eqs. 14-15).

use super::settings::{check_poisson, Friction, TangentialDamping, TangentialStiffness};
use super::spring::{capped_spring_by, SpringState};
use crate::error::MdError;
use crate::history::SubHistory;
use crate::submodel::{NormalState, ResistanceOut, TangentialModel};
use glam::{DQuat, DVec3};
use granula_core::{ContactKinematics, PairMaterial};

/// Where the rotational part of the elongation increment (002 eq. 15) comes from.
///
/// A [`ContactKinematics`] carries the relative velocity 𝒱 = v₂ + ω₂×l₂ − v₁ − ω₁×l₁ at the
/// evaluation (the predicted one under a Gear integrator), the relative spin ω₂ − ω₁ and
/// the branch vectors, but neither the rotation angles θ of 002 eq. 15 nor ω₁ and ω₂
/// separately. The rotational slip ω₂×l₂ − ω₁×l₁ cannot be rebuilt from ω₂ − ω₁: for two
/// spheres (l₁ = a₁ n, l₂ = −a₂ n) it is −(a₁ω₁ + a₂ω₂)×n, a weighted *sum* of the spins,
/// and any rule using ω₂ − ω₁ alone that is symmetric under swapping the bodies gives zero
/// for equal spheres. The two choices below are the ones the interface allows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RotationalIncrement {
    /// No rotational part: the increment is the translational one of 002 eq. 14 alone,
    /// exact (to round-off) for any motion of the centres. Correct only when the bodies of
    /// the contact do not rotate (rotations locked, as in 002's translation-only test and
    /// the two-disc relaxation of VALIDATION M5); with rotating bodies the slip
    /// ω₂×l₂ − ω₁×l₁ is ignored by the spring (the dashpot still sees it through 𝒱) and
    /// the spring's force works on the spins without storing energy.
    #[default]
    TranslationOnly,
    /// The rotational part is the predicted 𝒱 minus the translational velocity Ṙ estimated
    /// from the last three centre-to-centre vectors (quadratic interpolation, second-order
    /// backward difference with the actual step lengths): Δξ_rot = (𝒱ᵖ − Ṙ_est)Δt, which
    /// is (ω₂ᵖ×l₂ − ω₁ᵖ×l₁)Δt up to the error (Ṙ − Ṙ_est)Δt = O(Δt³) per step. The
    /// translational part stays (Rᵖ(t+Δt) − Rᵖ(t)); a uniformly accelerated relative
    /// translation is integrated exactly, a general one with O(Δt²) global error (Cundall's
    /// 𝒱_t Δt: O(Δt)). At the second evaluation of a contact only two positions are known
    /// and the increment falls back to Cundall's 𝒱_t Δt. Assumes that 𝒱 is the velocity at
    /// the positions of the evaluation (true of the Gear predictor); with a half-step
    /// velocity the residual is O(Δt) per step again.
    VelocityResidual,
}

/// Predictor-based elongation: ξ(t+Δt) = ξ(t) + [(Rᵖ(t+Δt) − Rᵖ(t)) + Δξ_rot]_t with
/// R = x₂ − x₁ = l₁ − l₂ the centre-to-centre vector at consecutive force evaluations (under
/// the Gear integrator these are the predictor-step coordinates, 002 eq. 14), projected on
/// the current tangent plane, and the rotational part Δξ_rot chosen by
/// [`RotationalIncrement`] (002 eq. 15, see the limitation there). The stored ξ is first
/// rotated into the current tangent plane, and the force f_t = −k_t ξ − γ_t 𝒱_t is capped
/// at μ_s F (stick) / μ_d F with ξ at its extreme value (slide) exactly as in
/// [`CundallStrack`](super::CundallStrack), whose settings it shares; only the increment
/// differs (002 eq. 7 uses 𝒱_t Δt).
///
/// **The factor a_i/(a_i + a_j) printed in 002 eq. 14 is not applied** (weight 1):
/// - 002 presents eqs. 14-15 as a replacement of eq. 7 that removes its (Δt)² truncation
///   error, not as a different spring; for Δt → 0 the elongation must be Cundall's
///   ∫𝒱_t dt, whose translational part is the full ΔR_t (a rigid translation of body j
///   moves its material contact point by ΔR relative to body i);
/// - the printed factor (1/2 for equal discs) halves the translational stiffness seen by
///   the contact, and destroys the cancellation of the translational and rotational parts
///   in pure rolling and in a rigid rotation of the pair;
/// - read per particle, eq. 14 is particle j's share; particle i's share carries
///   a_j/(a_i + a_j), and the contact elongation, their sum, has weight 1.
///
/// The repository's two-disc relaxation example has its own law that applies the factor as
/// printed (it is to be switched to this type). Its relaxation time matches the Δt → 0
/// extrapolation of Cundall's spring (weight 1 by construction) because there t_R is set by
/// the tangential damping (an underdamped mode's energy decays at γ_t/m whatever k_t), so
/// the factor does not show in that test.
///
/// The spring starts at zero at the first evaluation with overlap (no previous position;
/// Cundall's spring takes 𝒱_t Δt there). Energy is booked as in [`CundallStrack`](super::CundallStrack)
/// with the work −f_t·𝒱_t Δt the bodies receive, so the ledger stays the integrator's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PredictorElongation {
    /// k_t.
    pub stiffness: TangentialStiffness,
    /// γ_t.
    pub damping: TangentialDamping,
    /// μ_s, μ_d.
    pub friction: Friction,
    /// Source of the rotational part of the increment.
    pub rotation: RotationalIncrement,
}

impl PredictorElongation {
    /// A validated model.
    pub fn new(
        stiffness: TangentialStiffness,
        damping: TangentialDamping,
        friction: Friction,
        rotation: RotationalIncrement,
    ) -> Result<Self, MdError> {
        Ok(PredictorElongation {
            stiffness: stiffness.check("predictor_elongation")?,
            damping: damping.check("predictor_elongation")?,
            friction,
            rotation,
        })
    }

    /// k_t from K_n by 2(1 − ν)/(2 − ν), no tangential damping, friction from the material.
    pub fn from_material(rotation: RotationalIncrement) -> Self {
        PredictorElongation {
            stiffness: TangentialStiffness::FromNormal,
            damping: TangentialDamping::None,
            friction: Friction::from_material(),
            rotation,
        }
    }

    /// The increment of ξ for this evaluation, in the tangent plane of `k.normal`.
    #[inline]
    fn increment(&self, k: &ContactKinematics<'_>, r: DVec3, h: &PredictorState) -> DVec3 {
        if h.positions == 0 {
            return DVec3::ZERO;
        }
        let dr = r - h.separation;
        let d = match self.rotation {
            RotationalIncrement::TranslationOnly => dr,
            RotationalIncrement::VelocityResidual => {
                let d1 = dr / k.dt;
                let r_dot = if h.positions >= 2 {
                    // Derivative at the newest point of the quadratic through the last
                    // three positions: d1 + h1 (d1 − d2)/(h1 + h2).
                    let d2 = (h.separation - h.earlier) / h.previous_dt;
                    d1 + (d1 - d2) * (k.dt / (k.dt + h.previous_dt))
                } else {
                    d1
                };
                dr + (k.relative_velocity - r_dot) * k.dt
            }
        };
        let n = k.normal;
        d - d.dot(n) * n
    }
}

/// History of [`PredictorElongation`]: the spring and the centre-to-centre vectors at the
/// last two evaluations.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PredictorState {
    /// The elongation ξ, world frame (m).
    pub xi: DVec3,
    /// k_t of the last evaluation (0 before the first).
    pub stiffness: f64,
    /// R = x₂ − x₁ at the last evaluation (m).
    pub separation: DVec3,
    /// R at the evaluation before (m).
    pub earlier: DVec3,
    /// Δt of the last evaluation (s): the time between `earlier` and `separation`.
    pub previous_dt: f64,
    /// How many of `separation`, `earlier` are set: 0, 1 or 2.
    pub positions: u8,
}

impl SubHistory for PredictorState {
    /// Seen from the other body the elongation and R = x₂ − x₁ change sign.
    fn reversed(&self) -> Self {
        PredictorState { xi: -self.xi, separation: -self.separation, earlier: -self.earlier, ..*self }
    }
    fn rotated(&self, q: DQuat) -> Self {
        PredictorState { xi: q * self.xi, separation: q * self.separation, earlier: q * self.earlier, ..*self }
    }
}

impl TangentialModel for PredictorElongation {
    type History = PredictorState;
    fn name(&self) -> &'static str {
        "predictor_elongation"
    }
    #[inline]
    fn tangential(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut PredictorState) -> ResistanceOut {
        let n = k.normal;
        let vt = k.relative_velocity - k.relative_velocity.dot(n) * n;
        let kt = self.stiffness.value(k.material, normal);
        let gt = self.damping.value(normal);
        let (ms, md) = self.friction.coefficients(k.material);
        let xi = SpringState { xi: h.xi, stiffness: h.stiffness }.in_plane(n, kt);
        let r = k.branch1 - k.branch2;
        let d = self.increment(k, r, h);
        let s = capped_spring_by(xi, d, vt, k.dt, kt, gt, ms * normal.load, md * normal.load);
        *h = PredictorState {
            xi: s.xi,
            stiffness: kt,
            separation: r,
            earlier: h.separation,
            previous_dt: k.dt,
            positions: (h.positions + 1).min(2),
        };
        ResistanceOut { value: s.force, stored: s.stored, dissipated: s.dissipated, sliding: s.sliding }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), MdError> {
        check_poisson("predictor_elongation", self.stiffness, material)?;
        self.friction.check_pair("predictor_elongation", material)
    }
}
