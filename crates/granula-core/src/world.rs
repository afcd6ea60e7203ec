//! The world: bodies, materials, gravity, clock, energy ledger and observers.

use crate::body::{Body, PlaneBuilder};
use crate::body_set::{BodySet, MotionKind};
use crate::body_sums::{StepSums, SumRequest};
use crate::clock::Clock;
use crate::energy::EnergyLedger;
use crate::energy_guard::{EnergyGuard, EnergyReads, GuardMemory, GuardState, StepEnergies};
use crate::error::{CoreError, Result};
use crate::handle::{BodyHandle, MaterialId};
use crate::material::{Material, MaterialTable};
use crate::math::{DMat3, DVec3};
use crate::narrowphase::{can_touch, Narrowphase, ShapeKind};
use crate::periodic::{Axis, PeriodicDomain, PeriodicError};
use crate::shape::Shape;
use crate::solver::{Solver, StepContext, StepReport};

mod checks;
mod run;
mod state;

pub use run::RunReport;
pub use state::WorldState;

/// User code called after every step of [`World::step`].
pub trait Observer: Send {
    /// Called with the world after the step and the step's report.
    fn after_step(&mut self, world: &World, report: &StepReport);
}

impl<F: FnMut(&World, &StepReport) + Send> Observer for F {
    fn after_step(&mut self, world: &World, report: &StepReport) {
        self(world, report)
    }
}

/// A simulation world. Fields are public in the manner of a physics-world bundle; use
/// [`World::insert`] and [`World::remove`] to change the set of bodies.
///
/// ```
/// use granula_core::prelude::*;
///
/// # fn main() -> Result<(), CoreError> {
/// let mut world = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).build()?;
/// let floor = world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build()?)?;
/// let ball = world.insert(SphereBuilder::new(0.01, DVec3::new(0.0, 0.0, 0.05)).velocity(DVec3::X).build()?)?;
/// assert_eq!(world.bodies.len(), 2);
/// // Columns are indexed by the dense index of a handle.
/// let i = world.bodies.index(ball)?;
/// assert_eq!(world.bodies.position[i].z, 0.05);
/// // The mass comes from the default material's density, 2500 kg/m³: m = ρ 4/3 π r³; the
/// // kinetic energy ½ m v² agrees to the rounding of the products (1e-14 relative).
/// let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-6;
/// assert!((world.kinetic_energy() - 0.5 * m).abs() < 1e-14 * world.kinetic_energy());
/// // Step it with any `Solver` (granula-md's `MdSolver`, granula-nscd's `NscdSolver`):
/// // `world.step(&mut solver, dt)?`, or `world.run_until(&mut solver, 1.0, dt)?`.
/// world.remove(floor)?;
/// assert_eq!(world.bodies.len(), 1);
/// # Ok(())
/// # }
/// ```
pub struct World {
    /// All bodies (structure of arrays).
    pub bodies: BodySet,
    /// All materials and their pair table.
    pub materials: MaterialTable,
    /// Gravitational acceleration (m/s²).
    pub gravity: DVec3,
    /// Simulated time (s), [`World::time`].
    time: f64,
    /// Steps taken, [`World::step_count`].
    step: u64,
    /// Planar (2D) mode: spheres act as discs (no z translation, rotation about z only).
    pub planar: bool,
    /// The periodic axes ([`PeriodicDomain`]; set by [`WorldBuilder::periodic`]). Bodies are
    /// checked against it at insertion; solvers see it in their [`StepContext`].
    pub periodic: PeriodicDomain,
    /// Cumulative energy accounts.
    pub ledger: EnergyLedger,
    /// Largest allowed overlap as a fraction of the smaller radius of a pair; a step that
    /// exceeds it fails with [`CoreError::ExcessiveOverlap`]. Default 0.5.
    pub max_overlap_ratio: f64,
    /// The runaway-energy guard ([`EnergyGuard`]; `None` turns it off): a step after which
    /// the energy balance has grown in two consecutive intervals fails with
    /// [`CoreError::EnergyRunaway`]. It acts with solvers whose reports close the ledger
    /// ([`Solver::closes_energy_balance`]: the MD solver, not NSCD). Default
    /// [`EnergyGuard::default`].
    pub energy_guard: Option<EnergyGuard>,
    /// On which steps the guard's one-step check runs and the bodies' energies are measured
    /// ([`EnergyReads`]; default every step). The ledger is booked on every step either way.
    pub energy_reads: EnergyReads,
    /// Largest distance a dynamic sphere may move in one step (its speed at the end of the
    /// step times Δt), as a fraction of its radius; a step that exceeds it fails with
    /// [`CoreError::ExcessiveTravel`]. A sphere moving farther than its radius per step can
    /// pass through a wall or another sphere between two force evaluations. Default 1;
    /// `f64::INFINITY` turns the check off. Solvers whose detection covers the step's
    /// motion ([`Solver::detects_along_the_step`], the NSCD solver) are not checked.
    pub max_travel_ratio: f64,
    guard_state: Option<GuardState>,
    /// The next step measures the energies ([`World::read_energies_next_step`]).
    energies_requested: bool,
    /// Structure version at the end of the last step that passed every check.
    last_step_version: Option<u64>,
    clock: Clock,
    /// Bodies with a lower handle passed the insertion overlap check (`overlap.rs`).
    pub(crate) overlaps_checked_below: BodyHandle,
    observers: Vec<Box<dyn Observer>>,
    narrowphase: Narrowphase,
    /// One shape of each kind inserted so far (the contact geometry check of
    /// [`World::insert`]).
    shape_kinds: Vec<Shape>,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("bodies", &self.bodies.len())
            .field("materials", &self.materials.len())
            .field("gravity", &self.gravity)
            .field("time", &self.time)
            .field("step", &self.step)
            .field("planar", &self.planar)
            .finish()
    }
}

/// Builds a [`World`].
#[must_use = "call build() to get the world"]
#[derive(Clone, Debug)]
pub struct WorldBuilder {
    gravity: DVec3,
    planar: bool,
    periodic: Result<PeriodicDomain, PeriodicError>,
    materials: Vec<Material>,
    max_overlap_ratio: f64,
    max_travel_ratio: f64,
    energy_guard: Option<EnergyGuard>,
    energy_reads: EnergyReads,
    narrowphase: Narrowphase,
}

impl Default for WorldBuilder {
    fn default() -> Self {
        WorldBuilder {
            gravity: DVec3::new(0.0, 0.0, -9.81),
            planar: false,
            periodic: Ok(PeriodicDomain::default()),
            materials: Vec::new(),
            max_overlap_ratio: 0.5,
            max_travel_ratio: 1.0,
            energy_guard: Some(EnergyGuard::default()),
            energy_reads: EnergyReads::EveryStep,
            narrowphase: Narrowphase::new(),
        }
    }
}

impl WorldBuilder {
    /// Gravity (default (0, 0, −9.81) m/s²).
    pub fn gravity(mut self, g: DVec3) -> Self {
        self.gravity = g;
        self
    }
    /// Planar (2D) mode (default off).
    pub fn planar(mut self, on: bool) -> Self {
        self.planar = on;
        self
    }
    /// Makes `axis` periodic over `[lo, hi)` (see [`PeriodicDomain`](crate::PeriodicDomain)):
    /// bodies interact with the images of the others one period away. Bad bounds or an
    /// axis given twice make [`WorldBuilder::build`] fail with [`CoreError::Periodic`].
    pub fn periodic(mut self, axis: Axis, lo: f64, hi: f64) -> Self {
        self.periodic = self.periodic.and_then(|d| d.with_axis(axis, lo, hi));
        self
    }
    /// Makes the periodic domain sheared (Lees-Edwards, see
    /// [`PeriodicDomain::with_shear`](crate::PeriodicDomain::with_shear)): the images one
    /// period up `gradient` are shifted along `flow` by γ̇ L_g t and move faster by γ̇ L_g.
    /// Both axes must be made periodic first; a bad rate or axis makes
    /// [`WorldBuilder::build`] fail with [`CoreError::Periodic`].
    pub fn shear(mut self, flow: Axis, gradient: Axis, rate: f64) -> Self {
        self.periodic = self.periodic.and_then(|d| d.with_shear(flow, gradient, rate));
        self
    }
    /// Adds a material; the first one added gets `MaterialId(0)`. Without any, the world
    /// has [`Material::default`].
    pub fn material(mut self, m: Material) -> Self {
        self.materials.push(m);
        self
    }
    /// The overlap limit of the blow-up guard (default 0.5 of the smaller radius).
    pub fn max_overlap_ratio(mut self, r: f64) -> Self {
        self.max_overlap_ratio = r;
        self
    }
    /// The travel limit of the tunnelling guard (default 1 radius per step; see
    /// [`World::max_travel_ratio`]).
    pub fn max_travel_ratio(mut self, r: f64) -> Self {
        self.max_travel_ratio = r;
        self
    }
    /// The narrowphase: the built-in shape pairs plus the contact generators a host
    /// registered in it ([`Narrowphase::register`]). Default [`Narrowphase::new`].
    pub fn narrowphase(mut self, narrowphase: Narrowphase) -> Self {
        self.narrowphase = narrowphase;
        self
    }

    /// The runaway-energy guard (default [`EnergyGuard::default`]; `None` turns it off).
    pub fn energy_guard(mut self, guard: Option<EnergyGuard>) -> Self {
        self.energy_guard = guard;
        self
    }
    /// On which steps the guard's one-step check runs (default [`EnergyReads::EveryStep`];
    /// see [`World::energy_reads`](World#structfield.energy_reads)).
    pub fn energy_reads(mut self, reads: EnergyReads) -> Self {
        self.energy_reads = reads;
        self
    }
    /// Validates and builds the world.
    pub fn build(self) -> Result<World> {
        if !self.gravity.is_finite() {
            return Err(CoreError::InvalidWorld {
                field: "gravity",
                value: format!("{:?}", self.gravity),
                expected: "finite",
            });
        }
        if !(self.max_overlap_ratio > 0.0) {
            return Err(CoreError::InvalidWorld {
                field: "max_overlap_ratio",
                value: format!("{}", self.max_overlap_ratio),
                expected: "> 0",
            });
        }
        if !(self.max_travel_ratio > 0.0) {
            return Err(CoreError::InvalidWorld {
                field: "max_travel_ratio",
                value: format!("{}", self.max_travel_ratio),
                expected: "> 0",
            });
        }
        if let Some(g) = &self.energy_guard {
            g.validate()?;
        }
        let periodic = self.periodic?;
        let mut materials = MaterialTable::new();
        if self.materials.is_empty() {
            materials.add(Material::default())?;
        }
        materials.add_all(self.materials)?;
        Ok(World {
            bodies: BodySet::default(),
            materials,
            gravity: self.gravity,
            time: 0.0,
            step: 0,
            planar: self.planar,
            periodic,
            ledger: EnergyLedger::default(),
            max_overlap_ratio: self.max_overlap_ratio,
            energy_guard: self.energy_guard,
            energy_reads: self.energy_reads,
            energies_requested: false,
            max_travel_ratio: self.max_travel_ratio,
            guard_state: None,
            last_step_version: None,
            clock: Clock::default(),
            overlaps_checked_below: BodyHandle(0),
            observers: Vec::new(),
            narrowphase: self.narrowphase,
            shape_kinds: Vec::new(),
        })
    }
}

/// What [`World::step`] decided before the solver's step, for the checks after it.
struct StepPlan {
    dt: f64,
    /// Whether the energy guard checks this step (a guard, and a solver that closes the
    /// balance).
    guarded: bool,
    /// The bodies' structure version the step starts from.
    version: u64,
    request: SumRequest,
    stored_before: f64,
}

/// What the checks after a step read of its solver.
struct SolverView<'a> {
    detects_along_the_step: bool,
    /// The solver's description for the energy guard's message.
    ledger: &'a dyn Fn() -> String,
}

impl World {
    /// A builder with the defaults.
    pub fn builder() -> WorldBuilder {
        WorldBuilder::default()
    }

    /// The narrowphase solvers dispatch contact geometry through: the built-in shape pairs
    /// and the host's registered generators ([`WorldBuilder::narrowphase`]).
    #[inline]
    pub fn narrowphase(&self) -> &Narrowphase {
        &self.narrowphase
    }

    /// Inserts a body; errors name the field at fault or the unknown material.
    /// In a periodic world, a body longer than half a period along a periodic axis is
    /// refused ([`PeriodicError::PeriodTooShort`]: a sphere needs a period of at least two
    /// diameters).
    ///
    /// A shape that exists only in the plane ([`CustomShape::planar_only`](crate::CustomShape::planar_only),
    /// a polygon) is refused by a world that is not planar, with
    /// [`CoreError::InvalidBody`] naming the shape.
    pub fn insert(&mut self, body: impl Body) -> Result<BodyHandle> {
        self.check_planar_only(body.shape())?;
        if self.periodic.is_periodic() {
            let state = body.state();
            let aabb = body.shape().aabb(state.position, state.orientation);
            self.periodic.check_extent(&aabb, || "new body".to_string())?;
        }
        let new_kind = self.check_contact_geometry(body.shape())?;
        let handle = self.bodies.insert(&body, &self.materials, self.planar)?;
        if new_kind {
            self.shape_kinds.push(body.shape().clone());
        }
        Ok(handle)
    }

    /// Checks that `shape` has a contact geometry with every kind of shape in the world
    /// that it can touch ([`Narrowphase::supports`]); returns whether its kind is new.
    fn check_contact_geometry(&self, shape: &Shape) -> Result<bool> {
        let kind = ShapeKind::of(shape);
        for other in &self.shape_kinds {
            let present = || self.bodies.shape.iter().any(|s| ShapeKind::of(s) == ShapeKind::of(other));
            if can_touch(shape, other) && !self.narrowphase.supports(shape, other) && present() {
                let named = |s: &Shape| match s {
                    Shape::Custom(c) => c.registration(),
                    _ => None,
                };
                let hint = named(shape).or(named(other)).map_or(String::new(), |call| format!(" ({call})"));
                return Err(CoreError::MissingContactGeometry { shape1: shape.name(), shape2: other.name(), hint });
            }
        }
        Ok(!self.shape_kinds.iter().any(|s| ShapeKind::of(s) == kind))
    }

    /// Inserts the five fixed plane walls of a box open at the top: the floor z = `corner.z`
    /// and the sides x = `corner.x`, y = `corner.y`, x = `corner.x + lx`, y = `corner.y + ly`
    /// (in that order), all with `material` and normals pointing into the box. This is the
    /// container of the benchmark packings and of most settling tests.
    pub fn insert_open_box(
        &mut self,
        corner: DVec3,
        lx: f64,
        ly: f64,
        material: MaterialId,
    ) -> Result<[BodyHandle; 5]> {
        for (field, v) in [("box length x", lx), ("box length y", ly)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(CoreError::InvalidWorld { field, value: format!("{v}"), expected: "finite and > 0" });
            }
        }
        let walls = [
            (corner, DVec3::Z),
            (corner, DVec3::X),
            (corner, DVec3::Y),
            (corner + DVec3::new(lx, 0.0, 0.0), -DVec3::X),
            (corner + DVec3::new(0.0, ly, 0.0), -DVec3::Y),
        ];
        let mut handles = [BodyHandle(0); 5];
        for (h, (point, normal)) in handles.iter_mut().zip(walls) {
            *h = self.insert(PlaneBuilder::new(point, normal).material(material).build()?)?;
        }
        Ok(handles)
    }

    /// Removes a body; its handle is retired.
    pub fn remove(&mut self, h: BodyHandle) -> Result<()> {
        self.bodies.remove(h)
    }

    /// Stores the bodies in the order of `permutation` ([`BodySet::permute`]): handles stay
    /// valid, states are untouched, the structure version moves on (so a solver that keeps
    /// per-body state starts afresh at its next step, unless it reorders itself, as the MD
    /// solver does with `MdConfig::reorder_every`). With
    /// [`BodySet::permutation_to`](crate::BodySet::permutation_to), a restored world gets back the dense order of the
    /// run it was saved from.
    pub fn reorder_bodies(&mut self, permutation: &crate::Permutation) -> Result<()> {
        self.bodies.permute(permutation)
    }

    /// Under [`EnergyReads::WhenRead`], makes the next step a reading step: it runs the
    /// guard's one-step check (when the guard acts) as under [`EnergyReads::EveryStep`].
    /// Without effect under [`EnergyReads::EveryStep`], where every step is one.
    pub fn read_energies_next_step(&mut self) {
        self.energies_requested = true;
    }

    /// Whether the step about to be taken measures the energies of the bodies: every step
    /// under [`EnergyReads::EveryStep`]; under [`EnergyReads::WhenRead`] the steps after
    /// which the guard's interval check runs and the step after
    /// [`World::read_energies_next_step`].
    pub fn next_step_reads_energies(&self) -> bool {
        match self.energy_reads {
            EnergyReads::EveryStep => true,
            EnergyReads::WhenRead => {
                self.energies_requested || self.energy_guard.is_some_and(|g| g.due(self.step.wrapping_add(1)))
            }
        }
    }

    /// Adds an observer called after every [`World::step`].
    pub fn add_observer(&mut self, o: impl Observer + 'static) {
        self.observers.push(Box::new(o));
    }

    /// One step with `solver`: validates `dt`, checks that no body inserted since the last
    /// step overlaps another ([`World::check_overlaps`]), runs the solver, checks that the
    /// state and every energy are finite, that no dynamic sphere moves more than
    /// [`World::max_travel_ratio`] of its radius in the step and that no pair overlaps beyond
    /// [`World::max_overlap_ratio`], updates the ledger, advances the clock, runs the
    /// runaway-energy guard ([`World::energy_guard`]: its one-step check, and its interval
    /// check when one is due) when the solver closes the ledger, then calls the observers.
    ///
    /// The checks read sums over the bodies ([`BodySums`](crate::BodySums)) that the solver
    /// hands back with its step ([`Solver::step_with_sums`]): those of the end of the step,
    /// and of its start when the energy guard's one-step check runs (every step, or only on
    /// reading steps under [`EnergyReads::WhenRead`],
    /// [`World::energy_reads`](World#structfield.energy_reads)). By default they cost one
    /// pass over the bodies after the step and one before it; the MD solver adds them up in
    /// its integrator's half steps, which read the same columns.
    pub fn step<S: Solver>(&mut self, solver: &mut S, dt: f64) -> Result<StepReport> {
        let plan = self.begin_step(dt, solver.closes_energy_balance())?;
        let ctx = StepContext {
            bodies: &mut self.bodies,
            materials: &self.materials,
            narrowphase: &self.narrowphase,
            gravity: self.gravity,
            periodic: self.periodic,
            time: self.time,
            dt,
            step: self.step,
        };
        let (report, sums) = solver.step_with_sums(ctx, plan.request).map_err(|e| CoreError::Solver {
            step: self.step,
            time: self.time,
            source: Box::new(e),
        })?;
        let solver_view =
            SolverView { detects_along_the_step: solver.detects_along_the_step(), ledger: &|| solver.ledger_source() };
        self.finish_step(plan, report, sums, solver_view)
    }

    /// The checks and the sums asked of a step of `dt` before the solver takes it (the
    /// solver-independent half of [`World::step`], compiled once for every solver type).
    fn begin_step(&mut self, dt: f64, closes_energy_balance: bool) -> Result<StepPlan> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(CoreError::InvalidTimeStep { dt });
        }
        if let Some(guard) = &self.energy_guard {
            guard.validate()?;
        }
        if !(self.max_travel_ratio > 0.0) {
            return Err(CoreError::InvalidWorld {
                field: "max_travel_ratio",
                value: format!("{}", self.max_travel_ratio),
                expected: "> 0",
            });
        }
        self.check_inserted_overlaps()?;
        let guarded = self.energy_guard.is_some() && closes_energy_balance;
        let version = self.bodies.structure_version();
        let reads = self.next_step_reads_energies();
        self.energies_requested = false;
        // The one-step check needs the stored energy of a previous step of the same bodies.
        let request =
            SumRequest { start: reads && guarded && self.last_step_version == Some(version), energies: reads };
        let stored_before = self.ledger.stored_elastic;
        self.last_step_version = None;
        Ok(StepPlan { dt, guarded, version, request, stored_before })
    }

    /// What follows the solver's step: the clock, the state's and the ledger's checks, the
    /// energy guard and the observers (the other solver-independent half of
    /// [`World::step`]).
    fn finish_step(
        &mut self,
        plan: StepPlan,
        report: StepReport,
        sums: StepSums,
        solver: SolverView<'_>,
    ) -> Result<StepReport> {
        let StepPlan { dt, guarded, version, request, stored_before } = plan;
        let mut clock = self.clock();
        clock.advance(dt);
        self.set_clock_unchecked(clock);
        // Without the energies (zero in `after`), a finite state has finite energies unless
        // a square overflows, which the travel limit catches when it is on.
        let (before, after) = (sums.start.filter(|_| request.start), sums.end);
        self.check_state(&after, dt, &report, solver.detects_along_the_step)?;
        self.check_energies(&after, &report)?;
        self.ledger.dissipated += report.dissipated;
        self.ledger.stored_elastic = report.stored_elastic;
        self.ledger.external_work += report.external_work;
        let ledger =
            [("dissipated energy", self.ledger.dissipated.total()), ("external work", self.ledger.external_work)];
        if let Some((account, value)) = ledger.into_iter().find(|(_, v)| !v.is_finite()) {
            return Err(self.non_finite(account, value, None));
        }
        if let Some(guard) = self.energy_guard.filter(|_| guarded) {
            let step = before.map(|before| StepEnergies {
                before,
                after,
                stored_before,
                stored_after: report.stored_elastic,
                dissipated: report.dissipated.total(),
                work: report.external_work,
            });
            self.run_energy_guard(&guard, step.as_ref(), solver.ledger)?;
        }
        self.last_step_version = Some(version);
        if !self.observers.is_empty() {
            let mut observers = std::mem::take(&mut self.observers);
            for o in observers.iter_mut() {
                o.after_step(self, &report);
            }
            self.observers = observers;
        }
        Ok(report)
    }

    /// What the runaway-energy guard remembers between steps (see [`GuardMemory`]), for a
    /// checkpoint: a world that restores it with [`World::restore_guard_memory`] checks
    /// exactly as the world it was saved from.
    pub fn guard_memory(&self) -> GuardMemory {
        let version = self.bodies.structure_version();
        GuardMemory {
            last_check: self.guard_state.filter(|s| s.version == version).map(|s| s.accounts()),
            one_step_armed: self.last_step_version == Some(version),
        }
    }

    /// Restores the guard's memory saved by [`World::guard_memory`], for the bodies as they
    /// are now (restore the bodies first). The accounts must be finite (non-finite ones
    /// name the field).
    pub fn restore_guard_memory(&mut self, memory: GuardMemory) -> Result<()> {
        if let Some(a) = memory.last_check {
            let fields = [
                ("guard kinetic energy", a.kinetic),
                ("guard potential energy", a.potential),
                ("guard stored energy", a.stored),
                ("guard dissipated energy", a.dissipated),
                ("guard external work", a.work),
            ];
            if let Some((field, v)) = fields.into_iter().find(|(_, v)| !v.is_finite()) {
                return Err(CoreError::InvalidWorld { field, value: format!("{v}"), expected: "finite" });
            }
        }
        let version = self.bodies.structure_version();
        self.guard_state = memory.last_check.map(|a| GuardState::from_accounts(a, version));
        self.last_step_version = memory.one_step_armed.then_some(version);
        Ok(())
    }

    /// Simulated time (s), computed by the world's [`Clock`] from the step count after
    /// every step (not summed step by step): after 10⁶ steps of 10⁻⁴ s it is exactly 100 s.
    /// [`World::set_clock`] sets it.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Steps taken since the world was built (or since the clock was set).
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// The clock: step count, time step, and the base its time is computed from.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Sets the clock (restoring a saved [`World::clock`] continues with the same times, bit
    /// for bit, as the run it was saved from); updates [`World::time`] and
    /// [`World::step_count`]. [`Clock::at`] starts a clock at a given time and step. Errors
    /// name the field at fault: a
    /// non-finite base time, a negative or non-finite time step, or a base after the step.
    pub fn set_clock(&mut self, clock: Clock) -> Result<()> {
        let invalid = |field, value: String, expected| Err(CoreError::InvalidWorld { field, value, expected });
        if !clock.base_time.is_finite() {
            return invalid("clock base time", format!("{}", clock.base_time), "finite");
        }
        if !(clock.dt.is_finite() && clock.dt >= 0.0) {
            return invalid("clock time step", format!("{}", clock.dt), "finite and >= 0");
        }
        if clock.base_step > clock.step {
            return invalid("clock base step", clock.base_step.to_string(), "<= the clock's step count");
        }
        self.set_clock_unchecked(clock);
        Ok(())
    }

    fn set_clock_unchecked(&mut self, clock: Clock) {
        self.clock = clock;
        self.step = clock.step;
        self.time = clock.time();
    }

    /// Translational kinetic energy Σ ½ m v² of dynamic bodies (J).
    pub fn kinetic_energy_translational(&self) -> f64 {
        let b = &self.bodies;
        (0..b.len())
            .filter(|&i| b.motion[i] == MotionKind::Dynamic)
            .map(|i| 0.5 * b.mass[i] * b.velocity[i].length_squared())
            .sum()
    }

    /// Rotational kinetic energy Σ ½ ω_b · I ω_b of dynamic bodies, over finite moments (J).
    pub fn kinetic_energy_rotational(&self) -> f64 {
        let b = &self.bodies;
        (0..b.len()).filter(|&i| b.motion[i] == MotionKind::Dynamic).map(|i| b.rotational_energy(i)).sum()
    }

    /// Total kinetic energy (J).
    pub fn kinetic_energy(&self) -> f64 {
        self.kinetic_energy_translational() + self.kinetic_energy_rotational()
    }

    /// Gravitational potential energy Σ −m g·x of dynamic bodies, zero at the origin (J).
    pub fn potential_energy(&self) -> f64 {
        let b = &self.bodies;
        (0..b.len())
            .filter(|&i| b.motion[i] == MotionKind::Dynamic)
            .map(|i| -b.mass[i] * self.gravity.dot(b.position[i]))
            .sum()
    }

    /// Linear momentum Σ m v of dynamic bodies (kg m/s).
    pub fn momentum(&self) -> DVec3 {
        let b = &self.bodies;
        (0..b.len()).filter(|&i| b.motion[i] == MotionKind::Dynamic).map(|i| b.mass[i] * b.velocity[i]).sum()
    }

    /// Angular momentum about the origin Σ (x × m v + R I Rᵀ ω) of dynamic bodies, over
    /// finite moments (kg m²/s).
    pub fn angular_momentum(&self) -> DVec3 {
        let b = &self.bodies;
        (0..b.len())
            .filter(|&i| b.motion[i] == MotionKind::Dynamic)
            .map(|i| {
                let r = DMat3::from_quat(b.orientation[i]);
                let inertia = DVec3::select(b.inertia[i].is_finite_mask(), b.inertia[i], DVec3::ZERO);
                b.position[i].cross(b.mass[i] * b.velocity[i]) + r * (inertia * (r.transpose() * b.angular_velocity[i]))
            })
            .sum()
    }
}
