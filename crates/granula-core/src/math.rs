//! Vector math on glam's `f64` types, and the few helpers every crate needs.

pub use glam::{DMat3, DQuat, DVec3};

/// An orthonormal tangent pair `(t, s)` for the unit normal `n`, so that `(n, t, s)` is a
/// right-handed frame. Deterministic: the same `n` always gives the same pair.
#[inline]
pub fn tangent_frame(n: DVec3) -> (DVec3, DVec3) {
    let (t, s) = n.any_orthonormal_pair();
    (t, s)
}

/// The matrix of the cross product, `skew(a) * b == a.cross(b)`.
#[inline]
pub fn skew(a: DVec3) -> DMat3 {
    DMat3::from_cols(DVec3::new(0.0, a.z, -a.y), DVec3::new(-a.z, 0.0, a.x), DVec3::new(a.y, -a.x, 0.0))
}

/// Rotates `q` by the rotation vector `omega * dt` (exponential map), then renormalises.
///
/// q(t+Δt) = exp(½ ω Δt) ⊗ q(t), exact for a constant world-frame angular velocity.
#[inline]
pub fn integrate_orientation(q: DQuat, omega: DVec3, dt: f64) -> DQuat {
    let rot = omega * dt;
    let angle = rot.length();
    if angle == 0.0 {
        return q;
    }
    (DQuat::from_axis_angle(rot / angle, angle) * q).normalize()
}

/// `true` when every component of `v` is finite.
#[inline]
pub fn is_finite(v: DVec3) -> bool {
    v.is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn tangent_frame_is_orthonormal_and_right_handed() {
        for n in [DVec3::X, DVec3::Y, DVec3::Z, DVec3::new(1.0, -2.0, 0.5).normalize()] {
            let (t, s) = tangent_frame(n);
            // Orthonormality holds to round-off (a few ulps of 1.0).
            assert_abs_diff_eq!(t.dot(n), 0.0, epsilon = 1e-15);
            assert_abs_diff_eq!(s.dot(n), 0.0, epsilon = 1e-15);
            assert_abs_diff_eq!(t.dot(s), 0.0, epsilon = 1e-15);
            assert_abs_diff_eq!(t.length(), 1.0, epsilon = 1e-15);
            assert_abs_diff_eq!(n.cross(t).dot(s), 1.0, epsilon = 1e-15);
        }
    }

    #[test]
    fn skew_matches_cross() {
        let a = DVec3::new(0.3, -1.2, 2.0);
        let b = DVec3::new(-0.7, 0.1, 0.4);
        let d = skew(a) * b - a.cross(b);
        assert!(d.length() < 1e-15);
    }

    #[test]
    fn orientation_quarter_turn() {
        let q = integrate_orientation(DQuat::IDENTITY, DVec3::Z * std::f64::consts::FRAC_PI_2, 1.0);
        let x = q * DVec3::X;
        // A quarter turn about z maps x to y; round-off only.
        assert_abs_diff_eq!(x.y, 1.0, epsilon = 1e-15);
        assert_abs_diff_eq!(x.x, 0.0, epsilon = 1e-15);
    }
}
