//! The Cundall-Strack incremental tangential spring (002 eqs. 6-7; 004 §2.2.1).

use super::settings::{check_poisson, Friction, TangentialDamping, TangentialStiffness};
use super::spring::{capped_spring_from, SpringState};
use crate::error::MdError;
use crate::submodel::{NormalState, ResistanceOut, TangentialModel};
use granula_core::{ContactKinematics, PairMaterial};

/// Cundall-Strack friction: f_t = −k_t ξ − γ_t 𝒱_t (002 eq. 6), ξ(t+Δt) = ξ(t) + 𝒱_t Δt
/// (002 eq. 7) with the stored ξ first rotated into the current tangent plane, and the
/// Coulomb cap |f_t| ≤ μ_s F (stick) / = μ_d F with ξ at its extreme value (slide), see
/// [`capped_spring`].
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
    ) -> Result<Self, MdError> {
        Ok(CundallStrack {
            stiffness: stiffness.check("cundall_strack")?,
            damping: damping.check("cundall_strack")?,
            friction,
        })
    }

    /// k_t from K_n by 2(1 − ν)/(2 − ν), no tangential damping, friction from the material.
    pub fn from_material() -> Self {
        CundallStrack {
            stiffness: TangentialStiffness::FromNormal,
            damping: TangentialDamping::None,
            friction: Friction::from_material(),
        }
    }
}

impl TangentialModel for CundallStrack {
    type History = SpringState;
    fn name(&self) -> &'static str {
        "cundall_strack"
    }
    #[inline(always)]
    fn tangential(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut SpringState) -> ResistanceOut {
        let n = k.normal;
        let vt = k.relative_velocity - k.relative_velocity.dot(n) * n;
        let kt = self.stiffness.value(k.material, normal);
        let gt = self.damping.value(normal, kt);
        let (ms, md) = self.friction.coefficients(k.material);
        let (xi, before) = h.in_plane_with_energy(n, kt);
        let s = capped_spring_from(xi, before, vt * k.dt, vt, k.dt, kt, gt, ms * normal.load, md * normal.load);
        *h = SpringState { xi: s.xi, stiffness: kt };
        ResistanceOut { value: s.force, stored: s.stored, dissipated: s.dissipated, sliding: s.sliding }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), MdError> {
        check_poisson("cundall_strack", self.stiffness, material)?;
        self.friction.check_pair("cundall_strack", material)
    }
}
