//! Hertz elastic normal force, in the E*, R* form and in the form of the LMGC90 notes (004).

use crate::error::{positive, LawError};
use crate::params::hertz_contact_time;
use crate::submodel::{NormalElastic, NormalModel};
use granula_core::{ContactKinematics, PairMaterial};

/// Kernel: Hertz force F_e = c δ^{3/2} with c = 4/3 E* √R*, tangent stiffness
/// 3/2 c δ^{1/2} = 2 E* √(R* δ), stored energy 2/5 c δ^{5/2} (Hertz theory; 004 §2.2.1).
#[inline]
pub fn hertz_force(c: f64, delta: f64) -> NormalElastic {
    let sq = delta.sqrt();
    let f = c * delta * sq;
    NormalElastic { force: f, stiffness: 1.5 * c * sq, stored: 0.4 * f * delta }
}

/// Kernel: the secant Hertz stiffness of the LMGC90 notes,
/// K_n = E √(2 r_eff δ) / (3 (1 − ν²)) (004 §2.2.1), so that F_e = K_n δ.
#[inline]
pub fn hertz_lmgc_stiffness(young: f64, poisson: f64, r_eff: f64, delta: f64) -> f64 {
    young * (2.0 * r_eff * delta).sqrt() / (3.0 * (1.0 - poisson * poisson))
}

/// Hertz contact of two elastic spheres: F_e = 4/3 E* √R* δ^{3/2}.
///
/// E* is the pair's effective modulus (1/E* = Σ (1 − νᵢ²)/Eᵢ, see the mixing rule in
/// `granula_core::material`), taken from the material unless given explicitly.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hertz {
    effective_young: Option<f64>,
}

impl Hertz {
    /// E* from the pair material.
    pub fn from_material() -> Self {
        Hertz { effective_young: None }
    }

    /// An explicit effective modulus E* > 0 (Pa) for every pair.
    pub fn with_effective_young(e_star: f64) -> Result<Self, LawError> {
        Ok(Hertz { effective_young: Some(positive("hertz", "effective_young", e_star)?) })
    }

    /// E* for this pair (Pa).
    #[inline]
    pub fn e_star(&self, material: &PairMaterial) -> f64 {
        self.effective_young.unwrap_or(material.effective_young)
    }
}

impl NormalModel for Hertz {
    fn name(&self) -> &'static str {
        "hertz"
    }
    /// [`hertz_force`] with c = 4/3 E* √R*, written with the single root a = √(R* δ):
    /// F = 4/3 E* a δ, K_n = 2 E* a, stored 8/15 E* a δ².
    #[inline(always)]
    fn elastic(&self, k: &ContactKinematics<'_>) -> NormalElastic {
        let e = self.e_star(k.material);
        let d = k.overlap;
        let a = (k.effective_radius * d).sqrt();
        let f = 4.0 / 3.0 * e * a * d;
        NormalElastic { force: f, stiffness: 2.0 * e * a, stored: 0.4 * f * d }
    }
    /// t_c = 2.868 (m*² / (R* E*² v))^{1/5} (VALIDATION M2; exact constant, see
    /// [`hertz_contact_time`]).
    fn contact_time(&self, material: &PairMaterial, m_eff: f64, r_eff: f64, v: f64) -> f64 {
        hertz_contact_time(self.e_star(material), r_eff, m_eff, v)
    }
    fn check_pair(&self, material: &PairMaterial, r_eff: f64, m_eff: f64) -> Result<(), LawError> {
        check_hertz_pair("hertz", self.e_star(material), "effective_young", r_eff, m_eff)
    }
    fn batch_form(&self) -> Option<crate::batched::NormalBatch> {
        Some(crate::batched::NormalBatch::Hertz { effective_young: self.effective_young })
    }
}

/// The Hertz law written as in the LMGC90 notes (004 §2.2.1): F_e = K_n δ with the secant
/// stiffness K_n = E √(2 r_eff δ) / (3 (1 − ν²)).
///
/// With E and ν not given, the material's E* is used through E/(1 − ν²) = 2 E*, which holds
/// for two bodies of the same material. Note that this form is 1/√2 times the E*, R* form
/// [`Hertz`] for the same E* and R*: the two are different calibrations of the prefactor,
/// kept both because the notes use this one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HertzLmgc {
    young: Option<f64>,
    poisson: Option<f64>,
}

impl HertzLmgc {
    /// E/(1 − ν²) from the material (as 2 E*).
    pub fn from_material() -> Self {
        HertzLmgc { young: None, poisson: None }
    }

    /// Explicit Young's modulus E > 0 (Pa) and Poisson's ratio ν in (−1, 0.5).
    pub fn new(young: f64, poisson: f64) -> Result<Self, LawError> {
        positive("hertz_lmgc", "young", young)?;
        if !(poisson > -1.0 && poisson < 0.5) {
            return Err(LawError::InvalidParameter {
                model: "hertz_lmgc",
                param: "poisson",
                value: poisson,
                expected: "in (-1, 0.5)",
            });
        }
        Ok(HertzLmgc { young: Some(young), poisson: Some(poisson) })
    }

    /// E/(1 − ν²) for this pair (Pa).
    #[inline]
    fn plane_modulus(&self, material: &PairMaterial) -> f64 {
        match (self.young, self.poisson) {
            (Some(e), Some(nu)) => e / (1.0 - nu * nu),
            _ => 2.0 * material.effective_young,
        }
    }

    /// The prefactor c of F_e = c δ^{3/2}: c = E √(2 r_eff) / (3 (1 − ν²)).
    #[inline]
    fn prefactor(&self, material: &PairMaterial, r_eff: f64) -> f64 {
        self.plane_modulus(material) * (2.0 * r_eff).sqrt() / 3.0
    }
}

impl NormalModel for HertzLmgc {
    fn name(&self) -> &'static str {
        "hertz_lmgc"
    }
    #[inline]
    fn elastic(&self, k: &ContactKinematics<'_>) -> NormalElastic {
        hertz_force(self.prefactor(k.material, k.effective_radius), k.overlap)
    }
    /// The Hertz duration with E*√R* replaced by 3c/4.
    fn contact_time(&self, material: &PairMaterial, m_eff: f64, r_eff: f64, v: f64) -> f64 {
        let c = self.prefactor(material, r_eff);
        // Same law as Hertz with E* √R* = 3c/4: pass R* = 1 and E* = 3c/4.
        hertz_contact_time(0.75 * c, 1.0, m_eff, v)
    }
    fn check_pair(&self, material: &PairMaterial, r_eff: f64, m_eff: f64) -> Result<(), LawError> {
        check_hertz_pair("hertz_lmgc", self.plane_modulus(material), "young_modulus", r_eff, m_eff)
    }
}

/// Shared pair checks of the Hertz forms.
fn check_hertz_pair(
    model: &'static str,
    modulus: f64,
    field: &'static str,
    r_eff: f64,
    m_eff: f64,
) -> Result<(), LawError> {
    if !(modulus.is_finite() && modulus > 0.0) {
        return Err(LawError::UnsupportedPair { model, field, value: modulus, reason: "must be finite and > 0" });
    }
    if !(r_eff.is_finite() && r_eff > 0.0) {
        return Err(LawError::UnsupportedPair {
            model,
            field: "effective_radius",
            value: r_eff,
            reason: "Hertz needs a finite curvature (no flat-flat contact)",
        });
    }
    super::require_finite_mass(model, m_eff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hertz_hand_values() {
        // E* = 1e7 Pa, R* = 4e-3 m, δ = 1e-5 m: c = 4/3 · 1e7 · 0.0632456 = 843274.0 N/m^1.5,
        // F = c δ^1.5 = 843274.0 · 3.16228e-8 = 0.0266667 N (= 4/3 E* √(R*) δ^1.5 by hand).
        let c = 4.0 / 3.0 * 1e7 * 4e-3f64.sqrt();
        let f = hertz_force(c, 1e-5);
        // Hand value to 6 significant digits.
        assert!((f.force - 0.0266667).abs() < 1e-7);
        // Tangent stiffness 2 E* √(R* δ) = 2e7 · 2e-4 = 4000 N/m exactly up to round-off.
        assert!((f.stiffness - 4000.0).abs() < 1e-9);
        // Stored 2/5 F δ = 1.066667e-7 J.
        assert!((f.stored - 1.066667e-7).abs() < 1e-12);
    }

    #[test]
    fn single_root_form_equals_the_kernel() {
        let m = granula_core::PairMaterial::mix(&Default::default(), &Default::default());
        let k = ContactKinematics {
            normal: glam::DVec3::X,
            overlap: 3e-6,
            relative_velocity: glam::DVec3::ZERO,
            relative_angular_velocity: glam::DVec3::ZERO,
            branch1: glam::DVec3::X,
            branch2: -glam::DVec3::X,
            effective_radius: 7e-4,
            effective_mass: 1e-5,
            material: &m,
            pair: &(),
            dt: 1e-6,
            rotation1: glam::DVec3::ZERO,
            rotation2: glam::DVec3::ZERO,
            overlap_volume: 0.0,
        };
        let a = Hertz::from_material().elastic(&k);
        let b = hertz_force(4.0 / 3.0 * m.effective_young * 7e-4f64.sqrt(), 3e-6);
        // Same algebra, different rounding order: a few ulps.
        assert!((a.force / b.force - 1.0).abs() < 1e-14);
        assert!((a.stiffness / b.stiffness - 1.0).abs() < 1e-14);
        assert!((a.stored / b.stored - 1.0).abs() < 1e-14);
    }

    #[test]
    fn lmgc_stiffness_hand_value_m8() {
        // K_n = E √(2 r δ) / (3 (1 − ν²)), E = 1e7, ν = 0.3, r = 5e-3, δ = 1e-4:
        // √(1e-6) = 1e-3, 1 − 0.09 = 0.91 → K_n = 1e4 / 2.73 = 3663.0037 N/m.
        let k = hertz_lmgc_stiffness(1e7, 0.3, 5e-3, 1e-4);
        // Hand value to 8 significant digits.
        assert!((k - 3663.0037).abs() < 1e-4);
        // The law built from (E, ν) gives F = K_n δ.
        let law = HertzLmgc::new(1e7, 0.3).unwrap();
        let c = law.prefactor(&granula_core::PairMaterial::mix(&Default::default(), &Default::default()), 5e-3);
        let f = hertz_force(c, 1e-4);
        // Same product computed in another order: round-off only.
        assert!((f.force - k * 1e-4).abs() < 1e-12);
    }

    #[test]
    fn bad_input_is_named() {
        assert!(matches!(Hertz::with_effective_young(-5.0), Err(LawError::InvalidParameter { .. })));
        assert!(matches!(HertzLmgc::new(1e7, 0.7), Err(LawError::InvalidParameter { param: "poisson", .. })));
        let m = granula_core::PairMaterial::mix(&Default::default(), &Default::default());
        let err = Hertz::from_material().check_pair(&m, f64::INFINITY, 1.0).unwrap_err();
        assert!(matches!(err, LawError::UnsupportedPair { field: "effective_radius", .. }));
    }
}
