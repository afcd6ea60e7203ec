//! The incremental spring with a Coulomb cap, shared by the tangential, rolling and
//! twisting models, and its history.

use crate::history::SubHistory;
use glam::{DQuat, DVec3};

/// A spring elongation ξ carried from step to step (m for tangential springs, rad for
/// rolling and twisting springs), with the stiffness it had at the last step.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SpringState {
    /// The elongation vector, world frame.
    pub xi: DVec3,
    /// The stiffness of the last step (0 before the first).
    pub stiffness: f64,
}

impl SpringState {
    /// The elongation carried over to a new stiffness `k` with its elastic energy unchanged,
    /// ξ √(k_old/k).
    ///
    /// Why: with a stiffness that follows the overlap (Mindlin, k_t ∝ √δ), the total form
    /// f = −k_t(δ) ξ creates ½ Δk_t |ξ|² of energy whenever the contact is loaded while
    /// stuck (the conformance kit measures a 2-3 % energy rise in a spinning head-on Hertz
    /// impact). Keeping ½ k |ξ|² across the stiffness change makes the spring conservative;
    /// with a constant stiffness it changes nothing.
    #[inline]
    pub fn carried_to(&self, k: f64) -> DVec3 {
        if self.stiffness > 0.0 && k > 0.0 && self.stiffness != k {
            self.xi * (self.stiffness / k).sqrt()
        } else {
            self.xi
        }
    }
}

impl SpringState {
    /// [`SpringState::carried_to`] stiffness `k` and then [`rotate_into_plane`] of normal `n`,
    /// fused into one root and one division: ξ_p √((|ξ|² k_old) / (|ξ_p|² k)),
    /// ξ_p = ξ − (ξ·n) n.
    ///
    /// The numerator is known before the new stiffness, so only a product, the division and
    /// the root wait for `k` (the Hertz-Mindlin k_t comes last, at the end of the normal
    /// model's root). Rounded differently from the two divisions of the separate forms
    /// (|ξ|² (k_old/k) / |ξ_p|²): a few ulps of the factor, half that after the root.
    #[inline]
    pub fn in_plane(&self, n: DVec3, k: f64) -> DVec3 {
        self.in_plane_with_energy(n, k).0
    }

    /// [`SpringState::in_plane`] and the elastic energy ½ k |ξ'|² of its result, read from
    /// the history instead of the result: the carry-over keeps ½ k_old |ξ|² (½ k |ξ|² when
    /// there is no old stiffness), and a spring that is dropped (normal, or empty) has none.
    /// This is, bit for bit, the energy the spring stored at the end of its last step (same
    /// products in the same order), so the energy a sticking spring books from step to step
    /// telescopes exactly; it differs from ½ k |ξ'|² only by the round-off of the carry.
    #[inline]
    pub(crate) fn in_plane_with_energy(&self, n: DVec3, k: f64) -> (DVec3, f64) {
        let len2 = self.xi.length_squared();
        if len2 == 0.0 {
            return (self.xi, 0.0);
        }
        let p = self.xi - self.xi.dot(n) * n;
        let p2 = p.length_squared();
        if p2 == 0.0 {
            return (DVec3::ZERO, 0.0);
        }
        let carried = self.stiffness > 0.0 && k > 0.0;
        let (num, den) = if carried { (len2 * self.stiffness, p2 * k) } else { (len2, p2) };
        let energy = 0.5 * if carried { self.stiffness } else { k } * len2;
        (p * (num / den).sqrt(), energy)
    }
}

impl SubHistory for SpringState {
    /// Seen from the other body the relative motion, hence the elongation, changes sign.
    fn reversed(&self) -> Self {
        SpringState { xi: -self.xi, stiffness: self.stiffness }
    }
    fn rotated(&self, q: DQuat) -> Self {
        SpringState { xi: q * self.xi, stiffness: self.stiffness }
    }
}

/// Kernel: the stored elongation rotated into the current tangent plane of unit normal `n`:
/// its normal component is removed and its length restored, so that a rigid rotation of the
/// pair neither stretches nor relaxes the spring (002 §2, 003 eq. 4: ξ lies in the tangent
/// plane). A spring that was exactly normal is dropped.
#[inline]
pub fn rotate_into_plane(xi: DVec3, n: DVec3) -> DVec3 {
    let len2 = xi.length_squared();
    if len2 == 0.0 {
        return xi;
    }
    let p = xi - xi.dot(n) * n;
    let p2 = p.length_squared();
    if p2 == 0.0 {
        return DVec3::ZERO;
    }
    p * (len2 / p2).sqrt()
}

/// One step of a capped spring.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpringStep {
    /// The force (or couple) on body 2.
    pub force: DVec3,
    /// The new elongation.
    pub xi: DVec3,
    /// Elastic energy ½ k |ξ|² after the step.
    pub stored: f64,
    /// Energy dissipated during the step: the spring energy before the step plus the work
    /// −f·u Δt taken from the bodies minus the energy after it. While sticking this is
    /// γ|u|²Δt + ½k|u|²Δt², the second term being the numerical dissipation of the
    /// first-order increment ξ + uΔt (the (Δt)² truncation error of 002 §2).
    pub dissipated: f64,
    /// At the Coulomb limit.
    pub sliding: bool,
}

/// Caps the total force `f` at `cap` and books the step's energy balance, from the elastic
/// energy `before` = ½ k |ξ|² of the spring at the start of the step.
#[inline]
#[allow(clippy::too_many_arguments)]
fn finish(before: f64, xi_new: DVec3, f: DVec3, u: DVec3, dt: f64, k: f64, cap: f64, saturated: bool) -> SpringStep {
    let f2 = f.length_squared();
    let (force, capped) = if f2 > cap * cap { (f * (cap / f2.sqrt()), true) } else { (f, false) };
    let stored = 0.5 * k * xi_new.length_squared();
    let dissipated = before - force.dot(u) * dt - stored;
    SpringStep { force, xi: xi_new, stored, dissipated, sliding: saturated || capped }
}

/// Kernel: incremental spring with Coulomb cap, the Cundall-Strack law (002 eqs. 6-7; the
/// incremental elastic law of 004 §2.2.1; 003 eq. 4 force cap).
///
/// Trial spring ξ* = ξ + u Δt (002 eq. 7). If k|ξ*| ≤ `cap_static` the spring sticks
/// (ξ = ξ*); otherwise it is truncated to the Coulomb radius along ξ*,
/// ξ = ξ* `cap_dynamic`/(k|ξ*|) (004: R_t = μ|r_n| R_t^Tr/|R_t^Tr|; 002: "assigning to ξ its
/// extreme values"). The force f = −k ξ − γ u (002 eq. 6 plus the dashpot) is then limited
/// to the cone: |f| ≤ `cap_static` while the spring sticks, `cap_dynamic` once it slides.
/// `xi` must already lie in the tangent plane ([`rotate_into_plane`]).
#[inline]
pub fn capped_spring(
    xi: DVec3,
    u: DVec3,
    dt: f64,
    k: f64,
    gamma: f64,
    cap_static: f64,
    cap_dynamic: f64,
) -> SpringStep {
    capped_spring_by(xi, u * dt, u, dt, k, gamma, cap_static, cap_dynamic)
}

/// Kernel: [`capped_spring`] with the elongation increment `d` given instead of u Δt
/// (e.g. from positions, 002 eq. 14): trial ξ* = ξ + d, the same Coulomb truncation, force
/// f = −k ξ − γ u, and the energy booked with the work −f·u Δt the bodies receive at the
/// contact point (so the ledger stays that of the integrator). With d = u Δt this is
/// [`capped_spring`], bit for bit.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn capped_spring_by(
    xi: DVec3,
    d: DVec3,
    u: DVec3,
    dt: f64,
    k: f64,
    gamma: f64,
    cap_static: f64,
    cap_dynamic: f64,
) -> SpringStep {
    capped_spring_from(xi, 0.5 * k * xi.length_squared(), d, u, dt, k, gamma, cap_static, cap_dynamic)
}

/// [`capped_spring_by`] with the spring's elastic energy at the start of the step given,
/// `before` = ½ k |ξ|² (e.g. from [`SpringState::in_plane_with_energy`]).
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn capped_spring_from(
    xi: DVec3,
    before: f64,
    d: DVec3,
    u: DVec3,
    dt: f64,
    k: f64,
    gamma: f64,
    cap_static: f64,
    cap_dynamic: f64,
) -> SpringStep {
    let trial = xi + d;
    let t2 = trial.length_squared();
    let saturated = k * k * t2 > cap_static * cap_static;
    let xi_new = if saturated { trial * (cap_dynamic / (k * t2.sqrt())) } else { trial };
    let cap = if saturated { cap_dynamic } else { cap_static };
    finish(before, xi_new, -k * xi_new - gamma * u, u, dt, k, cap, saturated)
}

/// Kernel: the Brendel-Dippel spring (003 eqs. 5-6), ξ = ∫ u Θ(μ|f_n| − k|ξ|) dt,
/// f = −k ξ − γ u.
///
/// The spring is stretched only below the Coulomb radius: if k|ξ + uΔt| ≤ `cap_static` it
/// takes the increment; otherwise it is not stretched but held at the Coulomb radius
/// `cap_dynamic`/k in its own direction (a spring that was never stretched takes the
/// direction of the trial). When the motion reverses the trial spring shrinks and the
/// contact sticks at once, with no long backward motion needed to release the spring
/// (003 §2). The force is limited to the cone as in [`capped_spring`].
#[inline]
pub fn held_spring(xi: DVec3, u: DVec3, dt: f64, k: f64, gamma: f64, cap_static: f64, cap_dynamic: f64) -> SpringStep {
    let trial = xi + u * dt;
    let saturated = k * k * trial.length_squared() > cap_static * cap_static;
    let xi_new = if saturated {
        let dir = if xi.length_squared() > 0.0 { xi } else { trial };
        dir * (cap_dynamic / (k * dir.length()))
    } else {
        trial
    };
    let cap = if saturated { cap_dynamic } else { cap_static };
    finish(0.5 * k * xi.length_squared(), xi_new, -k * xi_new - gamma * u, u, dt, k, cap, saturated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_into_plane_keeps_length() {
        let xi = DVec3::new(1e-4, 2e-4, 3e-5);
        let n = DVec3::new(0.1, 0.2, 1.0).normalize();
        let r = rotate_into_plane(xi, n);
        // Orthogonality and length are exact up to round-off of a few operations.
        assert!(r.dot(n).abs() < 1e-19);
        assert!((r.length() - xi.length()).abs() < 1e-18);
    }

    #[test]
    fn carried_energy_is_the_last_steps_stored_energy() {
        let n = DVec3::new(0.1, 0.2, 1.0).normalize();
        // One sticking step (k|ξ| = 250 · 3.2e-5 ≪ cap 1), then a stiffer, tilted plane.
        let s = capped_spring(DVec3::ZERO, DVec3::new(0.3, -0.1, 0.02), 1e-4, 250.0, 0.0, 1.0, 1.0);
        assert!(!s.sliding);
        let (xi, before) = SpringState { xi: s.xi, stiffness: 250.0 }.in_plane_with_energy(n, 310.0);
        assert_eq!(before.to_bits(), s.stored.to_bits(), "same products in the same order");
        // The carried spring holds that energy up to the round-off of the carry (a few ulps).
        assert!((0.5 * 310.0 * xi.length_squared() - before).abs() <= 1e-14 * before);
        assert!(xi.dot(n).abs() <= 1e-15 * xi.length(), "in the tangent plane up to round-off");
        // A spring exactly along the normal is dropped with its energy.
        let normal = SpringState { xi: 2.0 * DVec3::Z, stiffness: 1.0 }.in_plane_with_energy(DVec3::Z, 2.0);
        assert_eq!(normal, (DVec3::ZERO, 0.0));
    }

    #[test]
    fn stick_then_slide_respects_the_cap() {
        let u = DVec3::new(0.1, 0.0, 0.0);
        let mut xi = DVec3::ZERO;
        let (k, cap) = (1e4, 2.0);
        for _ in 0..100 {
            let s = capped_spring(xi, u, 1e-4, k, 0.0, cap, cap);
            assert!(s.force.length() <= cap * (1.0 + 1e-12), "|f_t| ≤ μ f_n (1e-12: round-off of the rescale)");
            assert!(s.dissipated >= -1e-18);
            xi = s.xi;
        }
        // After sliding the spring sits at its extreme value μ f_n / k.
        assert!((xi.length() - cap / k).abs() < 1e-15);
        // Brendel-Dippel: reversal sticks at once.
        let s = held_spring(xi, -u, 1e-4, k, 0.0, cap, cap);
        assert!(!s.sliding);
        assert!(s.xi.length() < xi.length());
    }
}
