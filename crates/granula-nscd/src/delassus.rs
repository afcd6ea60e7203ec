//! The diagonal Delassus block W_αα = H*_α M⁻¹ H_α of one contact in its local frame
//! (000 eq. 15; 004 §2.3.3.3), built LMGC90-style by injecting unit local impulses, so that
//! any shape with branch vectors gets it.
//!
//! For spheres and walls with infinite inertia W_αα is diagonal, diag(1/m_n, 1/m_t, 1/m_t)
//! with m_n = (1/m₁ + 1/m₂)⁻¹ and m_t = (1/m_n + l₁²/I₁ + l₂²/I₂)⁻¹ (000 eqs. 16-19); for
//! general inertia it is the full 3×3 block (001 eqs. 1.18-1.19).

use crate::bodies::BodyMobility;
use granula_core::{DMat3, DVec3};

/// Relative tolerance under which off-diagonal entries count as zero: W is then treated as
/// diagonal. 1e-12 of the diagonal is round-off for the sphere case, where the exact
/// off-diagonal terms vanish (000 eq. 19).
pub const DIAGONAL_TOLERANCE: f64 = 1e-12;

/// W_αα in the frame `(n, t, s)` for body 1 (`m1`, branch `l1`) and body 2 (`m2`, `l2`).
#[allow(clippy::needless_range_loop)] // index loops over a 3×3 triangle read clearer here
pub fn delassus_block(frame: [DVec3; 3], m1: &BodyMobility, l1: DVec3, m2: &BodyMobility, l2: DVec3) -> DMat3 {
    let mut w = [[0.0; 3]; 3];
    for (m, l) in [(m1, l1), (m2, l2)] {
        let arms = [l.cross(frame[0]), l.cross(frame[1]), l.cross(frame[2])];
        for k in 0..3 {
            let ang_k = m.ang * arms[k];
            let lin_k = m.lin * frame[k];
            for j in k..3 {
                w[k][j] += frame[j].dot(lin_k) + arms[j].dot(ang_k);
            }
        }
    }
    // Entries at round-off level of the largest diagonal term are zero (a locked degree of
    // freedom, or the exact zeros of 000 eq. 19): cleaning them keeps a singular direction
    // exactly singular and a diagonal block exactly diagonal.
    let scale = w[0][0].abs().max(w[1][1].abs()).max(w[2][2].abs());
    for k in 0..3 {
        for j in k..3 {
            if w[k][j].abs() <= DIAGONAL_TOLERANCE * scale {
                w[k][j] = 0.0;
            }
        }
        for j in 0..k {
            w[k][j] = w[j][k];
        }
    }
    DMat3::from_cols_array_2d(&w)
}

/// `true` when the off-diagonal entries of `w` are round-off compared with its diagonal.
pub fn is_diagonal(w: &DMat3) -> bool {
    let d = [w.x_axis.x, w.y_axis.y, w.z_axis.z];
    let off = [(0, 1), (0, 2), (1, 2)];
    off.iter().all(|&(a, b)| w.col(b)[a].abs() <= DIAGONAL_TOLERANCE * (d[a] * d[b]).abs().sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use granula_core::math::tangent_frame;

    fn sphere(m: f64, r: f64) -> BodyMobility {
        let i = 0.4 * m * r * r;
        BodyMobility { lin: DVec3::splat(1.0 / m), ang: DMat3::from_diagonal(DVec3::splat(1.0 / i)) }
    }

    #[test]
    fn two_spheres_give_000_eqs_17_18() {
        let n = DVec3::new(1.0, 2.0, -0.5).normalize();
        let (t, s) = tangent_frame(n);
        let (m0, r0, m1, r1) = (2.0, 0.1, 3.0, 0.2);
        let w = delassus_block([n, t, s], &sphere(m0, r0), n * r0, &sphere(m1, r1), -n * r1);
        let mn = 1.0 / (1.0 / m0 + 1.0 / m1);
        let mt = 1.0 / (1.0 / mn + r0 * r0 / (0.4 * m0 * r0 * r0) + r1 * r1 / (0.4 * m1 * r1 * r1));
        assert!(is_diagonal(&w));
        // Round-off of a handful of products of order 1.
        assert!((w.x_axis.x - 1.0 / mn).abs() < 1e-13);
        assert!((w.y_axis.y - 1.0 / mt).abs() < 1e-13);
        assert!((w.z_axis.z - 1.0 / mt).abs() < 1e-13);
    }

    #[test]
    fn wall_has_infinite_inertia_and_anisotropic_body_couples() {
        let n = DVec3::Z;
        let (t, s) = tangent_frame(n);
        let wall = BodyMobility::default();
        let w = delassus_block([n, t, s], &wall, DVec3::new(5.0, 1.0, 0.0), &sphere(1.0, 0.5), -n * 0.5);
        // m_t: the wall's l²/I term is zero (000 remark after eq. 34): 1/m_t = 1/m + r²/I = 1 + 1/0.4.
        assert!((w.y_axis.y - (1.0 + 2.5)).abs() < 1e-13);
        // A body with anisotropic inertia touched off its centre line couples n and t.
        let aniso = BodyMobility { lin: DVec3::ONE, ang: DMat3::from_diagonal(DVec3::new(1.0, 2.0, 3.0)) };
        let w = delassus_block([n, t, s], &wall, DVec3::ZERO, &aniso, DVec3::new(0.3, 0.1, -0.5));
        assert!(!is_diagonal(&w));
        // Symmetric by construction.
        assert_eq!(w, w.transpose());
    }
}
