//! Rolling and torsion friction on top of Signorini-Coulomb (001 §1.7, eqs. 1.38-1.42):
//! the relative rotation of a closed contact meets a resisting couple whose rolling part
//! (tangential) is bounded by μ_r R_n and whose torsion part (normal) by μ_n R_n, μ_r and μ_n
//! lengths; below the bounds the contact does not roll (or twist), at the bound it rolls
//! (twists) with the couple opposed to the motion, as Coulomb's law does for sliding.
//!
//! Solution: the local problem couples the force impulse P and the couple impulse Q
//! through the 6×6 Delassus block W6 of the contact (the inverse of the 6×6 reduced mass of
//! 001 §1.7), built per contact at the step start; [`super::solve_local6`] solves the three
//! laws at once with the exact coupling, and the contact update applies the 6-D impulse
//! change to its two bodies (the ELG O(1) update of 004 §2.3.3.4).

use super::signorini_coulomb::{coulomb_status, SignoriniCoulomb};
use super::six_dof::{solve_local6, Caps6};
use super::{ContactSetup, ContactStatus, ImpactLaw, LocalProblem, NonSmoothLaw, ShockParams};
use granula_core::DVec3;
use nalgebra::{Matrix6, Vector6};

/// Signorini-Coulomb with rolling and torsion friction; the coefficients (lengths) come
/// from the pair material (`rolling_friction`, `torsion_friction`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RollingSignoriniCoulomb {
    /// The force law.
    pub shock: SignoriniCoulomb,
}

/// Per-contact constants.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RollingParams {
    /// The shock law's constants.
    pub shock: ShockParams,
    /// Rolling friction length μ_r (m).
    pub rolling: f64,
    /// Torsion friction length μ_n (m).
    pub torsion: f64,
}

impl NonSmoothLaw for RollingSignoriniCoulomb {
    type Params = RollingParams;
    type State = ();
    const COUPLES: bool = true;

    /// The force law's settings; its impact law must be Newton's (the 6-D local solve
    /// imposes the end-of-step bound U_n ≥ u_min and has no impulse process).
    fn validate(&self) -> Result<(), crate::error::NscdError> {
        match self.shock.restitution.law() {
            Some(law @ (ImpactLaw::Poisson | ImpactLaw::Stronge)) => {
                Err(crate::error::NscdError::UnsupportedImpactLaw { law: self.name(), impact: law.name() })
            }
            _ => self.shock.validate(),
        }
    }

    fn name(&self) -> String {
        format!("{}+rolling+torsion", self.shock.name())
    }

    fn params(&self, s: &ContactSetup<'_>, state: &()) -> RollingParams {
        RollingParams {
            shock: self.shock.params(s, state),
            rolling: s.material.rolling_friction,
            torsion: s.material.torsion_friction,
        }
    }

    #[inline]
    fn solve(&self, p: &LocalProblem, k: &RollingParams) -> DVec3 {
        self.shock.solve(p, &k.shock)
    }

    #[inline]
    fn solve6(&self, w6: &Matrix6<f64>, b: &Vector6<f64>, k: &RollingParams, start: &Vector6<f64>) -> Vector6<f64> {
        let caps = Caps6 { mu: k.shock.mu, u_min: k.shock.min_normal_velocity, rolling: k.rolling, torsion: k.torsion };
        solve_local6(w6, b, &caps, start)
    }

    fn status(&self, k: &RollingParams, p: DVec3) -> ContactStatus {
        coulomb_status(p, k.shock.mu)
    }
}
