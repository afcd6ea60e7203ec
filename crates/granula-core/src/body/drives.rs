//! Prescribed motions that know their own displacement: the [`Drive`] trait and the
//! drives of real equipment (an orbit about an axis, a vibration, a table of positions, a
//! moving surface on a wall that stays, and their sums).
//!
//! A kinematic body moves, over a step from t₀ to t₁, by the integral of its prescribed
//! velocity. A [`Prescribed::Function`] only knows its values, so the step samples it at
//! the midpoint; a drive gives the integral itself, so a vibrating wall stays on its
//! sinusoid and a table's corners are met exactly, however long the run.

use super::motion::Prescribed;
use crate::error::{CoreError, Result};
use crate::math::{rotation_quat, DVec3};
use std::f64::consts::TAU;
use std::fmt;

/// A prescribed vector function of time with its exact integral: a velocity and the
/// displacement it makes, or an angular velocity and the rotation vector it turns by
/// (exact for rotations about a fixed axis, the case of every drive of this module).
///
/// The integral need not be the integral of [`Drive::at`]: a moving surface on a wall
/// that stays ([`SurfaceVelocity`]) has a velocity and no displacement.
pub trait Drive: Send + Sync + fmt::Debug {
    /// The value at time `t` (s): what contacts see as the body's velocity.
    fn at(&self, t: f64) -> DVec3;
    /// What the body moves by from `t0` to `t1` (s).
    fn integral(&self, t0: f64, t1: f64) -> DVec3;
}

/// The reference point of a body turning at a constant angular velocity ω about an axis
/// through `center`: it starts at `center + offset` at time `start` and is at
/// x(t) = center + R(ω (t − start)) offset, at velocity ω × R(ω (t − start)) offset.
///
/// This is the linear drive of a wall turning about an axis that does not pass through its
/// reference point (a mesh drum whose file's origin is off its axis); its angular drive is
/// the constant ω. The displacement over a step is x(t₁) − x(t₀), so the point stays on its
/// circle to round-off.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    /// A point of the rotation axis (m).
    pub center: DVec3,
    /// The angular velocity (rad/s): the axis's direction times the rate.
    pub angular_velocity: DVec3,
    /// The reference point minus `center` at time `start` (m).
    pub offset: DVec3,
    /// The time at which the reference point is at `center + offset` (s).
    pub start: f64,
}

impl Orbit {
    /// The reference point minus the centre at time `t`.
    fn arm(&self, t: f64) -> DVec3 {
        rotation_quat(self.angular_velocity * (t - self.start)) * self.offset
    }
}

impl Drive for Orbit {
    fn at(&self, t: f64) -> DVec3 {
        self.angular_velocity.cross(self.arm(t))
    }

    fn integral(&self, t0: f64, t1: f64) -> DVec3 {
        self.arm(t1) - self.arm(t0)
    }
}

/// A sinusoidal vibration: displacement A [sin(2π f t + φ) − sin φ] from the position at
/// t = 0, velocity 2π f A cos(2π f t + φ). With φ = −π/2 the body starts at rest at the
/// bottom of its stroke; with φ = 0 it starts at the middle at full speed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Oscillation {
    /// Amplitude A (m, or rad for an angular drive), a vector: the direction of the stroke.
    pub amplitude: DVec3,
    /// Frequency f (Hz).
    pub frequency: f64,
    /// Phase φ (rad).
    pub phase: f64,
}

impl Oscillation {
    /// A vibration; errors ([`CoreError::InvalidDrive`]) name a non-finite amplitude, a
    /// frequency that is not finite and > 0, or a non-finite phase.
    pub fn new(amplitude: DVec3, frequency: f64, phase: f64) -> Result<Self> {
        if !amplitude.is_finite() {
            return Err(CoreError::invalid_drive("vibration amplitude", amplitude, "finite"));
        }
        if !(frequency.is_finite() && frequency > 0.0) {
            return Err(CoreError::invalid_drive("vibration frequency", frequency, "finite and > 0"));
        }
        if !phase.is_finite() {
            return Err(CoreError::invalid_drive("vibration phase", phase, "finite"));
        }
        Ok(Oscillation { amplitude, frequency, phase })
    }
}

impl Drive for Oscillation {
    fn at(&self, t: f64) -> DVec3 {
        let w = TAU * self.frequency;
        self.amplitude * (w * (w * t + self.phase).cos())
    }

    fn integral(&self, t0: f64, t1: f64) -> DVec3 {
        let w = TAU * self.frequency;
        self.amplitude * ((w * t1 + self.phase).sin() - (w * t0 + self.phase).sin())
    }
}

/// Displacements of a body's reference point from its starting position, given at
/// increasing times and joined by straight lines: the velocity is the slope of the segment
/// a time falls in (the later one at a corner), zero before the first time and after the
/// last. With `repeat`, the table starts over every `times[last] − times[0]` seconds from
/// its first time, which needs a table that ends where it began.
///
/// Used as an angular drive, the values are rotation vectors about a fixed axis (rad).
#[derive(Clone, Debug, PartialEq)]
pub struct PositionTable {
    times: Vec<f64>,
    positions: Vec<DVec3>,
    repeat: bool,
}

impl PositionTable {
    /// A table; errors ([`CoreError::InvalidDrive`]) name: fewer than two rows, a count of
    /// times different from the count of positions, a time that is not finite or not
    /// larger than the one before, a non-finite position, or a repeating table whose last
    /// position differs from its first.
    pub fn new(times: Vec<f64>, positions: Vec<DVec3>, repeat: bool) -> Result<Self> {
        if times.len() < 2 || times.len() != positions.len() {
            let counts = format!("{} times, {} positions", times.len(), positions.len());
            return Err(CoreError::invalid_drive("table rows", counts, "at least two, as many times as positions"));
        }
        for (k, t) in times.iter().enumerate() {
            if !t.is_finite() || (k > 0 && *t <= times[k - 1]) {
                return Err(CoreError::invalid_drive("table time", format!("#{k} = {t}"), "finite and increasing"));
            }
        }
        if let Some(k) = positions.iter().position(|p| !p.is_finite()) {
            return Err(CoreError::invalid_drive("table position", format!("#{k} = {}", positions[k]), "finite"));
        }
        if repeat && positions[0] != positions[positions.len() - 1] {
            let ends = format!("{} then {}", positions[0], positions[positions.len() - 1]);
            return Err(CoreError::invalid_drive("repeating table", ends, "the same first and last position"));
        }
        Ok(PositionTable { times, positions, repeat })
    }

    /// The time `t` brought into the table's first period when it repeats.
    fn folded(&self, t: f64) -> f64 {
        let (first, last) = (self.times[0], self.times[self.times.len() - 1]);
        if self.repeat && t > first {
            first + (t - first).rem_euclid(last - first)
        } else {
            t
        }
    }

    /// The segment holding `t` (in the table's range): the last k with times[k] ≤ t.
    fn segment(&self, t: f64) -> usize {
        self.times.partition_point(|&s| s <= t).saturating_sub(1).min(self.times.len() - 2)
    }

    /// The displacement at time `t`, unrepeated.
    fn position(&self, t: f64) -> DVec3 {
        let n = self.times.len();
        if t <= self.times[0] {
            return self.positions[0];
        }
        if t >= self.times[n - 1] {
            return self.positions[n - 1];
        }
        let k = self.segment(t);
        let f = (t - self.times[k]) / (self.times[k + 1] - self.times[k]);
        self.positions[k].lerp(self.positions[k + 1], f)
    }

    /// The displacement at time `t`, counting whole periods of a repeating table (they add
    /// nothing: a repeating table ends where it began).
    fn displacement(&self, t: f64) -> DVec3 {
        self.position(self.folded(t))
    }
}

impl Drive for PositionTable {
    fn at(&self, t: f64) -> DVec3 {
        let t = self.folded(t);
        let n = self.times.len();
        if t < self.times[0] || t >= self.times[n - 1] {
            return DVec3::ZERO;
        }
        let k = self.segment(t);
        (self.positions[k + 1] - self.positions[k]) / (self.times[k + 1] - self.times[k])
    }

    fn integral(&self, t0: f64, t1: f64) -> DVec3 {
        self.displacement(t1) - self.displacement(t0)
    }
}

/// A surface that moves while its wall stays: contacts see the velocity, the body does not
/// move (a conveyor belt over a fixed plane or mesh). The velocity should be tangent to the
/// surface where particles touch it: its normal component would be read as the wall
/// approaching or leaving them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceVelocity(pub DVec3);

impl Drive for SurfaceVelocity {
    fn at(&self, _t: f64) -> DVec3 {
        self.0
    }

    fn integral(&self, _t0: f64, _t1: f64) -> DVec3 {
        DVec3::ZERO
    }
}

/// The sum of several prescriptions: values and integrals add (a translating wall that
/// also vibrates, a belt on a moving frame).
#[derive(Clone, Debug)]
pub struct DriveSum(pub Vec<Prescribed>);

impl Drive for DriveSum {
    fn at(&self, t: f64) -> DVec3 {
        self.0.iter().map(|p| p.at(t)).sum()
    }

    fn integral(&self, t0: f64, t1: f64) -> DVec3 {
        self.0.iter().map(|p| p.step(t0, t1 - t0)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// The sum of a drive's integrals over `n` steps of `dt` from 0, as a body advances.
    fn advanced(d: &dyn Drive, n: usize, dt: f64) -> DVec3 {
        (0..n).map(|k| d.integral(k as f64 * dt, (k + 1) as f64 * dt)).sum()
    }

    #[test]
    fn an_orbit_stays_on_its_circle_and_its_velocity_is_the_derivative() {
        let o = Orbit {
            center: DVec3::new(1.0, 2.0, 0.0),
            angular_velocity: DVec3::new(0.0, 0.0, 3.0),
            offset: DVec3::new(0.5, 0.0, 0.2),
            start: 0.0,
        };
        // 10⁵ steps (about 48 turns): the arm keeps its length and the axial component to
        // round-off accumulated over the steps (1e-10 ≫ 10⁵ × 1e-16).
        let x = o.offset + advanced(&o, 100_000, 1e-3);
        assert_relative_eq!(x.truncate().length(), 0.5, epsilon = 1e-10);
        assert_relative_eq!(x.z, 0.2, epsilon = 1e-12);
        // Central difference of the displacement (error O(h²) ≈ 1e-12 of ω r).
        let (t, h) = (0.7, 1e-6);
        let fd = (o.arm(t + h) - o.arm(t - h)) / (2.0 * h);
        assert!((fd - o.at(t)).length() < 1e-8, "{fd} against {}", o.at(t));
    }

    #[test]
    fn a_vibration_returns_to_its_start_after_whole_periods() {
        let v = Oscillation::new(DVec3::new(0.0, 0.0, 2e-3), 50.0, -std::f64::consts::FRAC_PI_2).unwrap();
        // Starts at rest (φ = −π/2); after 100 periods of 200 steps it is back where it
        // began, to round-off of the sines (1e-15 m on a 2e-3 m stroke).
        assert!(v.at(0.0).length() < 1e-15);
        assert!(advanced(&v, 20_000, 1e-4).length() < 1e-15);
        // Half a period: the full stroke 2A.
        assert_relative_eq!(v.integral(0.0, 0.01).z, 4e-3, epsilon = 1e-15);
        assert_relative_eq!(v.at(0.005).z, 2e-3 * TAU * 50.0, max_relative = 1e-12);
        assert!(Oscillation::new(DVec3::Z, 0.0, 0.0).is_err());
        assert!(Oscillation::new(DVec3::Z, 1.0, f64::NAN).is_err());
    }

    #[test]
    fn a_table_meets_its_corners_whatever_the_step() {
        let p = |x: f64| DVec3::new(x, 0.0, 0.0);
        let table = PositionTable::new(vec![0.0, 1.0, 3.0], vec![p(0.0), p(2.0), p(1.0)], false).unwrap();
        // Steps of 0.3 s straddle both corners: the displacement is the table's anyway.
        assert_relative_eq!(advanced(&table, 5, 0.3).x, 2.0 - 0.5 * 0.5, epsilon = 1e-15);
        assert_relative_eq!(advanced(&table, 20, 0.3).x, 1.0, epsilon = 1e-15);
        assert_eq!((table.at(0.5).x, table.at(1.0).x, table.at(3.0).x), (2.0, -0.5, 0.0));
        assert_eq!(table.at(-1.0), DVec3::ZERO);
    }

    #[test]
    fn a_repeating_table_cycles() {
        let p = |x: f64| DVec3::new(x, 0.0, 0.0);
        let table = PositionTable::new(vec![0.0, 1.0, 2.0], vec![p(0.0), p(1.0), p(0.0)], true).unwrap();
        assert_relative_eq!(advanced(&table, 25, 0.1).x, 0.5, epsilon = 1e-12);
        assert_eq!(table.at(2.5).x, 1.0);
        assert_eq!(table.at(3.5).x, -1.0);
        let open = PositionTable::new(vec![0.0, 1.0], vec![p(0.0), p(1.0)], true);
        assert!(open.unwrap_err().to_string().contains("repeating table"));
    }

    #[test]
    fn bad_tables_are_named() {
        let p = DVec3::ZERO;
        let message = |r: Result<PositionTable>| r.unwrap_err().to_string();
        assert!(message(PositionTable::new(vec![0.0], vec![p], false)).contains("table rows"));
        assert!(message(PositionTable::new(vec![0.0, 1.0], vec![p], false)).contains("table rows"));
        assert!(message(PositionTable::new(vec![0.0, 0.0], vec![p, p], false)).contains("#1 = 0"));
        assert!(message(PositionTable::new(vec![0.0, f64::NAN], vec![p, p], false)).contains("table time"));
        let nan = DVec3::new(0.0, f64::NAN, 0.0);
        assert!(message(PositionTable::new(vec![0.0, 1.0], vec![p, nan], false)).contains("table position"));
    }

    #[test]
    fn a_surface_velocity_moves_contacts_not_the_body() {
        let belt = SurfaceVelocity(DVec3::X);
        assert_eq!((belt.at(3.0), belt.integral(0.0, 1.0)), (DVec3::X, DVec3::ZERO));
        let sum = DriveSum(vec![Prescribed::Constant(DVec3::Y), Prescribed::drive(belt)]);
        assert_eq!((sum.at(0.0), sum.integral(0.0, 2.0)), (DVec3::X + DVec3::Y, 2.0 * DVec3::Y));
    }
}
