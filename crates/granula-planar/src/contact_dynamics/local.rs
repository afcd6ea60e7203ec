//! The local problem of one contact in 2D: its Delassus block W_αα (004 §2.3.3.3) and the
//! coupled Signorini-Coulomb solver by graph intersection (004 §2.3.3.4).
//!
//! Local frame: tangent t = (−n_y, n_x), normal n from body i to body j. The local
//! velocity is U = (U_t, U_n) of body j's contact point relative to body i's, the local
//! impulse P = (P_t, P_n) acts on j (and −P on i).

use glam::DVec2;

/// 2D cross product a × b (the z component).
#[inline]
pub(crate) fn cross(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

/// The 2×2 Delassus block W_αα = H*_α M⁻¹ H_α of one contact (004 §2.3.3.3; the 2D form
/// of 000 eq. 16 and of the coupled reduced mass of 001 eqs. 1.27-1.29). With the lever
/// arms lᵢ, lⱼ from the centres to the contact point, for a ∈ {t, n}:
/// W_ab = Σ_k (1/m_k) a·b + (l_k × a)(l_k × b)/I_k, k over both bodies (a·b = δ_ab).
/// The off-diagonal W_tn couples sliding and pressing through the rotations.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Delassus {
    pub tt: f64,
    pub tn: f64,
    pub nn: f64,
}

impl Delassus {
    /// W from the inverse masses and inertias and the lever arms of the two bodies.
    pub(crate) fn new(normal: DVec2, inv_mass: [f64; 2], inv_inertia: [f64; 2], lever: [DVec2; 2]) -> Delassus {
        let tangent = normal.perp();
        let mut w = Delassus::default();
        for k in 0..2 {
            let (rn, rt) = (cross(lever[k], normal), cross(lever[k], tangent));
            w.tt += inv_mass[k] + rt * rt * inv_inertia[k];
            w.nn += inv_mass[k] + rn * rn * inv_inertia[k];
            w.tn += rt * rn * inv_inertia[k];
        }
        w
    }
}

/// How the local law was met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalStatus {
    /// No impulse: the contact opens (or does not close within the step).
    Open,
    /// U = 0 inside Coulomb's cone.
    Sticking,
    /// On the cone's edge, sliding against the tangential impulse.
    Sliding,
}

/// The local problem U = b + W P with Signorini's condition on U_n and Coulomb's law with
/// coefficient μ, solved exactly (004 §2.3.3.4): b_N ≥ 0 → P = 0 (no contact); else the
/// sliding solutions P_n = −b_N/Dfn_ε, P_t = εμP_n with Dfn_ε = W_nn + εμ W_nt and
/// Dft_ε = W_tn + εμ W_tt are admissible when ε(Dft_ε b_N − Dfn_ε b_T) ≥ 0 (then U_t has
/// the sign of −ε); otherwise the contact sticks, P = −W⁻¹ b. We test sticking first (a
/// stuck solution inside the cone is the solution) and then the sliding direction on the
/// side where the stuck impulse left the cone. `b` is (b_T, b_N); returns (P_t, P_n).
pub(crate) fn solve(w: &Delassus, mu: f64, b: DVec2) -> (DVec2, LocalStatus) {
    let (bt, bn) = (b.x, b.y);
    if bn >= 0.0 {
        return (DVec2::ZERO, LocalStatus::Open);
    }
    let det = w.tt * w.nn - w.tn * w.tn;
    let mut first = 1.0;
    if det > 0.0 {
        let pt = -(w.nn * bt - w.tn * bn) / det;
        let pn = -(w.tt * bn - w.tn * bt) / det;
        if pn >= 0.0 && pt.abs() <= mu * pn {
            return (DVec2::new(pt, pn), LocalStatus::Sticking);
        }
        if pt < 0.0 {
            first = -1.0;
        }
    }
    for eps in [first, -first] {
        let dfn = w.nn + eps * mu * w.tn;
        if dfn <= 0.0 {
            continue;
        }
        let dft = w.tn + eps * mu * w.tt;
        if eps * (dft * bn - dfn * bt) >= 0.0 {
            let pn = -bn / dfn;
            return (DVec2::new(eps * mu * pn, pn), LocalStatus::Sliding);
        }
    }
    // Degenerate block (μ|W_tn| ≥ W_nn on both sides, a Painlevé-like case): press along
    // the normal alone.
    (DVec2::new(0.0, -bn / w.nn), LocalStatus::Sliding)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn residual(w: &Delassus, b: DVec2, p: DVec2) -> DVec2 {
        DVec2::new(b.x + w.tt * p.x + w.tn * p.y, b.y + w.tn * p.x + w.nn * p.y)
    }

    #[test]
    fn the_three_statuses_meet_the_law() {
        let w = Delassus { tt: 3.0, tn: 0.7, nn: 2.0 };
        // Opening.
        assert_eq!(solve(&w, 0.5, DVec2::new(1.0, 0.1)).1, LocalStatus::Open);
        // Sticking: small tangential free velocity, U = 0 exactly (to round-off).
        let (p, s) = solve(&w, 0.5, DVec2::new(-0.1, -1.0));
        assert_eq!(s, LocalStatus::Sticking);
        assert!(residual(&w, DVec2::new(-0.1, -1.0), p).length() < 1e-15 && p.x.abs() <= 0.5 * p.y);
        // Sliding both ways: U_n = 0, |P_t| = μ P_n, U_t opposite to P_t.
        for bt in [5.0, -5.0] {
            let b = DVec2::new(bt, -1.0);
            let (p, s) = solve(&w, 0.5, b);
            let u = residual(&w, b, p);
            assert_eq!(s, LocalStatus::Sliding);
            assert!(u.y.abs() < 1e-15 && (p.x.abs() - 0.5 * p.y).abs() < 1e-15 && u.x * p.x < 0.0, "{p} {u}");
        }
    }
}
