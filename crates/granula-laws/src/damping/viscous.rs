//! Viscous normal damping F_d = γ_n δ̇, with γ_n given or derived from the restitution
//! coefficient, the reduced mass and the current normal stiffness.

use super::clamped_calibration::{clamped_damping_ratio_memo, hertz_tsuji_collision, reduced_ratio, Spring};
use crate::error::{non_negative, restitution, LawError};
use crate::params::{damping_ratio_from_restitution, linear_clamped_collision, linear_restitution};
use crate::submodel::TensionPolicy;
use crate::submodel::{DampingModel, NormalDamping, NormalElastic};
use granula_core::{ContactKinematics, PairMaterial};

/// Kernel: γ_n = 2 c α_n √(m* K) with α_n = −ln e/√(π² + ln² e) the damping ratio of
/// restitution e (004 §2.2.1, 002 eq. 8 inverted). c = 1 for a linear spring of stiffness K
/// (exact restitution e); c = √(5/6) with K = 2E*√(R*δ) the Hertz tangent stiffness gives the
/// Tsuji / Antypov-Elliott damping γ_n = 2 √(5/6) β √(S_n m*), β = ln e/√(ln² e + π²), used by
/// LIGGGHTS' hertz model.
#[inline]
pub fn viscous_coefficient_from_restitution(e: f64, m_eff: f64, stiffness: f64, c: f64) -> f64 {
    2.0 * c * damping_ratio_from_restitution(e) * (m_eff * stiffness).sqrt()
}

/// How the viscous coefficient is set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DampingCoefficient {
    /// A fixed γ_n ≥ 0 (N s/m), 002 eq. 2 with γ_n = m_r ν.
    Fixed(f64),
    /// From the restitution coefficient: the pair material's (`None`) or this value (`Some`),
    /// through the damping ratio of the damped linear oscillator,
    /// α_n = −ln e/√(π² + ln² e) (004 §2.2.1, 002 eq. 8). The head-on restitution is e when
    /// the force may pull ([`TensionPolicy::AllowDampingTension`]); the no-attraction clamp
    /// raises it (0.5 gives 0.550 for the linear dashpot and for Hertz with Tsuji damping).
    FromRestitution(Option<f64>),
    /// From the restitution coefficient (`None`: the pair material's), with the damping
    /// ratio calibrated so that the head-on restitution under the no-attraction clamp
    /// ([`TensionPolicy::NoAttraction`], the default) is exactly e:
    /// [`hertz_tsuji_clamped_damping_ratio`](crate::damping::hertz_tsuji_clamped_damping_ratio)
    /// for [`HertzViscous`],
    /// [`linear_clamped_damping_ratio`](crate::damping::linear_clamped_damping_ratio) for
    /// [`LinearViscous`]. Computed once per restitution value and thread (a root find of
    /// under a millisecond), then read from a memo at the cost of the plain form. With
    /// tension allowed the same ratio gives a lower restitution.
    FromRestitutionClamped(Option<f64>),
}

impl DampingCoefficient {
    fn check(self, model: &'static str, spring: Spring) -> Result<Self, LawError> {
        match self {
            DampingCoefficient::Fixed(g) => {
                non_negative(model, "coefficient", g)?;
            }
            DampingCoefficient::FromRestitution(Some(e)) => {
                restitution(model, "restitution", e)?;
            }
            DampingCoefficient::FromRestitutionClamped(Some(e)) => {
                restitution(model, "restitution", e)?;
                reduced_ratio(spring, e)?;
            }
            DampingCoefficient::FromRestitution(None) | DampingCoefficient::FromRestitutionClamped(None) => {}
        }
        Ok(self)
    }

    #[inline]
    fn coefficient(self, material: &PairMaterial, m_eff: f64, stiffness: f64, spring: Spring) -> f64 {
        let c = match spring {
            Spring::Linear => 1.0,
            Spring::Hertz => TSUJI,
        };
        match self {
            DampingCoefficient::Fixed(g) => g,
            DampingCoefficient::FromRestitution(e) => {
                viscous_coefficient_from_restitution(e.unwrap_or(material.restitution), m_eff, stiffness, c)
            }
            DampingCoefficient::FromRestitutionClamped(e) => {
                let alpha = clamped_damping_ratio_memo(spring, e.unwrap_or(material.restitution));
                2.0 * c * alpha * (m_eff * stiffness).sqrt()
            }
        }
    }

    /// The requested restitution, if any, and whether its damping ratio is calibrated to
    /// the clamp; `None` for a fixed γ or a restitution outside (0, 1].
    /// The coefficient as γ_n = a √(m* K_n) + b for the batched kernel: (a, b), with a
    /// formed by the same products as in [`DampingCoefficient::coefficient`] (so that
    /// a √(m* K_n) is its value to the bit); `tsuji` for the Hertz factor.
    pub(crate) fn batch_factors(self, material: &PairMaterial, tsuji: bool) -> (f64, f64) {
        let (spring, c) = if tsuji { (Spring::Hertz, TSUJI) } else { (Spring::Linear, 1.0) };
        match self {
            DampingCoefficient::Fixed(g) => (0.0, g),
            DampingCoefficient::FromRestitution(e) => {
                (2.0 * c * damping_ratio_from_restitution(e.unwrap_or(material.restitution)), 0.0)
            }
            DampingCoefficient::FromRestitutionClamped(e) => {
                (2.0 * c * clamped_damping_ratio_memo(spring, e.unwrap_or(material.restitution)), 0.0)
            }
        }
    }
    fn requested(self, material: &PairMaterial) -> Option<(f64, bool)> {
        let (e, clamped) = match self {
            DampingCoefficient::Fixed(_) => return None,
            DampingCoefficient::FromRestitution(e) => (e.unwrap_or(material.restitution), false),
            DampingCoefficient::FromRestitutionClamped(e) => (e.unwrap_or(material.restitution), true),
        };
        (e > 0.0 && e <= 1.0).then_some((e, clamped))
    }

    /// The damping ratio α_n and whether it is calibrated to the clamp.
    fn ratio(self, material: &PairMaterial, spring: Spring) -> Option<(f64, bool)> {
        let (e, clamped) = self.requested(material)?;
        let alpha = if clamped { reduced_ratio(spring, e).ok()? } else { damping_ratio_from_restitution(e) };
        Some((alpha, clamped))
    }

    fn check_pair(self, model: &'static str, material: &PairMaterial, spring: Spring) -> Result<(), LawError> {
        let clamped = match self {
            DampingCoefficient::FromRestitution(None) => false,
            DampingCoefficient::FromRestitutionClamped(None) => true,
            _ => return Ok(()),
        };
        let e = material.restitution;
        if !(e > 0.0 && e <= 1.0) {
            return Err(LawError::UnsupportedPair {
                model,
                field: "restitution",
                value: e,
                reason: "the pair's restitution must lie in (0, 1]",
            });
        }
        if clamped && clamped_damping_ratio_memo(spring, e).is_nan() {
            return Err(LawError::UnsupportedPair {
                model,
                field: "restitution",
                value: e,
                reason: "no damping ratio up to 128 gives it under the clamp (e > ~1.5e-5)",
            });
        }
        Ok(())
    }
}

/// Viscous damping for a linear spring: F_d = γ_n δ̇ with γ_n fixed or
/// γ_n = 2 α_n √(m* k_n) from restitution (002 eq. 8; 004 critical damping 2√(m_eff K_n)).
/// With a linear spring the restitution is exactly e (attraction allowed) or
/// [`linear_clamped_collision`](crate::params::linear_clamped_collision) (clamped).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearViscous {
    coefficient: DampingCoefficient,
}

impl LinearViscous {
    /// Damping set by `coefficient`; errors for γ < 0 or e outside (0, 1].
    pub fn new(coefficient: DampingCoefficient) -> Result<Self, LawError> {
        Ok(LinearViscous { coefficient: coefficient.check("linear_viscous", Spring::Linear)? })
    }

    /// Damping from the pair material's restitution.
    pub fn from_material() -> Self {
        LinearViscous { coefficient: DampingCoefficient::FromRestitution(None) }
    }

    /// The setting.
    pub fn coefficient(&self) -> DampingCoefficient {
        self.coefficient
    }
}

impl DampingModel for LinearViscous {
    type History = ();
    fn name(&self) -> &'static str {
        "linear_viscous"
    }
    #[inline]
    fn damping(&self, k: &ContactKinematics<'_>, rate: f64, el: &NormalElastic, _: &mut ()) -> NormalDamping {
        let g = self.coefficient.coefficient(k.material, k.effective_mass, el.stiffness, Spring::Linear);
        NormalDamping { force: g * rate, coefficient: g }
    }
    /// The head-on restitution this dashpot gives with a linear spring (γ scales with
    /// √(m* k), so it depends on e only): from [`DampingCoefficient::FromRestitution`], e
    /// with tension allowed (002 eq. 8) and the closed form of [`linear_clamped_collision`]
    /// under the clamp; from [`DampingCoefficient::FromRestitutionClamped`], e under the
    /// clamp and exp(−πα/√(1 − α²)) of the calibrated α with tension allowed (0 when
    /// over-damped). None for a fixed γ (the restitution then depends on m* and k).
    fn claimed_restitution(&self, material: &PairMaterial, tension: TensionPolicy) -> Option<f64> {
        let (alpha, clamped) = self.coefficient.ratio(material, Spring::Linear)?;
        match (tension, clamped) {
            (TensionPolicy::NoAttraction, true) | (TensionPolicy::AllowDampingTension, false) => {
                self.coefficient.requested(material).map(|(e, _)| e)
            }
            (TensionPolicy::NoAttraction, false) => Some(linear_clamped_collision(1.0, 2.0 * alpha, 1.0).0),
            (TensionPolicy::AllowDampingTension, true) => Some(linear_restitution(1.0, 2.0 * alpha, 1.0)),
        }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        self.coefficient.check_pair("linear_viscous", material, Spring::Linear)
    }
    fn batch_form(&self) -> Option<crate::batched::DampingBatch> {
        Some(crate::batched::DampingBatch { coefficient: self.coefficient, tsuji: false })
    }
}

/// Viscous damping for Hertz contacts (Tsuji 1992 / Antypov & Elliott 2011 form):
/// F_d = γ_n δ̇ with γ_n = 2 √(5/6) α_n √(m* S_n), S_n = dF_e/dδ the Hertz tangent
/// stiffness, α_n the damping ratio of restitution e (004 §2.2.1: "for Hertz law, same
/// results with a varying K_n"). The resulting restitution does not depend on the impact
/// speed. With [`DampingCoefficient::FromRestitution`] it is e when the force may pull (the
/// reduced impact has the linear dashpot's restitution) and higher under the no-attraction
/// clamp (0.5503 for 0.5); with
/// [`DampingCoefficient::FromRestitutionClamped`] α_n is calibrated so that it is e under
/// the clamp ([`hertz_tsuji_collision`] gives the value for any α_n and policy).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HertzViscous {
    coefficient: DampingCoefficient,
}

/// √(5/6), the Tsuji factor.
const TSUJI: f64 = 0.912_870_929_175_276_9;

impl HertzViscous {
    /// Damping set by `coefficient`.
    pub fn new(coefficient: DampingCoefficient) -> Result<Self, LawError> {
        Ok(HertzViscous { coefficient: coefficient.check("hertz_viscous", Spring::Hertz)? })
    }

    /// Damping from the pair material's restitution, α_n of the damped linear oscillator
    /// ([`DampingCoefficient::FromRestitution`]`(None)`, the form of LIGGGHTS' hertz model).
    pub fn from_material() -> Self {
        HertzViscous { coefficient: DampingCoefficient::FromRestitution(None) }
    }

    /// Damping from the pair material's restitution with α_n calibrated to the no-attraction
    /// clamp ([`DampingCoefficient::FromRestitutionClamped`]`(None)`): the head-on
    /// restitution of a clamped Hertz contact is the material's.
    pub fn calibrated_from_material() -> Self {
        HertzViscous { coefficient: DampingCoefficient::FromRestitutionClamped(None) }
    }

    /// The setting.
    pub fn coefficient(&self) -> DampingCoefficient {
        self.coefficient
    }
}

impl DampingModel for HertzViscous {
    type History = ();
    fn name(&self) -> &'static str {
        "hertz_viscous"
    }
    #[inline]
    fn damping(&self, k: &ContactKinematics<'_>, rate: f64, el: &NormalElastic, _: &mut ()) -> NormalDamping {
        let g = self.coefficient.coefficient(k.material, k.effective_mass, el.stiffness, Spring::Hertz);
        NormalDamping { force: g * rate, coefficient: g }
    }
    /// The head-on restitution this damping gives with a Hertz spring F_e ∝ δ^{3/2}
    /// ([`Hertz`](crate::Hertz) or [`HertzLmgc`](crate::HertzLmgc); with another normal model
    /// the claim does not hold): e itself for [`DampingCoefficient::FromRestitutionClamped`]
    /// under the clamp, otherwise the reduced collision
    /// [`hertz_tsuji_collision`](crate::damping::hertz_tsuji_collision) of its damping ratio
    /// (e.g. e with tension allowed and 0.5503 clamped for a plain 0.5). None for a fixed γ.
    fn claimed_restitution(&self, material: &PairMaterial, tension: TensionPolicy) -> Option<f64> {
        let (alpha, clamped) = self.coefficient.ratio(material, Spring::Hertz)?;
        if clamped && tension == TensionPolicy::NoAttraction {
            return self.coefficient.requested(material).map(|(e, _)| e);
        }
        hertz_tsuji_collision(alpha, tension).ok().map(|c| c.restitution)
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        self.coefficient.check_pair("hertz_viscous", material, Spring::Hertz)
    }
    fn batch_form(&self) -> Option<crate::batched::DampingBatch> {
        Some(crate::batched::DampingBatch { coefficient: self.coefficient, tsuji: true })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficient_hand_values() {
        // e = 1 → no damping.
        assert_eq!(viscous_coefficient_from_restitution(1.0, 0.1, 1e4, 1.0), 0.0);
        // e = exp(−π) → α = π/√(2π²) = 1/√2; γ = 2/√2 √(0.01·1e4) = √2 · 10 = 14.142136.
        let g = viscous_coefficient_from_restitution((-std::f64::consts::PI).exp(), 0.01, 1e4, 1.0);
        // ln(exp(−π)) round trip: relative error a few ulps.
        assert!((g - 14.142_135_623_730_95).abs() < 1e-10);
    }

    #[test]
    fn bad_input() {
        assert!(LinearViscous::new(DampingCoefficient::Fixed(-1.0)).is_err());
        assert!(LinearViscous::new(DampingCoefficient::FromRestitution(Some(0.0))).is_err());
        assert!(HertzViscous::new(DampingCoefficient::FromRestitution(Some(1.2))).is_err());
        let mut m = granula_core::PairMaterial::mix(&Default::default(), &Default::default());
        m.restitution = 2.0;
        assert!(matches!(
            LinearViscous::from_material().check_pair(&m),
            Err(LawError::UnsupportedPair { field: "restitution", .. })
        ));
    }
}
