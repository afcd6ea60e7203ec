//! The Moreau-Jean θ-step (004 §2.3.3.1-2.3.3.3; 000 eqs. 1-2 for θ = 1) with the
//! nonlinear Gauss-Seidel solver in the exchange-local-global form (004 §2.3.3.4, ELG).
//!
//! One step from t to t + Δt:
//! 1. free velocity v_free = v + Δt M⁻¹ F_ext (constant loads, so the θ-weighting of
//!    p_free is exact);
//! 2. intermediate configuration q_m = q + (1 − θ) Δt v;
//! 3. detection of closed and incipient contacts at q_m within the margin;
//! 4. per contact W_αα, U_free = H* v_free and the law's constants; warm start
//!    (steps 1-4: [`crate::assemble`]);
//! 5. Gauss-Seidel sweeps until the criterion (000 eqs. 35-37; [`crate::gauss_seidel`],
//!    one contact update in [`crate::kernels`]);
//! 6. v = v_free + M⁻¹ H P, q = q_m + θ Δt v, and the step's report ([`crate::end_step`]).

use crate::bodies::{BodyMobility, BodyVelocity};
use crate::config::{NonConvergence, NscdConfig};
use crate::contacts::ContactList;
use crate::detection::Detection;
use crate::error::NscdError;
use crate::local::{NonSmoothLaw, SignoriniCoulomb};
use crate::materials::check_materials;
use crate::multi_impact::work::JointImpact;
use crate::pair_lock::PairLock;
use crate::problem_export::ContactProblem;
use crate::residual::natural_map_residual;
use granula_core::{
    point_relative_velocity, Broadphase, ContactKey, ContactRecord, ContactStore, DQuat, DVec3, Solver, StepContext,
    StepReport, StepWarning,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

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
    /// The impulses of the best sweep so far, kept at the restarts of the momentum
    /// (`gauss_seidel.rs`).
    pub(crate) best: Vec<DVec3>,
    /// The free velocities of the step, from which a step stopped by the cap rebuilds the
    /// velocities of its best sweep.
    pub(crate) free: Vec<BodyVelocity>,
    /// Sort keys of the spatial sort ([`NscdConfig::spatial_sort`]).
    pub(crate) sort_keys: Vec<(u64, u32)>,
    pub(crate) rng: ChaCha8Rng,
    pub(crate) saved_kinematic: Vec<(usize, DVec3, DQuat)>,
    pub(crate) updates: u64,
    /// Whether the steps publish their contacts ([`Solver::publish_contacts`]).
    pub(crate) publish: bool,
    /// Whether the last step published its contacts.
    pub(crate) published_last: bool,
    /// The contacts of the last step, if it published them.
    pub(crate) published: Vec<ContactRecord>,
    /// Work arrays of the block solve of hyperstatic pairs.
    pub(crate) pair_lock: PairLock,
    /// Work arrays of the joint shock of a multiple impact.
    pub(crate) joint: JointImpact,
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
            best: Vec::new(),
            free: Vec::new(),
            sort_keys: Vec::new(),
            rng,
            saved_kinematic: Vec::new(),
            updates: 0,
            publish: false,
            published_last: false,
            published: Vec::new(),
            pair_lock: PairLock::default(),
            joint: JointImpact::default(),
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

    /// The natural-map residual of the last step's solution as Siconos defines it
    /// (`residual`), or `None` when the law is not Signorini-Coulomb's. A contact with an
    /// impact process (Poisson's or Stronge's law, [`NonSmoothLaw::impact`]) contributes the
    /// change its own local solve would still make, in velocity units.
    pub fn natural_map_residual(&self) -> Option<f64> {
        natural_map_residual(&self.law, &self.contacts, &self.vel)
    }

    /// The last step's frictional contact problem (W, q, μ) with its solution, in the form
    /// Siconos reads (`fc3d_raw`), for comparing solvers on identical problems; `None` when
    /// the law is not Signorini-Coulomb's or a contact of the step had an impact process.
    pub fn contact_problem(&self) -> Option<ContactProblem> {
        let u: Vec<DVec3> = self
            .contacts
            .hot
            .iter()
            .map(|c| {
                let (v1, v2) = (self.vel[c.body1 as usize], self.vel[c.body2 as usize]);
                c.to_local(point_relative_velocity(v1.v, v1.w, c.l1, v2.v, v2.w, c.l2))
            })
            .collect();
        crate::problem_export::assemble(&self.law, &self.contacts, &self.mob, &u)
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
    fn contacts(&self) -> Option<&[ContactRecord]> {
        self.published_last.then_some(self.published.as_slice())
    }

    fn step(&mut self, mut ctx: StepContext<'_>) -> Result<StepReport, NscdError> {
        let dt = ctx.dt;
        self.config.validate()?;
        self.law.validate()?;
        check_materials(ctx.materials)?;
        self.prepare(&mut ctx)?;
        let (iterations, converged, residual) = self.iterate(dt);
        let mut report = self.finish(ctx.bodies, ctx.gravity, ctx.time, dt);
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
