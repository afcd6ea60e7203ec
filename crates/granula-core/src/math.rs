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
/// q(t+Δt) = exp(½ ω Δt) ⊗ q(t), exact for a constant world-frame angular velocity, with
/// exp(½ θ) = (cos(|θ|/2), θ sin(|θ|/2)/|θ|) ([`rotation_quaternion`]).
#[inline]
pub fn integrate_orientation(q: DQuat, omega: DVec3, dt: f64) -> DQuat {
    let rot = omega * dt;
    if rot == DVec3::ZERO {
        return q;
    }
    (rotation_quaternion(rot) * q).normalize()
}

/// The unit quaternion of the rotation vector `rot` (angle |rot| about rot/|rot|):
/// (cos(θ/2), rot · sin(θ/2)/θ) with θ = |rot|.
///
/// Below θ = 0.1 rad (every time step of a stable simulation) both factors come from their
/// Taylor series in θ², which needs neither a root nor a trigonometric call: with x = θ/2,
/// cos x = Σ (−x²)ᵏ/(2k)! to x⁸ and sin(x)/x = Σ (−x²)ᵏ/(2k + 1)! to x⁸; the first omitted
/// terms, x¹⁰/10! < 2.7e-20 and x¹⁰/11! < 2.5e-21, lie below half an ulp of the sums (≈ 1),
/// so the series agree with the library functions to round-off.
#[inline]
pub fn rotation_quaternion(rot: DVec3) -> DQuat {
    let theta2 = rot.length_squared();
    if theta2 < 1e-2 {
        let x2 = 0.25 * theta2;
        let cos = 1.0 - x2 / 2.0 * (1.0 - x2 / 12.0 * (1.0 - x2 / 30.0 * (1.0 - x2 / 56.0)));
        let sinc = 1.0 - x2 / 6.0 * (1.0 - x2 / 20.0 * (1.0 - x2 / 42.0 * (1.0 - x2 / 72.0)));
        let v = rot * (0.5 * sinc);
        DQuat::from_xyzw(v.x, v.y, v.z, cos)
    } else {
        let theta = theta2.sqrt();
        DQuat::from_axis_angle(rot / theta, theta)
    }
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
    fn rotation_quaternion_series_matches_the_trigonometric_form() {
        for &theta in &[1e-9, 1e-4, 3e-3, 0.05, 0.0999] {
            let axis = DVec3::new(0.3, -0.5, 0.8).normalize();
            let q = rotation_quaternion(axis * theta);
            let r = DQuat::from_axis_angle(axis, theta);
            // Both forms are exact to round-off (the series truncation is below 3e-20, see
            // the doc): a few ulps of components of size ≤ 1.
            for (a, b) in q.to_array().iter().zip(r.to_array()) {
                assert_abs_diff_eq!(*a, b, epsilon = 4e-16);
            }
        }
        // Above the series range the trigonometric branch is used: a half turn about z.
        let q = rotation_quaternion(DVec3::Z * std::f64::consts::PI);
        // cos(π/2) is 6e-17 in floating point, sin(π/2) is 1 exactly.
        assert_abs_diff_eq!(q.w, 0.0, epsilon = 1e-16);
        assert_abs_diff_eq!(q.z, 1.0, epsilon = 1e-16);
    }

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
