//! Rolling resistance: a spring-dashpot couple with a Coulomb-like cap
//! |T_t| ≤ μ_r F (001 eqs. 1.38-1.42).

use crate::error::LawError;
use crate::resistance_length::{AngularSpring, ResistanceLength};
use crate::submodel::{NormalState, ResistanceOut, RollingModel};
use crate::tangential::{capped_spring_from, SpringState};
use granula_core::{ContactKinematics, PairMaterial};

/// Rolling resistance on the tangential part Ω_t of the relative angular velocity
/// Ω = ω₂ − ω₁ (001 eq. 1.38): an angular spring θ_r (rotated into the tangent plane each
/// step, incremented by Ω_t Δt) and a dashpot, T = −k_r θ_r − γ_r Ω_t, capped at
/// |T| ≤ μ_r F with μ_r a length (001 eqs. 1.40-1.42). The couple acts on body 2, the
/// opposite on body 1 (001 eq. 1.39).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RollingResistance {
    /// μ_r.
    pub coefficient: ResistanceLength,
    /// k_r, γ_r.
    pub spring: AngularSpring,
}

impl RollingResistance {
    /// A validated model.
    pub fn new(coefficient: ResistanceLength, spring: AngularSpring) -> Result<Self, LawError> {
        Ok(RollingResistance { coefficient: coefficient.check("rolling_resistance")?, spring })
    }

    /// μ_r from the material, default spring.
    pub fn from_material() -> Self {
        RollingResistance { coefficient: ResistanceLength::FromMaterial, spring: AngularSpring::default() }
    }
}

impl RollingModel for RollingResistance {
    type History = SpringState;
    fn name(&self) -> &'static str {
        "rolling_resistance"
    }
    #[inline]
    fn rolling(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut SpringState) -> ResistanceOut {
        let n = k.normal;
        let w = k.relative_angular_velocity;
        let wt = w - w.dot(n) * n;
        let r2 = k.effective_radius * k.effective_radius;
        let kr = self.spring.stiffness_factor * normal.stiffness * r2;
        let gr = self.spring.damping_factor * normal.damping * r2;
        let cap = self.coefficient.value(k.material.rolling_friction, k.effective_radius) * normal.load;
        let (theta, before) = h.in_plane_with_energy(n, kr);
        let s = capped_spring_from(theta, before, wt * k.dt, wt, k.dt, kr, gr, cap, cap);
        *h = SpringState { xi: s.xi, stiffness: kr };
        ResistanceOut { value: s.force, stored: s.stored, dissipated: s.dissipated, sliding: s.sliding }
    }
    fn check_pair(&self, material: &PairMaterial, r_eff: f64) -> Result<(), LawError> {
        self.coefficient.check_pair("rolling_resistance", material.rolling_friction, r_eff)?;
        if !r_eff.is_finite() {
            return Err(LawError::UnsupportedPair {
                model: "rolling_resistance",
                field: "effective_radius",
                value: r_eff,
                reason: "k_r = factor K_n R*^2 needs a finite R*",
            });
        }
        Ok(())
    }
}
