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
/// exp(½ θ) = (cos(|θ|/2), θ sin(|θ|/2)/|θ|) ([`rotation_quat`]).
#[inline(always)]
pub fn integrate_orientation(q: DQuat, omega: DVec3, dt: f64) -> DQuat {
    let rot = omega * dt;
    if rot == DVec3::ZERO {
        return q;
    }
    (rotation_quat(rot) * q).normalize()
}

/// The bodies [`integrate_orientations`] advances together: one AVX-512 vector of `f64`.
const ORIENTATION_LANES: usize = 8;

/// Quaternions of [`ORIENTATION_LANES`] bodies, component by component (x, y, z, w rows).
type QuatLanes = [[f64; ORIENTATION_LANES]; 4];

/// [`integrate_orientation`] of every quaternion of `q`, body `i` turned by the rotation
/// vector `rotation(i)`, its θ = ω Δt (zero leaves `q[i]` as it is): the same bits as
/// `integrate_orientation(q[i], rotation(i), 1.0)` for each body.
///
/// The bodies are taken eight at a time, their components side by side in vectors as wide
/// as the processor offers ([`vector_width`](crate::vector_width)): one body's update is some
/// ninety scalar instructions (the series of [`rotation_quat`], the product, a square
/// root, a division), which made it a sixth of a dense gas's step done body by body. A
/// rotation outside the series' range (above 0.1 rad in a step), zero or not finite takes
/// the body-by-body path.
pub fn integrate_orientations(q: &mut [DQuat], rotation: impl Fn(usize) -> DVec3) {
    match crate::vector_width() {
        #[cfg(target_arch = "x86_64")]
        crate::VectorWidth::Avx512 if crate::detected_vector_width() == crate::VectorWidth::Avx512 => {
            // SAFETY: the CPU has AVX-512F (checked just above).
            unsafe { orientations_avx512(q, rotation) }
        }
        #[cfg(target_arch = "x86_64")]
        crate::VectorWidth::Avx512 | crate::VectorWidth::Avx2
            if crate::detected_vector_width() != crate::VectorWidth::Portable =>
        {
            // SAFETY: the CPU has AVX2 (checked just above).
            unsafe { orientations_avx2(q, rotation) }
        }
        _ => orientations_in_lanes(q, rotation),
    }
}

/// [`orientations_in_lanes`] compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn orientations_avx512(q: &mut [DQuat], rotation: impl Fn(usize) -> DVec3) {
    orientations_in_lanes(q, rotation);
}

/// [`orientations_in_lanes`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn orientations_avx2(q: &mut [DQuat], rotation: impl Fn(usize) -> DVec3) {
    orientations_in_lanes(q, rotation);
}

/// The body of [`integrate_orientations`]: each group of eight bodies gathered into
/// [`QuatLanes`], turned by [`turn_lanes`], scattered back; the bodies whose rotation is
/// outside the series' range are then redone one by one.
#[inline(always)]
fn orientations_in_lanes(q: &mut [DQuat], rotation: impl Fn(usize) -> DVec3) {
    for (g, group) in q.chunks_mut(ORIENTATION_LANES).enumerate() {
        let first = g * ORIENTATION_LANES;
        // A short last group is padded with identities turned by nothing (discarded).
        let mut rot = [[0.0; ORIENTATION_LANES]; 3];
        let mut lanes: QuatLanes =
            [[0.0; ORIENTATION_LANES], [0.0; ORIENTATION_LANES], [0.0; ORIENTATION_LANES], [1.0; ORIENTATION_LANES]];
        for (l, q) in group.iter().enumerate() {
            let r = rotation(first + l);
            (rot[0][l], rot[1][l], rot[2][l]) = (r.x, r.y, r.z);
            (lanes[0][l], lanes[1][l], lanes[2][l], lanes[3][l]) = (q.x, q.y, q.z, q.w);
        }
        let lengths2 = turn_lanes(&mut lanes, &rot);
        for (l, q) in group.iter_mut().enumerate() {
            let x2 = lengths2[l];
            if x2 > 0.0 && x2 <= ROTATION_SERIES_RANGE2 {
                *q = DQuat::from_xyzw(lanes[0][l], lanes[1][l], lanes[2][l], lanes[3][l]);
            } else {
                *q = integrate_orientation(*q, DVec3::new(rot[0][l], rot[1][l], rot[2][l]), 1.0);
            }
        }
    }
}

/// `(rotation_quat(θ) * q).normalize()` for each lane, with [`rotation_quat`]'s series for
/// every lane (its result is kept only where |θ|² is within the series' range) and glam's
/// product and normalisation written out in the same order of operations; returns |θ|² of
/// each lane.
#[inline(always)]
fn turn_lanes(q: &mut QuatLanes, rot: &[[f64; ORIENTATION_LANES]; 3]) -> [f64; ORIENTATION_LANES] {
    let mut lengths2 = [0.0; ORIENTATION_LANES];
    for l in 0..ORIENTATION_LANES {
        let (tx, ty, tz) = (rot[0][l], rot[1][l], rot[2][l]);
        let x2 = tx * tx + ty * ty + tz * tz;
        lengths2[l] = x2;
        let (c, sc) = half_angle_series(x2);
        let h = 0.5 * sc;
        let (x0, y0, z0, w0) = (tx * h, ty * h, tz * h, c);
        let (x1, y1, z1, w1) = (q[0][l], q[1][l], q[2][l], q[3][l]);
        let x = w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1;
        let y = w0 * y1 - x0 * z1 + y0 * w1 + z0 * x1;
        let z = w0 * z1 + x0 * y1 - y0 * x1 + z0 * w1;
        let w = w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1;
        let scale = 1.0 / (x * x + y * y + z * z + w * w).sqrt();
        (q[0][l], q[1][l], q[2][l], q[3][l]) = (x * scale, y * scale, z * scale, w * scale);
    }
    lengths2
}

/// The largest |θ|² [`rotation_quat`] takes from its series (0.1 rad).
const ROTATION_SERIES_RANGE2: f64 = 1e-2;

/// cos(|θ|/2) and sin(|θ|/2)/(|θ|/2) of a rotation of squared angle `x2` from their series
/// to (|θ|/2)⁸ (Horner, factorials of 2k and 2k + 1): remainder below 1e-19 for
/// `x2` ≤ [`ROTATION_SERIES_RANGE2`].
#[inline(always)]
fn half_angle_series(x2: f64) -> (f64, f64) {
    let y = 0.25 * x2; // (|θ|/2)²
    let c = 1.0 - y * (1.0 / 2.0 - y * (1.0 / 24.0 - y * (1.0 / 720.0 - y * (1.0 / 40320.0))));
    let sc = 1.0 - y * (1.0 / 6.0 - y * (1.0 / 120.0 - y * (1.0 / 5040.0 - y * (1.0 / 362880.0))));
    (c, sc)
}

/// The rotation vector θ = φ u of the unit quaternion `q` (its logarithm, times 2), with
/// the angle φ ∈ [0, π]: `q` and −`q` give the same vector.
///
/// φ = 2 atan2(|q_v|, |q_w|) is accurate to round-off for every angle, small ones included
/// (an arccos of q_w loses half the digits below 1e-8 rad). Below 0.1 rad the factor
/// atan(t)/t, t = |q_v|/q_w, comes from its series to t¹² (remainder < 1e-19), without
/// a square root or a trigonometric call. Used for the rotation increments of 002 eq. 15:
/// θ = log(q_now q_prev⁻¹).
#[inline]
pub fn rotation_vector(q: DQuat) -> DVec3 {
    let (v, w) = if q.w < 0.0 { (-q.xyz(), -q.w) } else { (q.xyz(), q.w) };
    let s2 = v.length_squared();
    if s2 == 0.0 {
        return DVec3::ZERO;
    }
    // t² ≤ tan²(0.05) ≈ 2.5e-3: φ ≤ 0.1 rad.
    if s2 <= 2.5e-3 * w * w {
        let inv_w = 1.0 / w;
        let t2 = s2 * inv_w * inv_w;
        // atan(t)/t = 1 − t²/3 + t⁴/5 − … + t¹²/13 (Horner).
        let p = 1.0
            - t2 * (1.0 / 3.0
                - t2 * (1.0 / 5.0 - t2 * (1.0 / 7.0 - t2 * (1.0 / 9.0 - t2 * (1.0 / 11.0 - t2 * (1.0 / 13.0))))));
        return v * (2.0 * inv_w * p);
    }
    let s = s2.sqrt();
    v * (2.0 * s.atan2(w) / s)
}

/// The unit quaternion of the rotation vector θ (the exponential map): rotation by |θ|
/// about θ/|θ|. Below 0.1 rad, cos(|θ|/2) and sin(|θ|/2)/|θ| come from their series
/// (remainder < 1e-19), without a square root or a trigonometric call; the inverse of
/// [`rotation_vector`].
#[inline]
pub fn rotation_quat(theta: DVec3) -> DQuat {
    let x2 = theta.length_squared();
    if x2 == 0.0 {
        return DQuat::IDENTITY;
    }
    if x2 <= ROTATION_SERIES_RANGE2 {
        let (c, sc) = half_angle_series(x2);
        let v = theta * (0.5 * sc);
        return DQuat::from_xyzw(v.x, v.y, v.z, c);
    }
    let x = x2.sqrt();
    DQuat::from_axis_angle(theta / x, x)
}

/// The unit vector along `v`, or `None` when `v` is zero or has a non-finite component.
///
/// Overflow- and underflow-safe: `v` is first divided by its largest absolute component,
/// so that the squared length lies in [1, 3] whatever the magnitude of `v` (a plain
/// `v / |v|` turns (0, 0, 1e200) into zero, since 1e400 overflows to infinity, and
/// (0, 0, 1e-200) into NaN, since 1e-400 underflows to zero).
#[inline]
pub fn normalize_scaled(v: DVec3) -> Option<DVec3> {
    if !v.is_finite() {
        return None;
    }
    let m = v.abs().max_element();
    if m == 0.0 {
        return None;
    }
    let w = v / m;
    Some(w / w.length())
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
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Orientations and rotations of every kind `integrate_orientations` must handle:
    /// rotations of 1e-12 to 0.3 rad per step (both sides of the series' 0.1 rad), zero,
    /// too small for their square (1e-170: |θ|² underflows to zero, the rotation does
    /// not), and not finite; 203 bodies, so that the last group is short.
    fn orientation_cases() -> (Vec<DQuat>, Vec<DVec3>) {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut unit =
            || DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let mut q = Vec::new();
        let mut rot = Vec::new();
        for i in 0..203 {
            let axis = unit().normalize();
            q.push((DQuat::from_axis_angle(axis, 2.0 * i as f64) * DQuat::from_xyzw(1e-9, 0.0, 0.0, 1.0)).normalize());
            let r = unit();
            rot.push(match i % 7 {
                0 => DVec3::ZERO,
                1 => r * 0.3,
                2 => r * 1e-170,
                3 if i == 3 => DVec3::new(f64::NAN, 0.0, 0.0),
                _ => r * 10f64.powi(-(i % 12)) * 0.05,
            });
        }
        (q, rot)
    }

    #[test]
    fn orientations_in_lanes_give_the_bits_of_one_body_at_a_time() {
        let (q, rot) = orientation_cases();
        let expected: Vec<DQuat> = q.iter().zip(&rot).map(|(q, r)| integrate_orientation(*q, *r, 1.0)).collect();
        let bits = |v: &[DQuat]| v.iter().map(|q| q.to_array().map(f64::to_bits)).collect::<Vec<_>>();
        type Turn<'a> = Box<dyn Fn(&mut [DQuat]) + 'a>;
        let mut widths: Vec<(&str, Turn<'_>)> =
            vec![("portable", Box::new(|q: &mut [DQuat]| orientations_in_lanes(q, |i| rot[i])))];
        #[cfg(target_arch = "x86_64")]
        {
            if crate::detected_vector_width() != crate::VectorWidth::Portable {
                // SAFETY: the CPU has AVX2 (checked just above).
                widths.push(("avx2", Box::new(|q: &mut [DQuat]| unsafe { orientations_avx2(q, |i| rot[i]) })));
            }
            if crate::detected_vector_width() == crate::VectorWidth::Avx512 {
                // SAFETY: the CPU has AVX-512F (checked just above).
                widths.push(("avx512", Box::new(|q: &mut [DQuat]| unsafe { orientations_avx512(q, |i| rot[i]) })));
            }
        }
        widths.push(("chosen", Box::new(|q: &mut [DQuat]| integrate_orientations(q, |i| rot[i]))));
        for (name, run) in &widths {
            let mut turned = q.clone();
            run(&mut turned);
            assert_eq!(bits(&turned), bits(&expected), "{name}");
        }
        // The cases cover both paths: turned in the lanes and redone body by body.
        let in_series = rot.iter().filter(|r| r.length_squared() > 0.0 && r.length_squared() <= 1e-2).count();
        assert!(in_series > 100 && in_series < rot.len() - 40, "{in_series} of {} in the series' range", rot.len());
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
    fn series_paths_match_the_trigonometric_ones() {
        let axis = DVec3::new(-0.8, 0.1, 0.55).normalize();
        // Both sides of the 0.1 rad switch, and small angles.
        for angle in [1e-12, 1e-6, 3e-3, 0.05, 0.0999, 0.1, 0.1001, 0.3] {
            let q = rotation_quat(axis * angle);
            let reference = DQuat::from_axis_angle(axis, angle);
            // Round-off of the series (a few ulps of 1 in each component).
            assert!((q - reference).length() < 4e-16, "exp at {angle}: {q} vs {reference}");
            let back = rotation_vector(q);
            // Relative round-off on the angle, ≈ 5 ulps.
            assert!((back - axis * angle).length() <= 1e-15 * angle, "log at {angle}: {back}");
            assert!((rotation_vector(reference) - axis * angle).length() <= 1e-15 * angle);
        }
    }

    #[test]
    fn normalising_survives_huge_and_tiny_vectors() {
        for (v, unit) in [
            (DVec3::new(0.0, 1e300, 0.0), DVec3::Y),
            (DVec3::new(0.0, 0.0, 1e200), DVec3::Z),
            (DVec3::new(-1e-200, 0.0, 0.0), -DVec3::X),
            (DVec3::new(f64::MAX, 0.0, 0.0), DVec3::X),
            (DVec3::new(5e-324, 0.0, 0.0), DVec3::X),
        ] {
            assert_eq!(normalize_scaled(v), Some(unit), "{v}");
        }
        let v = DVec3::new(3e250, -4e250, 0.0);
        let n = normalize_scaled(v).unwrap();
        // Two divisions and a square root: a few ulps of 1.
        assert!((n - DVec3::new(0.6, -0.8, 0.0)).length() < 1e-15, "{n}");
        for bad in [DVec3::ZERO, DVec3::NAN, DVec3::new(1.0, f64::INFINITY, 0.0)] {
            assert_eq!(normalize_scaled(bad), None, "{bad}");
        }
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
