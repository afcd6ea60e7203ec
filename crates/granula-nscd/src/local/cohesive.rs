//! Cohesive Signorini-Coulomb law (001 §1.8, Fig. 1.9b): a bonded contact resists a
//! tensile force up to F_C while its gap stays within the range d_C = E_C/F_C; the friction
//! limit becomes μ (R_n + F_C) (the DMT-like shift). A bond forms when a contact closes
//! (g ≤ 0), survives opening ("opened but not broken", kept in the contact history), and
//! breaks for good when the gap exceeds d_C; breaking costs E_C = F_C d_C.
//!
//! Solution: with R_n = R' − F_C, R' satisfies the ordinary Signorini-Coulomb law with
//! friction limit μ R' on the local velocity shifted by the tension, b' = b − W (F_C Δt) n
//! (the tension acts as a known load). So the shock law of 000 eq. 34 (or 001 eqs.
//! 1.24-1.29 for a coupled W) is reused unchanged on (b', W), and P = P' − F_C Δt n.
//!
//! What a bonded contact that has started to open (0 < g ≤ d_C) does is the
//! [`CohesionRule`]: 001's rectangle (the default) or the full pull.

use super::signorini_coulomb::{coulomb_status, signorini_bound, SignoriniCoulomb};
use super::{ContactSetup, ContactStatus, LocalProblem, NonSmoothLaw};
use granula_core::{DVec3, PairMaterial};

/// The cohesive law; force F_C and range d_C come from the pair material
/// (`cohesion_force`, `cohesion_range`). Pairs with F_C = 0 behave as [`SignoriniCoulomb`].
/// `CohesiveSignoriniCoulomb::default()` is 001's rule, [`CohesionRule::Rectangle`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CohesiveSignoriniCoulomb {
    /// What a bond that has started to open does.
    pub rule: CohesionRule,
}

/// How a bonded contact with an open gap 0 < g ≤ d_C is treated (at g ≤ 0 both rules are
/// the shifted Signorini-Coulomb law of the module's solution).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CohesionRule {
    /// 001 §1.8, Fig. 1.9b: "all pairs of values (R_n, g) within the rectangle with
    /// 0 ≤ g ≤ d_C and −F_C ≤ R_n ≤ 0 are permitted": a contact that started to open "is not
    /// pulled back by the cohesive force, if the tensile load becomes smaller than F_C
    /// again", and closes only "if the particles are pushed together". At a gap g > 0 the
    /// reaction is the projection of what holding the gap needs (U_n ≥ 0 with
    /// R_n + F_C ≥ 0, the shifted law with gap 0) onto R_n ≤ 0: a pull below F_C is
    /// balanced and the gap kept, a pull above F_C opens it further against −F_C, and a push
    /// lets it close freely with R_n = 0 (Signorini with friction μ R_n against the real
    /// gap; no DMT shift while the surfaces are apart and the bond carries nothing).
    /// Opening work is dissipated, not stored: a bond that stops at g₁ < d_C has booked
    /// F_C g₁ of its E_C and keeps the rest.
    #[default]
    Rectangle,
    /// The attraction −F_C acts on any bonded contact with g ≤ d_C, whatever the load: an
    /// opened bond is pulled back to g = 0 once the pull drops below F_C (a conservative
    /// well of depth E_C, like the MD law `ConstantCohesion`). The rule of granula before
    /// the rectangle became the default; kept for comparison.
    FullPull,
}

/// The bond of a contact, carried from step to step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Bond {
    /// Never closed since the pair came into detection range.
    #[default]
    None,
    /// Closed at least once and not broken: cohesion acts while g ≤ d_C.
    Bonded,
    /// Opened beyond d_C: no cohesion until the pair leaves detection range.
    Broken,
}

/// Per-contact constants of the cohesive law.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CohesiveParams {
    /// Friction coefficient μ.
    pub mu: f64,
    /// Smallest admissible normal velocity −g_pos/(θΔt) (000 eqs. 25, 33).
    pub min_normal_velocity: f64,
    /// Tensile impulse F_C Δt when the bond acts, else 0.
    pub tension: f64,
    /// Range d_C.
    pub range: f64,
    /// Work to break, E_C = F_C d_C (zero without cohesion).
    pub energy: f64,
    /// `true` when the bond acts in this step.
    pub bonded: bool,
    /// `true` when the bond acts on an open gap (g > 0) under [`CohesionRule::Rectangle`]:
    /// the reaction lies in [−F_C, 0] (001 Fig. 1.9b).
    pub holds_gap: bool,
}

impl NonSmoothLaw for CohesiveSignoriniCoulomb {
    type Params = CohesiveParams;
    type State = Bond;

    fn name(&self) -> String {
        "cohesive_signorini_coulomb".into()
    }

    fn range(&self, m: &PairMaterial) -> f64 {
        if m.cohesion_force > 0.0 {
            m.cohesion_range
        } else {
            0.0
        }
    }

    fn params(&self, s: &ContactSetup<'_>, state: &Bond) -> CohesiveParams {
        let m = s.material;
        let dt = s.theta_dt; // θΔt; the tension impulse uses the whole step below
        let cohesive = m.cohesion_force > 0.0;
        let bonded =
            cohesive && s.gap <= m.cohesion_range && (*state == Bond::Bonded || (*state == Bond::None && s.gap <= 0.0));
        CohesiveParams {
            mu: m.friction,
            min_normal_velocity: signorini_bound(s.gap, dt, s.gap_mode),
            tension: if bonded { m.cohesion_force * s.step_dt } else { 0.0 },
            range: m.cohesion_range,
            energy: m.cohesion_force * m.cohesion_range,
            bonded,
            holds_gap: bonded && s.gap > 0.0 && self.rule == CohesionRule::Rectangle,
        }
    }

    /// The shifted law; under [`CohesionRule::Rectangle`] on an open gap, the shifted law
    /// holding the gap (minimal normal velocity 0) when its reaction is not a push, else
    /// the plain law against the real gap (the contact closes).
    #[inline]
    fn solve(&self, p: &LocalProblem, k: &CohesiveParams) -> DVec3 {
        let shift = DVec3::new(k.tension, 0.0, 0.0);
        let shifted = LocalProblem { b: p.b - p.w * shift, ..*p };
        let base = SignoriniCoulomb::default();
        let inner = super::ShockParams { mu: k.mu, min_normal_velocity: k.min_normal_velocity };
        if !k.holds_gap {
            return base.solve(&shifted, &inner) - shift;
        }
        let hold = super::ShockParams { mu: k.mu, min_normal_velocity: 0.0 };
        let held = base.solve(&shifted, &hold) - shift;
        if held.x <= 0.0 {
            held
        } else {
            base.solve(p, &inner)
        }
    }

    fn status(&self, k: &CohesiveParams, p: DVec3) -> ContactStatus {
        if k.holds_gap && p.x > 0.0 {
            return coulomb_status(p, k.mu);
        }
        coulomb_status(DVec3::new(p.x + k.tension, p.y, p.z), k.mu)
    }

    /// Full pull: the tension −F_C Δt is the cohesive part whatever the impulse. Rectangle on
    /// an open gap: the tensile part of the impulse, min(P_n, 0), is the cohesive part.
    fn normal_split(&self, k: &CohesiveParams, p: DVec3) -> (f64, f64) {
        if k.holds_gap {
            return (p.x.max(0.0), p.x.min(0.0));
        }
        (p.x + k.tension, -k.tension)
    }

    /// The work of breaking (≈ E_C) is already in the ledger through
    /// [`NonSmoothLaw::normal_split`]: the tension's work while the bond opens.
    fn finish(&self, k: &CohesiveParams, _p: DVec3, gap_after: f64, state: &mut Bond) -> f64 {
        if k.bonded {
            if gap_after > k.range {
                *state = Bond::Broken;
                return 0.0;
            }
            *state = Bond::Bonded;
        } else if *state == Bond::None && gap_after <= 0.0 && k.tension == 0.0 && k.energy > 0.0 {
            *state = Bond::Bonded;
        }
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use granula_core::DMat3;

    #[test]
    fn friction_limit_is_shifted_by_the_cohesion_force() {
        // Diagonal W, a contact held closed (u_min = 0), pushed sideways hard: sliding with
        // |P_t| = μ (P_n + F_C Δt) (001 §1.8).
        let w = DMat3::from_diagonal(DVec3::new(2.0, 3.0, 3.0));
        let k = CohesiveParams {
            mu: 0.5,
            min_normal_velocity: 0.0,
            tension: 0.1,
            range: 1e-3,
            energy: 1e-4,
            bonded: true,
            holds_gap: false,
        };
        let p = CohesiveSignoriniCoulomb::default()
            .solve(&LocalProblem { w, b: DVec3::new(-0.1, 5.0, 0.0), diagonal: true }, &k);
        // Round-off only.
        assert!((p.y.abs() - 0.5 * (p.x + 0.1)).abs() < 1e-14, "{p}");
        // A pull (b_n > 0) below the bond strength is held: U_n = 0 with P_n < 0.
        let p = CohesiveSignoriniCoulomb::default()
            .solve(&LocalProblem { w, b: DVec3::new(0.15, 0.0, 0.0), diagonal: true }, &k);
        assert!((p.x + 0.075).abs() < 1e-14, "{p}");
        // A pull beyond it: P_n = −F_C Δt and the contact opens.
        let p = CohesiveSignoriniCoulomb::default()
            .solve(&LocalProblem { w, b: DVec3::new(0.5, 0.0, 0.0), diagonal: true }, &k);
        assert_eq!(p.x, -0.1);
    }
}
