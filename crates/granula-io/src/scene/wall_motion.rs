//! The prescribed motion of a wall (`[[planes]]`, `[[cylinders]]`, `[[meshes]]` with
//! `motion = "kinematic"`): a translation, a rotation about an axis through any point, a
//! vibration, a table of positions and a moving surface, each optional, added together.
//!
//! The linear drive is the sum of the parts given; a wall with a constant velocity only
//! keeps the constant prescription (so scenes written before drives existed run with the
//! same bits). The angular drive is the constant `angular_velocity`, about
//! `rotation_center` (the wall's reference point when omitted: a plane's `point`, a
//! cylinder's `center`, a mesh's `position`).

use super::check::Check;
use super::source::KeyPath;
use crate::error::Result;
use glam::DVec3;
use granula_core::{DriveSum, Orbit, Oscillation, PositionTable, Prescribed, SurfaceVelocity};
use serde::{Deserialize, Serialize};

/// `vibration = { amplitude = [..], frequency = .., phase = .. }`: a sinusoidal displacement
/// A [sin(2π f t + φ) − sin φ] added to the wall's other motions.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VibrationSpec {
    /// Amplitude A (m): the stroke's direction and half its length.
    #[serde(deserialize_with = "super::exact::array")]
    pub amplitude: [f64; 3],
    /// Frequency f (Hz), > 0.
    pub frequency: f64,
    /// Phase φ (rad). Default 0 (the wall starts mid-stroke at full speed; −π/2 starts it
    /// at rest).
    #[serde(default)]
    pub phase: f64,
}

/// `path = { times = [..], positions = [[..], ..], repeat = false }`: displacements of the
/// wall's reference point from where it starts, joined by straight lines.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PathSpec {
    /// Increasing times (s).
    pub times: Vec<f64>,
    /// The displacement at each time (m).
    #[serde(deserialize_with = "super::exact::vec_of_arrays")]
    pub positions: Vec<[f64; 3]>,
    /// Start over after the last time (the table must end where it began). Default false:
    /// the wall stops at the last position.
    #[serde(default)]
    pub repeat: bool,
}

/// The motion keys of one wall, borrowed from its table.
pub struct WallMotionKeys<'a> {
    /// `velocity`: constant translation (m/s).
    pub velocity: [f64; 3],
    /// `angular_velocity` (rad/s).
    pub angular_velocity: [f64; 3],
    /// `rotation_center`: a point of the rotation axis (m).
    pub rotation_center: Option<[f64; 3]>,
    /// `vibration`.
    pub vibration: Option<&'a VibrationSpec>,
    /// `path`.
    pub path: Option<&'a PathSpec>,
    /// `surface_velocity`: the surface moves, the wall stays (m/s).
    pub surface_velocity: Option<[f64; 3]>,
}

impl WallMotionKeys<'_> {
    /// The name of the first key that prescribes motion beyond a constant velocity, if any.
    pub fn driven_key(&self) -> Option<&'static str> {
        let set = [
            (self.angular_velocity != [0.0; 3], "angular_velocity"),
            (self.rotation_center.is_some(), "rotation_center"),
            (self.vibration.is_some(), "vibration"),
            (self.path.is_some(), "path"),
            (self.surface_velocity.is_some(), "surface_velocity"),
        ];
        set.iter().find(|(on, _)| *on).map(|(_, key)| *key)
    }
}

/// The linear and angular prescriptions of a kinematic wall whose reference point starts
/// at `reference` (m). Errors name the key at fault.
pub fn drives(c: &Check, path: &KeyPath, k: &WallMotionKeys, reference: DVec3) -> Result<(Prescribed, Prescribed)> {
    let velocity = c.vector(&path.key("velocity"), k.velocity)?;
    let omega = c.vector(&path.key("angular_velocity"), k.angular_velocity)?;
    let mut parts = Vec::new();
    if velocity != DVec3::ZERO {
        parts.push(Prescribed::Constant(velocity));
    }
    if let Some(center) = k.rotation_center {
        let center = c.vector(&path.key("rotation_center"), center)?;
        if omega == DVec3::ZERO {
            return Err(c.invalid(&path.key("rotation_center"), center, "needs a non-zero `angular_velocity`"));
        }
        if center != reference {
            let offset = reference - center;
            parts.push(Prescribed::drive(Orbit { center, angular_velocity: omega, offset, start: 0.0 }));
        }
    }
    if let Some(v) = k.vibration {
        let p = path.key("vibration");
        let amplitude = c.vector(&p.key("amplitude"), v.amplitude)?;
        let o = Oscillation::new(amplitude, v.frequency, v.phase).map_err(|e| c.core(&p, e))?;
        parts.push(Prescribed::drive(o));
    }
    if let Some(t) = k.path {
        let p = path.key("path");
        let positions = t.positions.iter().map(|&x| DVec3::from_array(x)).collect();
        let table = PositionTable::new(t.times.clone(), positions, t.repeat).map_err(|e| c.core(&p, e))?;
        parts.push(Prescribed::drive(table));
    }
    if let Some(s) = k.surface_velocity {
        let s = c.vector(&path.key("surface_velocity"), s)?;
        parts.push(Prescribed::drive(SurfaceVelocity(s)));
    }
    let linear = match parts.len() {
        0 => Prescribed::Constant(DVec3::ZERO),
        1 => parts.pop().unwrap_or_default(),
        _ => Prescribed::drive(DriveSum(parts)),
    };
    Ok((linear, Prescribed::Constant(omega)))
}

/// Refuses motion keys on a wall that is not kinematic, naming the first one.
pub fn refuse_on_unmoved(c: &Check, path: &KeyPath, k: &WallMotionKeys, motion: &str) -> Result<()> {
    match k.driven_key() {
        Some(key) => Err(c.invalid(&path.key(key), motion, "moves a wall only with `motion = \"kinematic\"`")),
        None => Ok(()),
    }
}
