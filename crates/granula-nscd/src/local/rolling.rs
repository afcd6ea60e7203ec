//! Rolling and torsion friction on top of Signorini-Coulomb (001 §1.7, eqs. 1.38-1.42):
//! the relative rotation of a closed contact meets a resisting couple whose rolling part
//! (tangential) is bounded by μ_r R_n and whose torsion part (normal) by μ_n R_n, μ_r and μ_n
//! lengths; below the bounds the contact does not roll (or twist), at the bound it rolls
//! (twists) with the couple opposed to the motion, as Coulomb's law does for sliding.
//!
//! Solution: the local problem couples the force impulse P and the couple impulse Q
//! through the 6×6 block of the contact. granula solves it by block Gauss-Seidel inside the
//! contact update: the force part with the Signorini-Coulomb law at the current Q, then the
//! couple part at the new P, with the diagonal of the angular block A₁ + A₂ (exact for
//! spheres, whose angular block is isotropic). The outer Gauss-Seidel sweeps iterate both,
//! so the converged impulses satisfy both graphs; a non-diagonal angular block only slows
//! the convergence (the quasi-NLGS remark of 004 §2.3.3.4). The 6×6 reduced mass of 001
//! is not formed.

use super::signorini_coulomb::{coulomb_status, SignoriniCoulomb};
use super::{ContactSetup, ContactStatus, LocalProblem, NonSmoothLaw, ShockParams};
use granula_core::DVec3;

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

/// The couple of 001 eqs. 1.38-1.42 in impulse form for a diagonal angular block `w`:
/// torsion Q_n = −b_n/w_n clipped to |Q_n| ≤ μ_n P_n; rolling Q_r = −b_r/w_r (tangential)
/// clipped to |Q_r| ≤ μ_r P_n along its direction.
#[inline]
pub fn rolling_torsion_couple(w: DVec3, b: DVec3, pn: f64, rolling: f64, torsion: f64) -> DVec3 {
    let pn = pn.max(0.0);
    let qn = if w.x > 0.0 { (-b.x / w.x).clamp(-torsion * pn, torsion * pn) } else { 0.0 };
    let qt = if w.y > 0.0 { -b.y / w.y } else { 0.0 };
    let qs = if w.z > 0.0 { -b.z / w.z } else { 0.0 };
    let lim = rolling * pn;
    let r2 = qt * qt + qs * qs;
    if r2 > lim * lim {
        let k = lim / r2.sqrt();
        DVec3::new(qn, qt * k, qs * k)
    } else {
        DVec3::new(qn, qt, qs)
    }
}

impl NonSmoothLaw for RollingSignoriniCoulomb {
    type Params = RollingParams;
    type State = ();
    const COUPLES: bool = true;

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
    fn solve_couple(&self, w: DVec3, b: DVec3, k: &RollingParams, p: DVec3) -> DVec3 {
        rolling_torsion_couple(w, b, p.x, k.rolling, k.torsion)
    }

    fn status(&self, k: &RollingParams, p: DVec3) -> ContactStatus {
        coulomb_status(p, k.shock.mu)
    }
}
