//! The 2D coupled local solver of 004 §2.3.3.4 ("coupled (n, t) graph intersection"), for
//! planar mode, where a contact has one tangent t in the plane of motion.
//!
//! With b = U_free + Σ_{β≠α} W_αβ P_β and the 2×2 block W (n, t):
//! - if b_N ≥ 0 (here: b_N ≥ u_min, the gap-aware bound of 000 eq. 25): P = 0 (no contact);
//! - else for ε = −1, 1: Dft_ε = W_TN + ε μ W_TT, Dfn_ε = W_NN + ε μ W_NT; if
//!   ε (Dft_ε b_N − Dfn_ε b_T) ≥ 0, sliding in the direction ε: P_N = −b_N/Dfn_ε,
//!   P_T = ε μ P_N;
//! - else sticking: P = W⁻¹ (−b).
//!
//! The velocities are shifted by u_min so that the closed contact ends at U_N = u_min.

/// Solves the 2D local problem; `w = [[W_NN, W_NT], [W_TN, W_TT]]`, `b = [b_N, b_T]`,
/// returns `[P_N, P_T]`.
pub fn graph_intersection_2d(w: [[f64; 2]; 2], b: [f64; 2], mu: f64, u_min: f64) -> [f64; 2] {
    let bn = b[0] - u_min;
    let bt = b[1];
    if bn >= 0.0 {
        return [0.0, 0.0];
    }
    for eps in [-1.0, 1.0] {
        let dft = w[1][0] + eps * mu * w[1][1];
        let dfn = w[0][0] + eps * mu * w[0][1];
        if dfn > 0.0 && eps * (dft * bn - dfn * bt) >= 0.0 {
            let pn = -bn / dfn;
            return [pn, eps * mu * pn];
        }
    }
    let det = w[0][0] * w[1][1] - w[0][1] * w[1][0];
    if det.abs() < 1e-300 {
        return [-bn / w[0][0], 0.0];
    }
    [(-w[1][1] * bn + w[0][1] * bt) / det, (w[1][0] * bn - w[0][0] * bt) / det]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::signorini_coulomb::coupled_shock_law;
    use granula_core::{DMat3, DVec3};

    #[test]
    fn agrees_with_the_three_step_law_restricted_to_the_plane() {
        // A coupled 2×2 block, embedded in 3D with the s direction locked (zero mobility).
        let w2 = [[2.0, 0.4], [0.4, 1.5]];
        let w3 = DMat3::from_cols(DVec3::new(2.0, 0.4, 0.0), DVec3::new(0.4, 1.5, 0.0), DVec3::ZERO);
        for (b, mu) in
            [([-1.0, 0.1], 0.5), ([-1.0, 3.0], 0.3), ([-1.0, -3.0], 0.3), ([0.2, 1.0], 0.3), ([-0.5, 0.0], 0.0)]
        {
            let p2 = graph_intersection_2d(w2, b, mu, 0.0);
            let p3 = coupled_shock_law(&w3, DVec3::new(b[0], b[1], 0.0), mu, 0.0);
            // Both solve the same graph-intersection problem exactly: round-off only.
            assert!((p2[0] - p3.x).abs() < 1e-12 && (p2[1] - p3.y).abs() < 1e-12, "b {b:?}: {p2:?} vs {p3}");
            // The solution satisfies Signorini-Coulomb: U_n = 0 when closed, |P_t| ≤ μ P_n.
            if p2[0] > 0.0 {
                let un = b[0] + w2[0][0] * p2[0] + w2[0][1] * p2[1];
                assert!(un.abs() < 1e-12);
                assert!(p2[1].abs() <= mu * p2[0] * (1.0 + 1e-12));
            }
        }
    }
}
