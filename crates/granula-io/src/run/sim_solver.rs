//! The solver of a scene behind one object-safe trait, so the driver is written once for
//! both families. The per-contact work stays inside the concrete, generic solvers.

use super::adapters::{AnyBroadphase, AnyIntegrator};
use crate::error::{IoError, Result};
use crate::scene::spec::{MdSpec, NscdSpec, SolverSpec};
use crate::scene::Scene;
use granula_core::{ContactLaw, ContactRecord, CoreError, Solver, StepReport, World};
use granula_laws::{
    Composed, ConstantCohesion, CundallStrack, DampingCoefficient, Friction, Hertz, HertzViscous, HuntCrossley,
    LinearSpring, LinearViscous, LocalDamping, NoFriction, RollingResistance, TangentialDamping, TangentialStiffness,
    TensionPolicy, TwistingResistance, ViscousFriction,
};
use granula_md::{MdConfig, MdSolver, MdState};
use granula_nscd::{
    Criterion, GapMode, NonConvergence, NonSmoothLaw, NscdConfig, NscdSolver, NscdState, Restitution, SignoriniCoulomb,
    SweepOrder,
};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// What the run driver needs of a solver.
pub trait SimSolver {
    /// A description, e.g. `md(hertz+hertz_viscous+cundall_strack, velocity_verlet, sweep_and_prune)`.
    fn describe(&self) -> String;
    /// One step through [`World::step`].
    fn step(&mut self, world: &mut World, dt: f64) -> Result<StepReport, CoreError>;
    /// Whether the next steps must publish what [`SimSolver::contacts`] reads (the driver
    /// turns it on before a step whose contacts are written):
    /// [`Solver::publish_contacts`](granula_core::Solver::publish_contacts).
    fn publish_contacts(&mut self, on: bool);
    /// The contacts the solver published for its last step
    /// ([`Solver::contacts`](granula_core::Solver::contacts)); empty unless
    /// [`SimSolver::publish_contacts`] was on for that step.
    fn contacts(&self) -> &[ContactRecord];
    /// The solver's own state (contact histories or warm-start impulses, integrator memory,
    /// random stream…) as bincode bytes, for a checkpoint taken after a step.
    fn save_state(&self) -> Vec<u8>;
    /// Restores [`SimSolver::save_state`]'s bytes into a fresh solver built from the same
    /// scene, for the world restored from the same checkpoint; the error says what is wrong.
    fn restore_state(&mut self, bytes: &[u8], world: &World) -> std::result::Result<(), String>;
    /// `true` when a fresh solver with [`SimSolver::restore_state`] continues a restored
    /// world bit-identically. Every built-in solver does (tested for each family).
    fn restarts_exactly(&self) -> bool {
        true
    }
}

/// The MD solver of a scene.
pub struct MdRun<L: ContactLaw> {
    /// The solver.
    pub solver: MdSolver<L, AnyIntegrator, AnyBroadphase>,
}

impl<L: ContactLaw> SimSolver for MdRun<L>
where
    L::History: Serialize + DeserializeOwned,
{
    fn describe(&self) -> String {
        let s = &self.solver;
        format!("md({}, {})", s.law.name(), granula_core::Integrator::name(&s.integrator))
    }

    fn step(&mut self, world: &mut World, dt: f64) -> Result<StepReport, CoreError> {
        world.step(&mut self.solver, dt)
    }

    fn publish_contacts(&mut self, on: bool) {
        Solver::publish_contacts(&mut self.solver, on);
    }

    fn contacts(&self) -> &[ContactRecord] {
        Solver::contacts(&self.solver)
    }

    /// Contact histories and stored energies by key, the integrator's memory and the
    /// kinematic power ([`MdState`](granula_md::MdState)).
    fn save_state(&self) -> Vec<u8> {
        // Serialising plain data into a Vec cannot fail.
        bincode::serialize(&self.solver.save_state()).unwrap_or_default()
    }

    fn restore_state(&mut self, bytes: &[u8], world: &World) -> std::result::Result<(), String> {
        let state: MdState<L::History> =
            bincode::deserialize(bytes).map_err(|e| format!("MD solver state unreadable: {e}"))?;
        self.solver.restore_state(&state, world).map_err(|e| format!("MD solver state rejected: {e}"))
    }
}

impl SimSolver for NscdSolver<AnyBroadphase> {
    fn describe(&self) -> String {
        let c = self.config();
        format!("nscd({}, theta = {}, {:?}, {:?})", self.law().name(), c.theta, c.criterion, c.sweep)
    }

    fn step(&mut self, world: &mut World, dt: f64) -> Result<StepReport, CoreError> {
        world.step(self, dt)
    }

    fn publish_contacts(&mut self, on: bool) {
        Solver::publish_contacts(self, on);
    }

    /// Mean forces over the step (impulses divided by Δt) at the detection configuration.
    fn contacts(&self) -> &[ContactRecord] {
        Solver::contacts(self)
    }

    /// Carried impulses and law states by key, and the random stream of the sweep
    /// ([`NscdState`](granula_nscd::NscdState)).
    fn save_state(&self) -> Vec<u8> {
        // Serialising plain data into a Vec cannot fail.
        bincode::serialize(&NscdSolver::save_state(self)).unwrap_or_default()
    }

    fn restore_state(&mut self, bytes: &[u8], world: &World) -> std::result::Result<(), String> {
        let state: NscdState<()> =
            bincode::deserialize(bytes).map_err(|e| format!("NSCD solver state unreadable: {e}"))?;
        NscdSolver::restore_state(self, &state, world).map_err(|e| format!("NSCD solver state rejected: {e}"))
    }
}

fn solver_err(e: impl std::fmt::Display) -> IoError {
    IoError::Solver(e.to_string())
}

fn md<L: ContactLaw + 'static>(law: L, s: &MdSpec) -> Result<Box<dyn SimSolver>>
where
    L::History: Serialize + DeserializeOwned,
{
    let local_damping =
        if s.local_damping > 0.0 { Some(LocalDamping::new(s.local_damping).map_err(solver_err)?) } else { None };
    let config = MdConfig { skin: s.skin, threads: s.threads, local_damping, ..Default::default() };
    let solver =
        MdSolver::new(law, AnyIntegrator::from_name(&s.integrator), AnyBroadphase::from_name(&s.broadphase), config)
            .map_err(solver_err)?;
    Ok(Box::new(MdRun { solver }))
}

fn md_with_normal<N, D>(normal: N, damping: D, s: &MdSpec) -> Result<Box<dyn SimSolver>>
where
    N: granula_laws::NormalModel + 'static,
    D: granula_laws::DampingModel + 'static,
    Composed<N, D, CundallStrack>: ContactLaw<History: Serialize + DeserializeOwned>,
    Composed<N, D, ViscousFriction>: ContactLaw<History: Serialize + DeserializeOwned>,
    Composed<N, D, NoFriction>: ContactLaw<History: Serialize + DeserializeOwned>,
    Composed<N, D, CundallStrack, Option<RollingResistance>, Option<TwistingResistance>, Option<ConstantCohesion>>:
        ContactLaw<History: Serialize + DeserializeOwned>,
{
    let (rolling, twisting, cohesion) = s.resistance_models();
    let tension = if s.tension == "allow" { TensionPolicy::AllowDampingTension } else { TensionPolicy::NoAttraction };
    let spring = cundall_strack(s)?;
    if rolling || twisting || cohesion {
        // One law type for the eight combinations (`granula_laws::optional`).
        let law = Composed::new(normal, damping, spring)
            .with_rolling(rolling.then(RollingResistance::from_material))
            .with_twisting(twisting.then(TwistingResistance::from_material))
            .with_cohesion(cohesion.then(ConstantCohesion::from_material))
            .with_tension(tension);
        return md(law, s);
    }
    match s.tangential.as_str() {
        "viscous" => {
            let t = ViscousFriction::new(s.tangential_viscosity, Friction::from_material()).map_err(solver_err)?;
            md(Composed::new(normal, damping, t).with_tension(tension), s)
        }
        "none" => md(Composed::new(normal, damping, NoFriction).with_tension(tension), s),
        _ => md(Composed::new(normal, damping, spring).with_tension(tension), s),
    }
}

/// The Cundall-Strack spring of `[solver] tangential_stiffness_ratio` and
/// `tangential_damping` (defaults: Mindlin's k_t/k_n, no dashpot).
fn cundall_strack(s: &MdSpec) -> Result<CundallStrack> {
    let stiffness = s.tangential_stiffness_ratio.map_or(TangentialStiffness::FromNormal, TangentialStiffness::Ratio);
    let damping = match s.tangential_damping.as_str() {
        "same_damping_ratio" => TangentialDamping::SameDampingRatio,
        "ratio" => TangentialDamping::Ratio(s.tangential_damping_ratio.unwrap_or(0.0)),
        _ => TangentialDamping::None,
    };
    CundallStrack::new(stiffness, damping, Friction::from_material()).map_err(solver_err)
}

/// The viscous coefficient of `[solver] damping` (all but `"hunt_crossley"`).
fn viscous_coefficient(s: &MdSpec) -> DampingCoefficient {
    match s.damping.as_str() {
        // The Tsuji form, which LIGGGHTS' hertz model uses: the linear oscillator's ratio.
        "tsuji" | "liggghts" => DampingCoefficient::FromRestitution(None),
        "fixed" => DampingCoefficient::Fixed(s.damping_coefficient.unwrap_or(0.0)),
        // Calibrated to the no-attraction clamp: a head-on impact rebounds with the pair's
        // restitution.
        _ => DampingCoefficient::FromRestitutionClamped(None),
    }
}

/// Builds the solver a scene asks for (parameters already validated by the scene).
pub fn build_solver(scene: &Scene) -> Result<Box<dyn SimSolver>> {
    match &scene.spec.solver {
        SolverSpec::Md(s) => {
            let hunt_crossley = s.damping == "hunt_crossley";
            match s.normal.as_str() {
                "hooke" => {
                    let k = s.normal_stiffness.unwrap_or(f64::NAN);
                    let normal = LinearSpring::new(k).map_err(solver_err)?;
                    if hunt_crossley {
                        return md_with_normal(normal, HuntCrossley::from_material(), s);
                    }
                    let damping = LinearViscous::new(viscous_coefficient(s)).map_err(solver_err)?;
                    md_with_normal(normal, damping, s)
                }
                _ if hunt_crossley => md_with_normal(Hertz::from_material(), HuntCrossley::from_material(), s),
                _ => {
                    let damping = HertzViscous::new(viscous_coefficient(s)).map_err(solver_err)?;
                    md_with_normal(Hertz::from_material(), damping, s)
                }
            }
        }
        SolverSpec::Nscd(s) => Ok(Box::new(nscd(s)?)),
    }
}

fn nscd(s: &NscdSpec) -> Result<NscdSolver<AnyBroadphase>> {
    let criterion = match s.criterion.as_str() {
        "global" => Criterion::GlobalMean { epsilon: s.tolerance, max_iterations: s.max_iterations },
        "fixed_iterations" => Criterion::Fixed { iterations: s.max_iterations },
        _ => Criterion::LocalRelative { epsilon: s.tolerance, cutoff: s.cutoff, max_iterations: s.max_iterations },
    };
    let sweep = match s.sweep.as_str() {
        "forward" => SweepOrder::Forward,
        "forward_backward" => SweepOrder::ForwardBackward,
        "symmetric_gravity" => SweepOrder::SymmetricGravity,
        "supports_outward" => SweepOrder::SupportsOutward,
        _ => SweepOrder::Random,
    };
    let config = NscdConfig {
        theta: s.theta,
        sweep,
        criterion,
        gap: if s.gap == "correcting" { GapMode::Correcting } else { GapMode::Positive },
        warm_start: s.warm_start,
        margin: s.margin,
        seed: s.seed,
        on_cap: match s.on_cap.as_str() {
            "error" => NonConvergence::Error,
            "extend" => NonConvergence::Extend { hard_cap: s.hard_cap.unwrap_or(s.max_iterations.saturating_mul(10)) },
            _ => NonConvergence::Warn,
        },
        relaxation: s.relaxation,
        momentum: s.momentum,
        ..Default::default()
    };
    // The coefficient is each pair's restitution, mixed as for MD (granula_core::material).
    let restitution = if s.impact == "newton" { Restitution::Newton } else { Restitution::None };
    NscdSolver::with_law(AnyBroadphase::from_name(&s.broadphase), SignoriniCoulomb { restitution }, config)
        .map_err(solver_err)
}
