//! Viscous normal damping F_d = γ_n δ̇, with γ_n given or derived from the restitution
//! coefficient, the reduced mass and the current normal stiffness.

use crate::composed::TensionPolicy;
use crate::error::{non_negative, restitution, MdError};
use crate::params::{damping_ratio_from_restitution, linear_clamped_collision};
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
    /// From the restitution coefficient: the pair material's (`None`) or this value (`Some`).
    FromRestitution(Option<f64>),
}

impl DampingCoefficient {
    fn check(self, model: &'static str) -> Result<Self, MdError> {
        match self {
            DampingCoefficient::Fixed(g) => {
                non_negative(model, "coefficient", g)?;
            }
            DampingCoefficient::FromRestitution(Some(e)) => {
                restitution(model, "restitution", e)?;
            }
            DampingCoefficient::FromRestitution(None) => {}
        }
        Ok(self)
    }

    #[inline]
    fn coefficient(self, material: &PairMaterial, m_eff: f64, stiffness: f64, c: f64) -> f64 {
        match self {
            DampingCoefficient::Fixed(g) => g,
            DampingCoefficient::FromRestitution(e) => {
                viscous_coefficient_from_restitution(e.unwrap_or(material.restitution), m_eff, stiffness, c)
            }
        }
    }

    fn claimed(self, material: &PairMaterial) -> Option<f64> {
        match self {
            DampingCoefficient::Fixed(_) => None,
            DampingCoefficient::FromRestitution(e) => Some(e.unwrap_or(material.restitution)),
        }
    }

    fn check_pair(self, model: &'static str, material: &PairMaterial) -> Result<(), MdError> {
        if let DampingCoefficient::FromRestitution(None) = self {
            let e = material.restitution;
            if !(e > 0.0 && e <= 1.0) {
                return Err(MdError::UnsupportedPair {
                    model,
                    field: "restitution",
                    value: e,
                    reason: "the pair's restitution must lie in (0, 1]",
                });
            }
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
    pub fn new(coefficient: DampingCoefficient) -> Result<Self, MdError> {
        Ok(LinearViscous { coefficient: coefficient.check("linear_viscous")? })
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
        let g = self.coefficient.coefficient(k.material, k.effective_mass, el.stiffness, 1.0);
        NormalDamping { force: g * rate, coefficient: g }
    }
    /// e with tension allowed (002 eq. 8); with the no-attraction clamp the closed form of
    /// [`linear_clamped_collision`], which depends on e only (γ scales with √(m* k)).
    /// None for a fixed γ (the restitution then depends on m* and k).
    fn claimed_restitution(&self, material: &PairMaterial, tension: TensionPolicy) -> Option<f64> {
        let e = self.coefficient.claimed(material)?;
        match tension {
            TensionPolicy::AllowDampingTension => Some(e),
            TensionPolicy::NoAttraction => {
                Some(linear_clamped_collision(1.0, 2.0 * damping_ratio_from_restitution(e), 1.0).0)
            }
        }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), MdError> {
        self.coefficient.check_pair("linear_viscous", material)
    }
}

/// Viscous damping for Hertz contacts (Tsuji 1992 / Antypov & Elliott 2011 form):
/// F_d = γ_n δ̇ with γ_n = 2 √(5/6) α_n √(m* S_n), S_n = dF_e/dδ the Hertz tangent
/// stiffness, α_n the damping ratio of restitution e (004 §2.2.1: "for Hertz law, same
/// results with a varying K_n"). The resulting restitution does not depend on the impact
/// speed; it is close to e (the conformance tests state the measured deviation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HertzViscous {
    coefficient: DampingCoefficient,
}

/// √(5/6), the Tsuji factor.
const TSUJI: f64 = 0.912_870_929_175_276_9;

impl HertzViscous {
    /// Damping set by `coefficient`.
    pub fn new(coefficient: DampingCoefficient) -> Result<Self, MdError> {
        Ok(HertzViscous { coefficient: coefficient.check("hertz_viscous")? })
    }

    /// Damping from the pair material's restitution.
    pub fn from_material() -> Self {
        HertzViscous { coefficient: DampingCoefficient::FromRestitution(None) }
    }
}

impl DampingModel for HertzViscous {
    type History = ();
    fn name(&self) -> &'static str {
        "hertz_viscous"
    }
    #[inline]
    fn damping(&self, k: &ContactKinematics<'_>, rate: f64, el: &NormalElastic, _: &mut ()) -> NormalDamping {
        let g = self.coefficient.coefficient(k.material, k.effective_mass, el.stiffness, TSUJI);
        NormalDamping { force: g * rate, coefficient: g }
    }
    /// e with tension allowed (measured 0.4997 for 0.5); none under the no-attraction clamp,
    /// which raises it (measured 0.550 for 0.5) and has no closed form for Hertz.
    fn claimed_restitution(&self, material: &PairMaterial, tension: TensionPolicy) -> Option<f64> {
        match tension {
            TensionPolicy::AllowDampingTension => self.coefficient.claimed(material),
            TensionPolicy::NoAttraction => None,
        }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), MdError> {
        self.coefficient.check_pair("hertz_viscous", material)
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
            Err(MdError::UnsupportedPair { field: "restitution", .. })
        ));
    }
}
