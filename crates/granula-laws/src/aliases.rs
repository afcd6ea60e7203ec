//! A handful of named compositions and their constructors.

use crate::composed::Composed;
use crate::damping::{DampingCoefficient, HertzViscous, HuntCrossley, LinearViscous, ReducedMassViscous};
use crate::error::LawError;
use crate::normal::{AreaSpring, Hertz, LinearSpring, PowerLaw};
use crate::submodel::{NoFriction, TensionPolicy};
use crate::tangential::{
    BrendelDippel, CundallStrack, Friction, PlanarCundall, PlanarPredictor, PredictorElongation, RotationalIncrement,
    TangentialDamping, TangentialStiffness, ViscousFriction,
};

/// Hertz-Mindlin with history: Hertz normal force, Tsuji damping from restitution, and the
/// Cundall-Strack spring with k_t = 2(1 − ν)/(2 − ν) K_n (Mindlin), everything from the
/// pair material. The "dense" benchmark law; [`hertz_mindlin`] calibrates the damping to the
/// no-attraction clamp.
pub type HertzMindlin = Composed<Hertz, HertzViscous, CundallStrack>;

/// Linear spring-dashpot with a Cundall-Strack spring (002 §2).
pub type LinearCundallStrack = Composed<LinearSpring, LinearViscous, CundallStrack>;

/// Linear spring-dashpot with the predictor-based elongation of 002 eqs. 14-15.
pub type LinearPredictor = Composed<LinearSpring, LinearViscous, PredictorElongation>;

/// The law of 003: Kelvin-Voigt / Hunt-Crossley normal force (003 eq. 3) with Brendel-Dippel
/// friction (003 eqs. 5-6).
pub type HuntCrossleyBrendelDippel = Composed<PowerLaw, HuntCrossley, BrendelDippel>;

/// Linear spring-dashpot with viscous Coulomb friction (004 §2.2.1).
pub type LinearViscousCoulomb = Composed<LinearSpring, LinearViscous, ViscousFriction>;

/// The normal law of 002 §2 in the planar world: the overlap-area spring (002 eq. 5) and
/// the viscous force with the reduced mass (002 eqs. 2-3), frictionless.
pub type PlanarAreaLaw = Composed<AreaSpring, ReducedMassViscous, NoFriction>;

/// [`PlanarAreaLaw`] with stiffness k_n (N/m) and damping rate ν_n (1/s), the force not
/// clamped at zero ([`TensionPolicy::AllowDampingTension`]: the viscous part may pull at
/// the end of a contact, as in 002). With Cundall's tangential spring it is
/// [`planar_friction_law`], with the predictor-based elongation [`planar_predictor_law`].
pub fn planar_area_law(stiffness: f64, damping_rate: f64) -> Result<PlanarAreaLaw, LawError> {
    Ok(Composed::new(AreaSpring::new(stiffness)?, ReducedMassViscous::new(damping_rate)?, NoFriction)
        .with_tension(TensionPolicy::AllowDampingTension))
}

/// The whole contact law of 002 §2 in the planar world: the overlap-area spring (002 eq. 5),
/// the viscous force with the reduced mass (002 eqs. 2-3) and Cundall's tangential spring
/// with its Coulomb limit on the elastic forces (002 eqs. 6-7, [`PlanarCundall`]).
pub type PlanarFrictionLaw = Composed<AreaSpring, ReducedMassViscous, PlanarCundall>;

/// [`PlanarFrictionLaw`] with 002's parameters: normal stiffness k_n (N/m), normal damping rate ν_n (1/s),
/// k_t = `kt_over_kn` k_n (a constant, [`TangentialStiffness::Fixed`]) and
/// ν_t = `kt_over_kn` ν_n ("we always take ν_t/ν_n = k_t/k_n", 002 §2), and one friction
/// coefficient μ for sticking and sliding. The force is not clamped at zero
/// ([`TensionPolicy::AllowDampingTension`]), as in [`planar_area_law`].
pub fn planar_friction_law(
    stiffness: f64,
    damping_rate: f64,
    kt_over_kn: f64,
    friction: f64,
) -> Result<PlanarFrictionLaw, LawError> {
    planar_law("planar_cundall", stiffness, damping_rate, kt_over_kn, friction, PlanarCundall::new)
}

/// The law of 002 §2 with the tangential model `make` (named `model` in errors) built from
/// k_t = `kt_over_kn` k_n, ν_t/ν_n = `kt_over_kn` and one μ, not clamped at zero: what
/// [`planar_friction_law`] and [`planar_predictor_law`] share.
fn planar_law<T>(
    model: &'static str,
    stiffness: f64,
    damping_rate: f64,
    kt_over_kn: f64,
    friction: f64,
    make: impl FnOnce(TangentialStiffness, TangentialDamping, Friction) -> Result<T, LawError>,
) -> Result<Composed<AreaSpring, ReducedMassViscous, T>, LawError> {
    let normal = AreaSpring::new(stiffness)?;
    crate::error::positive(model, "stiffness_ratio", kt_over_kn)?;
    let tangential = make(
        TangentialStiffness::Fixed(kt_over_kn * stiffness),
        TangentialDamping::Ratio(kt_over_kn),
        Friction::new(friction, friction)?,
    )?;
    Ok(Composed::new(normal, ReducedMassViscous::new(damping_rate)?, tangential)
        .with_tension(TensionPolicy::AllowDampingTension))
}

/// The contact law of 002 §2 with the predictor-based elongation of 002 §4 in place of
/// Cundall's increment: the overlap-area spring (002 eq. 5), the viscous force with the
/// reduced mass (002 eqs. 2-3) and [`PlanarPredictor`] (002 eqs. 14-15, polygon form), whose
/// Coulomb limit and dashpot are those of [`PlanarFrictionLaw`].
pub type PlanarPredictorLaw = Composed<AreaSpring, ReducedMassViscous, PlanarPredictor>;

/// [`PlanarPredictorLaw`] with the parameters of [`planar_friction_law`] (k_n, ν_n,
/// k_t = `kt_over_kn` k_n, ν_t = `kt_over_kn` ν_n, one μ; the force not clamped at zero):
/// the same law but for the rule that advances ξ (002 eqs. 14-15 instead of 002 eq. 7).
/// Run it under the Gear predictor-corrector (002 Appendix A), which evaluates forces at
/// the predicted positions.
pub fn planar_predictor_law(
    stiffness: f64,
    damping_rate: f64,
    kt_over_kn: f64,
    friction: f64,
) -> Result<PlanarPredictorLaw, LawError> {
    planar_law("planar_predictor", stiffness, damping_rate, kt_over_kn, friction, PlanarPredictor::new)
}

/// [`HertzMindlin`] with every parameter from the pair material, and the Tsuji damping ratio
/// calibrated so that the head-on restitution under the default no-attraction clamp is the
/// material's ([`HertzViscous::calibrated_from_material`]): the value LIGGGHTS' hertz model,
/// which lets the damping pull, gives for the same material. For the plain Tsuji ratio
/// (restitution 0.550 for 0.5 under the clamp) compose with [`HertzViscous::from_material`].
///
/// ```
/// use granula_core::ContactLaw;
/// use granula_laws::prelude::*;
///
/// # use granula_core::{ContactKinematics, DVec3, Material, PairMaterial};
/// # let material = PairMaterial::mix(&Material::default(), &Material::default());
/// # let contact = |overlap: f64, relative_velocity: DVec3| ContactKinematics {
/// #     normal: DVec3::Z,
/// #     overlap,
/// #     relative_velocity,
/// #     relative_angular_velocity: DVec3::ZERO,
/// #     branch1: DVec3::new(0.0, 0.0, 0.01),
/// #     branch2: DVec3::new(0.0, 0.0, -0.01),
/// #     effective_radius: 0.005,
/// #     effective_mass: 0.005,
/// #     material: &material,
/// #     pair: &(),
/// #     dt: 1e-6,
/// #     rotation1: DVec3::ZERO,
/// #     rotation2: DVec3::ZERO,
/// #     overlap_volume: 0.0,
/// # };
/// let law = hertz_mindlin();
/// let mut history = Default::default();
/// // Approaching at 0.1 m/s (body 2 moves towards body 1, against the normal): the damping
/// // adds to the elastic force and dissipates energy.
/// let approaching = law.force(&contact(1e-6, DVec3::new(0.0, 0.0, -0.1)), &mut history);
/// let at_rest = law.force(&contact(1e-6, DVec3::ZERO), &mut Default::default());
/// assert!(approaching.force.z > at_rest.force.z && at_rest.force.z > 0.0);
/// assert!(approaching.dissipated.normal > 0.0);
/// // Its contact duration sets the time step: granula_laws::params gives t_c for a pair.
/// # let _ = law;
/// ```
pub fn hertz_mindlin() -> HertzMindlin {
    Composed::new(Hertz::from_material(), HertzViscous::calibrated_from_material(), CundallStrack::from_material())
}

/// [`HertzMindlin`] with a tangential dashpot at the normal damping ratio
/// ([`TangentialDamping::SameDampingRatio`]): the Hertz-Mindlin variant of LIGGGHTS'
/// hertz/history model (tangential damping on), for side-by-side runs.
pub fn hertz_mindlin_damped() -> HertzMindlin {
    Composed::new(
        Hertz::from_material(),
        HertzViscous::calibrated_from_material(),
        CundallStrack { damping: TangentialDamping::SameDampingRatio, ..CundallStrack::from_material() },
    )
}

/// [`LinearCundallStrack`] with normal stiffness `k_n` (N/m), damping from the material's
/// restitution, k_t = `kt_over_kn` k_n and γ_t/γ_n = k_t/k_n as in 002 §2, friction from the
/// material.
pub fn linear_cundall_strack(k_n: f64, kt_over_kn: f64) -> Result<LinearCundallStrack, LawError> {
    Ok(Composed::new(
        LinearSpring::new(k_n)?,
        LinearViscous::new(DampingCoefficient::FromRestitution(None))?,
        CundallStrack::new(
            TangentialStiffness::Ratio(kt_over_kn),
            TangentialDamping::Ratio(kt_over_kn),
            Friction::from_material(),
        )?,
    ))
}

/// [`LinearPredictor`] with the settings of [`linear_cundall_strack`] (normal stiffness
/// `k_n`, damping from the material's restitution, k_t = `kt_over_kn` k_n,
/// γ_t/γ_n = k_t/k_n, friction from the material) and the given source of the rotational
/// increment: the same law as [`linear_cundall_strack`] but for the increment of ξ.
pub fn linear_predictor(k_n: f64, kt_over_kn: f64, rotation: RotationalIncrement) -> Result<LinearPredictor, LawError> {
    Ok(Composed::new(
        LinearSpring::new(k_n)?,
        LinearViscous::new(DampingCoefficient::FromRestitution(None))?,
        PredictorElongation::new(
            TangentialStiffness::Ratio(kt_over_kn),
            TangentialDamping::Ratio(kt_over_kn),
            Friction::from_material(),
            rotation,
        )?,
    ))
}

/// [`HuntCrossleyBrendelDippel`] with F_e = K δⁿ, restitution and friction from the material,
/// k_t = 2(1 − ν)/(2 − ν) K_n.
pub fn hunt_crossley_brendel_dippel(k: f64, exponent: f64) -> Result<HuntCrossleyBrendelDippel, LawError> {
    Ok(Composed::new(PowerLaw::new(k, exponent)?, HuntCrossley::from_material(), BrendelDippel::from_material()))
}

/// [`LinearViscousCoulomb`] with stiffness `k_n`, damping from the material's restitution,
/// tangential viscosity η_t (1/s) and friction from the material.
pub fn linear_viscous_coulomb(k_n: f64, eta_t: f64) -> Result<LinearViscousCoulomb, LawError> {
    Ok(Composed::new(
        LinearSpring::new(k_n)?,
        LinearViscous::from_material(),
        ViscousFriction::new(eta_t, Friction::from_material())?,
    ))
}
