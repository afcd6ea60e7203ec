//! The Cundall-Strack incremental tangential spring (002 eqs. 6-7; 004 §2.2.1).

use super::settings::{Friction, SpringInputs, SpringSettings, TangentialDamping, TangentialStiffness};
use super::spring::{capped_spring_from, SpringState};
use crate::error::LawError;
use crate::submodel::{NormalState, ResistanceOut, TangentialModel};
use granula_core::{ContactKinematics, PairMaterial};

/// Cundall-Strack friction: f_t = −k_t ξ − γ_t 𝒱_t (002 eq. 6), ξ(t+Δt) = ξ(t) + 𝒱_t Δt
/// (002 eq. 7) with the stored ξ first rotated into the current tangent plane, and the
/// Coulomb cap |f_t| ≤ μ_s F (stick) / = μ_d F with ξ at its extreme value (slide), see
/// [`capped_spring`](super::capped_spring).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CundallStrack {
    /// k_t.
    pub stiffness: TangentialStiffness,
    /// γ_t.
    pub damping: TangentialDamping,
    /// μ_s, μ_d.
    pub friction: Friction,
}

impl CundallStrack {
    /// A validated model.
    pub fn new(
        stiffness: TangentialStiffness,
        damping: TangentialDamping,
        friction: Friction,
    ) -> Result<Self, LawError> {
        Ok(Self::from_settings(SpringSettings { stiffness, damping, friction }.checked("cundall_strack")?))
    }

    /// k_t from K_n by 2(1 − ν)/(2 − ν), no tangential damping, friction from the material.
    pub fn from_material() -> Self {
        Self::from_settings(SpringSettings::from_material())
    }

    fn from_settings(s: SpringSettings) -> Self {
        CundallStrack { stiffness: s.stiffness, damping: s.damping, friction: s.friction }
    }

    #[inline(always)]
    fn settings(&self) -> SpringSettings {
        SpringSettings { stiffness: self.stiffness, damping: self.damping, friction: self.friction }
    }
}

impl TangentialModel for CundallStrack {
    type History = SpringState;
    fn name(&self) -> &'static str {
        "cundall_strack"
    }
    #[inline(always)]
    fn tangential(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut SpringState) -> ResistanceOut {
        let SpringInputs { vt, kt, gt, cap_static, cap_dynamic } = self.settings().inputs(k, normal);
        let (xi, before) = h.in_plane_with_energy(k.normal, kt);
        let s = capped_spring_from(xi, before, vt * k.dt, vt, k.dt, kt, gt, cap_static, cap_dynamic);
        *h = SpringState { xi: s.xi, stiffness: kt };
        ResistanceOut { value: s.force, stored: s.stored, dissipated: s.dissipated, sliding: s.sliding }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        self.settings().check_pair("cundall_strack", material)
    }
    fn batch_form(&self) -> Option<crate::batched::SpringBatch> {
        Some(crate::batched::SpringBatch { stiffness: self.stiffness, damping: self.damping, friction: self.friction })
    }
    fn batch_spring(history: &mut SpringState) -> Option<&mut SpringState> {
        Some(history)
    }
}
