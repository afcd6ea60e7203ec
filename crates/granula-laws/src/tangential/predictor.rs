//! The predictor-based tangential elongation (002 eqs. 14-15).

use super::settings::{Friction, SpringInputs, SpringSettings, TangentialDamping, TangentialStiffness};
use super::spring::{capped_spring_by, SpringState};
use crate::error::LawError;
use crate::history::SubHistory;
use crate::submodel::{NormalState, ResistanceOut, TangentialModel};
use glam::{DQuat, DVec3};
use granula_core::{rotation_quat, rotation_vector, ContactKinematics, PairMaterial};

/// Where the rotational part of the elongation increment (002 eq. 15) comes from.
///
/// A [`ContactKinematics`] carries the relative velocity 𝒱 = v₂ + ω₂×l₂ − v₁ − ω₁×l₁ at the
/// evaluation (the predicted one under a Gear integrator), the relative spin ω₂ − ω₁, the
/// branch vectors and each body's rotation θ₁, θ₂ since the previous evaluation (the MD
/// solver measures them from the orientations; a caller that does not track them passes
/// zero). [`RotationalIncrement::FromOrientations`] uses the rotations and is the faithful
/// eq. 15; the two other modes predate them and are kept for comparison.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RotationalIncrement {
    /// No rotational part: the increment is the translational one of 002 eq. 14 alone,
    /// exact (to round-off) for any motion of the centres. Correct only when the bodies of
    /// the contact do not rotate (rotations locked, as in 002's translation-only test and
    /// the two-disc relaxation of VALIDATION M5); with rotating bodies the slip
    /// ω₂×l₂ − ω₁×l₁ is ignored by the spring (the dashpot still sees it through 𝒱) and
    /// the spring's force works on the spins without storing energy.
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
    /// velocity the residual is O(Δt) per step again. Needs no rotation increments.
    VelocityResidual,
    /// 002 eq. 15 from the bodies' rotations θ₁, θ₂ since the previous evaluation
    /// ([`ContactKinematics::rotation1`], `rotation2`), composed exactly with the turn of the
    /// contact normal (see [`PredictorElongation`]): for discs and spheres, exact (to
    /// round-off) for a rigid motion of the pair (no stretch), for a body spinning about a
    /// fixed centre (the arc θa of eq. 15) and for rolling about a fixed body (no slip).
    #[default]
    FromOrientations,
}

/// Predictor-based elongation: ξ(t+Δt) = ξ(t) + [(Rᵖ(t+Δt) − Rᵖ(t)) + Δξ_rot]_t with
/// R = x₂ − x₁ = l₁ − l₂ the centre-to-centre vector at consecutive force evaluations (under
/// the Gear integrator these are the predictor-step coordinates, 002 eq. 14), projected on
/// the current tangent plane, and the rotational part Δξ_rot chosen by
/// [`RotationalIncrement`] (002 eq. 15). The stored ξ is first rotated into the current
/// tangent plane, and the force f_t = −k_t ξ − γ_t 𝒱_t is capped at μ_s F (stick) / μ_d F
/// with ξ at its extreme value (slide) exactly as in [`CundallStrack`](super::CundallStrack),
/// whose settings it shares; only the increment differs (002 eq. 7 uses 𝒱_t Δt).
///
/// **[`RotationalIncrement::FromOrientations`]** (002 eq. 15, ξ_j += (θ_jᵖ(t+Δt) − θ_j(t)) a_j
/// per particle, in 3D the displacement θ_k × l_k of body k's contact point). Taken
/// literally, eq. 14's chord ΔR·t̂ and eq. 15's arc θa disagree at O(θ³) per step: a glued
/// pair turning rigidly by φ would stretch its spring by |R|(φ − sin φ). The increment is
/// therefore written as the rotation of each body *relative to the contact frame*: with N
/// the smallest rotation taking the previous normal n₀ to n, Q_k = exp(θ_k) and
/// φ_k = log(Q_k N⁻¹) (world frame),
///
/// Δξ = [(R − N R₀) + φ₂ × l₂ − φ₁ × l₁]_t.
///
/// To first order φ_k = θ_k − ψ (ψ the turn of n) and ψ × (l₁ − l₂) = ψ × R is ΔR_t, so
/// this is eqs. 14 + 15 with weight 1; for spheres (R ∥ n) the first term is normal and
/// drops, and a rigid motion (Q₁ = Q₂ = N × twist about n₀) gives φ_k ∥ n, hence Δξ = 0 to
/// round-off; a disc spinning by θ about a fixed centre gets θ × l (eq. 15 exactly); a
/// disc rolling on a fixed one (planar) gets (a₁ + a₂)Δα − a₂Δθ₂, zero for pure rolling.
/// For non-spherical shapes (R not along n) a twist about n is handled to O(θ³) per step.
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
///   Likewise eq. 15 is particle j's share; the contact takes both bodies' rotations.
///
/// An earlier version of the repository's two-disc relaxation example applied the factor as
/// printed with its own law and found the same relaxation time as this type, because there
/// t_R is set by the tangential damping (an underdamped mode's energy decays at γ_t/m
/// whatever k_t), so the factor does not show in that test.
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
    ) -> Result<Self, LawError> {
        Ok(Self::from_settings(
            SpringSettings { stiffness, damping, friction }.checked("predictor_elongation")?,
            rotation,
        ))
    }

    /// k_t from K_n by 2(1 − ν)/(2 − ν), no tangential damping, friction from the material.
    pub fn from_material(rotation: RotationalIncrement) -> Self {
        Self::from_settings(SpringSettings::from_material(), rotation)
    }

    fn from_settings(s: SpringSettings, rotation: RotationalIncrement) -> Self {
        PredictorElongation { stiffness: s.stiffness, damping: s.damping, friction: s.friction, rotation }
    }

    #[inline(always)]
    fn settings(&self) -> SpringSettings {
        SpringSettings { stiffness: self.stiffness, damping: self.damping, friction: self.friction }
    }

    /// The increment of ξ for this evaluation, in the tangent plane of `k.normal`.
    #[inline]
    fn increment(&self, k: &ContactKinematics<'_>, r: DVec3, h: &PredictorState, frame: Option<DQuat>) -> DVec3 {
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
            RotationalIncrement::FromOrientations => {
                // N: the smallest rotation n₀ → n; φ_k = log(exp(θ_k) N⁻¹).
                let frame = frame.unwrap_or_else(|| DQuat::from_rotation_arc(h.normal, k.normal));
                let back = frame.conjugate();
                let phi1 = rotation_vector(rotation_quat(k.rotation1) * back);
                let phi2 = rotation_vector(rotation_quat(k.rotation2) * back);
                (r - frame * h.separation) + phi2.cross(k.branch2) - phi1.cross(k.branch1)
            }
        };
        let n = k.normal;
        d - d.dot(n) * n
    }
}

/// History of [`PredictorElongation`]: the spring, the centre-to-centre vectors at the
/// last two evaluations and the normal at the last one.
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
    /// The unit normal at the last evaluation (zero before the first).
    pub normal: DVec3,
}

impl SubHistory for PredictorState {
    /// Seen from the other body the elongation, R = x₂ − x₁ and the normal change sign.
    fn reversed(&self) -> Self {
        PredictorState {
            xi: -self.xi,
            separation: -self.separation,
            earlier: -self.earlier,
            normal: -self.normal,
            ..*self
        }
    }
    fn rotated(&self, q: DQuat) -> Self {
        PredictorState {
            xi: q * self.xi,
            separation: q * self.separation,
            earlier: q * self.earlier,
            normal: q * self.normal,
            ..*self
        }
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
        let SpringInputs { vt, kt, gt, cap_static, cap_dynamic } = self.settings().inputs(k, normal);
        // FromOrientations carries ξ with the contact frame, N ξ (N: n₀ → n), before the
        // projection (which then only removes round-off); the other modes project and
        // rescale, which is O(|Δn|²) per step off when ξ has a component along n₀ × n.
        let frame = (self.rotation == RotationalIncrement::FromOrientations && h.positions > 0)
            .then(|| DQuat::from_rotation_arc(h.normal, n));
        let carried = frame.map_or(h.xi, |f| f * h.xi);
        let xi = SpringState { xi: carried, stiffness: h.stiffness }.in_plane(n, kt);
        let r = k.branch1 - k.branch2;
        let d = self.increment(k, r, h, frame);
        let s = capped_spring_by(xi, d, vt, k.dt, kt, gt, cap_static, cap_dynamic);
        *h = PredictorState {
            xi: s.xi,
            stiffness: kt,
            separation: r,
            earlier: h.separation,
            previous_dt: k.dt,
            positions: (h.positions + 1).min(2),
            normal: n,
        };
        ResistanceOut { value: s.force, stored: s.stored, dissipated: s.dissipated, sliding: s.sliding }
    }
    fn uses_rotations(&self) -> bool {
        self.rotation == RotationalIncrement::FromOrientations
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        self.settings().check_pair("predictor_elongation", material)
    }
}
