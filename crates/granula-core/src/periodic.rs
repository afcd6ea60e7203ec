//! Periodic boundaries of a 3D world: which axes repeat, and over which range.
//!
//! A periodic axis `k` with range `[lo, hi)` makes space repeat with period `L = hi − lo`
//! along `k`: a body at `x` interacts with the images of the others at `x + n L e_k` for
//! every integer `n`. Positions are stored **unwrapped** (a body that leaves the range at
//! `hi` keeps going beyond it; it is not moved back to `lo`): trajectories stay continuous,
//! so a displacement is a difference of positions, the integrators, the skin criterion of
//! the broadphase and the checkpoints need nothing new, and a contact's history, keyed by
//! the two bodies, never sees a jump. Where a body is *in the box* is
//! [`PeriodicDomain::wrap`], which outputs use.
//!
//! The interaction between two bodies uses the **minimum image**: the separation
//! `x_j − x_i + t`, where the translation `t` (a whole number of periods on each periodic
//! axis, [`PeriodicDomain::minimum_image_shift`]) brings body `j`'s image closest to body
//! `i`. A solver computes `t` once per candidate pair when it rebuilds its pair list and
//! keeps it until the next rebuild; bodies move by less than the skin in between, so the
//! image stays the nearest as long as the period exceeds twice the largest interaction
//! range (checked by the solver). The image is a shifted pose of body `j`: every shape pair
//! the narrowphase knows works unchanged.
//!
//! The bodies' own size is checked at insertion ([`World::insert`](crate::World::insert)):
//! a period shorter than two body extents along its axis would let a body touch two images
//! of another, or its own image.

use crate::math::DVec3;
use crate::shape::Aabb;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A coordinate axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Axis {
    /// The x axis.
    X,
    /// The y axis.
    Y,
    /// The z axis.
    Z,
}

impl Axis {
    /// The three axes, in order.
    pub const ALL: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

    /// The axis' index: 0, 1 or 2.
    #[inline]
    pub fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }

    /// The axis' name: `"x"`, `"y"` or `"z"`.
    pub fn name(self) -> &'static str {
        ["x", "y", "z"][self.index()]
    }

    /// The axis of a name (`"x"`, `"y"`, `"z"`, upper case accepted), `None` otherwise.
    pub fn from_name(name: &str) -> Option<Axis> {
        match name {
            "x" | "X" => Some(Axis::X),
            "y" | "Y" => Some(Axis::Y),
            "z" | "Z" => Some(Axis::Z),
            _ => None,
        }
    }
}

impl std::fmt::Display for Axis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The range `[lo, hi)` of one periodic axis.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Period {
    /// Lower bound (m).
    pub lo: f64,
    /// Upper bound (m), `> lo`.
    pub hi: f64,
}

impl Period {
    /// The period L = hi − lo (m).
    #[inline]
    pub fn length(&self) -> f64 {
        self.hi - self.lo
    }
}

/// Lees-Edwards shear of a periodic domain ([`PeriodicDomain::with_shear`]): the images
/// one period up along the `gradient` axis are shifted along the `flow` axis by the offset
/// s(t) = γ̇ L_g t (reduced into `[0, L_f)`) and move faster along it by γ̇ L_g (Lees and
/// Edwards, J. Phys. C 5, 1921 (1972)), so that the mean flow u_f = γ̇ x_g is continuous
/// across the boundary.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shear {
    /// The axis of the flow (the velocity's direction), periodic.
    pub flow: Axis,
    /// The axis of the velocity gradient (the sliding faces' normal), periodic.
    pub gradient: Axis,
    /// The shear rate γ̇ = ∂u_flow/∂x_gradient (1/s), finite (of either sign).
    pub rate: f64,
}

/// Bad periodic input; each variant names the axis (and the body) at fault.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum PeriodicError {
    /// The bounds of a periodic axis are not finite or not increasing.
    #[error("periodic axis {axis}: bounds [{lo}, {hi}) must be finite with lo < hi")]
    InvalidBounds {
        /// The axis.
        axis: Axis,
        /// Lower bound given.
        lo: f64,
        /// Upper bound given.
        hi: f64,
    },
    /// The same axis was made periodic twice.
    #[error("periodic axis {axis} given twice")]
    DuplicateAxis {
        /// The axis.
        axis: Axis,
    },
    /// A body is larger than half the period along a periodic axis: it could touch two
    /// images of another body, or its own image.
    #[error(
        "periodic axis {axis}: period {period} m is shorter than two extents of {body} ({extent} m along {axis}; \
         two particle diameters for a sphere)"
    )]
    PeriodTooShort {
        /// The axis.
        axis: Axis,
        /// The period (m).
        period: f64,
        /// The body, by name or handle.
        body: String,
        /// The body's extent along the axis (a sphere's diameter) (m).
        extent: f64,
    },
    /// The Lees-Edwards shear rate is not finite.
    #[error("shear rate {rate} 1/s must be finite")]
    ShearRateNotFinite {
        /// The rate given (1/s).
        rate: f64,
    },
    /// The flow axis of the shear is its gradient axis.
    #[error("shear: flow axis {axis} must differ from the gradient axis")]
    ShearAxesEqual {
        /// The axis given for both.
        axis: Axis,
    },
    /// An axis of the shear is not periodic (the periodic axes come first).
    #[error("shear: {field} axis {axis} is not periodic")]
    ShearAxisNotPeriodic {
        /// `"flow"` or `"gradient"`.
        field: &'static str,
        /// The axis.
        axis: Axis,
    },
    /// The domain is sheared already.
    #[error("shear given twice")]
    DuplicateShear,
}

/// Which axes of a world are periodic, and their ranges. The default has none.
///
/// ```
/// use granula_core::{Axis, PeriodicDomain};
/// use granula_core::DVec3;
///
/// let domain = PeriodicDomain::default().with_axis(Axis::X, 0.0, 1.0)?;
/// // Body j at x = 0.95 is seen from body i at x = 0.05 through its image at −0.05.
/// let t = domain.minimum_image_shift(DVec3::new(0.05, 0.0, 0.0), DVec3::new(0.95, 0.0, 0.0));
/// assert_eq!(t, DVec3::new(-1.0, 0.0, 0.0));
/// # Ok::<(), granula_core::PeriodicError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PeriodicDomain {
    pub(crate) axes: [Option<Period>; 3],
    /// Lees-Edwards shear, if any (absent from domains saved before it existed).
    #[serde(default)]
    pub(crate) shear: Option<Shear>,
}

impl PeriodicDomain {
    /// The same domain with `axis` periodic over `[lo, hi)`. Errors: bounds not finite or
    /// `lo >= hi` ([`PeriodicError::InvalidBounds`]), the axis already periodic
    /// ([`PeriodicError::DuplicateAxis`]).
    pub fn with_axis(mut self, axis: Axis, lo: f64, hi: f64) -> Result<Self, PeriodicError> {
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(PeriodicError::InvalidBounds { axis, lo, hi });
        }
        let slot = &mut self.axes[axis.index()];
        if slot.is_some() {
            return Err(PeriodicError::DuplicateAxis { axis });
        }
        *slot = Some(Period { lo, hi });
        Ok(self)
    }

    /// The range of `axis`, `None` if it is not periodic.
    #[inline]
    pub fn period(&self, axis: Axis) -> Option<Period> {
        self.axes[axis.index()]
    }

    /// Whether any axis is periodic.
    #[inline]
    pub fn is_periodic(&self) -> bool {
        self.axes.iter().any(Option::is_some)
    }

    /// The periodic axes with their ranges, in axis order.
    pub fn periodic_axes(&self) -> impl Iterator<Item = (Axis, Period)> + '_ {
        Axis::ALL.into_iter().filter_map(|a| self.period(a).map(|p| (a, p)))
    }

    /// The translation `t` that brings body `j`'s image nearest to body `i` (the minimum
    /// image) of the plain periodic box, ignoring a Lees-Edwards shear (under shear, see
    /// [`PeriodicDomain::minimum_image_at`]): on each periodic axis of period L, `t_k = −L round((x_j − x_i)_k / L)`, zero
    /// on the other axes. The separation of the pair is then `(x_j − x_i) + t`, with
    /// `|(x_j − x_i + t)_k| ≤ L/2`. Each component is a whole number of periods, exact in
    /// floating point for the few periods bodies travel.
    #[inline]
    pub fn minimum_image_shift(&self, xi: DVec3, xj: DVec3) -> DVec3 {
        let mut t = DVec3::ZERO;
        for (k, p) in self.axes.iter().enumerate() {
            if let Some(p) = p {
                let l = p.length();
                t[k] = -l * ((xj[k] - xi[k]) / l).round();
            }
        }
        t
    }

    /// The position of `x` in the plain periodic box, ignoring a Lees-Edwards shear (under
    /// shear, see [`PeriodicDomain::wrap_state`]): on each periodic axis, `x_k − n_k L` in `[lo, hi)`,
    /// with the image count `n_k = ⌊(x_k − lo)/L⌋` (other axes unchanged, count 0). The
    /// unwrapped position is `wrapped + n L`.
    #[inline]
    pub fn wrap(&self, x: DVec3) -> (DVec3, [i64; 3]) {
        let mut w = x;
        let mut n = [0i64; 3];
        for (k, p) in self.axes.iter().enumerate() {
            if let Some(p) = p {
                let l = p.length();
                let count = ((x[k] - p.lo) / l).floor();
                let mut v = x[k] - count * l;
                // Round-off may leave v = hi (x just below a multiple of L): that is lo.
                if v >= p.hi {
                    v = p.lo;
                }
                w[k] = v;
                n[k] = count as i64;
            }
        }
        (w, n)
    }

    /// Checks that a body of bounding box `aabb`, named `body` in the error, is at most half
    /// a period long along every periodic axis its box is bounded on (walls unbounded along
    /// an axis, e.g. a floor, repeat themselves there). For a sphere: period ≥ two
    /// diameters. Error: [`PeriodicError::PeriodTooShort`].
    pub fn check_extent(&self, aabb: &Aabb, body: impl FnOnce() -> String) -> Result<(), PeriodicError> {
        for (axis, p) in self.periodic_axes() {
            let k = axis.index();
            let extent = aabb.max[k] - aabb.min[k];
            if extent.is_finite() && 2.0 * extent > p.length() {
                return Err(PeriodicError::PeriodTooShort { axis, period: p.length(), body: body(), extent });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_image_is_within_half_a_period() {
        let d = PeriodicDomain::default().with_axis(Axis::Y, -1.0, 3.0).unwrap();
        let (xi, xj) = (DVec3::new(5.0, 0.2, 0.0), DVec3::new(-7.0, 13.9, 2.0));
        let t = d.minimum_image_shift(xi, xj);
        // x and z are not periodic: no shift; y: 13.7 = 3 periods + 1.7 → 1.7 − 4 = −2.3?
        // No: round(13.7 / 4) = 3, so the separation is 13.7 − 12 = 1.7 (≤ L/2 = 2).
        assert_eq!(t, DVec3::new(0.0, -12.0, 0.0));
        let s = xj - xi + t;
        assert!(s.y.abs() <= 2.0);
        let (w, n) = d.wrap(DVec3::new(1.0, -1.5, 9.0));
        assert_eq!((w, n), (DVec3::new(1.0, 2.5, 9.0), [0, -1, 0]));
    }

    #[test]
    fn bad_input_names_the_axis() {
        let d = PeriodicDomain::default();
        assert_eq!(
            d.with_axis(Axis::Z, 1.0, 1.0),
            Err(PeriodicError::InvalidBounds { axis: Axis::Z, lo: 1.0, hi: 1.0 })
        );
        let d = d.with_axis(Axis::X, 0.0, 1.0).unwrap();
        assert_eq!(d.with_axis(Axis::X, 0.0, 2.0), Err(PeriodicError::DuplicateAxis { axis: Axis::X }));
        // A sphere of diameter 0.6 in a period of 1: 1 < 2 × 0.6.
        let ball = Aabb::around(DVec3::ZERO, DVec3::splat(0.3));
        let err = d.check_extent(&ball, || "ball".into()).unwrap_err();
        assert!(matches!(err, PeriodicError::PeriodTooShort { axis: Axis::X, ref body, .. } if body == "ball"));
        assert!(d.check_extent(&Aabb::around(DVec3::ZERO, DVec3::splat(0.25)), || unreachable!()).is_ok());
    }
}
