//! The runaway-energy guard: stops a simulation whose energy balance grows by itself.
//!
//! The ledger's balance B = kinetic + potential + stored elastic + dissipated − external
//! work stays constant in exact arithmetic (it is the initial energy). A stable integration
//! keeps it to its truncation error; an unstable one (time step too large for the stiffest
//! contact, a law that injects energy) makes it grow, mostly as kinetic energy, long before
//! the state becomes non-finite. The guard has two checks.
//!
//! **Every `every` steps** it compares the growth of B over the interval with the energy in
//! play during it,
//!
//!   scale = max(K₀, K₁) + max(|S₀|, |S₁|) + |ΔU| + |ΔD| + |ΔW|,
//!
//! and counts a strike when the growth exceeds `max_gain` · scale. Two strikes in a row
//! stop the run with [`CoreError::EnergyRunaway`]: a single jump, such as velocities set by
//! hand between steps or bodies inserted, does not (insertions and removals also restart the
//! comparison), while a blow-up, which grows from one interval to the next, does. A balance
//! or scale that is not finite stops the run at once.
//!
//! **Every step** it catches a one-step explosion, which the interval check misses when the
//! bodies fly apart after it (one strike, then a constant balance). The translational
//! kinetic and the potential energy are measured at the start of the step (after any change
//! by hand) and at its end; the step's gain
//!
//!   G = ΔK_t + ΔU + (S₁ − S₀) + D − W
//!
//! (S₀ the stored energy the previous report gave, D and W the step's dissipation and work)
//! is compared with the energy in play at the start of the step,
//!
//!   E = K_t,0 + R₀ + L₀ + max(|S₀|, |S₁|) + |ΔU| + D + |W|,
//!
//! where R₀ = Σ ½ (I₁ + I₂ + I₃) |ω|² bounds the rotational energy that friction may turn into
//! translation, and L₀ = Σ ½ m |g + F/m|² Δt² (+ the same for torques) is what gravity and
//! the external loads give a body at rest in one step (a load switched on books its work
//! over the following steps, as the body moves, so a step from rest gains about L₀
//! unbooked). G > [`EnergyGuard::MAX_STEP_GAIN`] · E (10³) stops the run at once. The bound
//! is far from anything a stable step does: energy conservation gives G ≤ E up to the
//! integration error, which for an explicit step of a stable scheme (ω Δt < 2) is a fraction
//! of the energy in play, (ω Δt)²/8 ≈ 0.5 at worst for velocity Verlet; an unstable step
//! multiplies the energy by about (ω Δt)², so 10³ is reached from ω Δt ≈ 32 (the
//! Poisson ratio −0.9999999999 of the issue that motivated it gave 10¹⁷). S₁ is in E so that
//! an initial overlap, whose energy the previous report could not hold, is not a gain; the
//! first step after an insertion or removal is not checked for the same reason. The stored
//! energy enters both scales by its size: a cohesive law stores a negative energy (the
//! bond's well), which would otherwise make the energy in play negative and any gain a
//! strike.

use crate::body_sums::BodySums;
use crate::error::{CoreError, Result};
use crate::handle::BodyHandle;
use serde::{Deserialize, Serialize};

/// Settings of the runaway-energy guard (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnergyGuard {
    /// Steps between two checks (≥ 1). Each check costs one pass over the bodies.
    pub every: u64,
    /// Largest growth of the energy balance over an interval, as a fraction of the energy
    /// in play during it, before the interval counts as a strike (> 0).
    pub max_gain: f64,
}

impl EnergyGuard {
    /// Largest gain of one step, as a multiple of the energy in play at its start, before
    /// the run stops at once (see the module documentation for the reasons of 10³).
    pub const MAX_STEP_GAIN: f64 = 1e3;
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

/// On which steps the runaway-energy guard's one-step check runs, and so on which steps
/// [`World::step`](crate::World::step) measures the bodies' energies ([`World::energy_reads`](crate::World#structfield.energy_reads)).
///
/// The one-step check (module documentation) needs the translational kinetic and potential
/// energies at the *start* of the step, measured after any change by hand between steps:
/// one more sum over the bodies ([`BodySums::add_start`], which the MD solver adds up inside
/// its integrator's parallel chunks), besides the energies among the sums after the step
/// (costs in `docs/performance.md`). The
/// ledger itself is booked on every step in both modes: the dissipation and the external
/// work are integrals over the run and are summed every step, and the stored energy is
/// that of the step's report (the MD solver computes it for its dissipation anyway: the
/// tangential spring's dissipation is the stored energy before the step minus the work
/// minus the stored energy after it, and a contact that opens books its last stored
/// energy). So [`World::ledger`](crate::World#structfield.ledger) closes on every step in
/// both modes, and the trajectory is the same to the bit.
///
/// In a scene file: `[simulation] energy_reads = "when_read"` or `"every_step"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EnergyReads {
    /// The one-step check runs after every step (default).
    #[default]
    EveryStep,
    /// The one-step check runs only on the steps where the interval check runs (those that
    /// end on a multiple of [`EnergyGuard::every`]) and on the step after a call of
    /// [`World::read_energies_next_step`](crate::World::read_energies_next_step). On the
    /// other steps the world skips the pass before the step and the energy sums of the pass
    /// after it, and checks only that the state is finite and the travel and overlap
    /// limits. A one-step explosion between two checks is then caught by those limits (an
    /// explosion soon moves a body by more than its radius in a step, or overlaps a pair
    /// beyond its limit) or by the interval check if the balance keeps growing, but no
    /// longer at the step where it happens.
    WhenRead,
}

/// What the guard remembers between steps, as a checkpoint saves it
/// ([`World::guard_memory`](crate::World::guard_memory),
/// [`World::restore_guard_memory`](crate::World::restore_guard_memory)): the accounts at the last
/// interval check and its strikes, and whether the next step may run the one-step check.
/// A resumed run that restores it makes the same checks at the same steps as the run that
/// was never stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GuardMemory {
    /// The interval check's accounts and strikes, `None` before the first check (or after
    /// an insertion or removal restarted the comparison).
    pub last_check: Option<GuardAccounts>,
    /// Whether the previous step passed every check with the same bodies, so that the next
    /// step runs the one-step check.
    pub one_step_armed: bool,
}

/// The energy accounts (J) at the guard's last interval check, and its strikes.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GuardAccounts {
    /// Kinetic energy, translation and rotation.
    pub kinetic: f64,
    /// Potential energy of gravity.
    pub potential: f64,
    /// Stored elastic energy of the ledger.
    pub stored: f64,
    /// Dissipated energy of the ledger.
    pub dissipated: f64,
    /// External work of the ledger.
    pub work: f64,
    /// Consecutive intervals whose growth exceeded the limit.
    pub strikes: u32,
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
    pub(crate) version: u64,
    /// Consecutive intervals whose growth exceeded the limit.
    strikes: u32,
}

impl GuardState {
    /// The saved form, without the structure version (a resumed world has its own).
    pub(crate) fn accounts(&self) -> GuardAccounts {
        let GuardState { kinetic, potential, stored, dissipated, work, strikes, .. } = *self;
        GuardAccounts { kinetic, potential, stored, dissipated, work, strikes }
    }

    /// The state of saved `accounts` for bodies at structure `version`.
    pub(crate) fn from_accounts(a: GuardAccounts, version: u64) -> GuardState {
        let GuardAccounts { kinetic, potential, stored, dissipated, work, strikes } = a;
        GuardState { kinetic, potential, stored, dissipated, work, version, strikes }
    }

    /// The accounts now (kinetic energy of translation and rotation, potential energy, and
    /// the ledger's stored, dissipated and external-work accounts) for bodies at structure
    /// `version`, with no strike.
    pub(crate) fn new(kinetic: f64, potential: f64, stored: f64, dissipated: f64, work: f64, version: u64) -> Self {
        GuardState { kinetic, potential, stored, dissipated, work, version, strikes: 0 }
    }

    fn balance(&self) -> f64 {
        self.kinetic + self.potential + self.stored + self.dissipated - self.work
    }
}

/// A runaway found by a check: the numbers of [`CoreError::EnergyRunaway`] that the guard
/// knows. The world (or the host of [`EnergyGuard::check_accounts`]) adds the body, the time
/// and the source of the ledger.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Runaway {
    /// Growth of the energy balance (J).
    pub gain: f64,
    /// The growth over the energy in play.
    pub ratio: f64,
    /// The limit of that ratio.
    pub limit: f64,
    /// Steps over which the growth was measured.
    pub interval: u64,
}

impl Runaway {
    /// The error for a runaway at `step` and `time`, naming the body with the most kinetic
    /// energy (`fastest`, with that energy) and what books the energies (`ledger`).
    pub fn into_error(self, fastest: (BodyHandle, f64), step: u64, time: f64, ledger: String) -> CoreError {
        let Runaway { gain, ratio, limit, interval } = self;
        let (body, kinetic) = fastest;
        CoreError::EnergyRunaway { body, kinetic, gain, ratio, limit, interval, step, time, ledger }
    }
}

impl EnergyGuard {
    /// Whether the interval check is due after step number `step` (a multiple of `every`).
    pub fn due(&self, step: u64) -> bool {
        step.is_multiple_of(self.every)
    }

    /// The interval check of the module documentation for accounts the caller gathers
    /// itself, as a run split over processes does (each process's world holds a part of
    /// the bodies and of the ledger, and the sums are the run's): compares `now` (its
    /// `strikes` ignored) with `last`, the accounts of the previous check (`None` before
    /// the first), and returns the runaway if there is one; otherwise `last` becomes `now`
    /// with the updated strike count. The same rule as [`World::step`](crate::World::step)'s
    /// own interval check, for bodies that are neither inserted nor removed between checks.
    pub fn check_accounts(&self, last: &mut Option<GuardAccounts>, now: GuardAccounts) -> Option<Runaway> {
        let mut state = last.map(|a| GuardState::from_accounts(a, 0));
        let runaway = check(self, &mut state, GuardState::from_accounts(GuardAccounts { strikes: 0, ..now }, 0));
        if runaway.is_none() {
            *last = state.map(|s| s.accounts());
        }
        runaway
    }
}

/// The interval check of the module documentation with the accounts `now`, updating
/// `state` (the accounts and strikes of the previous check).
pub(crate) fn check(guard: &EnergyGuard, state: &mut Option<GuardState>, now: GuardState) -> Option<Runaway> {
    let Some(before) = state.filter(|s| s.version == now.version) else {
        *state = Some(now);
        return None;
    };
    let gain = now.balance() - before.balance();
    let scale = now.kinetic.max(before.kinetic)
        // Stored energy is negative in a cohesive well: its size is what is in play.
        + now.stored.abs().max(before.stored.abs())
        + (now.potential - before.potential).abs()
        + (now.dissipated - before.dissipated).abs()
        + (now.work - before.work).abs();
    // A non-finite balance or scale (an overflow, a NaN) is a strike-out at once: every
    // comparison with a NaN is false, so it would otherwise never count.
    let broken = !(gain.is_finite() && scale.is_finite());
    let strike = broken || (gain > guard.max_gain * scale && gain > 0.0);
    let strikes = if strike { before.strikes + 1 } else { 0 };
    if strikes >= 2 || broken {
        return Some(Runaway { gain, ratio: gain / scale, limit: guard.max_gain, interval: guard.every });
    }
    *state = Some(GuardState { strikes, ..now });
    None
}

/// The energies of one step that the one-step check compares (J).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StepEnergies {
    /// The sums over the bodies at the start of the step.
    pub before: BodySums,
    /// The sums at its end.
    pub after: BodySums,
    /// The stored energy of the previous step's report.
    pub stored_before: f64,
    /// The stored energy of this step's report.
    pub stored_after: f64,
    /// The energy this step dissipated, all mechanisms.
    pub dissipated: f64,
    /// The external work of this step.
    pub work: f64,
}

/// The per-step check of the module documentation.
pub(crate) fn check_step(e: &StepEnergies) -> Option<Runaway> {
    let (before, after) = (&e.before, &e.after);
    let (stored_before, d, w) = (e.stored_before, e.dissipated, e.work);
    let du = after.potential() - before.potential();
    let gain = (after.kinetic() - before.kinetic()) + du + (e.stored_after - stored_before) + d - w;
    let scale = before.kinetic()
        + before.rotation()
        + before.loads()
        + stored_before.abs().max(e.stored_after.abs())
        + du.abs()
        + d.abs()
        + w.abs();
    let limit = EnergyGuard::MAX_STEP_GAIN;
    if gain.is_finite() && scale.is_finite() && !(gain > limit * scale && gain > 0.0) {
        return None;
    }
    Some(Runaway { gain, ratio: gain / scale, limit, interval: 1 })
}
