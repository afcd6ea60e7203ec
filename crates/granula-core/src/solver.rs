//! The solver trait, the step context it works in, and the per-step report.

use crate::body_set::BodySet;
use crate::body_sums::{BodySums, StepSums, SumRequest};
use crate::contact::ContactRecord;
use crate::energy::Dissipation;
use crate::handle::BodyHandle;
use crate::material::MaterialTable;
use crate::math::DVec3;
use crate::narrowphase::Narrowphase;

/// Advances the bodies of a world by one time step. Smooth solvers are generic over contact
/// law, integrator and broadphase; the contact-dynamics solver over broadphase and
/// non-smooth law.
///
/// A solver sees only its [`StepContext`]: the bodies, the materials, gravity and the time
/// of the step. The world's clock, energy ledger and observers stay out of its reach:
/// [`World::step`](crate::World::step) builds the context, validates `dt`, checks the new
/// state, books the report in the ledger, advances the clock and calls the observers.
///
/// ```
/// use granula_core::prelude::*;
///
/// /// Moves every dynamic body by its velocity: free flight without gravity.
/// struct Drift;
///
/// impl Solver for Drift {
///     type Error = CoreError;
///     fn name(&self) -> &'static str {
///         "drift"
///     }
///     fn step(&mut self, ctx: StepContext<'_>) -> Result<StepReport, CoreError> {
///         let b = ctx.bodies;
///         for i in 0..b.len() {
///             if b.inv_mass[i] > 0.0 {
///                 b.position[i] += b.velocity[i] * ctx.dt;
///             }
///         }
///         Ok(StepReport::default())
///     }
/// }
///
/// # fn main() -> Result<(), CoreError> {
/// let mut world = World::builder().gravity(DVec3::ZERO).build()?;
/// let ball = world.insert(SphereBuilder::new(0.01, DVec3::ZERO).velocity(DVec3::X).build()?)?;
/// world.run_for(&mut Drift, 0.5, 1e-3)?;
/// let i = world.bodies.index(ball)?;
/// assert!((world.bodies.position[i].x - 0.5).abs() < 1e-12);
/// # Ok(())
/// # }
/// ```
pub trait Solver {
    /// The solver's own error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// A stable name, e.g. `"md"` or `"nscd"`.
    fn name(&self) -> &'static str;

    /// One step from `ctx.time` to `ctx.time + ctx.dt` (`dt` already validated as finite
    /// and positive): moves every body and reports what happened.
    fn step(&mut self, ctx: StepContext<'_>) -> Result<StepReport, Self::Error>;

    /// [`Solver::step`], also handing back the sums over the bodies that the world's checks
    /// read ([`BodySums`]): those of the state at the start of the step when
    /// `request.start` (then `Some`, else `None`), and those of its end, with the energies
    /// when `request.energies`. [`World::step`](crate::World::step) calls this.
    ///
    /// The default passes over the bodies before and after [`Solver::step`]
    /// ([`BodySums::start_of`], [`BodySums::end_of`]). A solver whose own passes touch the
    /// bodies may add the sums up there instead (the MD solver does, in its integrator's half
    /// steps); the sums must be those of the same per-body terms ([`BodySums::add_start`],
    /// [`BodySums::add_end`]), over the bodies in dense order or merged in that order.
    fn step_with_sums(
        &mut self,
        ctx: StepContext<'_>,
        request: SumRequest,
    ) -> Result<(StepReport, StepSums), Self::Error> {
        let StepContext { bodies, materials, narrowphase, gravity, periodic, time, dt, step } = ctx;
        let start = request.start.then(|| BodySums::start_of(bodies, gravity, dt));
        let ctx = StepContext { bodies: &mut *bodies, materials, narrowphase, gravity, periodic, time, dt, step };
        let report = self.step(ctx)?;
        Ok((report, StepSums { start, end: BodySums::end_of(bodies, gravity, request.energies) }))
    }

    /// Whether the energy terms of this solver's reports close the world's ledger up to
    /// the integrator's truncation error, so that a growing balance means an unstable run
    /// and the world's runaway-energy guard ([`EnergyGuard`](crate::EnergyGuard)) applies.
    /// Default `false`: the guard stays off for solvers that do not say so.
    fn closes_energy_balance(&self) -> bool {
        false
    }

    /// Whether the solver's contact detection reaches as far as a body can move in a step
    /// (a detection margin grown by the speed times Δt, as in contact dynamics), so that no
    /// body passes through another unseen. The world's travel limit
    /// ([`World::max_travel_ratio`](crate::World::max_travel_ratio)) applies only to
    /// solvers that return `false`, the default.
    fn detects_along_the_step(&self) -> bool {
        false
    }

    /// What books the energies of the reports, for messages of the energy guard (default
    /// `solver '<name>'`; the MD solver names its contact law).
    fn ledger_source(&self) -> String {
        format!("solver '{}'", self.name())
    }

    /// From the next step on, publish (or stop publishing) the contacts of each step for
    /// [`Solver::contacts`]. Off by default, so that a run no output reads pays nothing; a
    /// solver that cannot publish ignores it (the default).
    fn publish_contacts(&mut self, _on: bool) {}

    /// The contacts of the last step, if it published them ([`Solver::publish_contacts`]):
    /// every contact point the law (or the local solver) was evaluated for, at the
    /// configuration where its force was computed, with the force and couple the step
    /// applied and the law's status ([`Contact`](crate::Contact)). `None` when the last step
    /// did not publish (the default, and before the first step): an empty list means a step
    /// that published and had no contact.
    fn contacts(&self) -> Option<&[ContactRecord]> {
        None
    }
}

/// What a solver may use during one step, built by [`World::step`](crate::World::step)
/// from the world: the bodies to advance, the materials, gravity and the time of the step.
/// The clock, the energy ledger and the observers are not part of it: the world keeps them
/// and updates them from the solver's [`StepReport`].
#[derive(Debug)]
pub struct StepContext<'a> {
    /// The bodies (structure of arrays), at the start of the step; the solver leaves them at
    /// its end. Insert or remove bodies through the world, between steps.
    pub bodies: &'a mut BodySet,
    /// All materials and their pair table.
    pub materials: &'a MaterialTable,
    /// The contact generators of the world's shape pairs (built-in and host-registered).
    pub narrowphase: &'a Narrowphase,
    /// Gravitational acceleration (m/s²).
    pub gravity: DVec3,
    /// The periodic axes of the world ([`PeriodicDomain`](crate::periodic::PeriodicDomain);
    /// none by default). Positions are unwrapped; pairs interact through the minimum image.
    pub periodic: crate::periodic::PeriodicDomain,
    /// Simulated time at the start of the step (s).
    pub time: f64,
    /// Size of the step (s), finite and positive.
    pub dt: f64,
    /// Index of the step: the number of steps taken before it (the world's step count at
    /// its start).
    pub step: u64,
}

/// Counts of contacts by the status their law decided ([`ContactStatus`](crate::ContactStatus)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContactStatusCounts {
    /// Contacts with zero normal force (open, incipient).
    pub open: usize,
    /// Closed contacts whose tangential force is below the Coulomb limit.
    pub sticking: usize,
    /// Closed contacts at the Coulomb limit.
    pub sliding: usize,
    /// Contacts held in tension by cohesion ([`ContactStatus::Cohesive`](crate::ContactStatus)).
    pub cohesive: usize,
}

impl ContactStatusCounts {
    /// Counts one contact of status `s`.
    #[inline(always)]
    pub fn count(&mut self, s: crate::ContactStatus) {
        use crate::ContactStatus::*;
        match s {
            Open => self.open += 1,
            Sticking => self.sticking += 1,
            Sliding => self.sliding += 1,
            Cohesive => self.cohesive += 1,
        }
    }

    /// Adds the counts of `o`.
    pub fn add(&mut self, o: &ContactStatusCounts) {
        self.open += o.open;
        self.sticking += o.sticking;
        self.sliding += o.sliding;
        self.cohesive += o.cohesive;
    }
}

/// Something the user should know about a step that is not an error.
#[derive(Clone, Debug, PartialEq)]
pub enum StepWarning {
    /// Δt exceeds the recommended step of the contact law.
    TimeStepTooLarge {
        /// The step used.
        dt: f64,
        /// The recommended upper bound.
        recommended: f64,
    },
    /// An iterative solver stopped at its iteration cap before meeting its criterion.
    IterationCapReached {
        /// Iterations performed.
        iterations: u32,
        /// Criterion value when it stopped.
        residual: f64,
    },
}

/// What happened in one step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Number of contact points (closed or within the detection margin). A pair of spheres
    /// has one; a polyhedron can touch another at several.
    pub contacts: usize,
    /// Number of body pairs with at least one contact point.
    pub pairs: usize,
    /// Contacts by state.
    pub status: ContactStatusCounts,
    /// Largest overlap −g over all contacts (m), zero if none.
    pub max_overlap: f64,
    /// Largest overlap divided by the smaller radius of its pair, and that pair.
    pub max_overlap_ratio: f64,
    /// The pair with the largest overlap ratio, if any contact overlaps.
    pub max_overlap_pair: Option<(BodyHandle, BodyHandle)>,
    /// Broadphase rebuilds since the solver was created.
    pub broadphase_rebuilds: u64,
    /// Iterations of an iterative solver (0 for explicit ones).
    pub iterations: u32,
    /// Final value of the iterative solver's convergence criterion.
    pub residual: f64,
    /// Global force balance, first half: the sum of the contact forces received over the
    /// step by the bodies held in place (fixed, kinematic, or along their locked
    /// translations), each the mean force of the step (P/Δt for contact dynamics) (N).
    /// Zero when the solver does not report the balance.
    pub support_force: DVec3,
    /// Global force balance, second half: the sum of gravity m g and the external forces
    /// over the free translations of the dynamic bodies (N). Newton's second law summed over
    /// them gives `applied_load − support_force` = ΔP/Δt, the change of their total
    /// momentum over the step: a bed at rest has the two equal (see
    /// [`StepReport::support_imbalance`]). Zero when the solver does not report it.
    pub applied_load: DVec3,
    /// Energy dissipated during this step, per mechanism (J).
    pub dissipated: Dissipation,
    /// Elastic energy stored in contacts at the end of the step (J).
    pub stored_elastic: f64,
    /// Work done on the dynamic bodies during the step by external forces other than gravity
    /// and by kinematic bodies (J).
    pub external_work: f64,
    /// Non-fatal notices.
    pub warnings: Vec<StepWarning>,
}

impl StepReport {
    /// |support_force − applied_load| / |applied_load|: how far the supports are from
    /// carrying the load, relative to it, which is |ΔP|/(|F| Δt), the change of the
    /// movable bodies' total momentum over the step against the load's impulse. A bed at
    /// rest on a floor between frictionless walls has it at zero, the floor then carrying
    /// the whole weight whatever the static indeterminacy inside the bed. `None` when the
    /// step has no load (no gravity, no external force, or a solver that does not report
    /// the balance).
    pub fn support_imbalance(&self) -> Option<f64> {
        let load = self.applied_load.length();
        (load > 0.0).then(|| (self.support_force - self.applied_load).length() / load)
    }
}
