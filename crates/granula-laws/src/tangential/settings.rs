//! Settings shared by the tangential models: stiffness, damping and friction coefficients.

use crate::error::{non_negative, positive, LawError};
use crate::params::tangential_stiffness_ratio;
use crate::submodel::NormalState;
use glam::DVec3;
use granula_core::{ContactKinematics, PairMaterial};

/// How the tangential stiffness k_t is set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TangentialStiffness {
    /// k_t = 2(1 − ν)/(2 − ν) K_n (004 §2.2.1) with ν the pair's Poisson ratio and K_n the
    /// tangent normal stiffness; for Hertz this is Mindlin's 8 G* √(R* δ).
    FromNormal,
    /// k_t = ratio · K_n (002 uses k_t/k_n = 1/3).
    Ratio(f64),
    /// A fixed k_t (N/m).
    Fixed(f64),
}

impl TangentialStiffness {
    pub(crate) fn check(self, model: &'static str) -> Result<Self, LawError> {
        match self {
            TangentialStiffness::FromNormal => {}
            TangentialStiffness::Ratio(r) => {
                positive(model, "stiffness_ratio", r)?;
            }
            TangentialStiffness::Fixed(k) => {
                positive(model, "stiffness", k)?;
            }
        }
        Ok(self)
    }

    /// k_t for this pair and normal state.
    #[inline]
    pub fn value(self, material: &PairMaterial, normal: &NormalState) -> f64 {
        match self {
            TangentialStiffness::FromNormal => tangential_stiffness_ratio(material.poisson_ratio) * normal.stiffness,
            TangentialStiffness::Ratio(r) => r * normal.stiffness,
            TangentialStiffness::Fixed(k) => k,
        }
    }
}

/// How the tangential viscous coefficient γ_t is set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TangentialDamping {
    /// No tangential damping.
    None,
    /// γ_t = ratio · γ_n (002 takes γ_t/γ_n = k_t/k_n).
    Ratio(f64),
    /// The normal damping ratio in the tangential direction: γ_t = γ_n √(k_t/K_n), so that
    /// γ_t/(2√(m* k_t)) = γ_n/(2√(m* K_n)) (the tangential dashpot of the Tsuji-type
    /// Hertz-Mindlin law used by LIGGGHTS' hertz/history model, γ_t = 2√(5/6) β √(S_t m*)
    /// beside γ_n = 2√(5/6) β √(S_n m*)).
    SameDampingRatio,
}

impl TangentialDamping {
    pub(crate) fn check(self, model: &'static str) -> Result<Self, LawError> {
        if let TangentialDamping::Ratio(r) = self {
            non_negative(model, "damping_ratio", r)?;
        }
        Ok(self)
    }

    /// γ_t for this normal state and tangential stiffness `kt`.
    #[inline]
    pub fn value(self, normal: &NormalState, kt: f64) -> f64 {
        match self {
            TangentialDamping::None => 0.0,
            TangentialDamping::Ratio(r) => r * normal.damping,
            TangentialDamping::SameDampingRatio if normal.stiffness > 0.0 => {
                normal.damping * (kt / normal.stiffness).sqrt()
            }
            TangentialDamping::SameDampingRatio => 0.0,
        }
    }
}

/// Static and dynamic Coulomb friction coefficients, from the pair material (`None`) or
/// given. A contact sticks while |f_t| ≤ μ_s F and slides with |f_t| = μ_d F.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Friction {
    /// Static coefficient μ_s.
    pub static_friction: Option<f64>,
    /// Dynamic coefficient μ_d ≤ μ_s.
    pub dynamic_friction: Option<f64>,
}

impl Friction {
    /// Both coefficients from the pair material.
    pub fn from_material() -> Self {
        Friction::default()
    }

    /// Given coefficients 0 ≤ μ_d ≤ μ_s.
    pub fn new(static_friction: f64, dynamic_friction: f64) -> Result<Self, LawError> {
        non_negative("friction", "static_friction", static_friction)?;
        non_negative("friction", "dynamic_friction", dynamic_friction)?;
        if dynamic_friction > static_friction {
            return Err(LawError::InvalidParameter {
                model: "friction",
                param: "dynamic_friction",
                value: dynamic_friction,
                expected: "<= static_friction",
            });
        }
        Ok(Friction { static_friction: Some(static_friction), dynamic_friction: Some(dynamic_friction) })
    }

    /// (μ_s, μ_d) for this pair.
    #[inline]
    pub fn coefficients(&self, material: &PairMaterial) -> (f64, f64) {
        let s = self.static_friction.unwrap_or(material.friction);
        let d = self.dynamic_friction.unwrap_or(material.dynamic_friction).min(s);
        (s, d)
    }

    pub(crate) fn check_pair(&self, model: &'static str, material: &PairMaterial) -> Result<(), LawError> {
        let (s, d) = self.coefficients(material);
        for (field, v) in [("friction", s), ("dynamic_friction", d)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(LawError::UnsupportedPair { model, field, value: v, reason: "must be finite and >= 0" });
            }
        }
        Ok(())
    }
}

/// The settings every spring-based tangential model has (Cundall-Strack, Brendel-Dippel, the
/// predictor-based elongation), with their validation, pair checks, and what they give for
/// one contact and step. The models keep them as public fields of their own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SpringSettings {
    pub stiffness: TangentialStiffness,
    pub damping: TangentialDamping,
    pub friction: Friction,
}

/// The inputs of one spring step: the tangential relative velocity 𝒱_t = 𝒱 − (𝒱·n) n, k_t,
/// γ_t, and the static and dynamic Coulomb limits μ_s F, μ_d F.
pub(crate) struct SpringInputs {
    pub vt: DVec3,
    pub kt: f64,
    pub gt: f64,
    pub cap_static: f64,
    pub cap_dynamic: f64,
}

impl SpringSettings {
    /// k_t from K_n by 2(1 − ν)/(2 − ν), no tangential damping, friction from the material.
    pub fn from_material() -> Self {
        SpringSettings {
            stiffness: TangentialStiffness::FromNormal,
            damping: TangentialDamping::None,
            friction: Friction::from_material(),
        }
    }

    /// The settings after checking their domains; errors name `model`.
    pub fn checked(self, model: &'static str) -> Result<Self, LawError> {
        Ok(SpringSettings { stiffness: self.stiffness.check(model)?, damping: self.damping.check(model)?, ..self })
    }

    /// The pair checks: the Poisson ratio when k_t derives from it, and the friction values.
    pub fn check_pair(&self, model: &'static str, material: &PairMaterial) -> Result<(), LawError> {
        check_poisson(model, self.stiffness, material)?;
        self.friction.check_pair(model, material)
    }

    /// The inputs of this contact's spring step.
    #[inline(always)]
    pub fn inputs(&self, k: &ContactKinematics<'_>, normal: &NormalState) -> SpringInputs {
        let n = k.normal;
        let vt = k.relative_velocity - k.relative_velocity.dot(n) * n;
        let kt = self.stiffness.value(k.material, normal);
        let gt = self.damping.value(normal, kt);
        let (ms, md) = self.friction.coefficients(k.material);
        SpringInputs { vt, kt, gt, cap_static: ms * normal.load, cap_dynamic: md * normal.load }
    }
}

/// Checks the pair's Poisson ratio when k_t is derived from it.
pub(crate) fn check_poisson(model: &'static str, s: TangentialStiffness, m: &PairMaterial) -> Result<(), LawError> {
    if s == TangentialStiffness::FromNormal && !(m.poisson_ratio > -1.0 && m.poisson_ratio < 0.5) {
        return Err(LawError::UnsupportedPair {
            model,
            field: "poisson_ratio",
            value: m.poisson_ratio,
            reason: "k_t = 2(1 - nu)/(2 - nu) K_n needs nu in (-1, 0.5)",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_damping_ratio_scales_with_the_stiffness_ratio() {
        let normal = NormalState { load: 1.0, stiffness: 4e3, damping: 0.2, elastic: 1.0 };
        // γ_t = γ_n √(k_t/K_n) = 0.2 · √(1e3/4e3) = 0.1, exact in binary up to one rounding.
        assert!((TangentialDamping::SameDampingRatio.value(&normal, 1e3) - 0.1).abs() < 1e-16);
        // The two damping ratios γ/(2√(m k)) agree for any mass: γ_t² K_n = γ_n² k_t.
        let gt = TangentialDamping::SameDampingRatio.value(&normal, 2.5e3);
        assert!((gt * gt * 4e3 - 0.04 * 2.5e3).abs() < 1e-12);
        // No normal stiffness yet (first touch): no tangential damping rather than a NaN.
        let zero = NormalState { stiffness: 0.0, ..normal };
        assert_eq!(TangentialDamping::SameDampingRatio.value(&zero, 1e3), 0.0);
        assert_eq!(TangentialDamping::Ratio(0.5).value(&normal, 1e3), 0.1);
    }
}
