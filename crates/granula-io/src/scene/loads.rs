//! Time-dependent loads (`[[loads]]`): forces and torques added to a named body's constant
//! ones over a time window, switched on as a step or along a linear ramp.
//!
//! The driver sets each loaded body's external force and torque before every step from the
//! load factors at the step's start time, so a load is constant within a step: the MD
//! solver's ledger books its work exactly as for a constant load, and a switch falls on a
//! step boundary (at the first step starting at or after `start`).

use super::bodies::BodyPlan;
use super::check::Check;
use super::source::KeyPath;
use super::spec::LoadSpec;
use crate::error::Result;
use glam::DVec3;
use granula_core::{BodyHandle, Motion, World};
use std::collections::HashMap;

/// One validated load.
#[derive(Clone, Debug, PartialEq)]
pub struct Load {
    /// The loaded body (its handle: bodies are inserted in scene order).
    pub body: BodyHandle,
    /// Full force (N).
    pub force: DVec3,
    /// Full torque (N m).
    pub torque: DVec3,
    /// Switch-on time (s).
    pub start: f64,
    /// Switch-off time (s); infinite for a load that stays.
    pub end: f64,
    /// Duration of the linear ramp from zero to full (s); 0 for a step.
    pub ramp: f64,
}

impl Load {
    /// The fraction of the load acting at time `t`: 0 before `start` and from `end` on,
    /// (t − start)/ramp during the ramp, 1 after it.
    pub fn factor(&self, t: f64) -> f64 {
        if t < self.start || t >= self.end {
            0.0
        } else if self.ramp > 0.0 {
            ((t - self.start) / self.ramp).min(1.0)
        } else {
            1.0
        }
    }
}

/// Validates `[[loads]]` against the scene's bodies: the body must exist by name and be
/// dynamic, the vectors finite, 0 ≤ start < end, ramp ≥ 0.
pub fn validate(c: &Check, specs: &[LoadSpec], plans: &[BodyPlan]) -> Result<Vec<Load>> {
    let root = KeyPath::root().key("loads");
    let mut loads = Vec::with_capacity(specs.len());
    let mut named: HashMap<&str, usize> = HashMap::new();
    if !specs.is_empty() {
        for (i, b) in plans.iter().enumerate() {
            if let Some(n) = b.name.as_deref() {
                named.entry(n).or_insert(i);
            }
        }
    }
    for (k, s) in specs.iter().enumerate() {
        let p = root.index(k);
        let Some(&i) = named.get(s.body.as_str()) else {
            return Err(c.invalid(&p.key("body"), &s.body, "names no body of the scene"));
        };
        if !matches!(plans[i].body.motion, Motion::Dynamic) {
            return Err(c.invalid(&p.key("body"), &s.body, "is not dynamic: a load cannot move it"));
        }
        let force = c.vector(&p.key("force"), s.force)?;
        let torque = c.vector(&p.key("torque"), s.torque)?;
        let start = c.non_negative(&p.key("start"), s.start)?;
        let end = match s.end {
            Some(e) if e.is_finite() && e > start => e,
            Some(e) => return Err(c.invalid(&p.key("end"), e, format!("must be finite and > start = {start}"))),
            None => f64::INFINITY,
        };
        let ramp = c.non_negative(&p.key("ramp"), s.ramp)?;
        loads.push(Load { body: BodyHandle(i as u32), force, torque, start, end, ramp });
    }
    Ok(loads)
}

/// Sets the external force and torque of every loaded body of `world` for the step starting
/// at `world.time()`: its constant ones from the scene (`plans`) plus each load times its
/// factor. Bodies removed since the start are skipped.
pub fn apply_loads(loads: &[Load], plans: &[BodyPlan], world: &mut World) {
    let t = world.time();
    let b = &mut world.bodies;
    for load in loads {
        let Ok(i) = b.index(load.body) else { continue };
        let plan = &plans[load.body.0 as usize].body;
        b.external_force[i] = plan.external_force;
        b.external_torque[i] = plan.external_torque;
    }
    for load in loads {
        let Ok(i) = b.index(load.body) else { continue };
        let f = load.factor(t);
        b.external_force[i] += load.force * f;
        b.external_torque[i] += load.torque * f;
    }
}
