//! The composition root: the solver a scene names, composed from the law, integrator and
//! broadphase crates. Every choice of `[solver]` is an enum matched exhaustively here, so a
//! new choice cannot fall back to a default unnoticed; a parameter a choice needs and the
//! scene lacks is an error naming the key (the scene's validation refuses it first).

use crate::adapters::{AnyBroadphase, AnyIntegrator, AnyMemoryless, AnyNormal, AnySpring, AnyViscous};
use crate::sim_solver::{MdRun, SimSolver};
use granula_core::ContactLaw;
use granula_io::scene::spec::{
    CohesionRuleKind, CriterionKind, DampingKind, GapKind, ImpactKind, LoadOrderKind, MdSpec, NormalKind, NscdLawKind,
    NscdSpec, OnCapKind, SolverSpec, SweepKind, TangentialDampingKind, TangentialKind, TensionKind,
};
use granula_io::scene::{Check, KeyPath};
use granula_io::{IoError, Result, Scene};
use granula_laws::{
    AreaSpring, BrendelDippel, Composed, ConstantCohesion, CundallStrack, DampingCoefficient, DampingModel, Friction,
    Hertz, HertzViscous, HertzViscousImpulse, HuntCrossley, LinearSpring, LinearViscous, LocalDamping, NoFriction,
    PlanarCundall, PlanarPredictor, ReducedMassViscous, RollingResistance, TangentialDamping, TangentialStiffness,
    TensionPolicy, TwistingResistance, UnboundedCundallStrack, ViscousFriction, VolumeEnergy, VolumetricSpring,
};
use granula_md::{LoadOrder, MdConfig, MdSolver};
use granula_nscd::{
    CohesionRule, CohesiveSignoriniCoulomb, Criterion, GapMode, ImpactLaw, NonConvergence, NonSmoothLaw, NscdConfig,
    NscdSolver, Restitution, RollingSignoriniCoulomb, SignoriniCoulomb, SweepOrder,
};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Builds the solver a scene asks for. The scene's validation has checked every value; a
/// parameter missing from a spec built in code is an error naming its key.
pub fn build_solver(scene: &Scene) -> Result<Box<dyn SimSolver>> {
    match &scene.spec.solver {
        SolverSpec::Md(s) => md_solver(scene, s),
        SolverSpec::Nscd(s) => nscd_solver(scene, s),
    }
}

/// An error at `[solver] key` of the scene, with its line when the key is in the text.
fn invalid(scene: &Scene, key: &'static str, value: impl std::fmt::Debug, problem: &str) -> IoError {
    let c = Check::new(&scene.file, &scene.text, Vec::new());
    c.invalid(&KeyPath::root().key("solver").key(key), value, problem)
}

fn solver_err(e: impl std::fmt::Display) -> IoError {
    IoError::Solver(e.to_string())
}

/// The normal damping of `[solver] damping`: a viscous coefficient, or Hunt-Crossley.
enum NormalDamping {
    Viscous(DampingCoefficient),
    /// The Hertz dashpot of this coefficient with its impulse integrated over the step.
    ViscousImpulse(DampingCoefficient),
    HuntCrossley,
    /// The viscous force of 002 eqs. 2-3 with the rate of the scene's linear contact.
    ReducedMass(ReducedMassViscous),
}

fn normal_damping(scene: &Scene, s: &MdSpec) -> Result<NormalDamping> {
    Ok(match s.damping {
        // Calibrated to the no-attraction clamp: a head-on impact rebounds with the pair's
        // restitution.
        DampingKind::Calibrated => NormalDamping::Viscous(DampingCoefficient::FromRestitutionClamped(None)),
        DampingKind::CalibratedImpulse => match s.normal {
            NormalKind::Hertz => NormalDamping::ViscousImpulse(DampingCoefficient::FromRestitutionClamped(None)),
            NormalKind::Hooke | NormalKind::Volumetric | NormalKind::VolumeEnergy | NormalKind::Area => {
                return Err(invalid(
                    scene,
                    "damping",
                    "calibrated_impulse",
                    "integrates the Hertz dashpot: needs `normal = \"hertz\"`",
                ))
            }
        },
        // The Tsuji form, which LIGGGHTS' hertz model uses: the linear oscillator's ratio.
        DampingKind::Tsuji | DampingKind::Liggghts => NormalDamping::Viscous(DampingCoefficient::FromRestitution(None)),
        DampingKind::HuntCrossley => NormalDamping::HuntCrossley,
        // 002 eqs. 2-3 with the rate of 002 eq. 8, which the scene's validation computed.
        DampingKind::ReducedMass => match &scene.linear_contact {
            Some(lc) => NormalDamping::ReducedMass(ReducedMassViscous::new(lc.damping_rate).map_err(solver_err)?),
            None => return Err(invalid(scene, "damping", "reduced_mass", "needs a scene validated by Scene::parse")),
        },
        DampingKind::Fixed => match s.damping_coefficient {
            Some(g) => NormalDamping::Viscous(DampingCoefficient::Fixed(g)),
            None => return Err(invalid(scene, "damping", "fixed", "needs `damping_coefficient` (N s/m)")),
        },
    })
}

/// The linear spring of `normal = "hooke"`, of stiffness `normal_stiffness`.
fn hooke_spring(scene: &Scene, s: &MdSpec) -> Result<LinearSpring> {
    let Some(k) = s.normal_stiffness else {
        return Err(invalid(scene, "normal", "hooke", "needs `normal_stiffness` (N/m)"));
    };
    LinearSpring::new(k).map_err(|e| invalid(scene, "normal_stiffness", k, &e.to_string()))
}

/// The overlap-area spring of `normal = "area"` (002 eq. 5), of stiffness
/// `normal_stiffness`; only in a planar scene.
fn area_spring(scene: &Scene, s: &MdSpec) -> Result<AreaSpring> {
    if !scene.spec.simulation.planar {
        return Err(invalid(scene, "normal", "area", granula_io::scene::PLANAR_ONLY));
    }
    let Some(k) = s.normal_stiffness else {
        return Err(invalid(scene, "normal", "area", "needs `normal_stiffness` (N/m)"));
    };
    AreaSpring::new(k).map_err(|e| invalid(scene, "normal_stiffness", k, &e.to_string()))
}

fn md_solver(scene: &Scene, s: &MdSpec) -> Result<Box<dyn SimSolver>> {
    let damping = normal_damping(scene, s)?;
    match (s.normal, damping) {
        (NormalKind::Area, NormalDamping::ReducedMass(d)) => {
            md_with_normal(scene, AnyNormal::Area(area_spring(scene, s)?), AnyViscous::from(d), s)
        }
        (NormalKind::Area, NormalDamping::Viscous(c @ DampingCoefficient::Fixed(_))) => md_with_normal(
            scene,
            AnyNormal::Area(area_spring(scene, s)?),
            AnyViscous::from(LinearViscous::new(c).map_err(solver_err)?),
            s,
        ),
        (NormalKind::Area, NormalDamping::HuntCrossley) => {
            md_with_normal(scene, AnyNormal::Area(area_spring(scene, s)?), HuntCrossley::from_material(), s)
        }
        (NormalKind::Area, _) => Err(invalid(
            scene,
            "damping",
            granula_io::scene::spec::choice_name(&s.damping),
            "normal = \"area\" takes damping = \"reduced_mass\", \"fixed\" or \"hunt_crossley\"",
        )),
        (NormalKind::Hooke, NormalDamping::ReducedMass(d)) => {
            md_with_normal(scene, AnyNormal::Linear(hooke_spring(scene, s)?), AnyViscous::from(d), s)
        }
        (NormalKind::Hertz | NormalKind::Volumetric | NormalKind::VolumeEnergy, NormalDamping::ReducedMass(_)) => {
            Err(invalid(
                scene,
                "damping",
                "reduced_mass",
                "calibrates a linear spring (002 eq. 8): needs normal = \"area\" or \"hooke\"",
            ))
        }
        (NormalKind::Hertz, NormalDamping::Viscous(c)) => md_with_normal(
            scene,
            AnyNormal::Hertz(Hertz::from_material()),
            AnyViscous::from(HertzViscous::new(c).map_err(solver_err)?),
            s,
        ),
        (NormalKind::Hertz, NormalDamping::ViscousImpulse(c)) => {
            let sampled = HertzViscous::new(c).map_err(solver_err)?;
            md_with_normal(scene, AnyNormal::Hertz(Hertz::from_material()), HertzViscousImpulse::new(sampled), s)
        }
        (NormalKind::Hooke, NormalDamping::ViscousImpulse(_)) => Err(invalid(
            scene,
            "damping",
            "calibrated_impulse",
            "integrates the Hertz dashpot: needs `normal = \"hertz\"`",
        )),
        (NormalKind::Hertz, NormalDamping::HuntCrossley) => {
            md_with_normal(scene, AnyNormal::Hertz(Hertz::from_material()), HuntCrossley::from_material(), s)
        }
        (NormalKind::Hooke, NormalDamping::Viscous(c)) => md_with_normal(
            scene,
            AnyNormal::Linear(hooke_spring(scene, s)?),
            AnyViscous::from(LinearViscous::new(c).map_err(solver_err)?),
            s,
        ),
        (NormalKind::Hooke, NormalDamping::HuntCrossley) => {
            md_with_normal(scene, AnyNormal::Linear(hooke_spring(scene, s)?), HuntCrossley::from_material(), s)
        }
        (NormalKind::Volumetric, NormalDamping::HuntCrossley) => {
            md_with_normal(scene, AnyNormal::Volumetric(volumetric_spring(scene, s)?), HuntCrossley::from_material(), s)
        }
        (NormalKind::Volumetric, NormalDamping::Viscous(c @ DampingCoefficient::Fixed(_))) => md_with_normal(
            scene,
            AnyNormal::Volumetric(volumetric_spring(scene, s)?),
            AnyViscous::from(LinearViscous::new(c).map_err(solver_err)?),
            s,
        ),
        (NormalKind::VolumeEnergy, NormalDamping::HuntCrossley) => {
            md_with_normal(scene, AnyNormal::VolumeEnergy(volume_energy(scene, s)?), HuntCrossley::from_material(), s)
        }
        (NormalKind::VolumeEnergy, NormalDamping::Viscous(c @ DampingCoefficient::Fixed(_))) => md_with_normal(
            scene,
            AnyNormal::VolumeEnergy(volume_energy(scene, s)?),
            AnyViscous::from(LinearViscous::new(c).map_err(solver_err)?),
            s,
        ),
        (NormalKind::Volumetric | NormalKind::VolumeEnergy, _) => Err(invalid(
            scene,
            "damping",
            granula_io::scene::spec::choice_name(&s.damping),
            &format!(
                "normal = \"{}\" takes damping = \"hunt_crossley\" or \"fixed\"",
                granula_io::scene::spec::choice_name(&s.normal)
            ),
        )),
    }
}

/// The conservative overlap-volume law of `normal = "volume_energy"`: k_V =
/// `volume_stiffness`, or E*/R* per contact without it.
fn volume_energy(scene: &Scene, s: &MdSpec) -> Result<VolumeEnergy> {
    match s.volume_stiffness {
        Some(k) => VolumeEnergy::new(k).map_err(|e| invalid(scene, "volume_stiffness", k, &e.to_string())),
        None => Ok(VolumeEnergy::from_material()),
    }
}

/// The overlap-volume spring of `normal = "volumetric"`: k_V = `volume_stiffness`, or
/// E*/R* per contact without it.
fn volumetric_spring(scene: &Scene, s: &MdSpec) -> Result<VolumetricSpring> {
    match s.volume_stiffness {
        Some(k) => VolumetricSpring::new(k).map_err(|e| invalid(scene, "volume_stiffness", k, &e.to_string())),
        None => Ok(VolumetricSpring::from_material()),
    }
}

fn md<L: ContactLaw + 'static>(law: L, s: &MdSpec) -> Result<Box<dyn SimSolver>>
where
    L::History: Serialize + DeserializeOwned,
{
    let local_damping =
        if s.local_damping > 0.0 { Some(LocalDamping::new(s.local_damping).map_err(solver_err)?) } else { None };
    let load_order = match s.load_order {
        LoadOrderKind::Blocks => LoadOrder::Blocks,
        LoadOrderKind::Partner => LoadOrder::Partner,
    };
    let config = MdConfig {
        skin: s.skin,
        threads: s.threads,
        local_damping,
        load_order,
        reorder_every: s.reorder_every,
        ..Default::default()
    };
    let solver =
        MdSolver::new(law, AnyIntegrator::from_name(s.integrator), AnyBroadphase::from_name(s.broadphase), config)
            .map_err(solver_err)?;
    Ok(Box::new(MdRun { solver }))
}

fn md_with_normal<D>(scene: &Scene, normal: AnyNormal, damping: D, s: &MdSpec) -> Result<Box<dyn SimSolver>>
where
    D: DampingModel + 'static,
    Composed<AnyNormal, D, AnySpring>: ContactLaw<History: Serialize + DeserializeOwned>,
    Composed<AnyNormal, D, UnboundedCundallStrack>: ContactLaw<History: Serialize + DeserializeOwned>,
    Composed<AnyNormal, D, AnyMemoryless>: ContactLaw<History: Serialize + DeserializeOwned>,
    Composed<AnyNormal, D, PlanarPredictor>: ContactLaw<History: Serialize + DeserializeOwned>,
    Composed<
        AnyNormal,
        D,
        CundallStrack,
        Option<RollingResistance>,
        Option<TwistingResistance>,
        Option<ConstantCohesion>,
    >: ContactLaw<History: Serialize + DeserializeOwned>,
{
    let (rolling, twisting, cohesion) = s.resistance_models();
    let tension = match s.tension {
        TensionKind::NoAttraction => TensionPolicy::NoAttraction,
        TensionKind::Allow => TensionPolicy::AllowDampingTension,
    };
    match s.tangential {
        TangentialKind::CundallStrack if rolling || twisting || cohesion => {
            // One law type for the eight combinations (`granula_laws::optional`).
            let law = Composed::new(normal, damping, cundall_strack(scene, s)?)
                .with_rolling(rolling.then(RollingResistance::from_material))
                .with_twisting(twisting.then(TwistingResistance::from_material))
                .with_cohesion(cohesion.then(ConstantCohesion::from_material))
                .with_tension(tension);
            md(law, s)
        }
        TangentialKind::CundallStrack => {
            let t = AnySpring::CundallStrack(cundall_strack(scene, s)?);
            md(Composed::new(normal, damping, t).with_tension(tension), s)
        }
        TangentialKind::UnboundedCundallStrack => {
            let t = cundall_strack(scene, s)?;
            let t = UnboundedCundallStrack::new(t.stiffness, t.damping, t.friction).map_err(solver_err)?;
            md(Composed::new(normal, damping, t).with_tension(tension), s)
        }
        TangentialKind::BrendelDippel => {
            let t = cundall_strack(scene, s)?;
            let t =
                AnySpring::BrendelDippel(BrendelDippel::new(t.stiffness, t.damping, t.friction).map_err(solver_err)?);
            md(Composed::new(normal, damping, t).with_tension(tension), s)
        }
        TangentialKind::Viscous => {
            let t = ViscousFriction::new(s.tangential_viscosity, Friction::from_material()).map_err(solver_err)?;
            md(Composed::new(normal, damping, AnyMemoryless::Viscous(t)).with_tension(tension), s)
        }
        TangentialKind::None => {
            md(Composed::new(normal, damping, AnyMemoryless::None(NoFriction)).with_tension(tension), s)
        }
        TangentialKind::PlanarCundall => {
            let (k, d) = planar_spring(scene, s, "planar_cundall")?;
            let t = AnySpring::PlanarCundall(PlanarCundall::new(k, d, Friction::from_material()).map_err(solver_err)?);
            md(Composed::new(normal, damping, t).with_tension(tension), s)
        }
        TangentialKind::PlanarPredictor => {
            let (k, d) = planar_spring(scene, s, "planar_predictor")?;
            let t = PlanarPredictor::new(k, d, Friction::from_material()).map_err(solver_err)?;
            md(Composed::new(normal, damping, t).with_tension(tension), s)
        }
    }
}

/// The stiffness and dashpot of the tangential springs of the planar world, Cundall's (002
/// eqs. 6-7) and the predictor's (002 §4), `name` in messages: k_t =
/// `tangential_stiffness_ratio` × `normal_stiffness` (a constant, as 002's), the dashpot
/// ν_t/ν_n = k_t/k_n on the normal coefficient ("we always take ν_t/ν_n = k_t/k_n", 002 §2).
fn planar_spring(scene: &Scene, s: &MdSpec, name: &str) -> Result<(TangentialStiffness, TangentialDamping)> {
    if !scene.spec.simulation.planar {
        return Err(invalid(scene, "tangential", name, granula_io::scene::PLANAR_ONLY));
    }
    let (Some(ratio), Some(k)) = (s.tangential_stiffness_ratio, s.normal_stiffness) else {
        return Err(invalid(scene, "tangential", name, "needs `tangential_stiffness_ratio` and `normal_stiffness`"));
    };
    Ok((TangentialStiffness::Fixed(ratio * k), TangentialDamping::Ratio(ratio)))
}

/// The Cundall-Strack spring of `[solver] tangential_stiffness_ratio` and
/// `tangential_damping` (defaults: Mindlin's k_t/k_n, no dashpot); the springs of 003 eq. 4
/// and eqs. 5-6 take the same settings.
fn cundall_strack(scene: &Scene, s: &MdSpec) -> Result<CundallStrack> {
    let stiffness = s.tangential_stiffness_ratio.map_or(TangentialStiffness::FromNormal, TangentialStiffness::Ratio);
    let damping = match (s.tangential_damping, s.tangential_damping_ratio) {
        (TangentialDampingKind::None, _) => TangentialDamping::None,
        (TangentialDampingKind::SameDampingRatio, _) => TangentialDamping::SameDampingRatio,
        (TangentialDampingKind::Ratio, Some(r)) => TangentialDamping::Ratio(r),
        (TangentialDampingKind::Ratio, None) => {
            return Err(invalid(scene, "tangential_damping", "ratio", "needs `tangential_damping_ratio`"));
        }
    };
    CundallStrack::new(stiffness, damping, Friction::from_material()).map_err(solver_err)
}

/// The θ-method's settings of an NSCD `[solver]`.
fn nscd_config(s: &NscdSpec) -> NscdConfig {
    let criterion = match s.criterion {
        CriterionKind::Local => {
            Criterion::LocalRelative { epsilon: s.tolerance, cutoff: s.cutoff, max_iterations: s.max_iterations }
        }
        CriterionKind::Global => Criterion::GlobalMean { epsilon: s.tolerance, max_iterations: s.max_iterations },
        CriterionKind::FixedIterations => Criterion::Fixed { iterations: s.max_iterations },
        CriterionKind::NaturalMap => Criterion::NaturalMap { epsilon: s.tolerance, max_iterations: s.max_iterations },
    };
    let sweep = match s.sweep {
        SweepKind::Random => SweepOrder::Random,
        SweepKind::Forward => SweepOrder::Forward,
    };
    let gap = match s.gap {
        GapKind::Positive => GapMode::Positive,
        GapKind::Correcting => GapMode::Correcting,
    };
    let on_cap = match s.on_cap {
        OnCapKind::Warn => NonConvergence::Warn,
        OnCapKind::Error => NonConvergence::Error,
        // The documented default of `hard_cap`: ten times `max_iterations`.
        OnCapKind::Extend => {
            NonConvergence::Extend { hard_cap: s.hard_cap.unwrap_or(s.max_iterations.saturating_mul(10)) }
        }
    };
    NscdConfig {
        theta: s.theta,
        sweep,
        criterion,
        gap,
        warm_start: s.warm_start,
        margin: s.margin,
        seed: s.seed,
        on_cap,
        momentum: s.momentum,
        ..Default::default()
    }
}

fn nscd_solver(scene: &Scene, s: &NscdSpec) -> Result<Box<dyn SimSolver>> {
    // The coefficient is each pair's restitution, mixed as for MD (granula_core::material).
    let restitution = match s.impact {
        ImpactKind::None => Restitution::None,
        ImpactKind::Newton => Restitution::Pair(ImpactLaw::Newton),
        ImpactKind::Poisson => Restitution::Pair(ImpactLaw::Poisson),
        ImpactKind::Stronge => Restitution::Pair(ImpactLaw::Stronge),
    };
    let shock = SignoriniCoulomb { restitution };
    match (s.law, s.impact) {
        (NscdLawKind::SignoriniCoulomb, _) => nscd(shock, s),
        (NscdLawKind::Rolling, _) => nscd(RollingSignoriniCoulomb { shock }, s),
        (NscdLawKind::Cohesive, ImpactKind::None) => {
            let rule = match s.cohesion_rule.unwrap_or_default() {
                CohesionRuleKind::Rectangle => CohesionRule::Rectangle,
                CohesionRuleKind::FullPull => CohesionRule::FullPull,
            };
            nscd(CohesiveSignoriniCoulomb { rule }, s)
        }
        (NscdLawKind::Cohesive, impact) => {
            Err(invalid(scene, "impact", impact.name(), "the cohesive law is inelastic: use impact = \"none\""))
        }
    }
}

fn nscd<L>(law: L, s: &NscdSpec) -> Result<Box<dyn SimSolver>>
where
    L: NonSmoothLaw + 'static,
    L::State: Serialize + DeserializeOwned,
{
    let solver =
        NscdSolver::with_law(AnyBroadphase::from_name(s.broadphase), law, nscd_config(s)).map_err(solver_err)?;
    Ok(Box::new(solver))
}
