//! Viscous tangential law with a Coulomb threshold (004 §2.2.1).

use super::settings::Friction;
use crate::error::{positive, LawError};
use crate::submodel::{NormalState, ResistanceOut, TangentialModel};
use glam::DVec3;
use granula_core::{ContactKinematics, PairMaterial};

/// Kernel: R_t^Tr = −η_t m_eff 𝒰_t; if |R_t^Tr| ≥ μ F then R_t = μ F R_t^Tr/|R_t^Tr|
/// (004 §2.2.1, viscous law with Coulomb threshold). Returns (force, sliding).
#[inline]
pub fn viscous_friction_force(eta_t: f64, m_eff: f64, vt: DVec3, cap: f64) -> (DVec3, bool) {
    let f = -eta_t * m_eff * vt;
    let l = f.length();
    if l >= cap && l > 0.0 {
        (f * (cap / l), true)
    } else {
        (f, false)
    }
}

/// Viscous friction with Coulomb cap, η_t in 1/s (004 §2.2.1). No spring, no history;
/// a contact under a steady tangential load creeps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViscousFriction {
    eta: f64,
    friction: Friction,
}

impl ViscousFriction {
    /// η_t > 0 (1/s) and friction coefficients.
    pub fn new(eta: f64, friction: Friction) -> Result<Self, LawError> {
        Ok(ViscousFriction { eta: positive("viscous_friction", "eta", eta)?, friction })
    }
}

impl TangentialModel for ViscousFriction {
    type History = ();
    fn name(&self) -> &'static str {
        "viscous_friction"
    }
    #[inline]
    fn tangential(&self, k: &ContactKinematics<'_>, normal: &NormalState, _: &mut ()) -> ResistanceOut {
        let n = k.normal;
        let vt = k.relative_velocity - k.relative_velocity.dot(n) * n;
        let (ms, md) = self.friction.coefficients(k.material);
        let (mut f, sliding) = viscous_friction_force(self.eta, k.effective_mass, vt, ms * normal.load);
        if sliding {
            f *= if ms > 0.0 { md / ms } else { 0.0 };
        }
        ResistanceOut { value: f, stored: 0.0, dissipated: -f.dot(vt) * k.dt, sliding }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        self.friction.check_pair("viscous_friction", material)
    }
}
