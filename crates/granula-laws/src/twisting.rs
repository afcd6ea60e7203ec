//! Twisting (torsion) resistance: a spring-dashpot couple about the normal with a
//! Coulomb-like cap |T_n| ≤ μ_w F (001 §1.7, eq. 1.40).

use crate::error::LawError;
use crate::history::SubHistory;
use crate::resistance_length::{AngularSpring, ResistanceLength};
use crate::submodel::{NormalState, ResistanceOut, TwistingModel};
use crate::tangential::capped_spring;
use glam::DQuat;
use granula_core::{ContactKinematics, PairMaterial};

/// History of [`TwistingResistance`]: the twist angle θ_w (rad) about the normal.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TwistAngle {
    /// θ_w, positive about the normal n (from body 1 to body 2).
    pub angle: f64,
    /// Stiffness of the last step (see [`SpringState::carried_to`](crate::tangential::SpringState::carried_to)).
    pub stiffness: f64,
}

impl SubHistory for TwistAngle {
    /// Swapping the bodies reverses both n and Ω, so Ω·n and θ_w are unchanged.
    fn reversed(&self) -> Self {
        *self
    }
    /// A scalar about the (rotating) normal: invariant.
    fn rotated(&self, _: DQuat) -> Self {
        *self
    }
}

/// Twisting resistance on Ω_n = (ω₂ − ω₁)·n (001 eq. 1.38): T = (−k_w θ_w − γ_w Ω_n) n with
/// θ_w incremented by Ω_n Δt, capped at |T| ≤ μ_w F, μ_w a length (001 eq. 1.40).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwistingResistance {
    /// μ_w.
    pub coefficient: ResistanceLength,
    /// k_w, γ_w.
    pub spring: AngularSpring,
}

impl TwistingResistance {
    /// A validated model.
    pub fn new(coefficient: ResistanceLength, spring: AngularSpring) -> Result<Self, LawError> {
        Ok(TwistingResistance { coefficient: coefficient.check("twisting_resistance")?, spring })
    }

    /// μ_w from the material (`torsion_friction`), default spring.
    pub fn from_material() -> Self {
        TwistingResistance { coefficient: ResistanceLength::FromMaterial, spring: AngularSpring::default() }
    }
}

impl TwistingModel for TwistingResistance {
    type History = TwistAngle;
    fn name(&self) -> &'static str {
        "twisting_resistance"
    }
    #[inline]
    fn twisting(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut TwistAngle) -> ResistanceOut {
        let n = k.normal;
        let wn = k.relative_angular_velocity.dot(n);
        let r2 = k.effective_radius * k.effective_radius;
        let kw = self.spring.stiffness_factor * normal.stiffness * r2;
        let gw = self.spring.damping_factor * normal.damping * r2;
        let cap = self.coefficient.value(k.material.torsion_friction, k.effective_radius) * normal.load;
        // The scalar problem along n, solved by the vector kernel.
        let angle = if h.stiffness > 0.0 && kw > 0.0 { h.angle * (h.stiffness / kw).sqrt() } else { h.angle };
        let s = capped_spring(angle * n, wn * n, k.dt, kw, gw, cap, cap);
        *h = TwistAngle { angle: s.xi.dot(n), stiffness: kw };
        ResistanceOut { value: s.force, stored: s.stored, dissipated: s.dissipated, sliding: s.sliding }
    }
    fn check_pair(&self, material: &PairMaterial, r_eff: f64) -> Result<(), LawError> {
        self.coefficient.check_pair("twisting_resistance", material.torsion_friction, r_eff)?;
        if !r_eff.is_finite() {
            return Err(LawError::UnsupportedPair {
                model: "twisting_resistance",
                field: "effective_radius",
                value: r_eff,
                reason: "k_w = factor K_n R*^2 needs a finite R*",
            });
        }
        Ok(())
    }
}
