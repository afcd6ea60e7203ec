//! One step of the MD solver: the skin test and the candidate pairs, the force pass, the
//! integrator's halves around it, and the step's report.

use super::MdSolver;
use crate::accumulation::Accumulation;
use crate::body_loads::{apply_local_damping, external_load_work, kinematic_power};
use crate::config::LoadOrder;
use crate::error::MdError;
use crate::forces::{pair_pass, BlockSummary, PassInput};
use crate::pairs::PairList;
use granula_broadphase::VerletPairs;
use granula_core::parallel::{self};
use granula_core::{
    rotation_vector, Aabb, AccelerationField, BodySet, BodySums, Broadphase, ContactLaw, DVec3, Dissipation,
    Integrator, MaterialTable, MotionKind, Narrowphase, PeriodicDomain, StepContext, StepReport, StepSums, StepWarning,
    SumRequest,
};
use rayon::prelude::*;
use std::ops::Range;

/// The bodies [`any_body`] tests in one task: a few nanoseconds each, so that a task takes
/// some ten microseconds.
const ANY_BODY_TASK: usize = 4096;

/// Whether `test(i)` holds for some body `i` of `0..n`. Run at every step over all the
/// bodies, so in parallel tasks of [`ANY_BODY_TASK`] bodies, each testing all of its bodies
/// without a branch per body (a task stops the others once it has found one).
fn any_body(n: usize, test: impl Fn(usize) -> bool + Sync) -> bool {
    let tasks = n.div_ceil(ANY_BODY_TASK);
    (0..tasks).into_par_iter().with_min_len(parallel::min_len(1)).any(|t| {
        let bodies = t * ANY_BODY_TASK..((t + 1) * ANY_BODY_TASK).min(n);
        bodies.fold(false, |found, i| found | test(i))
    })
}

/// Whether some sphere has moved by more than half the skin since `reference` (the
/// positions at the last rebuild), or the bodies are not those of `reference`.
fn sphere_moved(bodies: &BodySet, reference: &[DVec3], skin: f64) -> bool {
    let half_skin2 = 0.25 * skin * skin;
    reference.len() != bodies.len()
        || any_body(bodies.len(), |i| {
            bodies.radius[i].is_finite() & ((bodies.position[i] - reference[i]).length_squared() > half_skin2)
        })
}

/// Whether some body carries an external force or torque.
fn some_external_load(b: &BodySet) -> bool {
    any_body(b.len(), |i| (b.external_force[i] != DVec3::ZERO) | (b.external_torque[i] != DVec3::ZERO))
}

/// The smallest task, in bodies, of the skin test of [`MdSolver::refresh_pairs`] when it
/// runs in parallel: testing the box of a polyhedron takes some 40 ns, so 256 of them take
/// ten microseconds, several times what handing a task to another thread costs. Tasks are
/// whole chunks ([`SKIN_TEST_CHUNK`]): a world of up to 448 bodies (seven chunks, too few
/// for two tasks of four) is tested in one task on the calling thread.
const SKIN_TEST_TASK: usize = 256;

/// The bodies the skin test takes at a time (its tasks are made of these), few enough for
/// the test to stop soon after a body has left its reference box.
const SKIN_TEST_CHUNK: usize = 64;

/// Whether `test` holds for every chunk of [`SKIN_TEST_CHUNK`] indices of `0..len`, the
/// chunks tested in parallel tasks of at least [`SKIN_TEST_TASK`] indices (a boolean, the
/// same on any number of threads).
fn all_chunks(len: usize, test: &(dyn Fn(Range<usize>) -> bool + Sync)) -> bool {
    let chunk = |c: usize| c * SKIN_TEST_CHUNK..((c + 1) * SKIN_TEST_CHUNK).min(len);
    let chunks = len.div_ceil(SKIN_TEST_CHUNK);
    let task = parallel::min_len(SKIN_TEST_TASK / SKIN_TEST_CHUNK);
    (0..chunks).into_par_iter().with_min_len(task).all(|c| test(chunk(c)))
}

/// The skin layer's update of [`MdSolver::refresh_pairs`], for the boxes of the bodies
/// grown by `grow` (half the largest law range); `true` if it rebuilt its list.
/// `other_bodies` is scratch space.
fn update_skin<B: Broadphase>(
    verlet: &mut VerletPairs<B>,
    bodies: &BodySet,
    narrowphase: &Narrowphase,
    other_bodies: &mut Vec<u32>,
    grow: f64,
    passive: &[bool],
) -> bool {
    // The spheres have not moved by half the skin, so their boxes are inside their
    // reference boxes (each coordinate of the centre has moved by at most half the
    // skin): the skin layer tests only the other bodies' boxes (and every skip flag).
    other_bodies.clear();
    other_bodies.extend(bodies.radius.iter().enumerate().filter(|(_, r)| !r.is_finite()).map(|(i, _)| i as u32));
    // The skin test of every body in parallel (`all_chunks`); the rebuild, when due,
    // runs here.
    verlet.update_with_checked_by(
        bodies.len(),
        other_bodies,
        |i| {
            let r = bodies.radius[i];
            let b = if r.is_finite() {
                Aabb::around(bodies.position[i], DVec3::splat(r))
            } else {
                narrowphase.aabb(bodies, i)
            };
            // Grown by half the largest law range when the law has one (the skin
            // layer's own `update` otherwise: the same boxes).
            if grow > 0.0 {
                b.inflated(grow)
            } else {
                b
            }
        },
        |i| bodies.motion[i] != MotionKind::Dynamic || passive.get(i).copied().unwrap_or(false),
        all_chunks,
    )
}

/// The fewest candidate pairs for which [`MdSolver::refresh_pairs`] realigns the contact
/// stores beside the block layout after a rebuild, on two threads: below it the halves are
/// too short to pay for handing one to another thread. (In the polyhedra bench at N = 1000
/// they take about 2.4 and 1.8 million instructions per rebuild.)
const REBUILD_JOIN_PAIRS: usize = 1024;

impl<L: ContactLaw, I: Integrator, B: Broadphase> MdSolver<L, I, B> {
    /// Updates the skin layer and, when it rebuilt its list, the candidate pairs, their
    /// incidence and the contact store; `true` if it did. First lets the narrowphase's
    /// generators prepare the bodies in their new poses ([`Narrowphase::prepare`]), whose
    /// world boxes the skin layer then reads ([`Narrowphase::aabb`]).
    fn refresh_pairs(&mut self, bodies: &BodySet, materials: &MaterialTable, narrowphase: &Narrowphase) -> bool {
        narrowphase.prepare(bodies);
        // The Euclidean criterion of Verlet lists for spheres, on top of the skin layer's box
        // faces: a rebuild once any sphere has moved by half the skin since the last one.
        // It lets the list drop sphere pairs farther apart than margin + skin (instead of
        // margin + √3 skin under the box criterion alone).
        if sphere_moved(bodies, &self.reference_position, self.config.skin) {
            self.verlet.invalidate();
        }
        let grow = 0.5 * self.max_range;
        let rebuilt = update_skin(&mut self.verlet, bodies, narrowphase, &mut self.other_bodies, grow, &self.passive);
        if !rebuilt {
            return false;
        }
        self.reference_position.clone_from(&bodies.position);
        let reach = self.max_range + self.config.skin;
        let law = &self.law;
        let margin = |i: usize, j: usize| law.range(materials.pair(bodies.material[i], bodies.material[j]));
        self.pairs.rebuild(bodies, materials, narrowphase, self.verlet.pairs(), reach, &self.periodic, &margin);
        // Two independent halves, each writing its own parts of the solver from the new
        // list, side by side when the step may use two threads: the same state either way.
        let pairs = &self.pairs;
        let (points, store, stored_energy) = (&mut self.points, &mut self.store, &mut self.stored_energy);
        let (accumulation, summaries) = (&mut self.accumulation, &mut self.summaries);
        let (foreign, order) = (&self.foreign, self.config.load_order);
        let mut realign = || {
            // The points first: they are realigned from the old keys the store still holds.
            points.rebuild(store.keys(), pairs.keys(bodies));
            store.rebuild_as(pairs.key_carrier());
        };
        let mut renew = || {
            // Pairs that left the list were out of range for a while: nothing stored remains.
            stored_energy.rebuild_as(pairs.key_carrier());
            lay_out(accumulation, summaries, pairs, bodies, foreign, order);
        };
        if parallel::is_sequential() || self.pairs.candidates.len() < REBUILD_JOIN_PAIRS {
            realign();
            renew();
        } else {
            parallel::join(&mut realign, &mut renew);
        }
        true
    }

    /// The block layout of the force pass for the current candidate list (a function of the
    /// list and the bodies' motion kinds only).
    pub(crate) fn lay_out_blocks(&mut self, bodies: &BodySet) {
        let order = self.config.load_order;
        lay_out(&mut self.accumulation, &mut self.summaries, &self.pairs, bodies, &self.foreign, order);
    }

    /// Contact loads of the current state into `bodies.force` / `bodies.torque`; returns the
    /// reduced summary. `commit = false` leaves histories untouched.
    fn evaluate(
        &mut self,
        bodies: &mut BodySet,
        materials: &MaterialTable,
        narrowphase: &Narrowphase,
        dt: f64,
        commit: bool,
    ) -> Result<BlockSummary, MdError> {
        if self.accumulation.order() != self.config.load_order {
            // Changed by `set_load_order` since the list was laid out.
            self.lay_out_blocks(bodies);
        }
        // The load columns leave the body set for the pass (a move, no copy), which reads the
        // rest of it.
        let mut force = std::mem::take(&mut bodies.force);
        let mut torque = std::mem::take(&mut bodies.torque);
        let input = PassInput {
            law: &self.law,
            bodies,
            narrowphase,
            materials: materials.pairs(),
            pair_parameters: &self.pair_parameters,
            candidates: &self.pairs.candidates,
            shifts: &self.pairs.shifts,
            velocity_shifts: &self.pairs.velocity_shifts,
            memory: &self.pairs.memory,
            dt,
            rotation: &self.rotation,
            // Only within a step (the priming pass sees the state's own velocities).
            velocity_offsets: self
                .integrator
                .force_velocity_offsets()
                .filter(|offsets| commit && offsets.len() == bodies.len()),
            commit,
            foreign: &self.foreign,
        };
        let (keys, histories) = self.store.split_mut();
        let (_, stored) = self.stored_energy.split_mut();
        let (accumulation, summaries) = (&mut self.accumulation, &mut self.summaries);
        let publish = commit && self.publish;
        if publish {
            self.block_contacts.resize_with(summaries.len(), Vec::new);
        }
        let record = publish.then(|| (keys, &mut self.block_contacts[..summaries.len()]));
        let points = &mut self.points.lists;
        pair_pass(
            &input,
            &self.pairs,
            accumulation,
            histories,
            stored,
            points,
            summaries,
            record,
            &mut force,
            &mut torque,
        );
        if commit {
            self.contacts.clear();
            self.published = publish;
        }
        if publish {
            for block in &self.block_contacts[..self.summaries.len()] {
                self.contacts.extend_from_slice(block);
            }
        }
        bodies.force = force;
        bodies.torque = torque;
        let mut total = BlockSummary::default();
        for s in &self.summaries {
            total.merge(s);
        }
        if let Some(e) = total.failed {
            // The first failure in pair order, with both bodies and the reason.
            return Err(granula_core::CoreError::from(e).into());
        }
        Ok(total)
    }

    /// Step 1 of the step, when the bodies or the materials changed since the last step (or
    /// on the first one): new pair list, margin from the current materials, and forces at
    /// the current state, without touching contact histories.
    fn prime(&mut self, ctx: &mut StepContext<'_>) -> Result<(), MdError> {
        self.reorder_if_due(ctx.bodies);
        let version = ctx.bodies.structure_version();
        if self.primed_version == Some(version) && self.primed_materials == ctx.materials.len() {
            return Ok(());
        }
        // Bodies were inserted or removed, a material was added (the candidates hold
        // material-pair positions), or this is the first step.
        self.sync_pair_parameters(ctx.materials, true)?;
        self.max_range = self.law_margin(ctx.materials);
        self.check_periods(ctx.bodies)?;
        self.verlet.invalidate();
        ctx.bodies.set_kinematic_velocities(ctx.time);
        self.follow_shear_offset(ctx.time, None);
        self.refresh_pairs(ctx.bodies, ctx.materials, ctx.narrowphase);
        self.pairs.follow_shear(ctx.bodies, &self.periodic, ctx.time);
        self.prev_orientation.clone_from(&ctx.bodies.orientation);
        self.rotation.clear();
        self.rotation.resize(ctx.bodies.len(), DVec3::ZERO);
        self.evaluate(ctx.bodies, ctx.materials, ctx.narrowphase, ctx.dt, false)?;
        if let Some(d) = &self.config.local_damping {
            apply_local_damping(ctx.bodies, ctx.gravity, d, ctx.dt, &self.foreign);
        }
        self.kinematic_power = kinematic_power(ctx.bodies);
        self.primed_version = Some(version);
        self.primed_materials = ctx.materials.len();
        self.primed_handles.clone_from(&ctx.bodies.handle);
        Ok(())
    }

    /// Follows the world's periodic axes: a change of them makes the next step start afresh
    /// (new candidate list with its image shifts).
    pub(crate) fn follow_periodic(&mut self, domain: PeriodicDomain) {
        if domain != self.periodic {
            self.periodic = domain;
            self.verlet.set_periodic(domain);
            self.primed_version = None;
        }
    }

    /// Lees-Edwards: hands the broadphase the offset at `time` (the time of the positions the
    /// next rebuild reads) with the slack δ = skin/2 by which it grows the sheared images
    /// along the flow axis, and forces a rebuild when the unreduced offset γ̇ L_g t has
    /// crossed a multiple of δ/2 since `previous` (the last evaluation's time).
    ///
    /// Why this way: the image of a pair across the sliding faces moves with the offset
    /// whether the bodies move or not, so the skin criterion alone cannot keep the list
    /// complete. Growing only the sheared images by δ keeps every other pair's list as
    /// it was, and rebuilding on a crossing of δ/2 bounds the offset's motion since the
    /// last rebuild by δ even when round-off puts the two evaluations on either side of a
    /// boundary: then the pair is found as long as the bodies stay within their skin boxes
    /// (the usual criterion) and the offset within δ (this one). The decision reads the
    /// two times only, not a stored offset, so a restored run rebuilds at the same steps.
    /// A rebuild every δ/(2 γ̇ L_g) of time at least; with a zero skin, at every step.
    fn follow_shear_offset(&mut self, time: f64, previous: Option<f64>) {
        let Some(shear) = self.periodic.shear() else { return };
        let slack = 0.5 * self.config.skin;
        self.verlet.set_shear_offset(self.periodic.shear_offset(time), slack);
        let Some(previous) = previous else { return };
        let speed = self.periodic.shear_velocity().length();
        if shear.rate == 0.0 {
            return;
        }
        let due = if slack > 0.0 {
            let bucket = |t: f64| (speed * t / (0.5 * slack)).floor();
            bucket(time) != bucket(previous)
        } else {
            true
        };
        if due {
            self.verlet.invalidate();
        }
    }

    /// Checks that every bounded body, grown by the law's largest range and the skin, is at
    /// most half a period long along each periodic axis: then a pair's boxes can overlap
    /// through one image only, and that image stays the nearest one between two rebuilds
    /// ([`MdError::PeriodTooShort`]). Checked when the solver primes (bodies or materials
    /// changed); a body that turns changes its box by less than the skin between rebuilds.
    fn check_periods(&self, bodies: &BodySet) -> Result<(), MdError> {
        let grow = self.max_range + self.config.skin;
        let shear = self.periodic.shear();
        for (axis, p) in self.periodic.periodic_axes() {
            let k = axis.index();
            // The sheared images are grown by the slack (half the skin) on both sides along
            // the flow axis.
            let slack = if shear.is_some_and(|s| s.flow == axis) { self.config.skin } else { 0.0 };
            let sheared = shear.is_some_and(|s| s.flow == axis || s.gradient == axis);
            for i in 0..bodies.len() {
                let b = bodies.aabb(i);
                if sheared && !(b.max[k] - b.min[k]).is_finite() {
                    return Err(MdError::ShearUnboundedBody { body: bodies.handle[i], axis });
                }
                let extent = b.max[k] - b.min[k] + grow + slack;
                if extent.is_finite() && 2.0 * extent > p.length() {
                    return Err(MdError::PeriodTooShort { axis, period: p.length(), body: bodies.handle[i], extent });
                }
            }
        }
        Ok(())
    }

    /// Keeps the positions and angular velocities at the start of the step if some body
    /// carries an external load (for its work); returns whether one does.
    fn remember_loaded_start(&mut self, b: &BodySet) -> bool {
        let loaded = some_external_load(b);
        self.prev_position.clear();
        self.prev_angular_velocity.clear();
        if loaded {
            self.prev_position.extend_from_slice(&b.position);
            self.prev_angular_velocity.extend_from_slice(&b.angular_velocity);
        }
        loaded
    }

    /// Rotation of each body since the previous evaluation, θᵖ(t+Δt) − θᵖ(t) (002 eq. 15),
    /// if the law reads it (else zero, and the previous orientations stay unused).
    fn measure_rotations(&mut self, bodies: &BodySet) {
        if self.law.uses_rotations() {
            let q = &bodies.orientation;
            for ((r, q), p) in self.rotation.iter_mut().zip(q).zip(&mut self.prev_orientation) {
                *r = rotation_vector(*q * p.conjugate());
                *p = *q;
            }
        }
    }

    /// Runs one half step of the integrator over the step of `ctx`, with the contact loads
    /// of the last evaluation (`bodies.force` / `bodies.torque`, lent to the field for the
    /// call: moved out and back, no copy) and gravity as its explicit inputs; adds up the
    /// sums `half` asks for.
    fn integrate(&mut self, ctx: &mut StepContext<'_>, half: Half<'_>) {
        let force = std::mem::take(&mut ctx.bodies.force);
        let torque = std::mem::take(&mut ctx.bodies.torque);
        let field = AccelerationField { gravity: ctx.gravity, force: &force, torque: &torque };
        let (bodies, t, dt) = (&mut *ctx.bodies, ctx.time, ctx.dt);
        match half {
            Half::Predict(start) => self.integrator.predict_summing(bodies, &field, t, dt, start),
            Half::Correct(None) => self.integrator.correct(bodies, &field, t, dt),
            Half::Correct(Some((energies, end))) => {
                self.integrator.correct_summing(bodies, &field, t, dt, energies, end);
            }
        }
        ctx.bodies.force = force;
        ctx.bodies.torque = torque;
    }

    /// One step; with `request`, also the sums over the bodies the world's checks read
    /// ([`Solver::step_with_sums`](granula_core::Solver::step_with_sums)), added up by the
    /// integrator's half steps.
    pub(super) fn step_inner(
        &mut self,
        mut ctx: StepContext<'_>,
        request: Option<SumRequest>,
    ) -> Result<(StepReport, Option<StepSums>), MdError> {
        let (t, dt) = (ctx.time, ctx.dt);
        self.follow_periodic(ctx.periodic);
        self.prime(&mut ctx)?;
        self.sync_pair_parameters(ctx.materials, false)?;
        let loaded = self.remember_loaded_start(ctx.bodies);
        let (mut start, mut end) = (BodySums::EMPTY, BodySums::EMPTY);

        // Predict with the loads at the state at t (from the previous step, or the priming),
        // summing the state at t when asked: the bodies are as the world left them.
        self.integrate(&mut ctx, Half::Predict(request.filter(|r| r.start).map(|_| &mut start)));
        ctx.bodies.advance_kinematic(t, dt);
        // The positions are now those of t + Δt.
        self.follow_shear_offset(t + dt, Some(t));
        self.refresh_pairs(ctx.bodies, ctx.materials, ctx.narrowphase);
        self.pairs.follow_shear(ctx.bodies, &self.periodic, t + dt);
        self.measure_rotations(ctx.bodies);
        let summary = self.evaluate(ctx.bodies, ctx.materials, ctx.narrowphase, dt, true)?;
        let mut dissipated = summary.dissipated;
        if let Some(d) = &self.config.local_damping {
            dissipated.body_damping += apply_local_damping(ctx.bodies, ctx.gravity, d, dt, &self.foreign);
        }
        let power = kinematic_power(ctx.bodies);
        let kinematic_work = 0.5 * (self.kinematic_power + power) * dt;
        self.kinematic_power = power;
        // Correct with the loads just evaluated at the predicted state.
        self.integrate(&mut ctx, Half::Correct(request.map(|r| (r.energies, &mut end))));
        let mut external_work = kinematic_work;
        if loaded {
            external_work +=
                external_load_work(ctx.bodies, &self.prev_position, &self.prev_angular_velocity, dt, &self.foreign);
        }
        let report = self.report(ctx.bodies, &summary, dissipated, external_work, dt);
        let sums = request.map(|r| StepSums { start: r.start.then_some(start), end });
        Ok((report, sums))
    }

    /// The report of a step from the summary of its force pass and the body-level terms.
    fn report(
        &self,
        bodies: &BodySet,
        summary: &BlockSummary,
        dissipated: Dissipation,
        external_work: f64,
        dt: f64,
    ) -> StepReport {
        let mut warnings = Vec::new();
        if let Some(h) = self.config.max_time_step {
            if dt > h {
                warnings.push(StepWarning::TimeStepTooLarge { dt, recommended: h });
            }
        }
        let max_overlap_pair = (summary.max_pair != u32::MAX).then(|| {
            let c = &self.pairs.candidates[summary.max_pair as usize];
            (bodies.handle[c.body1 as usize], bodies.handle[c.body2 as usize])
        });
        StepReport {
            contacts: summary.contacts,
            pairs: summary.pairs,
            status: summary.status,
            max_overlap: summary.max_overlap,
            max_overlap_ratio: summary.max_ratio,
            max_overlap_pair,
            broadphase_rebuilds: self.verlet.rebuilds(),
            iterations: 0,
            residual: 0.0,
            support_force: DVec3::ZERO,
            applied_load: DVec3::ZERO,
            dissipated,
            stored_elastic: summary.stored,
            external_work,
            warnings,
        }
    }
}

/// [`MdSolver::lay_out_blocks`] on the solver's parts: the accumulation's block layout for
/// `pairs`, and one cleared summary per block.
fn lay_out(
    accumulation: &mut Accumulation,
    summaries: &mut Vec<BlockSummary>,
    pairs: &PairList,
    bodies: &BodySet,
    foreign: &[bool],
    order: LoadOrder,
) {
    let dynamic = |i: usize| bodies.motion[i] == MotionKind::Dynamic;
    accumulation.rebuild(pairs, bodies.len(), dynamic, order);
    accumulation.leave_out_foreign_partners(pairs, dynamic, foreign);
    summaries.clear();
    summaries.resize(accumulation.blocks(), BlockSummary::default());
}

/// Which half of the integrator's step [`MdSolver::integrate`] runs, and the sums it adds up.
#[derive(Debug)]
enum Half<'a> {
    /// [`Integrator::predict_summing`], with the start sums when given.
    Predict(Option<&'a mut BodySums>),
    /// [`Integrator::correct`], or [`Integrator::correct_summing`] with (energies, the end
    /// sums) when given.
    Correct(Option<(bool, &'a mut BodySums)>),
}
