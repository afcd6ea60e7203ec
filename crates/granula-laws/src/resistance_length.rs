//! The coefficient of rolling and torsion friction, a length (001 eqs. 1.40-1.42).

use crate::error::{non_negative, LawError};

/// Coefficient μ_r (rolling) or μ_w (torsion) of |T| ≤ μ F_n, of dimension length
/// (001 eq. 1.40).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ResistanceLength {
    /// The pair material's `rolling_friction` (rolling) or `torsion_friction` (twisting).
    FromMaterial,
    /// A given length (m).
    Length(f64),
    /// μ = r* μ̄ with a dimensionless μ̄ and the reduced radius r* = r₁r₂/(r₁ + r₂)
    /// (001 eqs. 1.41-1.42).
    PerReducedRadius(f64),
}

impl ResistanceLength {
    pub(crate) fn check(self, model: &'static str) -> Result<Self, LawError> {
        match self {
            ResistanceLength::FromMaterial => {}
            ResistanceLength::Length(l) => {
                non_negative(model, "length", l)?;
            }
            ResistanceLength::PerReducedRadius(m) => {
                non_negative(model, "mu_bar", m)?;
            }
        }
        Ok(self)
    }

    /// The length for this pair; `material_value` is the material's coefficient.
    #[inline]
    pub fn value(self, material_value: f64, r_eff: f64) -> f64 {
        match self {
            ResistanceLength::FromMaterial => material_value,
            ResistanceLength::Length(l) => l,
            ResistanceLength::PerReducedRadius(m) => m * r_eff,
        }
    }

    pub(crate) fn check_pair(self, model: &'static str, material_value: f64, r_eff: f64) -> Result<(), LawError> {
        let v = self.value(material_value, r_eff);
        if !(v.is_finite() && v >= 0.0) {
            let field = if let ResistanceLength::PerReducedRadius(_) = self { "effective_radius" } else { "length" };
            return Err(LawError::UnsupportedPair {
                model,
                field,
                value: v,
                reason: "the resistance length must be finite and >= 0 (r* mu_bar needs a finite r*)",
            });
        }
        Ok(())
    }
}

/// Spring-dashpot parameters of a rolling or twisting resistance, scaled by the normal
/// contact so that they follow the normal law: k = `stiffness_factor` · K_n R*² (N m/rad),
/// γ = `damping_factor` · γ_n R*² (N m s/rad).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AngularSpring {
    /// Dimensionless factor of K_n R*².
    pub stiffness_factor: f64,
    /// Dimensionless factor of γ_n R*².
    pub damping_factor: f64,
}

impl AngularSpring {
    /// Validated factors (stiffness > 0, damping ≥ 0).
    pub fn new(stiffness_factor: f64, damping_factor: f64) -> Result<Self, LawError> {
        crate::error::positive("angular_spring", "stiffness_factor", stiffness_factor)?;
        non_negative("angular_spring", "damping_factor", damping_factor)?;
        Ok(AngularSpring { stiffness_factor, damping_factor })
    }
}

impl Default for AngularSpring {
    /// k = 0.25 K_n R*², γ = 0.25 γ_n R*². The papers give only the cap (001 eq. 1.40);
    /// the spring and dashpot that reach it are a modelling choice, made here so that the
    /// angular oscillation is of the order of the normal one.
    fn default() -> Self {
        AngularSpring { stiffness_factor: 0.25, damping_factor: 0.25 }
    }
}
