//! Linear spring F_e = k_n δ (002 eq. 5 for discs, the Hooke law of 004 §2.2.1).

use crate::error::{positive, LawError};
use crate::submodel::{NormalElastic, NormalModel};
use granula_core::{ContactKinematics, PairMaterial};

/// Kernel: the linear spring F_e = k_n δ, tangent stiffness k_n, stored energy ½ k_n δ²
/// (004 §2.2.1, Hooke law; 002 eq. 5 with the overlap δ in place of A/l_c).
#[inline]
pub fn linear_spring_force(k_n: f64, delta: f64) -> NormalElastic {
    NormalElastic { force: k_n * delta, stiffness: k_n, stored: 0.5 * k_n * delta * delta }
}

/// Linear normal spring of stiffness `stiffness` = k_n (N/m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearSpring {
    stiffness: f64,
}

impl LinearSpring {
    /// A spring of stiffness k_n > 0 (N/m).
    pub fn new(stiffness: f64) -> Result<Self, LawError> {
        Ok(LinearSpring { stiffness: positive("linear_spring", "stiffness", stiffness)? })
    }

    /// The stiffness k_n (N/m).
    pub fn stiffness(&self) -> f64 {
        self.stiffness
    }
}

impl NormalModel for LinearSpring {
    fn name(&self) -> &'static str {
        "linear_spring"
    }
    #[inline]
    fn elastic(&self, k: &ContactKinematics<'_>) -> NormalElastic {
        linear_spring_force(self.stiffness, k.overlap)
    }
    /// Half period of the undamped oscillator, t_c = π √(m*/k_n) (002 eq. 10 with η = 0).
    fn contact_time(&self, _: &PairMaterial, m_eff: f64, _: f64, _: f64) -> f64 {
        std::f64::consts::PI * (m_eff / self.stiffness).sqrt()
    }
    fn check_pair(&self, _: &PairMaterial, _: f64, m_eff: f64) -> Result<(), LawError> {
        super::require_finite_mass("linear_spring", m_eff)
    }
    fn batch_form(&self) -> Option<crate::batched::NormalBatch> {
        Some(crate::batched::NormalBatch::Linear { stiffness: self.stiffness })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_values() {
        let f = linear_spring_force(2.0e5, 1.0e-4);
        // 2e5 * 1e-4 = 20 N, ½ 2e5 (1e-4)² = 1e-3 J; products of exact decimals, round-off only.
        assert!((f.force - 20.0).abs() < 1e-12);
        assert!((f.stored - 1.0e-3).abs() < 1e-15);
        assert_eq!(f.stiffness, 2.0e5);
    }

    #[test]
    fn negative_stiffness_is_rejected() {
        assert!(matches!(
            LinearSpring::new(-1.0),
            Err(LawError::InvalidParameter { param: "stiffness", value, .. }) if value == -1.0
        ));
        assert!(LinearSpring::new(f64::NAN).is_err());
    }
}
