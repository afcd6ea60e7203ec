//! Power-law elastic force F_e = K δⁿ, the elastic part of the Kelvin-Voigt /
//! Hunt-Crossley law (003 eq. 3).

use crate::error::{positive, LawError};
use crate::gamma_function::gamma;
use crate::submodel::{NormalElastic, NormalModel};
use granula_core::{ContactKinematics, PairMaterial};

/// Kernel: F_e = K δⁿ, tangent stiffness n K δ^{n−1}, stored energy K δ^{n+1}/(n+1)
/// (elastic term of 003 eq. 3).
#[inline]
pub fn power_law_force(k: f64, n: f64, delta: f64) -> NormalElastic {
    let dn = delta.powf(n);
    NormalElastic { force: k * dn, stiffness: n * k * dn / delta, stored: k * dn * delta / (n + 1.0) }
}

/// Duration of an undamped head-on contact of the power law F = K δⁿ at impact speed v:
/// t_c = 2 (δ_max / v) √π Γ(1 + 1/(n+1)) / Γ(½ + 1/(n+1)), with
/// δ_max = ((n+1) m* v² / (2K))^{1/(n+1)} (energy balance). For n = 1 this is π √(m*/K);
/// for n = 3/2 and K = 4/3 E*√R* it is the Hertz time 2.868 (m*²/(R* E*² v))^{1/5}.
pub fn power_law_contact_time(k: f64, n: f64, m_eff: f64, v: f64) -> f64 {
    let p = 1.0 / (n + 1.0);
    let delta_max = ((n + 1.0) * m_eff * v * v / (2.0 * k)).powf(p);
    2.0 * delta_max / v * std::f64::consts::PI.sqrt() * gamma(1.0 + p) / gamma(0.5 + p)
}

/// F_e = K δⁿ with stiffness parameter K (N/mⁿ) and exponent n ≥ 1 (n = 1: linear,
/// n = 3/2: Hertz-like), 003 eq. 3.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerLaw {
    stiffness: f64,
    exponent: f64,
}

impl PowerLaw {
    /// K > 0 (N/mⁿ) and n ≥ 1.
    pub fn new(stiffness: f64, exponent: f64) -> Result<Self, LawError> {
        positive("power_law", "stiffness", stiffness)?;
        if !(exponent.is_finite() && exponent >= 1.0) {
            return Err(LawError::InvalidParameter {
                model: "power_law",
                param: "exponent",
                value: exponent,
                expected: "finite and >= 1",
            });
        }
        Ok(PowerLaw { stiffness, exponent })
    }

    /// K (N/mⁿ).
    pub fn stiffness(&self) -> f64 {
        self.stiffness
    }

    /// n.
    pub fn exponent(&self) -> f64 {
        self.exponent
    }
}

impl NormalModel for PowerLaw {
    fn name(&self) -> &'static str {
        "power_law"
    }
    #[inline]
    fn elastic(&self, k: &ContactKinematics<'_>) -> NormalElastic {
        power_law_force(self.stiffness, self.exponent, k.overlap)
    }
    fn contact_time(&self, _: &PairMaterial, m_eff: f64, _: f64, v: f64) -> f64 {
        power_law_contact_time(self.stiffness, self.exponent, m_eff, v)
    }
    fn check_pair(&self, _: &PairMaterial, _: f64, m_eff: f64) -> Result<(), LawError> {
        super::require_finite_mass("power_law", m_eff)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::hertz_contact_time;

    #[test]
    fn contact_time_limits() {
        // n = 1: π √(m/K); the Gamma ratio is exact to ~1e-15 with the Lanczos series.
        let t = power_law_contact_time(1e5, 1.0, 0.01, 0.7);
        assert!((t / (std::f64::consts::PI * (0.01f64 / 1e5).sqrt()) - 1.0).abs() < 1e-12);
        // n = 3/2 with K = 4/3 E* √R*: the Hertz time; same formula evaluated two ways.
        let (e, r, m, v) = (1e7, 2e-3, 1e-4, 0.3);
        let th = hertz_contact_time(e, r, m, v);
        let tp = power_law_contact_time(4.0 / 3.0 * e * r.sqrt(), 1.5, m, v);
        assert!((tp / th - 1.0).abs() < 1e-12);
    }

    #[test]
    fn hand_values() {
        // K = 1e6, n = 2, δ = 1e-3: F = 1 N, stiffness 2 K δ = 2000 N/m, stored K δ³/3 = 3.333e-4 J.
        let f = power_law_force(1e6, 2.0, 1e-3);
        // powf of exact decimals: a few ulps.
        assert!((f.force - 1.0).abs() < 1e-12);
        assert!((f.stiffness - 2000.0).abs() < 1e-9);
        assert!((f.stored - 1.0 / 3.0 * 1e-3).abs() < 1e-15);
        assert!(PowerLaw::new(1e6, 0.5).is_err());
    }
}
