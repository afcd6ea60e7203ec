//! The Moreau-Jean θ-step (004 §2.3.3.1-2.3.3.3; 000 eqs. 1-2 for θ = 1) with the
//! nonlinear Gauss-Seidel solver in the exchange-local-global form (004 §2.3.3.4, ELG).
//!
//! One step from t to t + Δt:
//! 1. free velocity v_free = v + Δt M⁻¹ F_ext (constant loads, so the θ-weighting of
//!    p_free is exact);
//! 2. intermediate configuration q_m = q + (1 − θ) Δt v;
//! 3. detection of closed and incipient contacts at q_m within the margin;
//! 4. per contact W_αα, U_free = H* v_free and the law's constants; warm start;
//! 5. Gauss-Seidel sweeps until the criterion (000 eqs. 35-37);
//! 6. v = v_free + M⁻¹ H P, q = q_m + θ Δt v.

use crate::apgd::{ApgdSettings, ApgdWork};
use crate::bodies::{BodyMobility, BodyVelocity};
use crate::coarse::CoarseWork;
use crate::coloured::{update_shared, SharedVelocities};
use crate::config::{NonConvergence, NscdConfig};
use crate::contacts::{ContactList, Couple, HotContact};
use crate::convergence::{ConvergenceMonitor, Criterion};
use crate::detection::Detection;
use crate::error::NscdError;
use crate::local::{LocalProblem, NonSmoothLaw, SignoriniCoulomb};
use crate::materials::check_materials;
use crate::newton::{NewtonSettings, NewtonWork};
use crate::pair_lock::PairLock;
use crate::prefetch::prefetch;
use crate::residual::natural_map_residual;
use crate::subspace::SubspaceWork;
use crate::sweep::fill_order;
use crate::sweep::SweepOrder;
use granula_core::{
    point_relative_velocity, Broadphase, ContactKey, ContactRecord, ContactStore, DMat3, DQuat, DVec3, Solver,
    StepContext, StepReport, StepWarning,
};
use nalgebra::Vector6;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// How many updates ahead a contact record is prefetched.
const PREFETCH_RECORD: usize = 16;
/// How many updates ahead the two bodies of a contact are prefetched.
const PREFETCH_BODIES: usize = 8;

/// Per-contact state carried from step to step by contact key.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Carried<S> {
    /// Last step's impulse, world frame (N s), for the warm start.
    pub impulse: DVec3,
    /// Last step's couple impulse, world frame (N m s), for laws with couples.
    pub couple: DVec3,
    /// The law's own state.
    pub state: S,
}

/// The contact-dynamics solver, generic over the broadphase `B` and the non-smooth law `L`.
///
/// [`NscdSolver::new`] takes a broadphase and an [`NscdConfig`] and uses Signorini's
/// condition with Coulomb's law ([`SignoriniCoulomb`]); [`NscdSolver::with_law`] takes
/// another [`NonSmoothLaw`]. A stack of two rigid balls on a floor stays at rest, without
/// the overlap a soft contact needs:
///
/// ```
/// use granula_broadphase::BruteForce;
/// use granula_core::prelude::*;
/// use granula_nscd::{NscdConfig, NscdSolver};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut world = World::builder().build()?; // gravity (0, 0, -9.81)
/// world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build()?)?;
/// let low = world.insert(SphereBuilder::new(0.01, DVec3::new(0.0, 0.0, 0.01)).build()?)?;
/// let high = world.insert(SphereBuilder::new(0.01, DVec3::new(0.0, 0.0, 0.03)).build()?)?;
/// let mut solver = NscdSolver::new(BruteForce, NscdConfig::default())?;
/// world.run_for(&mut solver, 0.5, 1e-3)?; // 500 steps of 1 ms
/// for (ball, z) in [(low, 0.01), (high, 0.03)] {
///     let i = world.bodies.index(ball)?;
///     // The impulses are solved to the relative tolerance 1e-4 of the default criterion,
///     // so a ball may sink by about 1e-4 of g Δt² per step: 1e-8 m bounds it.
///     assert!((world.bodies.position[i].z - z).abs() < 1e-8);
/// }
/// # Ok(())
/// # }
/// ```
pub struct NscdSolver<B: Broadphase, L: NonSmoothLaw = SignoriniCoulomb> {
    pub(crate) config: NscdConfig,
    pub(crate) broadphase: B,
    pub(crate) law: L,
    pub(crate) store: ContactStore<Carried<L::State>>,
    pub(crate) contacts: ContactList<L::Params>,
    pub(crate) vel: Vec<BodyVelocity>,
    pub(crate) mob: Vec<BodyMobility>,
    pub(crate) start: Vec<BodyVelocity>,
    pub(crate) detection: Detection,
    pub(crate) order: Vec<u32>,
    pub(crate) previous: Vec<DVec3>,
    pub(crate) sort_keys: Vec<(u64, u32)>,
    pub(crate) rng: ChaCha8Rng,
    pub(crate) saved_kinematic: Vec<(usize, DVec3, DQuat)>,
    pub(crate) updates: u64,
    /// Whether the steps publish their contacts ([`Solver::publish_contacts`]).
    pub(crate) publish: bool,
    /// The contacts of the last step, if it published them.
    pub(crate) published: Vec<ContactRecord>,
    /// Work arrays of the subspace correction.
    pub(crate) subspace: SubspaceWork,
    /// Conjugate-gradient iterations of the last step's corrections.
    pub(crate) cg_iterations: u32,
    /// Start of each colour in the contact list ([`SweepOrder::Coloured`]), then the count.
    pub(crate) colours: Vec<u32>,
    /// Per body: the colours taken (colouring work array).
    pub(crate) colour_masks: Vec<u64>,
    /// Whether the last colour is the overflow colour of [`crate::coloured::colour`].
    pub(crate) colour_overflow: bool,
    /// Per body: whether it can move (dynamic).
    pub(crate) movable: Vec<bool>,
    /// Per contact: the impulse and its change of the last parallel update.
    pub(crate) sweep_out: Vec<(DVec3, DVec3)>,
    /// Work arrays of the Newton method.
    pub(crate) newton: NewtonWork,
    /// The last step's work with Newton: (sweeps, Newton steps accepted, W products and
    /// preconditioner passes).
    pub(crate) newton_stats: (u32, u32, u32),
    /// Work arrays of the aggregation correction.
    pub(crate) coarse: CoarseWork,
    /// The last step's aggregation work: (corrections, coarse interface updates, internal
    /// contact updates).
    pub(crate) coarse_stats: (u32, u64, u64),
    /// Work arrays of APGD.
    pub(crate) apgd: ApgdWork,
    /// The last step's APGD work: (iterations, W products).
    pub(crate) apgd_stats: (u32, u32),
    /// The unit vector against gravity of the last step (zero without gravity).
    pub(crate) up: DVec3,
    /// Work arrays of the block solve of hyperstatic pairs.
    pub(crate) pair_lock: PairLock,
}

impl<B: Broadphase, L: NonSmoothLaw> std::fmt::Debug for NscdSolver<B, L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NscdSolver")
            .field("config", &self.config)
            .field("broadphase", &self.broadphase.name())
            .field("law", &self.law.name())
            .field("contacts", &self.contacts.len())
            .finish()
    }
}

impl<B: Broadphase> NscdSolver<B, SignoriniCoulomb> {
    /// A solver with the inelastic Signorini-Coulomb law of 000 eq. 34.
    pub fn new(broadphase: B, config: NscdConfig) -> Result<Self, NscdError> {
        Self::with_law(broadphase, SignoriniCoulomb::default(), config)
    }
}

impl<B: Broadphase, L: NonSmoothLaw> NscdSolver<B, L> {
    /// A solver with a given law; the configuration and the law are validated.
    pub fn with_law(broadphase: B, law: L, config: NscdConfig) -> Result<Self, NscdError> {
        config.validate()?;
        law.validate()?;
        let rng = ChaCha8Rng::seed_from_u64(config.seed);
        Ok(NscdSolver {
            config,
            broadphase,
            law,
            store: ContactStore::new(),
            contacts: ContactList::default(),
            vel: Vec::new(),
            mob: Vec::new(),
            start: Vec::new(),
            detection: Detection::default(),
            order: Vec::new(),
            previous: Vec::new(),
            sort_keys: Vec::new(),
            rng,
            saved_kinematic: Vec::new(),
            updates: 0,
            publish: false,
            published: Vec::new(),
            subspace: SubspaceWork::default(),
            cg_iterations: 0,
            colours: Vec::new(),
            colour_masks: Vec::new(),
            colour_overflow: false,
            movable: Vec::new(),
            sweep_out: Vec::new(),
            newton: NewtonWork::default(),
            newton_stats: (0, 0, 0),
            coarse: CoarseWork::default(),
            coarse_stats: (0, 0, 0),
            up: DVec3::ZERO,
            apgd: ApgdWork::default(),
            apgd_stats: (0, 0),
            pair_lock: PairLock::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &NscdConfig {
        &self.config
    }

    /// Replaces the configuration after validating it (the random stream is not reseeded).
    pub fn set_config(&mut self, config: NscdConfig) -> Result<(), NscdError> {
        config.validate()?;
        self.config = config;
        Ok(())
    }

    /// The law.
    pub fn law(&self) -> &L {
        &self.law
    }

    /// Conjugate-gradient iterations of the subspace corrections of the last step
    /// ([`NscdConfig::correction`]); each costs about one sweep.
    pub fn last_cg_iterations(&self) -> u32 {
        self.cg_iterations
    }

    /// The last step's work under [`NscdConfig::newton`]: Gauss-Seidel sweeps, accepted
    /// Newton steps, and W products with preconditioner passes (GMRES iterations, their
    /// preconditioning and the line searches; each about the cost of a sweep). Zeros when
    /// Newton did not run.
    pub fn last_newton_work(&self) -> (u32, u32, u32) {
        self.newton_stats
    }

    /// The last step's work under [`NscdConfig::coarse`]: corrections done, coarse
    /// interface updates (each a 3×3 local solve on two aggregates, about the cost of three
    /// contact updates of a sweep) and contact updates of the internal sweeps.
    pub fn last_coarse_work(&self) -> (u32, u64, u64) {
        self.coarse_stats
    }

    /// The last step's work under [`NscdConfig::apgd`]: iterations and W products (each
    /// about the cost of a sweep). Zeros when APGD did not run.
    pub fn last_apgd_work(&self) -> (u32, u32) {
        self.apgd_stats
    }

    /// Pair locks done in the last step ([`NscdConfig::lock_pairs`]): the number of block
    /// solves of hyperstatic pairs that found the contacts sticking (a body to its support,
    /// or two bodies to each other), summed over the passes (a pass over an unchanged pair
    /// is not counted).
    pub fn last_pair_locks(&self) -> u32 {
        self.pair_lock.locks
    }

    /// Block solves of hyperstatic pairs in the last step that found a contact sliding
    /// ([`NscdConfig::lock_pairs`]), summed over the passes.
    pub fn last_pair_slides(&self) -> u32 {
        self.pair_lock.slides
    }

    /// The block solve of the hyperstatic pairs that may still lock ([`crate::pair_lock`]).
    fn lock_pairs(&mut self) {
        if self.pair_lock.active() {
            let ContactList { hot, .. } = &mut self.contacts;
            self.pair_lock.lock_all(&self.law, hot, &mut self.vel, &self.mob, |_, _| {});
        }
    }

    /// Number of colours of the last step's contact graph under [`SweepOrder::Coloured`]
    /// (0 otherwise).
    pub fn last_colour_count(&self) -> usize {
        if self.config.sweep == SweepOrder::Coloured {
            self.colours.len().saturating_sub(1)
        } else {
            0
        }
    }

    /// The natural-map residual of the last step's solution as Siconos defines it
    /// ([`crate::residual`]), or `None` when the law is not Signorini-Coulomb's.
    pub fn natural_map_residual(&self) -> Option<f64> {
        natural_map_residual(&self.law, &self.contacts.hot, &self.contacts.cold, &self.vel)
    }

    /// The last step's frictional contact problem (W, q, μ) with its solution, for
    /// Siconos ([`crate::problem_export`]); `None` when the law is not Signorini-Coulomb's.
    pub fn fc3d_problem(&self) -> Option<crate::problem_export::Fc3dProblem> {
        let u: Vec<DVec3> = self
            .contacts
            .hot
            .iter()
            .map(|c| {
                let (v1, v2) = (self.vel[c.body1 as usize], self.vel[c.body2 as usize]);
                c.to_local(point_relative_velocity(v1.v, v1.w, c.l1, v2.v, v2.w, c.l2))
            })
            .collect();
        crate::problem_export::assemble(&self.law, &self.contacts.hot, &self.contacts.cold, &self.mob, &u)
    }

    /// Contact updates (local solves) performed since the solver was created.
    pub fn contact_updates(&self) -> u64 {
        self.updates
    }

    /// The carried state of every contact of the last step: keys and states.
    pub fn contact_states(&self) -> (&[ContactKey], &[Carried<L::State>]) {
        (self.store.keys(), self.store.states())
    }

    /// Final impulses of the last step, world frame, with the dense body indices
    /// (body 1, body 2); the impulse acts on body 2, body 1 gets the opposite.
    pub fn impulses(&self) -> impl Iterator<Item = (u32, u32, DVec3)> + '_ {
        self.contacts.hot.iter().map(|c| (c.body1, c.body2, c.to_world(c.p)))
    }

    /// Nesterov's extrapolation of the impulses by β (P − P_previous), projected onto the
    /// law's admissible set and exchanged with the bodies; P_previous ← P (the sweep's
    /// output).
    fn extrapolate(&mut self, beta: f64) {
        for (c, prev) in self.contacts.hot.iter_mut().zip(self.previous.iter_mut()) {
            let p = c.p;
            if beta > 0.0 {
                if let Some(y) = self.law.project(&c.params, p + (p - *prev) * beta) {
                    let dy = y - p;
                    if dy != DVec3::ZERO {
                        apply(c, c.to_world(dy), &mut self.vel, &self.mob);
                        c.p = y;
                    }
                }
            }
            *prev = p;
        }
    }

    /// Step 5: sweeps until the criterion stops the loop; returns (sweeps, converged, residual).
    fn iterate(&mut self, dt: f64) -> (u32, bool, f64) {
        let criterion = match self.config.on_cap {
            NonConvergence::Extend { hard_cap } => self.config.criterion.with_cap(hard_cap),
            _ => self.config.criterion,
        };
        let mut monitor = ConvergenceMonitor::new(criterion, dt);
        let omega = self.config.relaxation;
        let n = self.contacts.len();
        if n == 0 {
            self.pair_lock.setup::<L::Params>(&[], &self.mob);
            return (0, true, 0.0);
        }
        monitor.start(self.contacts.hot.iter().map(|c| c.p), n);
        let mut sweeps = 0;
        let accelerate = self.config.momentum && !L::COUPLES;
        if accelerate {
            self.previous.clear();
            self.previous.extend(self.contacts.hot.iter().map(|c| c.p));
        }
        let (mut since_restart, mut last_residual) = (0u32, f64::INFINITY);
        self.cg_iterations = 0;
        let correction = match self.config.criterion {
            Criterion::Fixed { .. } => None,
            _ if L::COUPLES => None,
            _ => self.config.correction,
        };
        let newton = match self.config.criterion {
            Criterion::Fixed { .. } => None,
            _ if L::COUPLES => None,
            _ => self.config.newton,
        };
        self.newton_stats = (0, 0, 0);
        self.coarse_stats = (0, 0, 0);
        self.coarse.reset();
        let coarse = match self.config.criterion {
            Criterion::Fixed { .. } => None,
            _ if L::COUPLES => None,
            _ => self.config.coarse,
        };
        let lock = self.config.lock_pairs
            && !L::COUPLES
            && self.config.apgd.is_none()
            && !matches!(self.config.criterion, Criterion::Fixed { .. });
        self.pair_lock.setup(if lock { &self.contacts.hot[..] } else { &[] }, &self.mob);
        if let Some(settings) = newton {
            return self.iterate_newton(&settings, criterion, &mut monitor);
        }
        self.apgd_stats = (0, 0);
        let apgd = match self.config.criterion {
            Criterion::Fixed { .. } => None,
            _ if L::COUPLES => None,
            _ => self.config.apgd,
        };
        if let Some(settings) = apgd {
            return self.iterate_apgd(&settings, criterion, &mut monitor);
        }
        loop {
            sweeps += 1;
            // A fixed N_I needs the per-sweep statistics only for the reported residual.
            let track = !matches!(self.config.criterion, Criterion::Fixed { iterations } if sweeps + 1 < iterations);
            self.sweep(sweeps - 1, &mut monitor, track, omega);
            let (mut stop, mut ok, mut residual) = monitor.end_sweep(sweeps);
            if let Criterion::NaturalMap { epsilon, max_iterations } = criterion {
                let ContactList { hot, cold, .. } = &self.contacts;
                if let Some(e) = natural_map_residual(&self.law, hot, cold, &self.vel) {
                    (ok, residual) = (e <= epsilon, e);
                    stop = ok || sweeps >= max_iterations;
                }
            }
            if stop {
                return (sweeps, ok, residual);
            }
            if let Some(settings) = correction {
                if sweeps % settings.sweeps_between == 0 {
                    let ContactList { hot, .. } = &mut self.contacts;
                    if let Some(k) = self.subspace.correct(&self.law, &settings, hot, &mut self.vel, &self.mob) {
                        self.cg_iterations += k;
                    }
                }
            }
            let mut corrected = false;
            if let Some(settings) = coarse {
                if sweeps % settings.sweeps_between == 0 {
                    let ContactList { hot, cold, coupled, .. } = &mut self.contacts;
                    if let Some(k) =
                        self.coarse.correct(&self.law, &settings, self.up, hot, cold, coupled, &mut self.vel, &self.mob)
                    {
                        self.coarse_stats.0 += 1;
                        self.coarse_stats.1 += k;
                        self.coarse_stats.2 +=
                            (settings.internal_sweeps as usize * self.coarse.internal_contacts()) as u64;
                        corrected = true;
                    }
                }
            }
            if accelerate && corrected {
                // The correction jumps the impulses: the momentum schedule restarts from them.
                since_restart = 0;
                last_residual = f64::INFINITY;
                self.previous.clear();
                self.previous.extend(self.contacts.hot.iter().map(|c| c.p));
            } else if accelerate {
                since_restart += 1;
                if residual > last_residual {
                    since_restart = 1;
                }
                last_residual = residual;
                let beta = (since_restart as f64 - 1.0) / (since_restart as f64 + 2.0);
                self.extrapolate(beta);
            }
        }
    }

    /// One Gauss-Seidel sweep (number `index`, 0-based) in the configured order; records
    /// every update in `monitor` when `track`.
    fn sweep(&mut self, index: u32, monitor: &mut ConvergenceMonitor, track: bool, omega: f64) {
        let n = self.contacts.len();
        monitor.begin_sweep();
        self.updates += n as u64;
        // The block solves of the hyperstatic pairs come first; their contacts are then one
        // unknown each pair, which the point updates leave alone (block Gauss-Seidel).
        if self.pair_lock.active() {
            let ContactList { hot, .. } = &mut self.contacts;
            self.pair_lock.lock_all(&self.law, hot, &mut self.vel, &self.mob, |p, dp| {
                if track {
                    monitor.record(p, dp);
                }
            });
        }
        if self.config.sweep == SweepOrder::Coloured && !L::COUPLES {
            self.sweep_coloured(monitor, track, omega);
            return;
        }
        fill_order(self.config.sweep, index, n, &mut self.order, &mut self.rng);
        let ContactList { hot, coupled, couples, .. } = &mut self.contacts;
        let order = &self.order;
        let solved = &self.pair_lock.solved[..];
        let record_lines = std::mem::size_of::<HotContact<L::Params>>().div_ceil(64);
        for k in 0..n {
            // Prefetch the record 16 updates ahead and the bodies 8 updates ahead (the
            // record was requested 8 updates earlier, so reading its body ids is cheap).
            if k + PREFETCH_RECORD < n {
                prefetch(&hot[order[k + PREFETCH_RECORD] as usize], record_lines);
            }
            if k + PREFETCH_BODIES < n {
                let c = &hot[order[k + PREFETCH_BODIES] as usize];
                let (i, j) = (c.body1 as usize, c.body2 as usize);
                prefetch(&self.vel[i], 1);
                prefetch(&self.vel[j], 1);
                prefetch(&self.mob[i], 2);
                prefetch(&self.mob[j], 2);
            }
            let a = order[k] as usize;
            if !solved.is_empty() && solved[a] {
                continue;
            }
            let c = &mut hot[a];
            let (p, dp) = if L::COUPLES {
                let (p, dp, q, dq) = update6(&self.law, c, &mut couples[a], &mut self.vel, &self.mob);
                if track {
                    // The couples enter the local criterion (eq. 35) like forces.
                    monitor.record(q, dq);
                }
                (p, dp)
            } else {
                update(&self.law, c, coupled, &mut self.vel, &self.mob, omega)
            };
            if track {
                monitor.record(p, dp);
            }
        }
    }

    /// A multicolour sweep ([`SweepOrder::Coloured`]): the colours in turn, the contacts
    /// of one colour in parallel; the monitor is fed in list order afterwards, so its sums
    /// do not depend on the thread count.
    fn sweep_coloured(&mut self, monitor: &mut ConvergenceMonitor, track: bool, omega: f64) {
        use rayon::prelude::*;
        let n = self.contacts.len();
        self.sweep_out.resize(n, (DVec3::ZERO, DVec3::ZERO));
        let ContactList { hot, coupled, .. } = &mut self.contacts;
        let (law, mob, movable) = (&self.law, &self.mob[..], &self.movable[..]);
        // The contacts of the pairs solved as blocks this sweep are left alone.
        let solved = &self.pair_lock.solved[..];
        let colours = self.colours.len().saturating_sub(1);
        for k in 0..colours {
            let (s, e) = (self.colours[k] as usize, self.colours[k + 1] as usize);
            let shared = SharedVelocities::new(&mut self.vel);
            let coupled = &coupled[..];
            // The overflow colour (contacts that found no colour below the limit) may share
            // bodies: it is swept sequentially.
            let last = k + 1 == colours && self.colour_overflow;
            let run = |(i, (c, out)): (usize, ContactAndOutput<'_, L::Params>)| {
                if !solved.is_empty() && solved[s + i] {
                    *out = (c.p, DVec3::ZERO);
                    return;
                }
                // SAFETY: the contacts of one colour share no movable body (`coloured::colour`),
                // the velocities outlive the loop and nothing else accesses them meanwhile.
                *out = unsafe { update_shared(law, c, coupled, shared, mob, movable, omega) };
            };
            // One task per thread (at least 64 contacts): the colours are swept thousands of
            // times per step, so the fewer hand-offs the better; on one thread (or in
            // granula's sequential mode) the colour runs in place without rayon.
            let threads = rayon::current_num_threads();
            let chunk = granula_core::parallel::min_len((e - s).div_ceil(threads).max(64));
            if last || threads == 1 || chunk >= e - s {
                hot[s..e].iter_mut().zip(self.sweep_out[s..e].iter_mut()).enumerate().for_each(run);
            } else {
                hot[s..e]
                    .par_iter_mut()
                    .zip(self.sweep_out[s..e].par_iter_mut())
                    .enumerate()
                    .with_min_len(chunk)
                    .for_each(run);
            }
        }
        if track {
            // The solved pairs' contacts were recorded by their block solve.
            for (i, &(p, dp)) in self.sweep_out[..n].iter().enumerate() {
                if solved.is_empty() || !solved[i] {
                    monitor.record(p, dp);
                }
            }
        }
    }

    /// Step 5 with the nonsmooth Newton method ([`crate::newton`]): warm-start sweeps, then
    /// Newton steps while the line search succeeds, a few sweeps when it fails, until the
    /// natural map meets the criterion's tolerance or the work (sweeps + W products)
    /// reaches its cap. Returns (work, converged, residual).
    fn iterate_newton(
        &mut self,
        settings: &NewtonSettings,
        criterion: Criterion,
        monitor: &mut ConvergenceMonitor,
    ) -> (u32, bool, f64) {
        let epsilon = criterion.tolerance().unwrap_or(0.0);
        let cap = criterion.cap();
        let omega = self.config.relaxation;
        let n_bodies = self.vel.len();
        {
            let ContactList { hot, coupled, .. } = &self.contacts;
            if !self.newton.setup(&self.law, hot, coupled, n_bodies, settings) {
                // No Signorini-Coulomb form: sweeps on the monitor's criterion.
                return self.iterate_sweeps_only(criterion, monitor);
            }
        }
        let (mut sweeps, mut steps, mut products) = (0u32, 0u32, 0u32);
        let mut block = settings.warm_sweeps;
        let residual_now = |s: &Self| {
            let ContactList { hot, cold, .. } = &s.contacts;
            natural_map_residual(&s.law, hot, cold, &s.vel).unwrap_or(f64::INFINITY)
        };
        let mut residual = residual_now(self);
        loop {
            if residual <= epsilon {
                self.newton_stats = (sweeps, steps, products);
                return (sweeps + products, true, residual);
            }
            self.lock_pairs();
            residual = residual_now(self);
            if residual <= epsilon {
                continue;
            }
            for _ in 0..block {
                if sweeps + products >= cap {
                    break;
                }
                self.sweep(sweeps, monitor, false, omega);
                sweeps += 1;
                residual = residual_now(self);
                if residual <= epsilon {
                    break;
                }
            }
            block = settings.fallback_sweeps;
            while residual > epsilon && sweeps + products < cap {
                let ContactList { hot, .. } = &mut self.contacts;
                let step = self.newton.step(settings, hot, &mut self.vel, &self.mob);
                products += step.products;
                if !step.accepted {
                    break;
                }
                steps += 1;
                residual = residual_now(self);
            }
            if residual > epsilon && sweeps + products >= cap {
                self.newton_stats = (sweeps, steps, products);
                return (sweeps + products, false, residual);
            }
        }
    }

    /// Step 5 with APGD ([`crate::apgd`]): iterations until the natural map meets the
    /// criterion's tolerance (checked every `check_every` iterations) or the W products
    /// reach its cap. Returns (products, converged, residual).
    fn iterate_apgd(
        &mut self,
        settings: &ApgdSettings,
        criterion: Criterion,
        monitor: &mut ConvergenceMonitor,
    ) -> (u32, bool, f64) {
        let epsilon = criterion.tolerance().unwrap_or(0.0);
        let cap = criterion.cap();
        let n_bodies = self.vel.len();
        {
            let ContactList { hot, cold, .. } = &self.contacts;
            if !self.apgd.setup(&self.law, hot, cold, &self.mob, n_bodies) {
                return self.iterate_sweeps_only(criterion, monitor);
            }
        }
        let mut lipschitz = self.apgd.lipschitz(&self.contacts.hot, &self.mob);
        // The set-up's product of the warm start and the Lipschitz estimate.
        let (mut theta, mut iterations, mut products) = (1.0, 0u32, 2u32);
        while let Some((t, l, p)) = self.apgd.iterate(&self.law, &self.contacts.hot, &self.mob, theta, lipschitz) {
            (theta, lipschitz, products) = (t, l, products + p);
            iterations += 1;
            if iterations % settings.check_every == 0 || products >= cap {
                let ContactList { hot, cold, .. } = &mut self.contacts;
                self.apgd.publish(hot, &mut self.vel, &self.mob);
                let residual = natural_map_residual(&self.law, hot, cold, &self.vel).unwrap_or(f64::INFINITY);
                if residual <= epsilon || products >= cap {
                    break;
                }
            }
        }
        let ContactList { hot, cold, .. } = &mut self.contacts;
        self.apgd.publish(hot, &mut self.vel, &self.mob);
        let residual = natural_map_residual(&self.law, hot, cold, &self.vel).unwrap_or(f64::INFINITY);
        self.apgd_stats = (iterations, products);
        (products, residual <= epsilon, residual)
    }

    /// Sweeps alone on `criterion` (the fallback of [`Self::iterate_newton`]).
    fn iterate_sweeps_only(&mut self, criterion: Criterion, monitor: &mut ConvergenceMonitor) -> (u32, bool, f64) {
        let omega = self.config.relaxation;
        let mut sweeps = 0;
        loop {
            sweeps += 1;
            self.sweep(sweeps - 1, monitor, true, omega);
            let (stop, ok, residual) = monitor.end_sweep(sweeps);
            if stop || sweeps >= criterion.cap() {
                return (sweeps, ok, residual);
            }
        }
    }
}

/// A contact of a colour with its slot of the parallel update's output.
type ContactAndOutput<'a, P> = (&'a mut HotContact<P>, &'a mut (DVec3, DVec3));

/// Applies world impulse `p` of contact `c`: +p on body 2, −p on body 1 (000 eq. 6).
#[inline(always)]
pub(crate) fn apply<P>(c: &HotContact<P>, p: DVec3, vel: &mut [BodyVelocity], mob: &[BodyMobility]) {
    let (i, j) = (c.body1 as usize, c.body2 as usize);
    let d2 = mob[j].response(c.l2, p);
    let d1 = mob[i].response(c.l1, p);
    vel[j].v += d2.v;
    vel[j].w += d2.w;
    vel[i].v -= d1.v;
    vel[i].w -= d1.w;
}

/// Applies world couple impulse `q`: +q on body 2, −q on body 1 (pure couples).
#[inline(always)]
pub(crate) fn apply_couple<P>(c: &HotContact<P>, q: DVec3, vel: &mut [BodyVelocity], mob: &[BodyMobility]) {
    let (i, j) = (c.body1 as usize, c.body2 as usize);
    vel[j].w += mob[j].ang * q;
    vel[i].w -= mob[i].ang * q;
}

/// One contact update with rolling and torsion friction (001 §1.7): generalized local
/// velocity (U, Ω) from the two bodies, removal of the contact's own contribution
/// W6 (P, Q), the 6-D local solve with the exact coupling ([`NonSmoothLaw::solve6`]), and
/// exchange of the 6-D impulse change with the two bodies. O(1) per contact.
/// Returns the new force impulse, its change, the new couple impulse and its change.
#[inline(always)]
pub(crate) fn update6<L: NonSmoothLaw>(
    law: &L,
    c: &mut HotContact<L::Params>,
    k: &mut Couple,
    vel: &mut [BodyVelocity],
    mob: &[BodyMobility],
) -> (DVec3, DVec3, DVec3, DVec3) {
    let (v1, v2) = (vel[c.body1 as usize], vel[c.body2 as usize]);
    let ul = c.to_local(point_relative_velocity(v1.v, v1.w, c.l1, v2.v, v2.w, c.l2));
    let ol = c.to_local(v2.w - v1.w);
    let x0 = Vector6::new(c.p.x, c.p.y, c.p.z, k.q.x, k.q.y, k.q.z);
    let b = Vector6::new(ul.x, ul.y, ul.z, ol.x, ol.y, ol.z) - k.w6 * x0;
    let x = law.solve6(&k.w6, &b, &c.params, &x0);
    let (p, q) = (DVec3::new(x[0], x[1], x[2]), DVec3::new(x[3], x[4], x[5]));
    let (dp, dq) = (p - c.p, q - k.q);
    if dp != DVec3::ZERO {
        apply(c, c.to_world(dp), vel, mob);
        c.p = p;
    }
    if dq != DVec3::ZERO {
        apply_couple(c, c.to_world(dq), vel, mob);
        k.q = q;
    }
    (p, dp, q, dq)
}

/// The local part of a contact update (004 §2.3.3.4): the local velocity from the two
/// bodies' velocities `v1`, `v2`, removal of the contact's own contribution W_αα P_α, the
/// law's local solve, and relaxation by `omega` (LMGC90's RELAX: extrapolate from the old
/// impulse and project back onto the admissible set). Returns the new impulse; the
/// contact is not changed. Shared by the sequential and the coloured sweeps.
#[inline(always)]
pub(crate) fn local_solve<L: NonSmoothLaw>(
    law: &L,
    c: &HotContact<L::Params>,
    coupled: &[DMat3],
    v1: BodyVelocity,
    v2: BodyVelocity,
    omega: f64,
) -> DVec3 {
    let u = point_relative_velocity(v1.v, v1.w, c.l1, v2.v, v2.w, c.l2);
    let s = c.s();
    let ul = DVec3::new(u.dot(c.n), u.dot(c.t), u.dot(s));
    let problem = if c.coupled == u32::MAX {
        LocalProblem { w: DMat3::from_diagonal(c.w_diag), b: ul - c.w_diag * c.p, diagonal: true }
    } else {
        let w = coupled[c.coupled as usize];
        LocalProblem { w, b: ul - w * c.p, diagonal: false }
    };
    let p = law.solve(&problem, &c.params);
    if omega != 1.0 {
        if let Some(q) = law.project(&c.params, c.p + (p - c.p) * omega) {
            return q;
        }
    }
    p
}

/// One contact update of the ELG Gauss-Seidel (004 §2.3.3.4): local velocity from the two
/// bodies' current velocities, removal of the contact's own contribution W_αα P_α, local
/// solve, and exchange of the impulse change with the two bodies. O(1) per contact.
/// Returns the new impulse and its change.
#[inline(always)]
pub(crate) fn update<L: NonSmoothLaw>(
    law: &L,
    c: &mut HotContact<L::Params>,
    coupled: &[DMat3],
    vel: &mut [BodyVelocity],
    mob: &[BodyMobility],
    omega: f64,
) -> (DVec3, DVec3) {
    let (v1, v2) = (vel[c.body1 as usize], vel[c.body2 as usize]);
    let p = local_solve(law, c, coupled, v1, v2, omega);
    let s = c.s();
    let dp = p - c.p;
    if dp != DVec3::ZERO {
        apply(c, c.n * dp.x + c.t * dp.y + s * dp.z, vel, mob);
        c.p = p;
    }
    (p, dp)
}

impl<B: Broadphase, L: NonSmoothLaw> Solver for NscdSolver<B, L> {
    type Error = NscdError;

    fn name(&self) -> &'static str {
        "nscd"
    }

    /// The detection margin grows by 2θ Δt times the largest speed: every contact the step
    /// can close is seen, however far a body moves.
    fn detects_along_the_step(&self) -> bool {
        true
    }

    fn publish_contacts(&mut self, on: bool) {
        self.publish = on;
    }

    /// The contacts of the last step in sweep-list order, at the detection configuration
    /// q_m = q + (1 − θ) Δt v of the step, with the mean force P/Δt and couple Q/Δt, the
    /// relative velocity at the end of the step and the local solver's status.
    fn contacts(&self) -> &[ContactRecord] {
        &self.published
    }

    fn step(&mut self, mut ctx: StepContext<'_>) -> Result<StepReport, NscdError> {
        let dt = ctx.dt;
        self.config.validate()?;
        self.law.validate()?;
        check_materials(ctx.materials)?;
        self.prepare(&mut ctx)?;
        let (iterations, converged, residual) = self.iterate(dt);
        let mut report = self.finish(ctx.bodies, ctx.time, dt);
        report.iterations = iterations;
        report.residual = residual;
        if !converged {
            if self.config.on_cap == NonConvergence::Error {
                let tolerance = self.config.criterion.tolerance().unwrap_or(0.0);
                return Err(NscdError::NotConverged { iterations, residual, tolerance });
            }
            report.warnings.push(StepWarning::IterationCapReached { iterations, residual });
        }
        Ok(report)
    }
}
