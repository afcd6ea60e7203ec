//! The sums over the bodies that the world's checks read around a step: the energies the
//! runaway-energy guard compares (`energy_guard.rs`), a sum that is finite when every
//! state is, and the body that travels farthest per step.
//!
//! They are made by whatever pass touches the bodies: by default the solver's
//! [`Solver::step_with_sums`](crate::Solver::step_with_sums) passes over the bodies before
//! and after its step; the MD solver lets its integrator add them up inside its own half
//! steps ([`Integrator::predict_summing`](crate::Integrator::predict_summing),
//! [`Integrator::correct_summing`](crate::Integrator::correct_summing)), which read the same
//! columns anyway. Either way the per-body terms are those of [`BodySums::add_start`] and
//! [`BodySums::add_end`], and partial sums over runs of bodies are merged in body order
//! ([`BodySums::merge`]).

use crate::body_set::{BodySet, MotionKind};
use crate::handle::BodyHandle;
use crate::math::{DQuat, DVec3};

/// Which sums a step is asked for ([`Solver::step_with_sums`](crate::Solver::step_with_sums)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SumRequest {
    /// The sums of the state at the start of the step ([`BodySums::add_start`]): asked when
    /// the guard's one-step check runs.
    pub start: bool,
    /// The energies among the sums at the end of the step; without them only the state sum
    /// and the travel record are needed.
    pub energies: bool,
}

/// The sums a step hands back to the world: those of its start (when asked) and of its end.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepSums {
    /// The sums of the state at the start of the step, `Some` exactly when
    /// [`SumRequest::start`] asked for them.
    pub start: Option<BodySums>,
    /// The sums of the state at the end of the step.
    pub end: BodySums,
}

/// One body's values that [`BodySums`] reads: a row of a [`BodySet`]'s columns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SummedBody {
    /// Inverse mass (zero: not dynamic, no energy).
    pub inv_mass: f64,
    /// Mass (kg).
    pub mass: f64,
    /// Bounding radius (m; infinite for shapes other than spheres).
    pub radius: f64,
    /// Position (m).
    pub position: DVec3,
    /// Velocity (m/s).
    pub velocity: DVec3,
    /// Angular velocity (rad/s).
    pub angular_velocity: DVec3,
    /// Orientation.
    pub orientation: DQuat,
    /// Principal moments of inertia (kg m²).
    pub inertia: DVec3,
    /// Their inverses (zero for a locked or infinite moment).
    pub inv_inertia: DVec3,
    /// Constant external force (N).
    pub external_force: DVec3,
    /// Constant external torque (N m).
    pub external_torque: DVec3,
}

impl SummedBody {
    /// Row `i` of `bodies`.
    #[inline(always)]
    pub fn of(bodies: &BodySet, i: usize) -> Self {
        SummedBody {
            inv_mass: bodies.inv_mass[i],
            mass: bodies.mass[i],
            radius: bodies.radius[i],
            position: bodies.position[i],
            velocity: bodies.velocity[i],
            angular_velocity: bodies.angular_velocity[i],
            orientation: bodies.orientation[i],
            inertia: bodies.inertia[i],
            inv_inertia: bodies.inv_inertia[i],
            external_force: bodies.external_force[i],
            external_torque: bodies.external_torque[i],
        }
    }
}

/// Sums over the bodies at one instant, as the world's checks read them: the
/// translational kinetic energy Σ ½ m v², a bound of the rotational energy
/// Σ ½ (I₁ + I₂ + I₃) |ω|² over finite moments, the potential energy Σ −m g·x, what gravity
/// and the external loads can give in one step from rest (start of a step only), a sum of
/// every body's position, velocity, angular velocity and orientation components (finite
/// exactly when all of them are, unless finite values overflow), and the dynamic body that
/// moves farthest per step relative to its radius (end of a step only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodySums {
    twice_kinetic: f64,
    rotation: f64,
    mgx: f64,
    loads: f64,
    state: DVec3,
    /// Dense index of the travel record (`usize::MAX` if none), its |v|² and its r².
    best: usize,
    best_v2: f64,
    best_r2: f64,
}

impl Default for BodySums {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl BodySums {
    /// The sums over no body.
    pub const EMPTY: BodySums = BodySums {
        twice_kinetic: 0.0,
        rotation: 0.0,
        mgx: 0.0,
        loads: 0.0,
        state: DVec3::ZERO,
        best: usize::MAX,
        best_v2: 0.0,
        best_r2: 1.0,
    };

    /// Adds body `b` at the start of a step of `dt` under gravity `g`: its energies and
    /// what gravity and its external loads give it in one step from rest,
    /// ½ m |g + F/m|² Δt² + ½ |T|² Δt² / I_min. Non-dynamic bodies (zero inverse mass)
    /// add nothing.
    #[inline(always)]
    pub fn add_start(&mut self, b: &SummedBody, g: DVec3, dt: f64) {
        if b.inv_mass == 0.0 {
            return;
        }
        self.twice_kinetic += b.mass * b.velocity.length_squared();
        self.mgx += b.mass * g.dot(b.position);
        self.rotation += rotation_bound(b.inertia, b.inv_inertia, b.angular_velocity);
        let a = g + b.external_force * b.inv_mass;
        self.loads += 0.5
            * dt
            * dt
            * (b.mass * a.length_squared() + b.external_torque.length_squared() * b.inv_inertia.max_element());
    }

    /// Adds body `b`, at dense index `i`, at the end of a step: its state components (every
    /// body), its energies when `ENERGIES` (dynamic bodies), and its |v|²/r² to the travel
    /// record (dynamic bodies; a strict comparison keeps the first of equal records). No
    /// division: the record compares |v|² r_best² with |v_best|² r².
    #[inline(always)]
    pub fn add_end<const ENERGIES: bool>(&mut self, i: usize, b: &SummedBody, g: DVec3) {
        let q = b.orientation;
        self.state += b.position + b.velocity + b.angular_velocity + DVec3::new(q.x, q.y, q.z + q.w);
        // Non-dynamic bodies have a zero inverse mass (and an infinite or unused mass) and
        // zero inverse moments: selected out without a branch.
        let dynamic = b.inv_mass != 0.0;
        let m = if dynamic { b.mass } else { 0.0 };
        let v2 = if dynamic { b.velocity.length_squared() } else { 0.0 };
        if ENERGIES {
            self.twice_kinetic += m * v2;
            self.mgx += m * g.dot(b.position);
            self.rotation += rotation_bound(b.inertia, b.inv_inertia, b.angular_velocity);
        }
        let rr = b.radius * b.radius;
        if v2 * self.best_r2 > self.best_v2 * rr {
            (self.best, self.best_v2, self.best_r2) = (i, v2, rr);
        }
    }

    /// Adds the sums of bodies that come after those of `self` (in dense order): the same
    /// travel record as one pass over all of them.
    pub fn merge(&mut self, later: &BodySums) {
        self.twice_kinetic += later.twice_kinetic;
        self.rotation += later.rotation;
        self.mgx += later.mgx;
        self.loads += later.loads;
        self.state += later.state;
        if later.best_v2 * self.best_r2 > self.best_v2 * later.best_r2 {
            (self.best, self.best_v2, self.best_r2) = (later.best, later.best_v2, later.best_r2);
        }
    }

    /// The sums of the start of a step over every body of `b`, in one pass.
    pub fn start_of(b: &BodySet, g: DVec3, dt: f64) -> Self {
        let mut s = Self::EMPTY;
        for i in 0..b.len() {
            s.add_start(&SummedBody::of(b, i), g, dt);
        }
        s
    }

    /// The sums of the end of a step over every body of `b`, in one pass (the energies
    /// when `energies`, zero otherwise).
    pub fn end_of(b: &BodySet, g: DVec3, energies: bool) -> Self {
        let mut s = Self::EMPTY;
        for i in 0..b.len() {
            let body = SummedBody::of(b, i);
            if energies {
                s.add_end::<true>(i, &body, g);
            } else {
                s.add_end::<false>(i, &body, g);
            }
        }
        s
    }

    /// Translational kinetic energy Σ ½ m v² (J).
    pub fn kinetic(&self) -> f64 {
        0.5 * self.twice_kinetic
    }

    /// Bound of the rotational kinetic energy, Σ ½ (I₁ + I₂ + I₃) |ω|² (J).
    pub fn rotation(&self) -> f64 {
        self.rotation
    }

    /// Potential energy Σ −m g·x (J).
    pub fn potential(&self) -> f64 {
        -self.mgx
    }

    /// Σ ½ m |g + F/m|² Δt² + ½ |T|² Δt² / I_min (J), start of a step only.
    pub fn loads(&self) -> f64 {
        self.loads
    }

    /// The sum of every state component: finite when every state is.
    pub fn state(&self) -> f64 {
        self.state.x + self.state.y + self.state.z
    }

    /// The dynamic body with the largest |v|² Δt² / r² over a step of `dt` (dense index,
    /// `usize::MAX` if none), and that value.
    pub fn travel(&self, dt: f64) -> (usize, f64) {
        (self.best, if self.best == usize::MAX { 0.0 } else { self.best_v2 * dt * dt / self.best_r2 })
    }
}

/// A bound of a body's rotational energy, ½ (I₁ + I₂ + I₃) |ω|² ≥ ½ I_max |ω|² ≥ ½ ω·I ω,
/// over its finite moments (those with a non-zero inverse; a sum, not a maximum, because
/// it costs no comparison), zero for non-dynamic bodies.
#[inline(always)]
fn rotation_bound(inertia: DVec3, inv_inertia: DVec3, w: DVec3) -> f64 {
    0.5 * DVec3::select(inv_inertia.cmpgt(DVec3::ZERO), inertia, DVec3::ZERO).element_sum() * w.length_squared()
}

/// The dynamic body with the largest translational kinetic energy, and that energy (J).
pub(crate) fn most_kinetic(b: &BodySet) -> (BodyHandle, f64) {
    (0..b.len())
        .filter(|&i| b.motion[i] == MotionKind::Dynamic)
        .map(|i| (b.handle[i], 0.5 * b.mass[i] * b.velocity[i].length_squared()))
        .fold((BodyHandle(u32::MAX), f64::NEG_INFINITY), |a, x| if x.1 > a.1 { x } else { a })
}
