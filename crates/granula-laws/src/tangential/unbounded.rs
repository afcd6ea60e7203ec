//! The plain Cundall-Strack spring of 003 eq. 4: the elongation is never truncated.

use super::settings::{Friction, SpringInputs, SpringSettings, TangentialDamping, TangentialStiffness};
use super::spring::{rotate_into_plane, SpringStep};
use crate::error::LawError;
use crate::history::SubHistory;
use crate::submodel::{NormalState, ResistanceOut, TangentialModel};
use glam::{DQuat, DVec3};
use granula_core::{ContactKinematics, PairMaterial};

/// The history of [`UnboundedCundallStrack`]: the elongation ξ = ∫ 𝒱_t dt since the first
/// touch (never truncated), the stiffness of the last step and the elastic energy the
/// spring stored at the end of that step.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct UnboundedSpringState {
    /// The elongation vector ξ (m), world frame.
    pub xi: DVec3,
    /// k_t of the last step (N/m; 0 before the first).
    pub stiffness: f64,
    /// ½ |f_s|²/k_t of the last step (J): the energy of the elastic part of ξ.
    pub stored: f64,
}

impl SubHistory for UnboundedSpringState {
    /// Seen from the other body the relative motion, hence the elongation, changes sign.
    fn reversed(&self) -> Self {
        UnboundedSpringState { xi: -self.xi, ..*self }
    }
    fn rotated(&self, q: DQuat) -> Self {
        UnboundedSpringState { xi: q * self.xi, ..*self }
    }
}

impl UnboundedSpringState {
    /// The elongation in the tangent plane of unit normal `n` ([`rotate_into_plane`]),
    /// carried to stiffness `k` with the energy of its elastic part unchanged: the elastic
    /// length e = √(2 E/k_old) becomes e √(k_old/k), the slip |ξ| − e beyond it is kept.
    /// With a constant stiffness this is the rotation alone.
    #[inline]
    pub fn in_plane(&self, n: DVec3, k: f64) -> DVec3 {
        let xi = rotate_into_plane(self.xi, n);
        let len = xi.length();
        if !(self.stiffness > 0.0 && k > 0.0 && self.stiffness != k && len > 0.0) {
            return xi;
        }
        let elastic = (2.0 * self.stored / self.stiffness).sqrt().min(len);
        xi * ((len - elastic + elastic * (self.stiffness / k).sqrt()) / len)
    }
}

/// Kernel: one step of the unbounded Cundall-Strack spring (003 eq. 4),
/// f_t = −ξ/|ξ| min(k|ξ|, μ F), with ξ = ξ + u Δt at every step, sticking or sliding.
///
/// The force is that of the spring truncated to the Coulomb radius, exactly as in
/// [`capped_spring`](super::capped_spring) (sticking while k|ξ| ≤ `cap_static`, then
/// μ_d F with the dashpot −γ u inside the cone), but the returned ξ is the untruncated
/// trial: after sliding a distance L, the force keeps pointing to the point of first
/// contact until the motion has come back by about L (003 §5: "it will take a long backwards
/// motion in opposite direction to release this spring").
///
/// Energy: `stored` is the energy ½ |f_s|²/k of the elastic part f_s = −ξ̂ min(k|ξ|, cap),
/// and `dissipated` = `before` − f·u Δt − `stored`, `before` being the energy stored at the
/// end of the previous step. Forward sliding dissipates μ F |u| Δt; a slip that reverses
/// while |ξ| is beyond the Coulomb radius is pushed back by the spring and gets that work
/// back as negative dissipation (the defect that 003 eqs. 5-6 remove).
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn unbounded_spring(
    xi: DVec3,
    before: f64,
    u: DVec3,
    dt: f64,
    k: f64,
    gamma: f64,
    cap_static: f64,
    cap_dynamic: f64,
) -> SpringStep {
    let trial = xi + u * dt;
    let t2 = trial.length_squared();
    let saturated = k * k * t2 > cap_static * cap_static;
    let elastic = if saturated { trial * (cap_dynamic / (k * t2.sqrt())) } else { trial };
    let cap = if saturated { cap_dynamic } else { cap_static };
    let f = -k * elastic - gamma * u;
    let f2 = f.length_squared();
    let (force, capped) = if f2 > cap * cap { (f * (cap / f2.sqrt()), true) } else { (f, false) };
    let stored = 0.5 * k * elastic.length_squared();
    let dissipated = before - force.dot(u) * dt - stored;
    SpringStep { force, xi: trial, stored, dissipated, sliding: saturated || capped }
}

/// The plain (unbounded) Cundall-Strack friction of 003 eq. 4,
/// f_t = −ξ_t/|ξ_t| min(k_t|ξ_t|, μ f_n), with ξ_t the tangential displacement since the
/// first touch, "re-calculated from the relative velocity and added up vectorially" in every
/// step (003 §5), so that while sliding the force stays at μ f_n and points to the point of
/// first contact; optional tangential damping as in [`CundallStrack`](super::CundallStrack).
///
/// This is the conventional form that 003 criticises: after a sliding phase the spring is
/// stretched far beyond the Coulomb radius, and a reversed motion slides on with the force
/// still at μ f_n in the old direction until it has come back about as far as it slid (no
/// sticking on reversal). [`CundallStrack`](super::CundallStrack) truncates the spring to the
/// radius while sliding (002, 004) and [`BrendelDippel`](super::BrendelDippel) holds it there
/// (003 eqs. 5-6); both stick at once on reversal. See [`unbounded_spring`] for the step and
/// its energy booking.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnboundedCundallStrack {
    /// k_t.
    pub stiffness: TangentialStiffness,
    /// γ_t.
    pub damping: TangentialDamping,
    /// μ_s, μ_d.
    pub friction: Friction,
}

impl UnboundedCundallStrack {
    /// A validated model; an invalid value is a [`LawError`] naming the model and parameter.
    pub fn new(
        stiffness: TangentialStiffness,
        damping: TangentialDamping,
        friction: Friction,
    ) -> Result<Self, LawError> {
        let s = SpringSettings { stiffness, damping, friction }.checked("unbounded_cundall_strack")?;
        Ok(UnboundedCundallStrack { stiffness: s.stiffness, damping: s.damping, friction: s.friction })
    }

    /// k_t from K_n by 2(1 − ν)/(2 − ν), no tangential damping, friction from the material.
    pub fn from_material() -> Self {
        let s = SpringSettings::from_material();
        UnboundedCundallStrack { stiffness: s.stiffness, damping: s.damping, friction: s.friction }
    }

    #[inline(always)]
    fn settings(&self) -> SpringSettings {
        SpringSettings { stiffness: self.stiffness, damping: self.damping, friction: self.friction }
    }
}

impl TangentialModel for UnboundedCundallStrack {
    type History = UnboundedSpringState;
    fn name(&self) -> &'static str {
        "unbounded_cundall_strack"
    }
    #[inline]
    fn tangential(
        &self,
        k: &ContactKinematics<'_>,
        normal: &NormalState,
        h: &mut UnboundedSpringState,
    ) -> ResistanceOut {
        let SpringInputs { vt, kt, gt, cap_static, cap_dynamic } = self.settings().inputs(k, normal);
        let xi = h.in_plane(k.normal, kt);
        let s = unbounded_spring(xi, h.stored, vt, k.dt, kt, gt, cap_static, cap_dynamic);
        *h = UnboundedSpringState { xi: s.xi, stiffness: kt, stored: s.stored };
        ResistanceOut { value: s.force, stored: s.stored, dissipated: s.dissipated, sliding: s.sliding }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        self.settings().check_pair("unbounded_cundall_strack", material)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spring_keeps_stretching_and_a_reversal_slides_on() {
        let (k, cap, dt) = (1e4, 2.0, 1e-4);
        let u = DVec3::new(0.1, 0.0, 0.0);
        let (mut xi, mut before) = (DVec3::ZERO, 0.0);
        let mut dissipated = 0.0;
        for _ in 0..100 {
            let s = unbounded_spring(xi, before, u, dt, k, 0.0, cap, cap);
            (xi, before) = (s.xi, s.stored);
            dissipated += s.dissipated;
        }
        // ξ = 100 u Δt = 1e-3 m, five times the Coulomb radius 2e-4 m (round-off of 100 sums).
        assert!((xi.x - 1e-3).abs() < 1e-15, "{xi}");
        // The slide beyond the radius, μF (1e-3 − 2e-4) m = 1.6e-3 J, is dissipated, plus the
        // first-order increment's ½ k (uΔt)² = 5e-7 J per sticking step (at most 21) and at
        // most one step's work μF u Δt = 2e-5 J where the radius is crossed.
        assert!((1.6e-3 - 1e-15..=1.6e-3 + 21.0 * 5e-7 + 2e-5).contains(&dissipated), "{dissipated}");
        // Reversed: the spring still pulls along −x at the full cap and the step returns the
        // work μF|u|Δt it receives (negative dissipation).
        let s = unbounded_spring(xi, before, -u, dt, k, 0.0, cap, cap);
        assert!(s.sliding && (s.force.x + cap).abs() < 1e-15, "{:?}", s.force);
        assert!((s.dissipated + cap * 0.1 * dt).abs() < 1e-18, "{}", s.dissipated);
    }

    #[test]
    fn the_elastic_part_keeps_its_energy_across_a_stiffness_change() {
        let h = UnboundedSpringState { xi: DVec3::new(3e-4, 0.0, 0.0), stiffness: 1e4, stored: 0.5 * 1e4 * 1e-8 };
        // Elastic part 1e-4 m, slip 2e-4 m; at k = 4e4 the elastic part is 5e-5 m.
        let xi = h.in_plane(DVec3::Z, 4e4);
        assert!((xi.x - 2.5e-4).abs() < 1e-18, "{xi}");
    }
}
