//! The Brendel-Dippel tangential spring (003 eqs. 5-6).

use super::settings::{Friction, SpringInputs, SpringSettings, TangentialDamping, TangentialStiffness};
use super::spring::{held_spring, SpringState};
use crate::error::LawError;
use crate::submodel::{NormalState, ResistanceOut, TangentialModel};
use granula_core::{ContactKinematics, PairMaterial};

/// Brendel-Dippel friction: f_t = −k_t ξ_t (003 eq. 5) with
/// ξ_t = ∫ 𝒱_t Θ(μ|f_n| − k_t|ξ_t|) dt (003 eq. 6): the spring is not stretched while
/// sliding but held at the Coulomb radius, so that a reversal sticks at once; see
/// [`held_spring`]. Optional tangential damping acts while sticking.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BrendelDippel {
    /// k_t.
    pub stiffness: TangentialStiffness,
    /// γ_t.
    pub damping: TangentialDamping,
    /// μ_s, μ_d.
    pub friction: Friction,
}

impl BrendelDippel {
    /// A validated model.
    pub fn new(
        stiffness: TangentialStiffness,
        damping: TangentialDamping,
        friction: Friction,
    ) -> Result<Self, LawError> {
        Ok(Self::from_settings(SpringSettings { stiffness, damping, friction }.checked("brendel_dippel")?))
    }

    /// k_t from K_n by 2(1 − ν)/(2 − ν), no tangential damping, friction from the material.
    pub fn from_material() -> Self {
        Self::from_settings(SpringSettings::from_material())
    }

    fn from_settings(s: SpringSettings) -> Self {
        BrendelDippel { stiffness: s.stiffness, damping: s.damping, friction: s.friction }
    }

    #[inline(always)]
    fn settings(&self) -> SpringSettings {
        SpringSettings { stiffness: self.stiffness, damping: self.damping, friction: self.friction }
    }
}

impl TangentialModel for BrendelDippel {
    type History = SpringState;
    fn name(&self) -> &'static str {
        "brendel_dippel"
    }
    #[inline]
    fn tangential(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut SpringState) -> ResistanceOut {
        let SpringInputs { vt, kt, gt, cap_static, cap_dynamic } = self.settings().inputs(k, normal);
        let xi = h.in_plane(k.normal, kt);
        let s = held_spring(xi, vt, k.dt, kt, gt, cap_static, cap_dynamic);
        *h = SpringState { xi: s.xi, stiffness: kt };
        ResistanceOut { value: s.force, stored: s.stored, dissipated: s.dissipated, sliding: s.sliding }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        self.settings().check_pair("brendel_dippel", material)
    }
}
