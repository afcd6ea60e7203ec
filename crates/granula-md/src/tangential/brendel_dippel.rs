//! The Brendel-Dippel tangential spring (003 eqs. 5-6).

use super::settings::{check_poisson, Friction, TangentialDamping, TangentialStiffness};
use super::spring::{held_spring, SpringState};
use crate::error::MdError;
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
    ) -> Result<Self, MdError> {
        Ok(BrendelDippel {
            stiffness: stiffness.check("brendel_dippel")?,
            damping: damping.check("brendel_dippel")?,
            friction,
        })
    }

    /// k_t from K_n by 2(1 − ν)/(2 − ν), no tangential damping, friction from the material.
    pub fn from_material() -> Self {
        BrendelDippel {
            stiffness: TangentialStiffness::FromNormal,
            damping: TangentialDamping::None,
            friction: Friction::from_material(),
        }
    }
}

impl TangentialModel for BrendelDippel {
    type History = SpringState;
    fn name(&self) -> &'static str {
        "brendel_dippel"
    }
    #[inline]
    fn tangential(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut SpringState) -> ResistanceOut {
        let n = k.normal;
        let vt = k.relative_velocity - k.relative_velocity.dot(n) * n;
        let kt = self.stiffness.value(k.material, normal);
        let gt = self.damping.value(normal, kt);
        let (ms, md) = self.friction.coefficients(k.material);
        let xi = h.in_plane(n, kt);
        let s = held_spring(xi, vt, k.dt, kt, gt, ms * normal.load, md * normal.load);
        *h = SpringState { xi: s.xi, stiffness: kt };
        ResistanceOut { value: s.force, stored: s.stored, dissipated: s.dissipated, sliding: s.sliding }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), MdError> {
        check_poisson("brendel_dippel", self.stiffness, material)?;
        self.friction.check_pair("brendel_dippel", material)
    }
}
