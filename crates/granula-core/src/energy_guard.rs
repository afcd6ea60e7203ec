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

use crate::body_set::MotionKind;
use crate::error::{CoreError, Result};
use crate::handle::BodyHandle;
use crate::math::DVec3;
use crate::solver::StepReport;
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

/// What the guard remembers between steps, as a checkpoint saves it
/// ([`World::guard_memory`], [`World::restore_guard_memory`]): the accounts at the last
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
/// `source` names what books the energies (for the error message; called only then).
pub(crate) fn check(
    world: &World,
    guard: &EnergyGuard,
    state: &mut Option<GuardState>,
    source: &dyn Fn() -> String,
) -> Result<()> {
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
            ledger: source(),
        });
    }
    *state = Some(GuardState { strikes, ..now });
    Ok(())
}

/// Sums over the dynamic bodies of one pass ([`scan_start`], [`scan_end`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Scan {
    /// Translational kinetic energy Σ ½ m v² (J).
    pub kinetic: f64,
    /// Bound of the rotational kinetic energy, Σ ½ (I₁ + I₂ + I₃) |ω|² over finite
    /// moments (J).
    pub rotation: f64,
    /// Potential energy Σ −m g·x (J).
    pub potential: f64,
    /// What gravity and the external loads can give in one step from rest,
    /// Σ ½ m |g + F/m|² Δt² + ½ |T|² Δt² / I_min (J) (start of step only).
    pub loads: f64,
    /// Sum of every body's position, velocity, angular velocity and orientation
    /// components: finite exactly when all of them are (unless finite values overflow).
    pub state: f64,
    /// The dynamic body with the largest |v|² Δt² / r² (dense index, `usize::MAX` if none),
    /// and that value (end of step only).
    pub travel: (usize, f64),
}

/// A bound of a body's rotational energy, ½ (I₁ + I₂ + I₃) |ω|² ≥ ½ I_max |ω|² ≥ ½ ω·I ω,
/// over its finite moments (those with a non-zero inverse; a sum, not a maximum, because
/// it costs no comparison), zero for non-dynamic bodies.
#[inline(always)]
fn rotation_bound(inertia: DVec3, inv_inertia: DVec3, w: DVec3) -> f64 {
    0.5 * DVec3::select(inv_inertia.cmpgt(DVec3::ZERO), inertia, DVec3::ZERO).element_sum() * w.length_squared()
}

/// The pass at the start of a step (only when the one-step check runs): the energies of
/// the dynamic bodies and what gravity and the loads give them in one step.
pub(crate) fn scan_start(world: &World, dt: f64) -> Scan {
    let b = &world.bodies;
    let g = world.gravity;
    let half_dt2 = 0.5 * dt * dt;
    let mut out = Scan { travel: (usize::MAX, 0.0), ..Default::default() };
    for i in 0..b.len() {
        // Non-dynamic bodies have a zero inverse mass (and an infinite or unused mass).
        let inv_m = b.inv_mass[i];
        if inv_m == 0.0 {
            continue;
        }
        let (m, x, v, w) = (b.mass[i], b.position[i], b.velocity[i], b.angular_velocity[i]);
        out.kinetic += 0.5 * m * v.length_squared();
        out.potential -= m * g.dot(x);
        out.rotation += rotation_bound(b.inertia[i], b.inv_inertia[i], w);
        let a = g + b.external_force[i] * inv_m;
        out.loads += half_dt2
            * (m * a.length_squared() + b.external_torque[i].length_squared() * b.inv_inertia[i].max_element());
    }
    out
}

/// The pass after a step: the energies of the dynamic bodies, a sum that is finite when
/// every state is, and the dynamic body that moves farthest per step relative to its
/// radius (at its velocity at the end of the step, over `dt`). No division: the travel
/// records compare |v|² r_best² with |v_best|² r² (a radius is infinite for shapes other
/// than spheres, which are thus never a record).
pub(crate) fn scan_end(world: &World, dt: f64) -> Scan {
    let b = &world.bodies;
    let g = world.gravity;
    let mut state = DVec3::ZERO;
    // Twice the kinetic and rotational energies, minus the potential energy over |g|.
    let (mut k2, mut r2sum, mut mgx) = (0.0, 0.0, 0.0);
    let (mut best, mut best_v2, mut best_r2) = (usize::MAX, 0.0, 1.0);
    let columns = b.position.iter().zip(&b.velocity).zip(&b.angular_velocity).zip(&b.orientation);
    let masses = b.inv_mass.iter().zip(&b.mass).zip(&b.inertia).zip(&b.inv_inertia).zip(&b.radius);
    for (i, ((((x, v), w), q), ((((inv_m, m), inertia), inv_inertia), r))) in columns.zip(masses).enumerate() {
        state += *x + *v + *w + DVec3::new(q.x, q.y, q.z + q.w);
        // Non-dynamic bodies have a zero inverse mass (and an infinite or unused mass) and
        // zero inverse moments: selected out without a branch.
        let dynamic = *inv_m != 0.0;
        let m = if dynamic { *m } else { 0.0 };
        let v2 = if dynamic { v.length_squared() } else { 0.0 };
        k2 += m * v2;
        mgx += m * g.dot(*x);
        r2sum += 2.0 * rotation_bound(*inertia, *inv_inertia, *w);
        let rr = r * r;
        if v2 * best_r2 > best_v2 * rr {
            (best, best_v2, best_r2) = (i, v2, rr);
        }
    }
    Scan {
        kinetic: 0.5 * k2,
        rotation: 0.5 * r2sum,
        potential: -mgx,
        loads: 0.0,
        state: state.x + state.y + state.z,
        travel: (best, if best == usize::MAX { 0.0 } else { best_v2 * dt * dt / best_r2 }),
    }
}

/// The per-step check of the module documentation: `before` is the scan at the start of
/// the step, `after` at its end, `stored_before` the stored energy of the previous report.
pub(crate) fn check_step(
    world: &World,
    before: &Scan,
    after: &Scan,
    stored_before: f64,
    report: &StepReport,
    source: &dyn Fn() -> String,
) -> Result<()> {
    let d = report.dissipated.total();
    let w = report.external_work;
    let du = after.potential - before.potential;
    let gain = (after.kinetic - before.kinetic) + du + (report.stored_elastic - stored_before) + d - w;
    let scale = before.kinetic
        + before.rotation
        + before.loads
        + stored_before.abs().max(report.stored_elastic.abs())
        + du.abs()
        + d.abs()
        + w.abs();
    let limit = EnergyGuard::MAX_STEP_GAIN;
    if gain.is_finite() && scale.is_finite() && !(gain > limit * scale && gain > 0.0) {
        return Ok(());
    }
    let (body, kinetic) = most_kinetic(world);
    Err(CoreError::EnergyRunaway {
        body,
        kinetic,
        gain,
        ratio: gain / scale,
        limit,
        interval: 1,
        step: world.step,
        time: world.time,
        ledger: source(),
    })
}

/// The dynamic body with the largest translational kinetic energy, and that energy (J).
fn most_kinetic(world: &World) -> (BodyHandle, f64) {
    let b = &world.bodies;
    (0..b.len())
        .filter(|&i| b.motion[i] == MotionKind::Dynamic)
        .map(|i| (b.handle[i], 0.5 * b.mass[i] * b.velocity[i].length_squared()))
        .fold((BodyHandle(u32::MAX), f64::NEG_INFINITY), |a, x| if x.1 > a.1 { x } else { a })
}
