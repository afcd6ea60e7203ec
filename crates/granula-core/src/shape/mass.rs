//! Mass properties: mass and principal moments of inertia.

use crate::error::{BodyRef, CoreError, Result};
use crate::math::{DMat3, DQuat, DVec3};
use std::f64::consts::PI;

/// Mass and principal moments of inertia about the centre of mass, in the body frame.
/// Infinite values stand for walls and other bodies that no force can move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Mass m (kg), possibly `f64::INFINITY`.
    pub mass: f64,
    /// Principal moments (I₁, I₂, I₃) about the body axes (kg m²), possibly infinite.
    pub inertia: DVec3,
}

impl MassProperties {
    /// Infinite mass and inertia (walls).
    pub const INFINITE: MassProperties = MassProperties { mass: f64::INFINITY, inertia: DVec3::splat(f64::INFINITY) };

    /// Solid sphere: m = ρ (4/3) π r³, I = (2/5) m r².
    pub fn solid_sphere(density: f64, radius: f64) -> Self {
        let mass = density * 4.0 / 3.0 * PI * radius.powi(3);
        MassProperties { mass, inertia: DVec3::splat(0.4 * mass * radius * radius) }
    }

    /// Solid sphere of a given mass: I = (2/5) m r².
    pub fn sphere_of_mass(mass: f64, radius: f64) -> Self {
        MassProperties { mass, inertia: DVec3::splat(0.4 * mass * radius * radius) }
    }

    /// Disc of unit thickness (planar mode): m = ρ π r², I_z = ½ m r², I_x = I_y = ¼ m r².
    pub fn disc(density: f64, radius: f64) -> Self {
        Self::disc_of_mass(density * PI * radius * radius, radius)
    }

    /// Disc of a given mass: I_z = ½ m r², I_x = I_y = ¼ m r².
    pub fn disc_of_mass(mass: f64, radius: f64) -> Self {
        let r2 = radius * radius;
        MassProperties { mass, inertia: DVec3::new(0.25 * mass * r2, 0.25 * mass * r2, 0.5 * mass * r2) }
    }

    /// From a full inertia tensor (body frame, about the centre of mass): the principal
    /// moments and the rotation `R` with `tensor = R diag(I) Rᵀ`. The eigen-decomposition is
    /// nalgebra's symmetric eigensolver, its axes refined by Jacobi rotations until the
    /// products of inertia in the new frame are below 1e-15 of the largest moment (rounding).
    /// The moments are in increasing order; the rotation is right-handed and deterministic.
    pub fn from_tensor(mass: f64, tensor: DMat3) -> Result<(Self, DQuat)> {
        if !(mass.is_finite() && mass > 0.0) {
            return Err(CoreError::invalid_body(BodyRef::New, "mass", mass, "finite and > 0"));
        }
        let c = tensor.to_cols_array();
        if c.iter().any(|v| !v.is_finite()) {
            return Err(CoreError::invalid_body(BodyRef::New, "inertia tensor", c, "finite entries"));
        }
        let sym = (tensor - tensor.transpose()).to_cols_array().iter().map(|v| v.abs()).fold(0.0, f64::max);
        let scale = c.iter().map(|v| v.abs()).fold(0.0, f64::max);
        if sym > 1e-12 * scale {
            return Err(CoreError::invalid_body(BodyRef::New, "inertia tensor", c, "a symmetric matrix"));
        }
        let m = nalgebra::Matrix3::from_column_slice(&c);
        let eig = nalgebra::SymmetricEigen::new(m);
        // Sort eigenpairs by value for a deterministic frame.
        let mut idx = [0usize, 1, 2];
        idx.sort_by(|&a, &b| eig.eigenvalues[a].total_cmp(&eig.eigenvalues[b]));
        let col = |k: usize| {
            let v = eig.eigenvectors.column(idx[k]);
            DVec3::new(v[0], v[1], v[2]).normalize()
        };
        let (e0, e1) = (col(0), col(1));
        let r = polish_axes(tensor, DMat3::from_cols(e0, e1, e0.cross(e1).normalize()));
        let d = r.transpose() * tensor * r;
        let vals = DVec3::new(d.x_axis.x, d.y_axis.y, d.z_axis.z);
        if vals.min_element() <= 0.0 {
            return Err(CoreError::invalid_body(BodyRef::New, "inertia tensor", vals, "positive definite"));
        }
        Ok((MassProperties { mass, inertia: vals }, DQuat::from_mat3(&r).normalize()))
    }

    /// `1/m`, zero for infinite mass.
    #[inline]
    pub fn inv_mass(&self) -> f64 {
        if self.mass.is_finite() {
            1.0 / self.mass
        } else {
            0.0
        }
    }

    /// Component-wise `1/I`, zero for infinite moments.
    #[inline]
    pub fn inv_inertia(&self) -> DVec3 {
        let inv = |v: f64| if v.is_finite() { 1.0 / v } else { 0.0 };
        DVec3::new(inv(self.inertia.x), inv(self.inertia.y), inv(self.inertia.z))
    }
}

/// Refines principal axes `r` (columns) of a symmetric `tensor` by cyclic Jacobi rotations
/// of `D = Rᵀ T R` until its products are below 1e-15 of its largest moment.
///
/// An eigensolver's axes may leave products of inertia far above rounding: nalgebra's
/// symmetric solver gave 4e-10 of the largest moment for one random 20-point hull, which a
/// body frame built from them then carries as a non-diagonal inertia. Each rotation by θ in
/// the (p, q) plane, with tan 2θ = 2 D_pq / (D_pp − D_qq), zeroes D_pq (Golub and Van Loan,
/// the symmetric Schur decomposition); starting from nearly diagonal D, the angles are tiny,
/// the order of the moments is kept, and a sweep or two reach rounding. The result is
/// re-orthonormalised and right-handed.
fn polish_axes(tensor: DMat3, mut r: DMat3) -> DMat3 {
    for _sweep in 0..6 {
        let d = r.transpose() * tensor * r;
        let largest = d.x_axis.x.abs().max(d.y_axis.y.abs()).max(d.z_axis.z.abs());
        let off = d.x_axis.y.abs().max(d.x_axis.z.abs()).max(d.y_axis.z.abs());
        if off <= 1e-15 * largest {
            break;
        }
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            let d = r.transpose() * tensor * r;
            let (dpp, dqq, dpq) = (d.col(p)[p], d.col(q)[q], d.col(q)[p]);
            if dpq == 0.0 {
                continue;
            }
            // Stable form of the rotation: t = tan θ, the smaller root of t² + 2τt − 1 = 0.
            let tau = (dqq - dpp) / (2.0 * dpq);
            let t = tau.signum() / (tau.abs() + (1.0 + tau * tau).sqrt());
            let c = 1.0 / (1.0 + t * t).sqrt();
            let s = t * c;
            let (rp, rq) = (r.col(p), r.col(q));
            *r.col_mut(p) = c * rp - s * rq;
            *r.col_mut(q) = s * rp + c * rq;
        }
    }
    let e0 = r.x_axis.normalize();
    let e1 = (r.y_axis - e0 * e0.dot(r.y_axis)).normalize();
    DMat3::from_cols(e0, e1, e0.cross(e1))
}

impl MassProperties {
    /// Checks the mass properties of a dynamic body: a positive mass and positive moments whose
    /// reciprocals are finite. A radius or density so small that ρ r³ (or m r²) underflows to
    /// zero, or to a subnormal number whose reciprocal overflows, would otherwise be accepted
    /// and fail only at the first step, as a non-finite position.
    pub(crate) fn check_dynamic(&self, who: BodyRef) -> Result<()> {
        let m = self.mass;
        if !(m > 0.0 && (1.0 / m).is_finite()) {
            return Err(CoreError::invalid_body(
                who,
                "mass",
                m,
                "> 0 with a finite reciprocal: the radius or density is so small that the mass underflows",
            ));
        }
        for k in 0..3 {
            let i = self.inertia[k];
            // An infinite moment is allowed (a rotation the body cannot take).
            if !(i > 0.0 && (1.0 / i).is_finite() || i == f64::INFINITY) {
                return Err(CoreError::invalid_body(
                    who,
                    "inertia",
                    self.inertia,
                    "> 0 with finite reciprocals: the radius or mass is so small that m r² underflows",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn sphere_mass_and_inertia_are_exact() {
        let p = MassProperties::solid_sphere(1000.0, 0.1);
        // 4/3 π 0.001 * 1000 = 4.18879...; round-off only.
        assert_relative_eq!(p.mass, 4.0 / 3.0 * PI, max_relative = 1e-14);
        assert_relative_eq!(p.inertia.x, 0.4 * p.mass * 0.01, max_relative = 1e-14);
    }

    #[test]
    fn tensor_of_a_rotated_box_gives_back_its_principal_moments() {
        let principal = DVec3::new(1.0, 2.0, 3.0);
        let q = DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
        let r = DMat3::from_quat(q);
        let t = r * DMat3::from_diagonal(principal) * r.transpose();
        let (p, q2) = MassProperties::from_tensor(5.0, t).unwrap();
        // Eigenvalues of a well-conditioned 3x3 symmetric matrix: round-off ~1e-14.
        assert_relative_eq!(p.inertia.x, 1.0, max_relative = 1e-12);
        assert_relative_eq!(p.inertia.y, 2.0, max_relative = 1e-12);
        assert_relative_eq!(p.inertia.z, 3.0, max_relative = 1e-12);
        let r2 = DMat3::from_quat(q2);
        let back = r2 * DMat3::from_diagonal(p.inertia) * r2.transpose();
        for (a, b) in back.to_cols_array().iter().zip(t.to_cols_array()) {
            assert!((a - b).abs() < 1e-12);
        }
    }

    /// The frame of `from_tensor` diagonalises the tensor to rounding, also for nearly equal
    /// moments, over many rotations. Before the Jacobi refinement, nalgebra's axes alone left
    /// products up to 4e-10 of the largest moment on a random hull.
    #[test]
    fn principal_frame_diagonalises_to_rounding() {
        let mut worst: f64 = 0.0;
        for k in 0..4000u32 {
            let a = k as f64;
            let q = DQuat::from_euler(glam::EulerRot::ZYX, 0.37 * a, 0.91 * a.sin(), 1.3 * (0.5 * a).cos());
            let r = DMat3::from_quat(q);
            // Moments from well separated to equal in the last digits.
            let gap = 10f64.powi(-((k % 14) as i32));
            let principal = DVec3::new(0.2, 0.2 + gap * 0.1, 0.3 + 0.01 * (a * 0.1).sin());
            let t = r * DMat3::from_diagonal(principal) * r.transpose();
            let t = 0.5 * (t + t.transpose());
            let (p, q2) = MassProperties::from_tensor(1.0, t).unwrap();
            let r2 = DMat3::from_quat(q2);
            let d = r2.transpose() * t * r2;
            let off = d.x_axis.y.abs().max(d.x_axis.z.abs()).max(d.y_axis.z.abs());
            worst = worst.max(off / p.inertia.max_element());
            assert!(p.inertia.x <= p.inertia.y && p.inertia.y <= p.inertia.z, "{:?}", p.inertia);
            // Sorted moments agree with the sorted principal moments to rounding.
            let mut want = principal.to_array();
            want.sort_by(f64::total_cmp);
            for (j, w) in want.iter().enumerate() {
                assert_relative_eq!(p.inertia[j], *w, max_relative = 1e-13);
            }
        }
        // The refinement stops at 1e-15 of the largest moment; the quaternion round trip and
        // the products R^T T R add a few ulps (2.2e-16 each) on top.
        assert!(worst < 4e-15, "largest product of inertia left: {worst:e}");
    }

    #[test]
    fn bad_tensors_are_errors() {
        assert!(MassProperties::from_tensor(-1.0, DMat3::IDENTITY).is_err());
        assert!(MassProperties::from_tensor(1.0, DMat3::from_diagonal(DVec3::new(1.0, -1.0, 1.0))).is_err());
        let mut t = DMat3::IDENTITY;
        t.x_axis.y = 0.5;
        assert!(MassProperties::from_tensor(1.0, t).is_err());
    }
}
