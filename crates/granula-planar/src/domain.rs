//! The simulation domain: open, periodic or Lees-Edwards axes.
//!
//! Bodies keep **unwrapped** coordinates: the state is each body's continuous trajectory
//! (what a trajectory output needs, with no image counters to carry), and the periodic
//! box enters in two places only: the broadphase bins the wrapped coordinate, and every
//! pair uses the minimum image of its separation. Under Lees-Edwards shear (flow along x,
//! gradient along y) the image of a body one period up is shifted along x by the offset
//! s(t) = γ̇ L_y t and moves faster by γ̇ L_y; the unwrapped trajectory of a body that
//! crosses the top is the trajectory of that image, so the same minimum-image rule holds
//! for unwrapped coordinates.

use crate::error::{positive, PlanarError, Result};
use glam::DVec2;

/// One axis of the domain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Axis {
    /// Unbounded (walls, if any, are bodies).
    Open,
    /// Periodic with period `length` from `min` (the box is [min, min + length)).
    Periodic {
        /// Lower edge of the box (m).
        min: f64,
        /// Period (m).
        length: f64,
    },
}

impl Axis {
    fn period(&self) -> Option<(f64, f64)> {
        match *self {
            Axis::Open => None,
            Axis::Periodic { min, length } => Some((min, length)),
        }
    }
}

/// The domain: the two axes and an optional Lees-Edwards shear rate γ̇ (1/s) whose
/// velocity gradient is along y and flow along x (both axes must be periodic).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Domain {
    /// The x axis.
    pub x: Axis,
    /// The y axis.
    pub y: Axis,
    /// Lees-Edwards shear rate γ̇ = ∂v_x/∂y (1/s), or `None`.
    pub shear_rate: Option<f64>,
}

impl Default for Domain {
    fn default() -> Self {
        Domain { x: Axis::Open, y: Axis::Open, shear_rate: None }
    }
}

/// The minimum image of a pair: the separation from body i to the image of body j
/// nearest to i, and the velocity to add to j's for that image.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Image {
    /// x_j(image) − x_i (m).
    pub separation: DVec2,
    /// Velocity of the image minus velocity of j (m/s): (k γ̇ L_y, 0) under Lees-Edwards.
    pub velocity_shift: DVec2,
}

impl Domain {
    /// An open domain (no periodicity).
    pub fn open() -> Self {
        Self::default()
    }

    /// Periodic along x only, box [min, min + length).
    pub fn periodic_x(min: f64, length: f64) -> Self {
        Domain { x: Axis::Periodic { min, length }, ..Self::default() }
    }

    /// Periodic along both axes.
    pub fn periodic(min: DVec2, lengths: DVec2) -> Self {
        Domain {
            x: Axis::Periodic { min: min.x, length: lengths.x },
            y: Axis::Periodic { min: min.y, length: lengths.y },
            shear_rate: None,
        }
    }

    /// This domain with Lees-Edwards shear at rate γ̇ (flow along x, gradient along y).
    pub fn with_shear(self, shear_rate: f64) -> Self {
        Domain { shear_rate: Some(shear_rate), ..self }
    }

    /// Checks the domain against the largest bounding radius of the bodies: positive
    /// finite periods of at least two diameters (4 × `max_circumradius`), a finite shear
    /// rate, and Lees-Edwards only with both axes periodic.
    pub fn check(&self, max_circumradius: f64) -> Result<()> {
        for (axis, a) in [("x", self.x), ("y", self.y)] {
            if let Axis::Periodic { min, length } = a {
                if !min.is_finite() {
                    return Err(PlanarError::BadParameter {
                        name: if axis == "x" { "domain.x.min" } else { "domain.y.min" },
                        value: min,
                        expected: "a finite number",
                    });
                }
                positive(if axis == "x" { "domain.x.length" } else { "domain.y.length" }, length)?;
                let minimum = 4.0 * max_circumradius;
                if length < minimum {
                    return Err(PlanarError::PeriodTooShort { axis, length, minimum });
                }
            }
        }
        if let Some(rate) = self.shear_rate {
            if !rate.is_finite() {
                return Err(PlanarError::BadParameter { name: "shear_rate", value: rate, expected: "a finite number" });
            }
            if self.x == Axis::Open {
                return Err(PlanarError::ShearOnNonPeriodicAxis { axis: "x" });
            }
            if self.y == Axis::Open {
                return Err(PlanarError::ShearOnNonPeriodicAxis { axis: "y" });
            }
        }
        Ok(())
    }

    /// The Lees-Edwards offset s(t) = γ̇ L_y t of the images one period up, reduced
    /// modulo L_x (0 without shear).
    pub fn shear_offset(&self, time: f64) -> f64 {
        match (self.shear_rate, self.x.period(), self.y.period()) {
            (Some(rate), Some((_, lx)), Some((_, ly))) => (rate * ly * time).rem_euclid(lx),
            _ => 0.0,
        }
    }

    /// The minimum image of `d` = x_j − x_i at time `time`.
    #[inline]
    pub fn minimum_image(&self, d: DVec2, time: f64) -> Image {
        let mut s = d;
        let mut dv = DVec2::ZERO;
        if let Some((_, ly)) = self.y.period() {
            let k = (s.y / ly).round();
            if k != 0.0 {
                s.y -= k * ly;
                if let Some(rate) = self.shear_rate {
                    s.x -= k * self.shear_offset(time);
                    dv.x -= k * rate * ly;
                }
            }
        }
        if let Some((_, lx)) = self.x.period() {
            let k = (s.x / lx).round();
            if k != 0.0 {
                s.x -= k * lx;
            }
        }
        Image { separation: s, velocity_shift: dv }
    }

    /// A point mapped into the box (for binning): along y first, shifting x by the
    /// Lees-Edwards offset of each period crossed, then along x. Open axes are unchanged.
    #[inline]
    pub fn wrap(&self, p: DVec2, time: f64) -> DVec2 {
        let mut q = p;
        if let Some((min, ly)) = self.y.period() {
            let k = ((q.y - min) / ly).floor();
            if k != 0.0 {
                q.y -= k * ly;
                if self.shear_rate.is_some() {
                    q.x -= k * self.shear_offset(time);
                }
            }
            // Round-off can leave q.y a hair outside [min, min + ly).
            q.y = q.y.clamp(min, min + ly * (1.0 - f64::EPSILON));
        }
        if let Some((min, lx)) = self.x.period() {
            q.x = min + (q.x - min).rem_euclid(lx);
            if q.x >= min + lx {
                q.x = min;
            }
        }
        q
    }

    /// The box area when both axes are periodic.
    pub fn periodic_area(&self) -> Option<f64> {
        match (self.x.period(), self.y.period()) {
            (Some((_, lx)), Some((_, ly))) => Some(lx * ly),
            _ => None,
        }
    }

    /// The x axis's (min, length) if periodic.
    pub fn x_period(&self) -> Option<(f64, f64)> {
        self.x.period()
    }

    /// The y axis's (min, length) if periodic.
    pub fn y_period(&self) -> Option<(f64, f64)> {
        self.y.period()
    }
}
