//! The viscous normal force of 002 eqs. 2-3, F_v = −m_r ν v_n: a damping rate ν (1/s)
//! times the pair's reduced mass.

use crate::error::{non_negative, restitution, LawError};
use crate::params::damping_ratio_from_restitution;
use crate::submodel::{DampingModel, NormalDamping, NormalElastic, TensionPolicy};
use granula_core::{ContactKinematics, PairMaterial};

/// Viscous normal damping of 002 eqs. 2-3: F_d = γ δ̇ with γ = m* ν, the damping rate ν
/// (1/s) times the contact's reduced mass m* = (1/mᵢ + 1/mⱼ)⁻¹ (the particle's mass
/// against a wall), δ̇ the normal part of the relative velocity at the contact point
/// (002 eq. 3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReducedMassViscous {
    rate: f64,
}

impl ReducedMassViscous {
    /// A damping rate ν ≥ 0 (1/s).
    pub fn new(rate: f64) -> Result<Self, LawError> {
        Ok(ReducedMassViscous { rate: non_negative("reduced_mass_viscous", "rate", rate)? })
    }

    /// The rate that gives restitution e to a linear contact of stiffness k (N/m) and
    /// reduced mass m_r (kg) (002 eq. 8): ν = 2η, η = α ω₀ with ω₀ = √(k/m_r) and
    /// α = −ln e/√(π² + ln² e), when the damping may pull at the end of the contact
    /// ([`TensionPolicy::AllowDampingTension`], as in 002).
    pub fn from_restitution(e: f64, stiffness: f64, reduced_mass: f64) -> Result<Self, LawError> {
        let model = "reduced_mass_viscous";
        restitution(model, "restitution", e)?;
        crate::error::positive(model, "stiffness", stiffness)?;
        crate::error::positive(model, "reduced_mass", reduced_mass)?;
        Self::new(2.0 * damping_ratio_from_restitution(e) * (stiffness / reduced_mass).sqrt())
    }

    /// The rate ν (1/s).
    pub fn rate(&self) -> f64 {
        self.rate
    }
}

impl DampingModel for ReducedMassViscous {
    type History = ();
    fn name(&self) -> &'static str {
        "reduced_mass_viscous"
    }
    #[inline]
    fn damping(&self, k: &ContactKinematics<'_>, rate: f64, _: &NormalElastic, _: &mut ()) -> NormalDamping {
        let g = k.effective_mass * self.rate;
        NormalDamping { force: g * rate, coefficient: g }
    }
    /// `None` but for ν = 0 (restitution 1): the restitution depends on the stiffness and
    /// the reduced mass, not on the pair material.
    fn claimed_restitution(&self, _: &PairMaterial, _: TensionPolicy) -> Option<f64> {
        (self.rate == 0.0).then_some(1.0)
    }
    fn check_pair(&self, _: &PairMaterial) -> Result<(), LawError> {
        Ok(())
    }
}
