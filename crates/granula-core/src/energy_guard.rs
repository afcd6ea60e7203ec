//! The runaway-energy guard: stops a simulation whose energy balance grows by itself.
//!
//! The ledger's balance B = kinetic + potential + stored elastic + dissipated − external
//! work stays constant in exact arithmetic (it is the initial energy). A stable integration
//! keeps it to its truncation error; an unstable one (time step too large for the stiffest
//! contact, a law that injects energy) makes it grow, mostly as kinetic energy, long before
//! the state becomes non-finite. Every `every` steps the guard compares the growth of B
//! over the interval with the energy in play during it,
//!
//!   scale = max(K₀, K₁) + max(S₀, S₁) + |ΔU| + |ΔD| + |ΔW|,
//!
//! and counts a strike when the growth exceeds `max_gain` · scale. Two strikes in a row
//! stop the run with [`CoreError::EnergyRunaway`]: a single jump, such as velocities set by
//! hand between steps or bodies inserted, does not (insertions and removals also restart the
//! comparison), while a blow-up, which grows from one interval to the next, does.

use crate::body_set::MotionKind;
use crate::error::{CoreError, Result};
use crate::handle::BodyHandle;
use crate::world::World;

/// Settings of the runaway-energy guard (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnergyGuard {
    /// Steps between two checks (≥ 1). Each check costs one pass over the bodies.
    pub every: u64,
    /// Largest growth of the energy balance over an interval, as a fraction of the energy
    /// in play during it, before the interval counts as a strike (> 0).
    pub max_gain: f64,
}

impl Default for EnergyGuard {
    /// A check every 100 steps; a strike when more than half of the energy in play is gained.
    fn default() -> Self {
        EnergyGuard { every: 100, max_gain: 0.5 }
    }
}

impl EnergyGuard {
    /// Checks both fields; the error names the field and its value.
    pub fn validate(&self) -> Result<()> {
        if self.every == 0 {
            return Err(CoreError::InvalidWorld {
                field: "energy_guard.every",
                value: "0".into(),
                expected: ">= 1 step",
            });
        }
        if !(self.max_gain.is_finite() && self.max_gain > 0.0) {
            return Err(CoreError::InvalidWorld {
                field: "energy_guard.max_gain",
                value: format!("{}", self.max_gain),
                expected: "finite and > 0",
            });
        }
        Ok(())
    }
}

/// The energy accounts at the last check.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct GuardState {
    kinetic: f64,
    potential: f64,
    stored: f64,
    dissipated: f64,
    work: f64,
    /// [`BodySet::structure_version`](crate::BodySet::structure_version) at the last check.
    version: u64,
    /// Consecutive intervals whose growth exceeded the limit.
    strikes: u32,
}

impl GuardState {
    /// The accounts of `world` now, with no strike.
    fn of(world: &World) -> GuardState {
        GuardState {
            kinetic: world.kinetic_energy(),
            potential: world.potential_energy(),
            stored: world.ledger.stored_elastic,
            dissipated: world.ledger.dissipated.total(),
            work: world.ledger.external_work,
            version: world.bodies.structure_version(),
            strikes: 0,
        }
    }

    fn balance(&self) -> f64 {
        self.kinetic + self.potential + self.stored + self.dissipated - self.work
    }
}

/// Runs the check of `guard` after a step if one is due, updating `state`.
pub(crate) fn check(world: &World, guard: &EnergyGuard, state: &mut Option<GuardState>) -> Result<()> {
    if !world.step.is_multiple_of(guard.every) {
        return Ok(());
    }
    let now = GuardState::of(world);
    let Some(before) = state.filter(|s| s.version == now.version) else {
        *state = Some(now);
        return Ok(());
    };
    let gain = now.balance() - before.balance();
    let scale = now.kinetic.max(before.kinetic)
        + now.stored.max(before.stored)
        + (now.potential - before.potential).abs()
        + (now.dissipated - before.dissipated).abs()
        + (now.work - before.work).abs();
    let strike = gain > guard.max_gain * scale && gain > 0.0;
    let strikes = if strike { before.strikes + 1 } else { 0 };
    if strikes >= 2 {
        let (body, kinetic) = most_kinetic(world);
        return Err(CoreError::EnergyRunaway {
            body,
            kinetic,
            gain,
            ratio: gain / scale,
            limit: guard.max_gain,
            interval: guard.every,
            step: world.step,
            time: world.time,
        });
    }
    *state = Some(GuardState { strikes, ..now });
    Ok(())
}

/// The dynamic body with the largest translational kinetic energy, and that energy (J).
fn most_kinetic(world: &World) -> (BodyHandle, f64) {
    let b = &world.bodies;
    (0..b.len())
        .filter(|&i| b.motion[i] == MotionKind::Dynamic)
        .map(|i| (b.handle[i], 0.5 * b.mass[i] * b.velocity[i].length_squared()))
        .fold((BodyHandle(u32::MAX), f64::NEG_INFINITY), |a, x| if x.1 > a.1 { x } else { a })
}
