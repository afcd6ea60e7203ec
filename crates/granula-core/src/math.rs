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

/// The rotation vector θ = φ u of the unit quaternion `q` (its logarithm, times 2), with
/// the angle φ ∈ [0, π]: `q` and −`q` give the same vector.
///
/// φ = 2 atan2(|q_v|, |q_w|) is accurate to round-off for every angle, small ones included
/// (an arccos of q_w loses half the digits below 1e-8 rad). Used for the rotation increments
/// of 002 eq. 15: θ = log(q_now q_prev⁻¹).
#[inline]
pub fn rotation_vector(q: DQuat) -> DVec3 {
    let (v, w) = if q.w < 0.0 { (-q.xyz(), -q.w) } else { (q.xyz(), q.w) };
    let s = v.length();
    if s == 0.0 {
        return DVec3::ZERO;
    }
    v * (2.0 * s.atan2(w) / s)
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
    fn rotation_vector_inverts_the_exponential_map() {
        let axis = DVec3::new(0.3, -1.2, 0.5).normalize();
        for angle in [0.0, 1e-15, 1e-9, 1e-4, 0.7, 3.0, std::f64::consts::PI] {
            let q = DQuat::from_axis_angle(axis, angle);
            let theta = rotation_vector(q);
            // Relative round-off of a few operations (≈ 5 ulps) on the angle; the angle itself is
            // recovered from atan2, not from an arccos that would lose digits near 0.
            assert!((theta - axis * angle).length() <= 1e-15 * angle, "angle {angle}: {theta}");
            // −q is the same rotation: the same vector.
            assert_eq!(rotation_vector(-q), theta);
        }
        // A rotation composed of two known ones: q₂ q₁⁻¹ returns the second's vector.
        let q1 = DQuat::from_axis_angle(DVec3::X, 0.4);
        let d = DQuat::from_axis_angle(axis, 2e-7);
        let theta = rotation_vector((d * q1) * q1.inverse());
        // Composing and multiplying back costs a few ulps of 1 in the quaternion's
        // components, i.e. ~1e-16 absolute on the 2e-7 angle.
        assert!((theta - axis * 2e-7).length() < 1e-15, "{theta}");
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
