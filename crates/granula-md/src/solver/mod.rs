//! The smooth (MD) solver: its state, its settings and what it reports (here), one step
//! ([`step`]), the roles of bodies in a distributed run ([`roles`]).

mod roles;
mod step;

use crate::accumulation::Accumulation;
use crate::config::{LoadOrder, MdConfig};
use crate::error::MdError;
use crate::forces::BlockSummary;
use crate::pairs::{PairKind, PairList};
use crate::points::PointStore;
use granula_broadphase::VerletPairs;
use granula_core::parallel::{self, with_hot_workers};
use granula_core::{
    BodyHandle, Broadphase, ContactKey, ContactLaw, ContactRecord, ContactStore, DQuat, DVec3, Integrator,
    MaterialTable, PeriodicDomain, Solver, StepContext, StepReport, StepSums, SumRequest,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The smooth (MD) solver, generic over contact law, integrator and broadphase.
///
/// One step from t to t + Δt:
/// 1. (first step, or after an insertion or removal) contact forces at the initial state,
///    without touching contact histories, so the integrator can start from them;
/// 2. predict ([`Integrator::predict`]), then kinematic bodies advance to t + Δt;
/// 3. candidate pairs from the broadphase's skin layer ([`VerletPairs`] over the backend
///    `B`) on boxes grown by half the largest law range: rebuilt only when some box face
///    moved more than half the skin since the last rebuild;
///    the contact store ([`ContactStore`]) is then realigned with the new sorted list by
///    [`ContactKey`](granula_core::ContactKey), so that between rebuilds a pair's history is
///    found by its index, without lookup; a pair that is not two spheres has one
///    candidate with a list of contact points, each with its feature key and history,
///    carried over by pair key;
/// 4. narrowphase (inlined sphere-sphere path, the world's
///    [`Narrowphase`](granula_core::narrowphase::Narrowphase) otherwise, margin = the
///    law's range; called once per pair and step, all the pair's points at once, matched
///    to the pair's histories by feature: a new feature starts afresh, a feature not
///    returned any more is dropped) and the law with its history, for fixed blocks of
///    candidates in parallel;
///    the normal part of each contact's relative velocity is shifted by the integrator's
///    [`Integrator::force_velocity_offsets`], if any, to the force's time level;
/// 5. the pair loads summed per body in an order fixed by the pair list (per-block windows
///    of body indices merged in block order, or a CSR gather; bit-identical for any thread
///    count), or under [`LoadOrder::Partner`] in the partners' order whatever the list,
///    plus local damping if enabled;
/// 6. correct ([`Integrator::correct`]).
///
/// When asked ([`Solver::publish_contacts`]), step 4 also keeps a [`ContactRecord`] of
/// every contact the law was called for, at the configuration of that pass (under a
/// predictor-corrector, the predicted one), with the force and couple it applied and the
/// law's status: [`Solver::contacts`].
///
/// The report carries contacts and their statuses as the law decided them, the largest overlap, broadphase rebuilds,
/// the energy dissipated per mechanism, the elastic energy stored, and the work of external
/// loads and kinematic bodies, so that the world's ledger balances:
/// kinetic + potential + stored + dissipated = initial + external work.
///
/// ```
/// use granula_broadphase::LinkedCells;
/// use granula_core::prelude::*;
/// use granula_integrators::VelocityVerlet;
/// use granula_laws::hertz_mindlin;
/// use granula_md::{MdConfig, MdSolver};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut world = World::builder().build()?; // gravity (0, 0, -9.81)
/// world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build()?)?;
/// // A 1 cm glass bead dropped from 1 mm above the floor.
/// let ball = world.insert(SphereBuilder::new(0.01, DVec3::new(0.0, 0.0, 0.011)).build()?)?;
/// let config = MdConfig { skin: 1e-3, ..Default::default() };
/// let mut solver = MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config)?;
/// world.run_until(&mut solver, 0.1, 1e-5)?;
/// // It bounced (restitution 0.5: rebounds a quarter as high each time) and, after 0.1 s,
/// // rests on the floor with the static Hertz overlap m g = 4/3 E* √r δ^{3/2} (the floor
/// // counts as a sphere of infinite radius, so R* = r).
/// let i = world.bodies.index(ball)?;
/// let (m, r) = (world.bodies.mass[i], 0.01_f64);
/// let e_star = world.materials.pair(MaterialId(0), MaterialId(0)).effective_young;
/// let static_overlap = (3.0 * m * 9.81 / (4.0 * e_star * r.sqrt())).powf(2.0 / 3.0);
/// let overlap = r - world.bodies.position[i].z;
/// // 1 % of δ: what is left of the ringing after 0.1 s of damped contact.
/// assert!((overlap - static_overlap).abs() < 0.01 * static_overlap, "{overlap} vs {static_overlap}");
/// // The ledger balances: the energy lost from the fall went to dissipation (and a little
/// // stays stored in the contact).
/// assert!(world.ledger.dissipated.total() > 0.0);
/// # Ok(())
/// # }
/// ```
pub struct MdSolver<L: ContactLaw, I: Integrator, B: Broadphase> {
    /// The contact law.
    pub law: L,
    /// The integrator.
    pub integrator: I,
    config: MdConfig,
    pub(crate) verlet: VerletPairs<B>,
    pool: Option<Arc<rayon::ThreadPool>>,
    pub(crate) pairs: PairList,
    pub(crate) store: ContactStore<L::History>,
    /// The contact points of the pairs that are not two spheres, aligned with `store`.
    pub(crate) points: PointStore<L::History>,
    pub(crate) stored_energy: ContactStore<f64>,
    pub(crate) max_range: f64,
    accumulation: Accumulation,
    summaries: Vec<BlockSummary>,
    prev_position: Vec<DVec3>,
    prev_angular_velocity: Vec<DVec3>,
    /// Per body, the orientation at the previous force evaluation (002 eq. 15).
    pub(crate) prev_orientation: Vec<DQuat>,
    /// Positions at the last rebuild of the candidate list (the spheres' Verlet criterion).
    pub(crate) reference_position: Vec<DVec3>,
    /// Scratch of the skin check: the bodies that are not spheres.
    other_bodies: Vec<u32>,
    /// Handles of the bodies, in dense order, when the solver was last primed: the body set
    /// its candidate list and per-body columns refer to.
    pub(crate) primed_handles: Vec<BodyHandle>,
    /// Per body, the rotation vector log(q q_prev⁻¹) passed to the law.
    pub(crate) rotation: Vec<DVec3>,
    pub(crate) primed_version: Option<u64>,
    pub(crate) primed_materials: usize,
    /// The law's own pair parameters, aligned with the material table's pairs.
    pair_parameters: Vec<L::Pair>,
    /// The table's pair values `pair_parameters` were computed with (a change of them, by
    /// an explicit override, recomputes the parameters).
    pair_source: Vec<granula_core::PairMaterial>,
    pub(crate) kinematic_power: f64,
    /// Whether committed evaluations publish their contacts ([`Solver::publish_contacts`]).
    publish: bool,
    /// Whether the last committed step published its contacts.
    published: bool,
    /// The contacts of each block at the last committed evaluation, if it published them.
    block_contacts: Vec<Vec<ContactRecord>>,
    /// The contacts of the last step, in candidate order ([`Solver::contacts`]).
    contacts: Vec<ContactRecord>,
    /// The world's periodic axes the candidate list was built for.
    pub(crate) periodic: PeriodicDomain,
    /// Per body (dense index), whether it is passive ([`MdSolver::set_passive_bodies`]).
    pub(crate) passive: Vec<bool>,
    /// Per body (dense index), whether another process owns it ([`MdSolver::set_foreign_bodies`]).
    pub(crate) foreign: Vec<bool>,
    /// The rebuild count when the bodies were last reordered (`MdConfig::reorder_every`).
    pub(crate) last_reorder: Option<u64>,
    /// Reorders done.
    pub(crate) reorders: u64,
    /// The wall-clock time of the last step times the threads it ran on: what it would
    /// have taken on one thread, about (see [`PARALLEL_MIN_STEP`]).
    last_step_work: Duration,
}

/// A step with fewer candidate pairs than [`MdConfig::parallel_min_pairs`] still runs on
/// the solver's threads when the step before it took longer than this on one thread (its
/// wall-clock time times the threads it ran on, which overestimates a parallel step's, so
/// a solver that went parallel stays so): an expensive law or shape (discs under 002's area
/// law, polygons) makes a small system worth splitting. On the 2-core machine of
/// docs/performance.md, sphere steps of about 100 µs ran slower on 2 threads than on 1, and
/// a step of 400 µs (1000 discs under the area law) 1.5 times faster.
const PARALLEL_MIN_STEP: Duration = Duration::from_micros(250);

impl<L: ContactLaw, I: Integrator, B: Broadphase> MdSolver<L, I, B> {
    /// A solver with the broadphase backend `broadphase` under a skin of `config.skin`;
    /// validates the configuration and builds the private thread pool if asked.
    pub fn new(law: L, integrator: I, broadphase: B, config: MdConfig) -> Result<Self, MdError> {
        config.validate()?;
        let pool = thread_pool(config.threads)?;
        Ok(MdSolver {
            law,
            integrator,
            verlet: VerletPairs::new(broadphase, config.skin)?,
            config,
            pool,
            pairs: PairList::default(),
            store: ContactStore::new(),
            points: PointStore::default(),
            stored_energy: ContactStore::new(),
            max_range: 0.0,
            accumulation: Accumulation::default(),
            summaries: Vec::new(),
            prev_position: Vec::new(),
            prev_angular_velocity: Vec::new(),
            prev_orientation: Vec::new(),
            reference_position: Vec::new(),
            other_bodies: Vec::new(),
            primed_handles: Vec::new(),
            rotation: Vec::new(),
            primed_version: None,
            primed_materials: 0,
            pair_parameters: Vec::new(),
            pair_source: Vec::new(),
            kinematic_power: 0.0,
            publish: false,
            published: false,
            block_contacts: Vec::new(),
            contacts: Vec::new(),
            periodic: PeriodicDomain::default(),
            passive: Vec::new(),
            foreign: Vec::new(),
            last_reorder: None,
            reorders: 0,
            last_step_work: Duration::ZERO,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &MdConfig {
        &self.config
    }

    /// Sets the order in which each body's pair loads are summed
    /// ([`MdConfig::load_order`]); takes effect at the next force evaluation, with the
    /// current candidate list.
    pub fn set_load_order(&mut self, order: LoadOrder) {
        self.config.load_order = order;
    }

    /// The history slots of the current candidate pairs (keys by body handles, feature 0):
    /// a sphere pair's history, or the history of the first contact point of another pair
    /// (the default without a point; all its points with their features:
    /// [`MdSolver::contact_histories`]).
    pub fn histories(&self) -> &ContactStore<L::History> {
        &self.store
    }

    /// Every contact history, in candidate order with, for a pair of several points, its
    /// points in feature order: a sphere pair's history (in contact or not) and the points
    /// of the other pairs at the last step, each with its key (bodies by handle, feature).
    pub fn contact_histories(&self) -> impl Iterator<Item = (ContactKey, &L::History)> + '_ {
        let pairs = self.pairs.candidates.iter().zip(self.store.keys().iter().zip(self.store.states()));
        pairs.zip(&self.points.lists).flat_map(|((c, (key, h)), list)| {
            let sphere = (c.kind == PairKind::Spheres).then_some((*key, h));
            // A pair's first point keeps its history in the pair's slot.
            let first = list.first.map(|feature| (ContactKey { feature, ..*key }, h));
            let more = list.more.iter().map(move |s| (ContactKey { feature: s.feature, ..*key }, &s.history));
            sphere.into_iter().chain(first).chain(more)
        })
    }

    /// Number of candidate pairs of the current list.
    pub fn candidate_pairs(&self) -> usize {
        self.pairs.candidates.len()
    }

    /// Broadphase rebuilds since creation.
    pub fn rebuilds(&self) -> u64 {
        self.verlet.rebuilds()
    }

    /// The broadphase with its skin layer.
    pub fn broadphase(&self) -> &VerletPairs<B> {
        &self.verlet
    }

    /// Forces a rebuild and a fresh start of the force evaluation at the next step (after
    /// editing positions, shapes or materials by hand, for instance). Contact histories are
    /// kept by key; the rotation increments of 002 eq. 15 restart from zero (the orientations
    /// at the fresh start become the reference).
    pub fn invalidate(&mut self) {
        self.verlet.invalidate();
        self.primed_version = None;
    }

    /// The largest range of the law over all material pairs (the detection margin).
    pub(crate) fn law_margin(&self, materials: &MaterialTable) -> f64 {
        let id = |k: usize| granula_core::MaterialId(k as u16);
        let mut max_range: f64 = 0.0;
        for a in 0..materials.len() {
            for b in 0..materials.len() {
                max_range = max_range.max(self.law.range(materials.pair(id(a), id(b))));
            }
        }
        max_range
    }

    /// Recomputes the law's pair parameters for every pair of `materials` when asked
    /// (`force`), when the number of materials changed, or when the table's pair values did
    /// (an explicit override). Nothing is allocated or compared for a law whose pair
    /// parameter is zero-sized, beyond the length check.
    pub(crate) fn sync_pair_parameters(&mut self, materials: &MaterialTable, force: bool) -> Result<(), MdError> {
        let stale = force
            || self.pair_parameters.len() != materials.pairs().len()
            || (std::mem::size_of::<L::Pair>() != 0 && self.pair_source.as_slice() != materials.pairs());
        if !stale {
            return Ok(());
        }
        self.pair_source.clear();
        if let Err(e) = materials.pair_parameters_into(&mut self.pair_parameters) {
            self.pair_parameters.clear();
            return Err(e.into());
        }
        if std::mem::size_of::<L::Pair>() != 0 {
            self.pair_source.extend_from_slice(materials.pairs());
        }
        Ok(())
    }
}

/// The private pool of `threads` threads, if more than one. One thread: no pool, the step
/// runs in place (`granula_core::parallel::sequential`). `None`: no pool either, the step
/// runs on the pool it is called from.
fn thread_pool(threads: Option<usize>) -> Result<Option<Arc<rayon::ThreadPool>>, MdError> {
    match threads {
        Some(n) if n > 1 => {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build();
            let pool = pool.map_err(|e| MdError::ThreadPool { threads: n, reason: e.to_string() })?;
            Ok(Some(Arc::new(pool)))
        }
        _ => Ok(None),
    }
}

impl<L: ContactLaw, I: Integrator, B: Broadphase> Solver for MdSolver<L, I, B> {
    type Error = MdError;

    fn name(&self) -> &'static str {
        "md"
    }

    /// The reports carry the dissipation and stored energy of every sub-model, the work of
    /// external loads and of kinematic bodies: the ledger closes to the integrator's error,
    /// provided the law books its energies ([`ContactLaw::keeps_ledger`]).
    fn closes_energy_balance(&self) -> bool {
        self.law.keeps_ledger()
    }

    /// The contact law, by name.
    fn ledger_source(&self) -> String {
        format!("contact law '{}'", self.law.name())
    }

    /// Publishing costs one record per contact and step, built in the force pass (a
    /// separate monomorphised loop, so the pass without it is unchanged).
    fn publish_contacts(&mut self, on: bool) {
        self.publish = on;
    }

    /// The contacts of the last step in candidate order, at the configuration of the force
    /// pass (the predicted one under a predictor-corrector), with the relative velocity the
    /// law saw (normal part at the force's time level) and the law's status.
    fn contacts(&self) -> Option<&[ContactRecord]> {
        self.published.then_some(self.contacts.as_slice())
    }

    fn step(&mut self, ctx: StepContext<'_>) -> Result<StepReport, MdError> {
        self.step_in_pool(ctx, None).map(|(report, _)| report)
    }

    /// The sums are added up in the integrator's half steps
    /// ([`Integrator::predict_summing`], [`Integrator::correct_summing`]), which read the
    /// bodies' columns anyway (velocity Verlet does so inside its loops; integrators
    /// without their own version pass over the bodies around the half step).
    fn step_with_sums(&mut self, ctx: StepContext<'_>, request: SumRequest) -> Result<(StepReport, StepSums), MdError> {
        self.step_in_pool(ctx, Some(request)).map(|(report, sums)| (report, sums.unwrap_or_default()))
    }
}

impl<L: ContactLaw, I: Integrator, B: Broadphase> MdSolver<L, I, B> {
    /// [`MdSolver::step_inner`] on the solver's threads.
    fn step_in_pool(
        &mut self,
        ctx: StepContext<'_>,
        request: Option<SumRequest>,
    ) -> Result<(StepReport, Option<StepSums>), MdError> {
        // A short step runs in place (`MdConfig::parallel_min_pairs`, `PARALLEL_MIN_STEP`):
        // same result, faster.
        let small = self.pairs.candidates.len() < self.config.parallel_min_pairs
            && self.last_step_work < PARALLEL_MIN_STEP
            && self.primed_version.is_some();
        let threads = match (&self.pool, self.config.threads) {
            _ if small => 1,
            (Some(pool), _) => pool.current_num_threads(),
            (None, Some(1)) => 1,
            (None, _) => rayon::current_num_threads(),
        };
        let start = Instant::now();
        let (pool, threads_config, hot) = (self.pool.clone(), self.config.threads, self.config.hot_workers);
        let inner = || self.step_inner(ctx, request);
        let result = match (pool, threads_config) {
            (Some(_), _) if small => parallel::sequential(inner),
            (Some(pool), _) if hot => parallel::install(&pool, || with_hot_workers(inner)),
            (Some(pool), _) => parallel::install(&pool, inner),
            (None, Some(1)) => parallel::sequential(inner),
            (None, _) if hot => with_hot_workers(inner),
            (None, _) => inner(),
        };
        self.last_step_work = start.elapsed() * threads as u32;
        result
    }
}
