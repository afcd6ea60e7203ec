//! Kelvin-Voigt / Hunt-Crossley damping (003 eq. 3), with the impact velocity δ̇₀ kept in the
//! contact history.

use crate::error::{positive, restitution, LawError};
use crate::history::SubHistory;
use crate::submodel::TensionPolicy;
use crate::submodel::{DampingModel, NormalDamping, NormalElastic};
use glam::DQuat;
use granula_core::{ContactKinematics, PairMaterial};

/// Kernel: F_d = F_e · 3(1 − e²)/(4 δ̇₀) · δ̇, the viscous term of 003 eq. 3 with
/// F_e = K δⁿ the elastic term (so F_d = K 3(1 − e²)/(4 δ̇₀) δⁿ δ̇).
#[inline]
pub fn hunt_crossley_force(elastic: f64, e: f64, impact_rate: f64, rate: f64) -> f64 {
    elastic * 3.0 * (1.0 - e * e) / (4.0 * impact_rate) * rate
}

/// History of [`HuntCrossley`]: the overlap rate δ̇₀ (m/s) at the first step of the contact.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ImpactVelocity {
    /// δ̇₀ (m/s); zero before the contact starts.
    pub rate: f64,
}

impl SubHistory for ImpactVelocity {
    /// δ̇₀ is a scalar rate of overlap: the same from either body.
    fn reversed(&self) -> Self {
        *self
    }
    /// A scalar: invariant.
    fn rotated(&self, _: DQuat) -> Self {
        *self
    }
}

/// Hunt-Crossley damping F_d = K 3(1 − e²)/(4 δ̇₀) δⁿ δ̇ (003 eq. 3), e from the material or
/// given. The energy lost in a collision is ½ m* δ̇₀² (1 − e²) for e close to 1 (003).
///
/// δ̇₀ is the overlap rate at the first step of the contact, floored at `min_impact_rate`
/// (m/s): a contact that starts without approach (a resting contact, a grazing touch)
/// would otherwise get an unbounded coefficient. The floor is a regularisation 003 does not
/// discuss; choose it well below the impact speeds of interest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HuntCrossley {
    restitution: Option<f64>,
    min_impact_rate: f64,
}

impl HuntCrossley {
    /// e from the material (`None`) or given in (0, 1]; `min_impact_rate` > 0 (m/s).
    pub fn new(restitution_coefficient: Option<f64>, min_impact_rate: f64) -> Result<Self, LawError> {
        if let Some(e) = restitution_coefficient {
            restitution("hunt_crossley", "restitution", e)?;
        }
        positive("hunt_crossley", "min_impact_rate", min_impact_rate)?;
        Ok(HuntCrossley { restitution: restitution_coefficient, min_impact_rate })
    }

    /// e from the material, δ̇₀ floored at 1 mm/s.
    pub fn from_material() -> Self {
        HuntCrossley { restitution: None, min_impact_rate: 1e-3 }
    }
}

impl DampingModel for HuntCrossley {
    type History = ImpactVelocity;
    fn name(&self) -> &'static str {
        "hunt_crossley"
    }
    #[inline]
    fn damping(
        &self,
        k: &ContactKinematics<'_>,
        rate: f64,
        el: &NormalElastic,
        h: &mut ImpactVelocity,
    ) -> NormalDamping {
        if h.rate == 0.0 {
            h.rate = rate.max(self.min_impact_rate);
        }
        let e = self.restitution.unwrap_or(k.material.restitution);
        let f = hunt_crossley_force(el.force, e, h.rate, rate);
        let coefficient = el.force * 3.0 * (1.0 - e * e) / (4.0 * h.rate);
        NormalDamping { force: f, coefficient }
    }
    /// e itself, for either policy: the viscous term vanishes with δ, so the clamp acts only
    /// for strong damping; the claim holds for e close to 1 (003).
    fn claimed_restitution(&self, material: &PairMaterial, _: TensionPolicy) -> Option<f64> {
        Some(self.restitution.unwrap_or(material.restitution))
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        if self.restitution.is_none() && !(material.restitution > 0.0 && material.restitution <= 1.0) {
            return Err(LawError::UnsupportedPair {
                model: "hunt_crossley",
                field: "restitution",
                value: material.restitution,
                reason: "the pair's restitution must lie in (0, 1]",
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_value() {
        // F_e = 2 N, e = 0.5, δ̇₀ = 1 m/s, δ̇ = 0.5 m/s: 2 · 3 · 0.75 / 4 · 0.5 = 0.5625 N.
        assert!((hunt_crossley_force(2.0, 0.5, 1.0, 0.5) - 0.5625).abs() < 1e-15);
        // e = 1: no damping.
        assert_eq!(hunt_crossley_force(2.0, 1.0, 1.0, 0.5), 0.0);
    }

    #[test]
    fn history_invariants_and_bad_input() {
        let h = ImpactVelocity { rate: 0.3 };
        assert_eq!(h.reversed().reversed(), h);
        assert_eq!(h.rotated(DQuat::from_rotation_z(0.4)), h);
        assert!(HuntCrossley::new(Some(1.5), 1e-3).is_err());
        assert!(HuntCrossley::new(None, 0.0).is_err());
    }
}
