//! Lees-Edwards (sliding periodic) boundaries of a [`PeriodicDomain`].
//!
//! One periodic axis, the *gradient* axis g, slides: the images one period up along g are
//! shifted along the *flow* axis f by the offset s(t) = γ̇ L_g t, reduced into `[0, L_f)`,
//! and move faster along f by γ̇ L_g (Lees and Edwards, J. Phys. C 5, 1921 (1972)). A
//! uniform shear u_f = γ̇ x_g is then continuous across the sliding faces.
//!
//! Positions stay **unwrapped**, as for plain periodic axes: a body that leaves the box at
//! the top of g keeps its continuous trajectory, which is the trajectory of its image one
//! period up (the image's position is the body's plus (s(t), L_g) and its velocity the
//! body's plus γ̇ L_g, and d(x_f + s)/dt = v_f + γ̇ L_g holds). The standard rule of a body
//! crossing the top face, re-entering at the bottom shifted by −s(t) along f with its
//! velocity changed by −γ̇ L_g, is what [`PeriodicDomain::wrap_state`] returns for the
//! unwrapped state: the state *in the box*.
//!
//! The offset is a function of the time, and the time a function of the step count
//! (`Clock::time`: base time + steps × Δt), never a running sum: a run restarted from a
//! checkpoint at step n sees the offset of step n to the bit.

use crate::math::DVec3;
use crate::periodic::{Axis, PeriodicDomain, PeriodicError, Shear};

/// The minimum image of a pair under Lees-Edwards shear
/// ([`PeriodicDomain::minimum_image_at`]): body `j`'s image nearest to body `i` is at
/// `x_j + position` and moves at `v_j + velocity`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImageShift {
    /// Translation of body `j` to its nearest image (m).
    pub position: DVec3,
    /// Velocity of the image minus the velocity of body `j` (m/s): −m γ̇ L_g along the flow
    /// axis for an image m periods down the gradient axis, zero without shear.
    pub velocity: DVec3,
}

impl PeriodicDomain {
    /// The same domain with Lees-Edwards shear at rate γ̇ = `rate` (1/s): velocity along
    /// `flow`, gradient along `gradient`, both periodic already
    /// ([`PeriodicDomain::with_axis`] first). Errors: `rate` not finite
    /// ([`PeriodicError::ShearRateNotFinite`]), `flow == gradient`
    /// ([`PeriodicError::ShearAxesEqual`]), an axis not periodic
    /// ([`PeriodicError::ShearAxisNotPeriodic`], naming `"flow"` or `"gradient"`), a shear
    /// given already ([`PeriodicError::DuplicateShear`]).
    ///
    /// ```
    /// use granula_core::{Axis, PeriodicDomain};
    ///
    /// let d = PeriodicDomain::default()
    ///     .with_axis(Axis::X, 0.0, 2.0)?
    ///     .with_axis(Axis::Y, 0.0, 1.0)?
    ///     .with_shear(Axis::X, Axis::Y, 0.5)?;
    /// // s(t) = γ̇ L_y t = 0.5 × 1 × 5 = 2.5, reduced modulo L_x = 2.
    /// assert_eq!(d.shear_offset(5.0), 0.5);
    /// # Ok::<(), granula_core::PeriodicError>(())
    /// ```
    pub fn with_shear(mut self, flow: Axis, gradient: Axis, rate: f64) -> Result<Self, PeriodicError> {
        if !rate.is_finite() {
            return Err(PeriodicError::ShearRateNotFinite { rate });
        }
        if flow == gradient {
            return Err(PeriodicError::ShearAxesEqual { axis: flow });
        }
        for (field, axis) in [("flow", flow), ("gradient", gradient)] {
            if self.period(axis).is_none() {
                return Err(PeriodicError::ShearAxisNotPeriodic { field, axis });
            }
        }
        if self.shear.is_some() {
            return Err(PeriodicError::DuplicateShear);
        }
        self.shear = Some(Shear { flow, gradient, rate });
        Ok(self)
    }

    /// The Lees-Edwards shear, `None` for a plain periodic (or open) domain.
    #[inline]
    pub fn shear(&self) -> Option<Shear> {
        self.shear
    }

    /// The periods (L_f, L_g) of a sheared domain's flow and gradient axes.
    #[inline]
    fn shear_periods(&self, s: &Shear) -> (f64, f64) {
        let length = |a: Axis| self.axes[a.index()].map_or(f64::NAN, |p| p.length());
        (length(s.flow), length(s.gradient))
    }

    /// The offset s(t) = γ̇ L_g t of the images one period up the gradient axis, reduced
    /// into `[0, L_f)` (m); 0 without shear. `time` should be the clock's
    /// (`World::time`, base time + steps × Δt) so that a restart sees the same bits.
    #[inline]
    pub fn shear_offset(&self, time: f64) -> f64 {
        let Some(s) = self.shear else { return 0.0 };
        let (lf, lg) = self.shear_periods(&s);
        let offset = (s.rate * lg * time).rem_euclid(lf);
        // `rem_euclid` can round a tiny negative product up to L_f itself.
        if offset >= lf {
            0.0
        } else {
            offset
        }
    }

    /// The velocity γ̇ L_g of the images one period up the gradient axis relative to the
    /// bodies, along the flow axis (m/s); zero without shear.
    #[inline]
    pub fn shear_velocity(&self) -> DVec3 {
        let Some(s) = self.shear else { return DVec3::ZERO };
        let mut v = DVec3::ZERO;
        v[s.flow.index()] = s.rate * self.shear_periods(&s).1;
        v
    }

    /// The image of body `j` nearest to body `i` at time `time`, with its velocity. Along
    /// the gradient axis, m = round((x_j − x_i)_g / L_g) periods down: the image is moved by
    /// −m L_g along g, −m s(t) along f, and its velocity by −m γ̇ L_g along f; then, on each
    /// other periodic axis (the flow axis included) by the whole periods that bring it
    /// nearest, as [`PeriodicDomain::minimum_image_shift`]. Without shear: that shift and
    /// no velocity.
    pub fn minimum_image_at(&self, xi: DVec3, xj: DVec3, time: f64) -> ImageShift {
        let Some(s) = self.shear else {
            return ImageShift { position: self.minimum_image_shift(xi, xj), velocity: DVec3::ZERO };
        };
        let (f, g) = (s.flow.index(), s.gradient.index());
        let (_, lg) = self.shear_periods(&s);
        let d = xj - xi;
        let m = (d[g] / lg).round();
        let mut shift = DVec3::ZERO;
        let mut velocity = DVec3::ZERO;
        if m != 0.0 {
            shift[g] = -m * lg;
            shift[f] = -m * self.shear_offset(time);
            velocity[f] = -m * s.rate * lg;
        }
        for (k, p) in self.axes.iter().enumerate() {
            if let (Some(p), true) = (p, k != g) {
                let l = p.length();
                shift[k] -= l * ((d[k] + shift[k]) / l).round();
            }
        }
        ImageShift { position: shift, velocity }
    }

    /// The state in the box of a body at the unwrapped position `x` with velocity `v`, at
    /// time `time`: the Lees-Edwards rule. Along the gradient axis the image count is
    /// m = ⌊(x_g − lo_g)/L_g⌋; the body in the box is at x_g − m L_g, shifted by −m s(t)
    /// along the flow axis, with velocity v − m γ̇ L_g along it (a body that crossed the top
    /// face once re-enters at the bottom shifted by −s(t) and slower by γ̇ L_g); then every
    /// periodic axis is reduced into `[lo, hi)` as [`PeriodicDomain::wrap`]. Returns the
    /// position, the velocity and the image counts (the gradient's m, the flow's whole
    /// periods after the shift). Without shear: [`PeriodicDomain::wrap`] and `v`.
    pub fn wrap_state(&self, x: DVec3, v: DVec3, time: f64) -> (DVec3, DVec3, [i64; 3]) {
        let Some(s) = self.shear else {
            let (w, n) = self.wrap(x);
            return (w, v, n);
        };
        let (f, g) = (s.flow.index(), s.gradient.index());
        let lo_g = self.axes[g].map_or(0.0, |p| p.lo);
        let (_, lg) = self.shear_periods(&s);
        let m = ((x[g] - lo_g) / lg).floor();
        let (mut y, mut u) = (x, v);
        if m != 0.0 {
            y[f] -= m * self.shear_offset(time);
            u[f] -= m * s.rate * lg;
        }
        let (w, mut n) = self.wrap(y);
        // `wrap` counted the gradient axis' periods from the same floor: the same m.
        n[g] = m as i64;
        (w, u, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The image of a pair across the sliding faces, from unwrapped positions, is the image
    /// of the same pair taken into the box first: the unwrapped position of a body that
    /// crossed is one of its images.
    #[test]
    fn unwrapped_and_in_box_images_agree() {
        let d = PeriodicDomain::default()
            .with_axis(Axis::X, 0.0, 2.0)
            .unwrap()
            .with_axis(Axis::Y, -1.0, 1.0)
            .unwrap()
            .with_shear(Axis::X, Axis::Y, 0.75)
            .unwrap();
        let t = 3.3;
        // s = 0.75 × 2 × 3.3 = 4.95 → 0.95 modulo 2.
        assert!((d.shear_offset(t) - 0.95).abs() < 1e-12);
        assert_eq!(d.shear_velocity(), DVec3::new(1.5, 0.0, 0.0));
        // Body j unwrapped two periods up (it crossed the top twice), near body i's image.
        let (xi, vi) = (DVec3::new(0.1, 0.95, 0.0), DVec3::new(0.2, 0.0, 0.0));
        let (xj, vj) = (DVec3::new(5.0, 4.9, 0.3), DVec3::new(3.1, 0.1, 0.0));
        let image = d.minimum_image_at(xi, xj, t);
        let (wi, ui, _) = d.wrap_state(xi, vi, t);
        let (wj, uj, n) = d.wrap_state(xj, vj, t);
        assert_eq!(n[1], 2);
        let in_box = d.minimum_image_at(wi, wj, t);
        let (a, b) = (xj + image.position - xi, wj + in_box.position - wi);
        assert!((a - b).length() < 1e-12, "{a} vs {b}");
        assert!(a.y.abs() <= 1.0 && a.x.abs() <= 1.0);
        let (va, vb) = (vj + image.velocity - vi, uj + in_box.velocity - ui);
        assert!((va - vb).length() < 1e-12, "{va} vs {vb}");
    }
}
