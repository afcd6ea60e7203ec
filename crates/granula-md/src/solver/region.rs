//! The step as one parallel region (issue 13).
//!
//! When the integrator has range forms ([`Integrator::ranges`]) the committed part of a step
//! runs inside one rayon `broadcast` (one closure per thread of the pool) instead of four
//! parallel loops, each of which hands work to the pool and waits for it:
//!
//! 1. every thread predicts its own range of bodies; barrier;
//! 2. thread 0 alone advances the kinematic bodies, updates the candidate list (the skin
//!    check, and the rebuild when it is due), measures the rotations; barrier;
//! 3. every thread runs the pair pass for the blocks it takes from a shared counter (the
//!    blocks' costs differ), each block into its own sink and summary, as in
//!    [`pair_pass`](crate::forces::pair_pass); barrier;
//! 4. every thread merges the loads of its range of bodies (windows in block order, then
//!    overflow lists in block order, or the gather's CSR order) and, at once, corrects the
//!    same range (with local damping: a barrier, thread 0 damps every body, a barrier,
//!    then the correct).
//!
//! Body ranges are fixed by the data and the thread count only (the k-th of `threads` equal
//! shares of the bodies); which thread runs a block does not matter, since each block
//! writes only its own histories, sink and summary. Each body and each block is computed by the same
//! code as in the loops of the other path, and every sum over several blocks or bodies
//! (block summaries, the kinematic bodies' power, the loads of a body) is taken afterwards
//! in the order of that path: the results are bit-identical to it for any thread count.

use super::MdSolver;
use crate::accumulation::BlockSinks;
use crate::body_loads::apply_local_damping;
use crate::forces::{block_pass, BlockSummary, PassInput};
use crate::points::PointState;
use granula_core::{
    BodyChunk, BodySet, Broadphase, ContactLaw, DQuat, DVec3, Integrator, IntegratorRanges, MaterialTable, Narrowphase,
    RangeMemory,
};
use std::cell::UnsafeCell;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// Spins of a thread waiting at a [`PhaseBarrier`] before it yields, then sleeps: the
/// phases of a step are balanced to a few microseconds, so a waiting thread usually sees
/// the others arrive while it spins, without the sleep and wake-up of a blocking barrier.
const SPINS: usize = 1 << 8;
/// Yields of the processor after the spins, before sleeping (on a loaded machine the
/// thread that holds the others up may be waiting for a core).
const YIELDS: usize = 64;

/// A reusable barrier for a fixed number of threads that spins, then yields, then sleeps.
#[derive(Debug)]
pub(crate) struct PhaseBarrier {
    threads: usize,
    arrived: AtomicUsize,
    /// Counts the barrier's openings.
    generation: AtomicUsize,
    sleepers: Mutex<usize>,
    wake: Condvar,
}

impl PhaseBarrier {
    /// A barrier for `threads` threads.
    pub fn new(threads: usize) -> Self {
        PhaseBarrier {
            threads,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            sleepers: Mutex::new(0),
            wake: Condvar::new(),
        }
    }

    /// Waits until all the threads have called `wait` for this opening. Everything a thread
    /// wrote before its call is visible to every thread after theirs.
    pub fn wait(&self) {
        if self.threads <= 1 {
            return;
        }
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            self.arrived.store(0, Ordering::Relaxed);
            // The new generation is published under the lock, so a thread about to sleep
            // either sees it or is already waiting on the condition variable.
            let sleepers = self.sleepers.lock().unwrap_or_else(|e| e.into_inner());
            self.generation.store(generation.wrapping_add(1), Ordering::Release);
            if *sleepers > 0 {
                self.wake.notify_all();
            }
            return;
        }
        for _ in 0..SPINS {
            if self.generation.load(Ordering::Acquire) != generation {
                return;
            }
            std::hint::spin_loop();
        }
        for _ in 0..YIELDS {
            if self.generation.load(Ordering::Acquire) != generation {
                return;
            }
            std::thread::yield_now();
        }
        let mut sleepers = self.sleepers.lock().unwrap_or_else(|e| e.into_inner());
        *sleepers += 1;
        while self.generation.load(Ordering::Acquire) == generation {
            sleepers = self.wake.wait(sleepers).unwrap_or_else(|e| e.into_inner());
        }
        *sleepers -= 1;
    }
}

/// The `k`-th of `parts` contiguous, nearly equal shares of `0..len`.
pub(crate) fn share(len: usize, parts: usize, k: usize) -> Range<usize> {
    len * k / parts..len * (k + 1) / parts
}

/// A column (slice) handed to the threads of the region, each of which cuts its own
/// disjoint range of it.
struct Column<T> {
    ptr: *mut T,
    len: usize,
}

impl<T> Clone for Column<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Column<T> {}

impl<T> Default for Column<T> {
    fn default() -> Self {
        Column { ptr: std::ptr::NonNull::dangling().as_ptr(), len: 0 }
    }
}

impl<T> Column<T> {
    fn of(slice: &mut [T]) -> Self {
        Column { ptr: slice.as_mut_ptr(), len: slice.len() }
    }

    /// The elements `r` (nothing if the column is empty).
    ///
    /// # Safety
    /// The slice the column was made of is alive and not accessed otherwise while the result
    /// lives, and no other live reference covers the elements `r`.
    unsafe fn range<'a>(self, r: Range<usize>) -> &'a mut [T] {
        if self.len == 0 {
            return &mut [];
        }
        assert!(r.start <= r.end && r.end <= self.len);
        // SAFETY: within the column (checked), exclusive by the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.end - r.start) }
    }

    /// The elements `r`, to read.
    ///
    /// # Safety
    /// The slice is alive and no thread writes the elements `r` while the result lives.
    unsafe fn part<'a>(self, r: Range<usize>) -> &'a [T] {
        if self.len == 0 {
            return &[];
        }
        assert!(r.start <= r.end && r.end <= self.len);
        // SAFETY: within the column (checked), not written by the caller's contract.
        unsafe { std::slice::from_raw_parts(self.ptr.add(r.start), r.end - r.start) }
    }

    /// The whole column, to read.
    ///
    /// # Safety
    /// The slice is alive and no thread writes it while the result lives.
    unsafe fn all<'a>(self) -> &'a [T] {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// The columns that the halves and the merge write, by range.
#[derive(Clone, Copy, Default)]
struct WrittenColumns {
    position: Column<DVec3>,
    orientation: Column<DQuat>,
    velocity: Column<DVec3>,
    angular_velocity: Column<DVec3>,
    force: Column<DVec3>,
    torque: Column<DVec3>,
    pairs: Column<(DVec3, DVec3)>,
    linear: Column<DVec3>,
    angular: Column<DVec3>,
}

/// What thread 0 sets up for the parallel phases (before the region and in its serial
/// phases), read by every thread after the next barrier.
struct Plan<'r, H> {
    ranges: Option<*const (dyn IntegratorRanges + 'r)>,
    columns: WrittenColumns,
    offsets: Option<(Column<DVec3>, Column<DVec3>)>,
    histories: Column<H>,
    stored: Column<f64>,
    points: Column<Vec<PointState<H>>>,
    summaries: Column<BlockSummary>,
    sinks: Option<BlockSinks>,
    windows: bool,
    /// The energy local damping dissipated (thread 0, phase 4).
    body_damping: f64,
}

/// The shared state of one region: the solver and the body set, reached by the threads
/// under the phase discipline of the module doc.
pub(super) struct Region<'r, L: ContactLaw, I: Integrator, B: Broadphase> {
    solver: *mut MdSolver<L, I, B>,
    bodies: *mut BodySet,
    materials: &'r MaterialTable,
    narrowphase: &'r Narrowphase,
    gravity: DVec3,
    time: f64,
    dt: f64,
    threads: usize,
    barrier: PhaseBarrier,
    /// The next block of the pair pass that no thread has taken yet.
    next_block: AtomicUsize,
    plan: UnsafeCell<Plan<'r, L::History>>,
}

// SAFETY: the threads of the region reach the solver and the bodies only in the pattern of
// the module doc: in a serial phase thread 0 alone, while the others wait at a barrier; in a
// parallel phase every thread reads the shared inputs and writes disjoint ranges (its own
// bodies, blocks, sinks and summaries). The plan is written by thread 0 only, before the
// region or in a serial phase. The integrator is reached only through its range forms,
// which are `Sync`; the law is `Sync`.
unsafe impl<L: ContactLaw, I: Integrator, B: Broadphase> Sync for Region<'_, L, I, B> {}

/// What the region leaves for the end of the step.
pub(super) struct RegionOutcome {
    /// Whether the pair pass failed (some summary holds the failure); the halves after it
    /// did not run.
    pub failed: bool,
    /// The energy local damping dissipated.
    pub body_damping: f64,
}

impl<'r, L: ContactLaw, I: Integrator + 'r, B: Broadphase> Region<'r, L, I, B> {
    /// A region over `solver` and `bodies` for `threads` threads; the integrator must have
    /// range forms and be prepared ([`Integrator::prepare_ranges`]).
    pub fn new(
        solver: &'r mut MdSolver<L, I, B>,
        bodies: &'r mut BodySet,
        materials: &'r MaterialTable,
        narrowphase: &'r Narrowphase,
        (gravity, time, dt): (DVec3, f64, f64),
        threads: usize,
    ) -> Self {
        let plan = Plan {
            ranges: None,
            columns: WrittenColumns::default(),
            offsets: None,
            histories: Column::default(),
            stored: Column::default(),
            points: Column::default(),
            summaries: Column::default(),
            sinks: None,
            windows: false,
            body_damping: 0.0,
        };
        let region = Region {
            solver,
            bodies,
            materials,
            narrowphase,
            gravity,
            time,
            dt,
            threads: threads.max(1),
            barrier: PhaseBarrier::new(threads.max(1)),
            next_block: AtomicUsize::new(0),
            plan: UnsafeCell::new(plan),
        };
        // SAFETY: no thread runs yet.
        unsafe { region.plan_columns() };
        region
    }

    /// Runs the region's part of thread `t` (all of them for `t` = 0..threads, each on its
    /// own thread, or `t` = 0 alone for one thread). Every thread passes the same barriers.
    pub fn run(&self, t: usize) -> RegionOutcome {
        // SAFETY (all blocks below): the phase discipline of the module doc; each block's
        // references end before the next barrier.
        unsafe { self.predict(t) };
        self.barrier.wait();
        if t == 0 {
            unsafe { self.refresh() };
        }
        self.barrier.wait();
        unsafe { self.pair_blocks() };
        self.barrier.wait();
        let failed = unsafe { self.failed() };
        if failed {
            return RegionOutcome { failed, body_damping: 0.0 };
        }
        let damping = unsafe { (*self.solver).config.local_damping.is_some() };
        unsafe { self.merge(t) };
        if damping {
            self.barrier.wait();
            if t == 0 {
                unsafe { self.damp() };
            }
            self.barrier.wait();
        }
        unsafe { self.correct(t) };
        RegionOutcome { failed, body_damping: unsafe { (*self.plan.get()).body_damping } }
    }

    /// Thread 0, others waiting: the written columns and the integrator's range forms,
    /// taken afresh.
    unsafe fn plan_columns(&self) {
        // SAFETY: the caller's contract (no other thread touches the solver or the bodies).
        let (solver, bodies, plan) = unsafe { (&mut *self.solver, &mut *self.bodies, &mut *self.plan.get()) };
        let memory = solver.integrator.range_memory();
        plan.columns = WrittenColumns {
            position: Column::of(&mut bodies.position),
            orientation: Column::of(&mut bodies.orientation),
            velocity: Column::of(&mut bodies.velocity),
            angular_velocity: Column::of(&mut bodies.angular_velocity),
            force: Column::of(&mut bodies.force),
            torque: Column::of(&mut bodies.torque),
            pairs: Column::of(memory.pairs),
            linear: Column::of(memory.linear),
            angular: Column::of(memory.angular),
        };
        plan.ranges = solver.integrator.ranges().map(|r| r as *const (dyn IntegratorRanges + 'r));
    }

    /// The chunk of the bodies `r`.
    ///
    /// # Safety
    /// No other live reference covers the written columns of the bodies `r`, and no thread
    /// writes the read columns.
    unsafe fn chunk(&self, r: Range<usize>) -> BodyChunk<'_> {
        // SAFETY: the caller's contract; the read columns are reached field by field.
        unsafe {
            let c = (*self.plan.get()).columns;
            let b = self.bodies;
            BodyChunk {
                start: r.start,
                position: c.position.range(r.clone()),
                orientation: c.orientation.range(r.clone()),
                velocity: c.velocity.range(r.clone()),
                angular_velocity: c.angular_velocity.range(r.clone()),
                inv_mass: &(&(*b).inv_mass)[r.clone()],
                inertia: &(&(*b).inertia)[r.clone()],
                inv_inertia: &(&(*b).inv_inertia)[r.clone()],
                locked: &(&(*b).locked)[r.clone()],
                external_force: &(&(*b).external_force)[r.clone()],
                external_torque: &(&(*b).external_torque)[r.clone()],
                force: c.force.part(r.clone()),
                torque: c.torque.part(r.clone()),
                memory: RangeMemory {
                    pairs: c.pairs.range(r.clone()),
                    linear: c.linear.range(r.clone()),
                    angular: c.angular.range(r),
                },
            }
        }
    }

    /// This thread's share of the bodies.
    fn bodies_of(&self, t: usize) -> Range<usize> {
        // SAFETY: the columns' lengths are set before the region and do not change.
        let n = unsafe { (*self.plan.get()).columns.position.len };
        share(n, self.threads, t)
    }

    /// Phase 1: predict this thread's bodies.
    unsafe fn predict(&self, t: usize) {
        // SAFETY: the caller's contract; the range is this thread's own.
        unsafe {
            let Some(ranges) = (*self.plan.get()).ranges else { return };
            (*ranges).predict_range(self.chunk(self.bodies_of(t)), self.gravity, self.time, self.dt);
        }
    }

    /// Phase 2, thread 0: what the other path does between the halves' loops, and the plan
    /// of the pair pass.
    unsafe fn refresh(&self) {
        // SAFETY: the caller's contract (thread 0, the others waiting).
        let (solver, bodies) = unsafe { (&mut *self.solver, &mut *self.bodies) };
        bodies.advance_kinematic(self.time, self.dt);
        // The other threads wait at the barrier: the parallel loops of the refresh stay on
        // this thread (which may not be one of the pool's).
        granula_core::parallel::sequential(|| solver.refresh_pairs(bodies, self.materials, self.narrowphase));
        solver.measure_rotations(bodies);
        if solver.accumulation.order() != solver.config.load_order {
            // Changed by `set_load_order` since the list was laid out.
            solver.lay_out_blocks(bodies);
        }
        solver.contacts.clear();
        // SAFETY: as above.
        let plan = unsafe { &mut *self.plan.get() };
        let n = bodies.len();
        plan.offsets =
            solver.integrator.force_velocity_offsets().filter(|(dv, dw)| dv.len() == n && dw.len() == n).map(
                |(dv, dw)| {
                    (Column { ptr: dv.as_ptr().cast_mut(), len: n }, Column { ptr: dw.as_ptr().cast_mut(), len: n })
                },
            );
        plan.histories = Column::of(solver.store.split_mut().1);
        plan.stored = Column::of(solver.stored_energy.split_mut().1);
        plan.points = Column::of(&mut solver.points.lists);
        plan.summaries = Column::of(&mut solver.summaries);
        plan.windows = solver.accumulation.uses_windows();
        plan.sinks = Some(solver.accumulation.block_sinks());
        self.next_block.store(0, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { self.plan_columns() };
    }

    /// Phase 3: the pair pass over the blocks this thread takes.
    unsafe fn pair_blocks(&self) {
        // SAFETY: the caller's contract: nobody writes the bodies, the list or the law in
        // this phase; the blocks (their histories, stored energies, points, sinks and
        // summaries) are this thread's own.
        unsafe {
            let plan = &*self.plan.get();
            let s = self.solver;
            let Some(sinks) = plan.sinks else { return };
            let candidates: &[_] = &(*s).pairs.candidates;
            let shifts: &[DVec3] = &(*s).pairs.shifts;
            let input = PassInput {
                law: &(*s).law,
                bodies: &*self.bodies,
                narrowphase: self.narrowphase,
                materials: self.materials.pairs(),
                pair_parameters: &(*s).pair_parameters,
                candidates,
                shifts,
                memory: &(*s).pairs.memory,
                dt: self.dt,
                rotation: &(*s).rotation,
                velocity_offsets: plan.offsets.map(|(dv, dw)| (dv.all(), dw.all())),
                commit: true,
                foreign: &(*s).foreign,
            };
            let block = sinks.block();
            let count = candidates.len();
            let periodic = !shifts.is_empty();
            // Blocks are taken one at a time by whichever thread is free (their costs differ:
            // contacts, walls): a block writes only its own histories, sink and summary, so
            // which thread runs it changes no bit.
            let blocks = count.div_ceil(block);
            loop {
                let k = self.next_block.fetch_add(1, Ordering::Relaxed);
                if k >= blocks {
                    break;
                }
                let r = k * block..((k + 1) * block).min(count);
                let state =
                    (plan.histories.range(r.clone()), plan.stored.range(r.clone()), plan.points.range(r.clone()));
                let base = r.start;
                let summary = match (plan.windows, periodic) {
                    (true, false) => block_pass::<L, _, false>(&input, base, state, &mut sinks.window(k)),
                    (true, true) => block_pass::<L, _, true>(&input, base, state, &mut sinks.window(k)),
                    (false, false) => block_pass::<L, _, false>(&input, base, state, &mut sinks.buffer(k)),
                    (false, true) => block_pass::<L, _, true>(&input, base, state, &mut sinks.buffer(k)),
                };
                plan.summaries.range(k..k + 1)[0] = summary;
            }
        }
    }

    /// After phase 3, on every thread: whether some block failed (the same answer on all).
    unsafe fn failed(&self) -> bool {
        // SAFETY: nobody writes the summaries after phase 3.
        unsafe { (*self.plan.get()).summaries.all().iter().any(|s| s.failed.is_some()) }
    }

    /// Phase 4: the loads of this thread's bodies.
    unsafe fn merge(&self, t: usize) {
        // SAFETY: the caller's contract: the accumulation and the list are only read, the
        // load columns of these bodies are this thread's own.
        unsafe {
            let plan = &*self.plan.get();
            let r = self.bodies_of(t);
            let (force, torque) = (plan.columns.force.range(r.clone()), plan.columns.torque.range(r.clone()));
            let accumulation = &(*self.solver).accumulation;
            if plan.windows {
                accumulation.merge_range(r.start, force, torque);
            } else {
                accumulation.gather_range(&(*self.solver).pairs, r.start, force, torque);
            }
        }
    }

    /// Thread 0, the others waiting: local damping of every body.
    unsafe fn damp(&self) {
        // SAFETY: the caller's contract.
        unsafe {
            let (solver, bodies) = (&*self.solver, &mut *self.bodies);
            if let Some(d) = &solver.config.local_damping {
                (*self.plan.get()).body_damping =
                    apply_local_damping(bodies, self.gravity, d, self.dt, &solver.foreign);
            }
        }
    }

    /// Phase 4, after the merge: correct this thread's bodies.
    unsafe fn correct(&self, t: usize) {
        // SAFETY: the caller's contract; the range is this thread's own.
        unsafe {
            let Some(ranges) = (*self.plan.get()).ranges else { return };
            (*ranges).correct_range(self.chunk(self.bodies_of(t)), self.gravity, self.time, self.dt);
        }
    }
}
