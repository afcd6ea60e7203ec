//! Parameter helpers: stiffness and damping from collision time and restitution and back,
//! Hertz and power-law contact durations and the Hertz maximum overlap, the tangential
//! stiffness ratio, time-step bounds, the spherical cap volume of the volumetric spring; and
//! the head-on collision of Hertz with Tsuji damping and the damping ratios calibrated to the
//! no-attraction clamp.
//!
//! Mass convention: everywhere in this crate `m_eff` is the reduced mass
//! m* = (1/m₁ + 1/m₂)⁻¹ of the pair (the particle's own mass against a wall), as in
//! 002 eq. 2 (m_r) and 004 (m_eff = m₁m₂/(m₁+m₂)). It is NOT twice the reduced mass.

use crate::error::{positive, restitution, LawError};

pub use crate::damping::{
    hertz_tsuji_clamped_damping_ratio, hertz_tsuji_collision, linear_clamped_damping_ratio,
    viscous_coefficient_from_restitution,
};
pub use crate::normal::{power_law_contact_time, spherical_cap_volume};

/// Critical damping η_n^c = 2 √(m_eff K_n) (N s/m) of the contact oscillator (004 §2.2.1).
#[inline]
pub fn critical_damping(m_eff: f64, k_n: f64) -> f64 {
    2.0 * (m_eff * k_n).sqrt()
}

/// Damping ratio α_n = η_n / η_n^c that gives restitution e for a linear contact:
/// α_n = −ln e / √(π² + ln² e), the inverse of e = exp(−π α_n / √(1 − α_n²)) (004 §2.2.1;
/// 002 eq. 8).
#[inline]
pub fn damping_ratio_from_restitution(e: f64) -> f64 {
    thread_local! {
        /// The last (e, α_n) of this thread: contact laws ask for the same e millions of
        /// times, and the logarithm and root dominate the cost of a damping call. A memo of
        /// a pure function, so results are bit-identical with or without it.
        static LAST: std::cell::Cell<(f64, f64)> = const { std::cell::Cell::new((1.0, 0.0)) };
    }
    LAST.with(|last| {
        let (e0, a0) = last.get();
        if e0.to_bits() == e.to_bits() {
            return a0;
        }
        let l = e.ln();
        let a = -l / (std::f64::consts::PI * std::f64::consts::PI + l * l).sqrt();
        last.set((e, a));
        a
    })
}

/// Restitution of the linear spring-dashpot with force k δ + γ δ̇ (attraction allowed),
/// e = exp(−π η/ω), η = γ/(2 m*), ω = √(k/m* − η²) (002 eq. 8); 0 when over-damped.
pub fn linear_restitution(k_n: f64, gamma: f64, m_eff: f64) -> f64 {
    let eta = gamma / (2.0 * m_eff);
    let w2 = k_n / m_eff - eta * eta;
    if w2 <= 0.0 {
        return 0.0;
    }
    (-std::f64::consts::PI * eta / w2.sqrt()).exp()
}

/// Contact duration of the linear spring-dashpot, t_c = π / √(ω₀² − η²) (002 eq. 10),
/// ω₀² = k/m*, η = γ/(2m*); infinite when over-damped.
pub fn linear_contact_time(k_n: f64, gamma: f64, m_eff: f64) -> f64 {
    let eta = gamma / (2.0 * m_eff);
    let w2 = k_n / m_eff - eta * eta;
    if w2 <= 0.0 {
        return f64::INFINITY;
    }
    std::f64::consts::PI / w2.sqrt()
}

/// Restitution and contact duration of the linear spring-dashpot when the normal force is
/// clamped at zero (no attraction, the default of [`Composed`](crate::Composed)).
///
/// With δ(t) = (v₀/ω) e^{−ηt} sin ωt the force k δ + γ δ̇ first vanishes at
/// t_e = (π − atan2(2ηω, ω₀² − 2η²)) / ω, where the bodies separate with speed
/// v₀ e^{−η t_e} (η sin(ωt_e)/ω − cos ωt_e). (Derived from the solution of the damped
/// oscillator of 004 §2.2.1; the force then stays zero until δ = 0.) Returns (e, t_e).
/// Over-damped (η ≥ ω₀) it returns (0, ∞), although the clamped contact still ends with a
/// positive speed there (e → exp(−2) as η → ω₀); [`linear_clamped_damping_ratio`] integrates
/// that case.
pub fn linear_clamped_collision(k_n: f64, gamma: f64, m_eff: f64) -> (f64, f64) {
    let eta = gamma / (2.0 * m_eff);
    let w02 = k_n / m_eff;
    let w2 = w02 - eta * eta;
    if w2 <= 0.0 {
        return (0.0, f64::INFINITY);
    }
    let w = w2.sqrt();
    let te = (std::f64::consts::PI - (2.0 * eta * w).atan2(w02 - 2.0 * eta * eta)) / w;
    let e = (-eta * te).exp() * (eta * (w * te).sin() / w - (w * te).cos());
    (e, te)
}

/// Stiffness and damping of a linear contact from its collision time and restitution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearCollision {
    /// k_n (N/m).
    pub stiffness: f64,
    /// γ_n (N s/m), the coefficient of F_d = γ_n δ̇.
    pub damping: f64,
}

impl LinearCollision {
    /// k_n and γ_n such that a head-on collision of reduced mass `m_eff` lasts `t_c` and has
    /// restitution `e` (attraction allowed): η = −ln e / t_c, ω = π/t_c,
    /// k_n = m*(ω² + η²), γ_n = 2 m* η (inverse of 002 eqs. 8 and 10).
    pub fn from_collision(t_c: f64, e: f64, m_eff: f64) -> Result<Self, LawError> {
        positive("linear_collision", "contact_time", t_c)?;
        restitution("linear_collision", "restitution", e)?;
        positive("linear_collision", "effective_mass", m_eff)?;
        let eta = -e.ln() / t_c;
        let w = std::f64::consts::PI / t_c;
        Ok(LinearCollision { stiffness: m_eff * (w * w + eta * eta), damping: 2.0 * m_eff * eta })
    }

    /// (t_c, e) of this contact for reduced mass `m_eff` (002 eqs. 8 and 10).
    pub fn collision(&self, m_eff: f64) -> (f64, f64) {
        (
            linear_contact_time(self.stiffness, self.damping, m_eff),
            linear_restitution(self.stiffness, self.damping, m_eff),
        )
    }
}

/// Exact constant of the Hertz contact duration, 2 √π Γ(7/5)/Γ(9/10) = 2.9432751843
/// (t_c = 2.9433 δ_max / v for F ∝ δ^{3/2}).
const HERTZ_DURATION: f64 = 2.943_275_184_324_706;

/// Maximum overlap of an undamped Hertz collision, δ_max = (15 m* v² / (16 E* √R*))^{2/5}
/// (VALIDATION M2; energy balance of F = 4/3 E* √R* δ^{3/2}).
pub fn hertz_max_overlap(e_star: f64, r_eff: f64, m_eff: f64, v: f64) -> f64 {
    (15.0 * m_eff * v * v / (16.0 * e_star * r_eff.sqrt())).powf(0.4)
}

/// Duration of an undamped Hertz collision, t_c = 2.9433 δ_max / v
/// = 2.868 (m*² / (R* E*² v))^{1/5} (VALIDATION M2).
pub fn hertz_contact_time(e_star: f64, r_eff: f64, m_eff: f64, v: f64) -> f64 {
    HERTZ_DURATION * hertz_max_overlap(e_star, r_eff, m_eff, v) / v
}

/// Ratio K_t / K_n = 2(1 − ν)/(2 − ν) (004 §2.2.1, Mindlin).
#[inline]
pub fn tangential_stiffness_ratio(poisson: f64) -> f64 {
    2.0 * (1.0 - poisson) / (2.0 - poisson)
}

/// Time step h = √(m_eff/K_n)/N (004 §2.3.2.4), N the number of steps per
/// √(m/K) (the notes leave N to the user; the contact lasts π√(m/K)).
pub fn dt_from_stiffness(m_eff: f64, k_n: f64, n: f64) -> f64 {
    (m_eff / k_n).sqrt() / n
}

/// Upper bound Δt = t_c/5 of 002 §2 (below eq. 10), for warnings; accurate collisions need
/// much smaller steps (VALIDATION M1 uses t_c/50).
pub fn dt_upper_bound(t_c: f64) -> f64 {
    t_c / 5.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn m8_critical_damping_and_ratios() {
        // 2 √(0.01 · 1e4) = 2 · 10 = 20 N s/m; exact decimals.
        assert!((critical_damping(0.01, 1e4) - 20.0).abs() < 1e-12);
        // ν = 0.3: 2 · 0.7 / 1.7 = 0.82352941; hand value to 8 digits.
        assert!((tangential_stiffness_ratio(0.3) - 0.823_529_41).abs() < 1e-8);
        // ν = 0: 1; ν = 0.5: 2/3.
        assert_eq!(tangential_stiffness_ratio(0.0), 1.0);
        assert!((tangential_stiffness_ratio(0.5) - 2.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn restitution_round_trips() {
        for &e in &[0.1, 0.5, 0.9, 0.9875, 1.0] {
            let c = LinearCollision::from_collision(1e-3, e, 0.02).unwrap();
            let (tc, e2) = c.collision(0.02);
            // Closed-form inverse; only round-off of ln/exp/sqrt (≲ 1e-14 relative).
            assert!((tc / 1e-3 - 1.0).abs() < 1e-12);
            assert!((e2 - e).abs() < 1e-12);
            // Damping ratio form of 004 gives the same γ.
            let alpha = damping_ratio_from_restitution(e);
            assert!((alpha * critical_damping(0.02, c.stiffness) - c.damping).abs() <= 1e-12 * c.stiffness.sqrt());
        }
    }

    #[test]
    fn clamped_collision_limits() {
        // No damping: the clamp never acts; e = 1 and t_e = π/ω₀.
        let (e, te) = linear_clamped_collision(1e4, 0.0, 0.01);
        assert!((e - 1.0).abs() < 1e-12);
        assert!((te - std::f64::consts::PI * 1e-3).abs() < 1e-15);
        // With damping the clamped contact ends earlier and gives a larger e.
        let c = LinearCollision::from_collision(1e-3, 0.5, 0.01).unwrap();
        let (ec, tec) = linear_clamped_collision(c.stiffness, c.damping, 0.01);
        assert!(ec > 0.5 && tec < 1e-3);
    }

    #[test]
    fn hertz_constant_matches_validation_form() {
        // 2.9433 (15/16)^{2/5} = 2.868 of VALIDATION M2 (4 digits given there).
        let (e, r, m, v) = (1e7, 1e-3, 1e-5, 1.0);
        let t = hertz_contact_time(e, r, m, v);
        let t_val = 2.868 * (m * m / (r * e * e * v)).powf(0.2);
        // 2.868 is rounded to 4 digits: relative difference below 1e-4.
        assert!((t / t_val - 1.0).abs() < 1e-4);
    }

    #[test]
    fn bad_input() {
        assert!(LinearCollision::from_collision(1e-3, 1.5, 1.0).is_err());
        assert!(LinearCollision::from_collision(1e-3, 0.0, 1.0).is_err());
        assert!(LinearCollision::from_collision(-1.0, 0.5, 1.0).is_err());
    }
}
