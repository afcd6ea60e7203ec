//! Constant-force cohesion within a range, the smooth analogue of 001 §1.8.

use crate::error::{positive, LawError};
use crate::submodel::{CohesionModel, CohesionOut};
use granula_core::{ContactKinematics, PairMaterial};

/// Kernel: attraction F_C for gaps g ≤ d_C, with potential U = −F_C (d_C − g) ≤ 0
/// (001 §1.8, Fig. 1.9b: constant force F_C up to the distance d_C = E_C/F_C). Returns
/// (attraction, potential); zero beyond the range.
#[inline]
pub fn constant_cohesion(f_c: f64, d_c: f64, gap: f64) -> (f64, f64) {
    if gap <= d_c {
        (f_c, -f_c * (d_c - gap))
    } else {
        (0.0, 0.0)
    }
}

/// Constant attraction F_C acting while the gap g ≤ d_C, overlapping or not (001 §1.8).
///
/// Choices (documented in `docs/contact-laws.md`): the attraction is conservative, with
/// potential U(g) = −F_C (d_C − g), so separating a bonded pair from g = 0 costs
/// E_C = F_C d_C as in 001 and the ledger stays exact; 001's contact-dynamics rule that an
/// opening contact is not pulled back (a hysteresis, the default `CohesionRule::Rectangle`
/// of `granula-nscd`) is not reproduced, because a force law has no reaction to choose from
/// [−F_C, 0] without a stiffness of its own, and a smooth law called only for g ≤ d_C
/// cannot report the energy of a bond that breaks between two calls. The friction laws see the load R_n + F_C (001 §1.8, DMT), i.e. the repulsive part
/// of the normal force.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ConstantCohesion {
    force: Option<f64>,
    range: Option<f64>,
}

impl ConstantCohesion {
    /// F_C and d_C from the pair material.
    pub fn from_material() -> Self {
        ConstantCohesion { force: None, range: None }
    }

    /// Given F_C > 0 (N) and d_C > 0 (m).
    pub fn new(force: f64, range: f64) -> Result<Self, LawError> {
        positive("constant_cohesion", "force", force)?;
        positive("constant_cohesion", "range", range)?;
        Ok(ConstantCohesion { force: Some(force), range: Some(range) })
    }

    /// (F_C, d_C) for this pair.
    #[inline]
    pub fn values(&self, material: &PairMaterial) -> (f64, f64) {
        (self.force.unwrap_or(material.cohesion_force), self.range.unwrap_or(material.cohesion_range))
    }
}

impl CohesionModel for ConstantCohesion {
    fn name(&self) -> &'static str {
        "constant_cohesion"
    }
    fn range(&self, material: &PairMaterial) -> f64 {
        self.values(material).1
    }
    #[inline]
    fn cohesion(&self, k: &ContactKinematics<'_>) -> CohesionOut {
        let (f, d) = self.values(k.material);
        let (attraction, stored) = constant_cohesion(f, d, -k.overlap);
        CohesionOut { attraction, stored }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        let (f, d) = self.values(material);
        for (field, v) in [("cohesion_force", f), ("cohesion_range", d)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(LawError::UnsupportedPair {
                    model: "constant_cohesion",
                    field,
                    value: v,
                    reason: "must be finite and >= 0",
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_values() {
        // F_C = 2 N, d_C = 1e-4 m: at g = 0 the potential is −E_C = −2e-4 J.
        let (a, u) = constant_cohesion(2.0, 1e-4, 0.0);
        assert_eq!(a, 2.0);
        assert!((u + 2e-4).abs() < 1e-18);
        // At the range edge the potential is zero (continuous), beyond there is nothing.
        assert_eq!(constant_cohesion(2.0, 1e-4, 1e-4).1, 0.0);
        assert_eq!(constant_cohesion(2.0, 1e-4, 1.1e-4), (0.0, 0.0));
        assert!(ConstantCohesion::new(-1.0, 1e-4).is_err());
    }
}
