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
//!   scale = max(K₀, K₁) + max(S₀, S₁) + |ΔU| + |ΔD| + |ΔW|,
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
//!   E = K_t,0 + R₀ + L₀ + max(S₀, S₁) + |ΔU| + D + |W|,
//!
//! where R₀ = Σ ½ I_max |ω|² bounds the rotational energy that friction may turn into
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
//! first step after an insertion or removal is not checked for the same reason.

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
/// `source` names what books the energies (for the error message).
pub(crate) fn check(world: &World, guard: &EnergyGuard, state: &mut Option<GuardState>, source: &str) -> Result<()> {
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
            ledger: source.to_string(),
        });
    }
    *state = Some(GuardState { strikes, ..now });
    Ok(())
}

/// Sums over the dynamic bodies of one pass ([`scan`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Scan {
    /// Translational kinetic energy Σ ½ m v² (J).
    pub kinetic: f64,
    /// Bound of the rotational kinetic energy, Σ ½ I_max |ω|² over finite moments (J).
    pub rotation: f64,
    /// Potential energy Σ −m g·x (J).
    pub potential: f64,
    /// What gravity and the external loads can give in one step from rest,
    /// Σ ½ m |g + F/m|² Δt² + ½ |T|² Δt² / I_min (J).
    pub loads: f64,
    /// Sum of every body's position, velocity, angular velocity and orientation
    /// components: finite exactly when all of them are (unless finite values overflow).
    pub state: f64,
    /// The dynamic body with the largest |v|² Δt² / r² (dense index), and that value.
    pub travel: (usize, f64),
}

/// One pass over the bodies: the energies of the dynamic ones, a sum that is finite when
/// every state is, and the body that moves farthest per step relative to its radius (at
/// its velocity at the end of the step, over `dt`).
pub(crate) fn scan(world: &World, dt: f64) -> Scan {
    let b = &world.bodies;
    let g = world.gravity;
    let mut out = Scan { travel: (usize::MAX, 0.0), ..Default::default() };
    let mut state = DVec3::ZERO;
    let dt2 = dt * dt;
    for i in 0..b.len() {
        let (x, v, w, q) = (b.position[i], b.velocity[i], b.angular_velocity[i], b.orientation[i]);
        state += x + v + w + DVec3::new(q.x, q.y, q.z + q.w);
        // Non-dynamic bodies have a zero inverse mass (and an infinite or unused mass).
        if b.inv_mass[i] == 0.0 {
            continue;
        }
        let m = b.mass[i];
        let v2 = v.length_squared();
        out.kinetic += 0.5 * m * v2;
        out.potential -= m * g.dot(x);
        let inertia = DVec3::select(b.inv_inertia[i].cmpgt(DVec3::ZERO), b.inertia[i], DVec3::ZERO);
        out.rotation += 0.5 * inertia.max_element() * w.length_squared();
        let a = g + b.external_force[i] * b.inv_mass[i];
        out.loads += 0.5
            * dt2
            * (m * a.length_squared() + b.external_torque[i].length_squared() * b.inv_inertia[i].max_element());
        // r is infinite for shapes other than spheres: never a travel record.
        let r = b.radius[i];
        let travel = v2 * dt2 / (r * r);
        if travel > out.travel.1 {
            out.travel = (i, travel);
        }
    }
    out.state = state.x + state.y + state.z;
    out
}

/// The per-step check of the module documentation: `before` is the scan at the start of
/// the step, `after` at its end, `stored_before` the stored energy of the previous report.
pub(crate) fn check_step(
    world: &World,
    before: &Scan,
    after: &Scan,
    stored_before: f64,
    report: &StepReport,
    source: &str,
) -> Result<()> {
    let d = report.dissipated.total();
    let w = report.external_work;
    let du = after.potential - before.potential;
    let gain = (after.kinetic - before.kinetic) + du + (report.stored_elastic - stored_before) + d - w;
    let scale = before.kinetic
        + before.rotation
        + before.loads
        + stored_before.max(report.stored_elastic)
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
        ledger: source.to_string(),
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
