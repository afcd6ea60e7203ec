//! The smooth (MD) solver.

use crate::body_loads::{apply_local_damping, external_load_work, kinematic_power};
use crate::config::MdConfig;
use crate::error::SmoothError;
use crate::forces::{gather, geometry, pair_pass, ChunkSummary, PairLoad, PassInput, PAIR_CHUNK};
use crate::pairs::PairList;
use crate::skin::SkinTracker;
use granula_core::narrowphase::collide;
use granula_core::{
    Aabb, AccelerationField, Broadphase, ContactLaw, ContactStore, DVec3, Integrator, Solver, StepReport, StepWarning,
    World,
};
use std::sync::Arc;

/// The smooth (MD) solver, generic over contact law, integrator and broadphase.
///
/// One step from t to t + Δt:
/// 1. (first step, or after an insertion or removal) contact forces at the initial state,
///    without touching contact histories, so the integrator can start from them;
/// 2. predict ([`Integrator::predict`]), then kinematic bodies advance to t + Δt;
/// 3. candidate pairs: rebuilt by the broadphase on boxes inflated by (skin + largest law
///    range)/2 only when some body moved more than half the skin since the last rebuild;
///    the contact store ([`ContactStore`]) is then realigned with the new sorted list by
///    [`ContactKey`](granula_core::ContactKey), so that between rebuilds a pair's history is
///    found by its index, without lookup;
/// 4. narrowphase (inlined sphere-sphere path, the core's `collide` otherwise, margin = the
///    law's range) and the law with its history, for all candidates in parallel into a
///    per-pair buffer;
/// 5. per-body gather of forces and torques over a CSR incidence list in fixed order
///    (bit-identical for any thread count), plus local damping if enabled;
/// 6. correct ([`Integrator::correct`]).
///
/// The report carries contacts and their regimes, the largest overlap, broadphase rebuilds,
/// the energy dissipated per mechanism, the elastic energy stored, and the work of external
/// loads and kinematic bodies, so that the world's ledger balances:
/// kinetic + potential + stored + dissipated = initial + external work.
pub struct MdSolver<L: ContactLaw, I: Integrator, B: Broadphase> {
    /// The contact law.
    pub law: L,
    /// The integrator.
    pub integrator: I,
    /// The broadphase used at each rebuild of the candidate list.
    pub broadphase: B,
    config: MdConfig,
    pool: Option<Arc<rayon::ThreadPool>>,
    pairs: PairList,
    store: ContactStore<L::History>,
    stored_energy: ContactStore<f64>,
    skin: SkinTracker,
    boxes: Vec<Aabb>,
    skip: Vec<bool>,
    raw_pairs: Vec<(u32, u32)>,
    loads: Vec<PairLoad>,
    summaries: Vec<ChunkSummary>,
    prev_position: Vec<DVec3>,
    prev_angular_velocity: Vec<DVec3>,
    primed_version: Option<u64>,
    kinematic_power: f64,
    rebuilds: u64,
}

impl<L: ContactLaw, I: Integrator, B: Broadphase> MdSolver<L, I, B> {
    /// A solver; validates the configuration and builds the private thread pool if asked.
    pub fn new(law: L, integrator: I, broadphase: B, config: MdConfig) -> Result<Self, SmoothError> {
        config.validate()?;
        let pool = match config.threads {
            Some(n) => Some(Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| SmoothError::ThreadPool { threads: n, reason: e.to_string() })?,
            )),
            None => None,
        };
        Ok(MdSolver {
            law,
            integrator,
            broadphase,
            config,
            pool,
            pairs: PairList::default(),
            store: ContactStore::new(),
            stored_energy: ContactStore::new(),
            skin: SkinTracker::default(),
            boxes: Vec::new(),
            skip: Vec::new(),
            raw_pairs: Vec::new(),
            loads: Vec::new(),
            summaries: Vec::new(),
            prev_position: Vec::new(),
            prev_angular_velocity: Vec::new(),
            primed_version: None,
            kinematic_power: 0.0,
            rebuilds: 0,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &MdConfig {
        &self.config
    }

    /// Contact histories, aligned with the current candidate pairs (keys by body handles).
    pub fn histories(&self) -> &ContactStore<L::History> {
        &self.store
    }

    /// Number of candidate pairs of the current list.
    pub fn candidate_pairs(&self) -> usize {
        self.pairs.candidates.len()
    }

    /// Broadphase rebuilds since creation.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    /// Forces a rebuild and a fresh start of the force evaluation at the next step (after
    /// editing positions by hand, for instance). Contact histories are kept by key.
    pub fn invalidate(&mut self) {
        self.skin.invalidate();
        self.primed_version = None;
    }

    /// Rebuilds the candidate list if the skin criterion asks for it; `true` if it did.
    fn refresh_pairs(&mut self, world: &World) -> bool {
        let bodies = &world.bodies;
        if !self.skin.needs_rebuild(bodies, self.config.skin) {
            return false;
        }
        let mut max_range: f64 = 0.0;
        let materials = &world.materials;
        for a in 0..materials.len() {
            for b in 0..materials.len() {
                let id = |k: usize| granula_core::MaterialId(k as u16);
                max_range = max_range.max(self.law.range(materials.pair(id(a), id(b))));
            }
        }
        let inflate = 0.5 * (self.config.skin + max_range);
        self.boxes.clear();
        self.skip.clear();
        for i in 0..bodies.len() {
            self.boxes.push(bodies.aabb(i).inflated(inflate));
            self.skip.push(!bodies.radius[i].is_finite());
        }
        self.broadphase.find_pairs(&self.boxes, &self.skip, &mut self.raw_pairs);
        self.pairs.rebuild(bodies, &self.raw_pairs);
        self.store.rebuild(self.pairs.keys(bodies));
        // Pairs that left the list were out of range for a while: nothing stored remains.
        self.stored_energy.rebuild(self.pairs.keys(bodies));
        self.skin.record(bodies);
        self.rebuilds += 1;
        let n = self.pairs.candidates.len();
        self.loads.clear();
        self.loads.resize(n, PairLoad::default());
        self.summaries.clear();
        self.summaries.resize(n.div_ceil(PAIR_CHUNK).max(1), ChunkSummary::default());
        true
    }

    /// Contact loads of the current state into `bodies.force` / `bodies.torque`; returns the
    /// reduced summary. `commit = false` leaves histories untouched.
    fn evaluate(&mut self, world: &mut World, dt: f64, commit: bool) -> Result<ChunkSummary, SmoothError> {
        let input = PassInput {
            law: &self.law,
            bodies: &world.bodies,
            materials: &world.materials,
            candidates: &self.pairs.candidates,
            dt,
            commit,
        };
        let (_, histories) = self.store.split_mut();
        let (_, stored) = self.stored_energy.split_mut();
        pair_pass(&input, histories, stored, &mut self.loads, &mut self.summaries);
        let mut total = ChunkSummary::default();
        for s in &self.summaries {
            total.merge(s);
        }
        if total.failed != u32::MAX {
            let c = &self.pairs.candidates[total.failed as usize];
            let margin = self.law.range(
                world.materials.pair(world.bodies.material[c.body1 as usize], world.bodies.material[c.body2 as usize]),
            );
            if geometry(&world.bodies, c, margin).is_err() {
                // Re-run the dispatch for the message; it names both bodies.
                if let Err(e) = collide(&world.bodies, c.body1 as usize, c.body2 as usize, margin) {
                    return Err(e.into());
                }
            }
        }
        let bodies = &mut world.bodies;
        gather(&self.pairs, &self.loads, &mut bodies.force, &mut bodies.torque);
        Ok(total)
    }

    fn step_inner(&mut self, world: &mut World, dt: f64) -> Result<StepReport, SmoothError> {
        let t = world.time;
        let field = AccelerationField { gravity: world.gravity };
        let version = world.bodies.structure_version();
        if self.primed_version != Some(version) {
            world.bodies.set_kinematic_velocities(t);
            self.refresh_pairs(world);
            self.evaluate(world, dt, false)?;
            if self.config.local_damping > 0.0 {
                apply_local_damping(&mut world.bodies, world.gravity, self.config.local_damping, dt);
            }
            self.kinematic_power = kinematic_power(&world.bodies);
            self.primed_version = Some(version);
        }
        self.prev_position.clear();
        self.prev_position.extend_from_slice(&world.bodies.position);
        self.prev_angular_velocity.clear();
        self.prev_angular_velocity.extend_from_slice(&world.bodies.angular_velocity);

        self.integrator.predict(&mut world.bodies, &field, t, dt);
        world.bodies.advance_kinematic(t, dt);
        self.refresh_pairs(world);
        let summary = self.evaluate(world, dt, true)?;
        let mut dissipated = summary.dissipated;
        if self.config.local_damping > 0.0 {
            dissipated.body_damping +=
                apply_local_damping(&mut world.bodies, world.gravity, self.config.local_damping, dt);
        }
        let power = kinematic_power(&world.bodies);
        let kinematic_work = 0.5 * (self.kinematic_power + power) * dt;
        self.kinematic_power = power;
        self.integrator.correct(&mut world.bodies, &field, t, dt);
        let external_work =
            kinematic_work + external_load_work(&world.bodies, &self.prev_position, &self.prev_angular_velocity, dt);

        let mut warnings = Vec::new();
        if let Some(h) = self.config.max_time_step {
            if dt > h {
                warnings.push(StepWarning::TimeStepTooLarge { dt, recommended: h });
            }
        }
        let max_overlap_pair = (summary.max_pair != u32::MAX).then(|| {
            let c = &self.pairs.candidates[summary.max_pair as usize];
            (world.bodies.handle[c.body1 as usize], world.bodies.handle[c.body2 as usize])
        });
        Ok(StepReport {
            contacts: summary.contacts,
            status: summary.status,
            max_overlap: summary.max_overlap,
            max_overlap_ratio: summary.max_ratio,
            max_overlap_pair,
            broadphase_rebuilds: self.rebuilds,
            iterations: 0,
            residual: 0.0,
            dissipated,
            stored_elastic: summary.stored,
            external_work,
            warnings,
        })
    }
}

impl<L: ContactLaw, I: Integrator, B: Broadphase> Solver for MdSolver<L, I, B> {
    type Error = SmoothError;

    fn name(&self) -> &'static str {
        "md"
    }

    fn step(&mut self, world: &mut World, dt: f64) -> Result<StepReport, SmoothError> {
        match self.pool.clone() {
            Some(pool) => pool.install(|| self.step_inner(world, dt)),
            None => self.step_inner(world, dt),
        }
    }
}
