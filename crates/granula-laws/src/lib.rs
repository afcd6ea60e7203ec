//! # granula-laws
//!
//! Smooth (molecular-dynamics) contact laws for granula, composed from small sub-models:
//!
//! - normal: [`LinearSpring`], [`Hertz`], [`HertzLmgc`], [`PowerLaw`], [`VolumetricSpring`],
//!   [`VolumeEnergy`] (conservative, for polyhedra) and [`AreaSpring`] for the planar world (002 eq. 5);
//! - normal damping: [`LinearViscous`], [`HertzViscous`], [`HertzViscousImpulse`], [`HuntCrossley`],
//!   [`ReducedMassViscous`] (002 eqs. 2-3), [`NoDamping`];
//! - tangential: [`CundallStrack`], [`UnboundedCundallStrack`], [`BrendelDippel`],
//!   [`PredictorElongation`], [`ViscousFriction`], [`PlanarCundall`] (002 eqs. 6-7 as 002 writes
//!   them, for the planar world), [`PlanarPredictor`] (002 eqs. 14-15 with the same limit and
//!   dashpot), [`NoFriction`];
//! - rolling and twisting resistance: [`RollingResistance`], [`TwistingResistance`];
//! - cohesion: [`ConstantCohesion`];
//! - body-level non-viscous damping: [`LocalDamping`];
//! - parameter helpers in [`params`];
//! - the [`conformance`] kit that checks any [`ContactLaw`](granula_core::ContactLaw).
//!
//! A law is a [`Composed`] of sub-models and implements [`ContactLaw`](granula_core::ContactLaw); the
//! aliases [`HertzMindlin`], [`LinearCundallStrack`], [`HuntCrossleyBrendelDippel`] and
//! [`LinearViscousCoulomb`] name the common ones. A user writes a new law by implementing
//! `ContactLaw` directly, or a new sub-model by implementing one of the sub-model traits
//! ([`NormalModel`], [`DampingModel`], [`TangentialModel`], [`RollingModel`],
//! [`TwistingModel`], [`CohesionModel`]) from the force functions in [`kernels`]; the
//! built-in laws use nothing a user cannot.
//!
//! The common sphere laws (Hertz or a linear spring, viscous normal damping, the
//! Cundall-Strack spring with or without its dashpot) also have a batched form ([`LawBatch`],
//! [`force_batch`]) that the MD solver runs over blocks of contacts with vector
//! instructions. It performs lane by lane the same IEEE operations in the same order as the
//! scalar sub-models, so its results are bit-identical to `ContactLaw::force` on every
//! vector width ([`vector_width`](granula_core::vector_width)); every other law, and every user law, keeps the scalar
//! path.
//!
//! Every sub-model reports the energy it dissipates and the elastic energy it stores, so
//! that a solver can keep the world's energy ledger.
//!
//! `use granula_laws::prelude::*;` brings the composition, the sub-models, the named laws
//! and the sub-model traits ([`prelude`]); [`Composed`] and [`hertz_mindlin`] show a law
//! evaluated on one contact.
#![deny(missing_docs)]

mod aliases;
mod batched;
mod cohesion;
mod composed;
pub mod conformance;
mod damping;
mod error;
mod gamma_function;
mod history;
mod local_damping;
mod normal;
mod optional;
pub mod params;
mod resistance_length;
mod rolling;
mod submodel;
mod tangential;
mod twisting;

pub use aliases::{
    hertz_mindlin, hertz_mindlin_damped, hunt_crossley_brendel_dippel, linear_cundall_strack, linear_predictor,
    linear_viscous_coulomb, planar_area_law, planar_friction_law, planar_predictor_law, HertzMindlin,
    HuntCrossleyBrendelDippel, LinearCundallStrack, LinearPredictor, LinearViscousCoulomb, PlanarAreaLaw,
    PlanarFrictionLaw, PlanarPredictorLaw,
};
pub use batched::{force_batch, force_batch_at, DampingBatch, LawBatch, NormalBatch, SpringBatch};
pub use cohesion::ConstantCohesion;
pub use composed::{contact_status, Composed, MAX_DAMPING_STEP};
pub use damping::{
    DampingCoefficient, HertzViscous, HertzViscousImpulse, HuntCrossley, ImpactVelocity, LinearViscous,
    ReducedCollision, ReducedMassViscous, Touching,
};
pub use error::LawError;
pub use history::{ComposedHistory, SubHistory};
pub use local_damping::LocalDamping;
pub use normal::{
    AreaSpring, Hertz, HertzLmgc, LinearSpring, PowerLaw, VolumeEnergy, VolumeStiffness, VolumetricSpring,
};
pub use resistance_length::{AngularSpring, ResistanceLength};
pub use rolling::RollingResistance;
pub use submodel::{
    CohesionModel, CohesionOut, DampingModel, NoCohesion, NoDamping, NoFriction, NoRolling, NoTwisting, NormalDamping,
    NormalElastic, NormalModel, NormalState, ResistanceOut, RollingModel, TangentialModel, TensionPolicy,
    TwistingModel,
};
pub use tangential::{
    BrendelDippel, CundallStrack, Friction, PlanarCundall, PlanarPredictor, PlanarPredictorState, PredictorElongation,
    PredictorState, RotationalIncrement, SpringState, SpringStep, TangentialDamping, TangentialStiffness,
    UnboundedCundallStrack, UnboundedSpringState, ViscousFriction,
};
pub use twisting::{TwistAngle, TwistingResistance};

/// The force functions the built-in sub-models are made of, for writing a sub-model of one's
/// own from the same pieces (each cites its equation).
pub mod kernels {
    pub use crate::cohesion::constant_cohesion;
    pub use crate::damping::hunt_crossley_force;
    pub use crate::local_damping::local_damping;
    pub use crate::normal::{
        area_spring_force, cap_volume_energy_force, cap_volumetric_force, hertz_force, hertz_lmgc_stiffness,
        lens_area_force, linear_spring_force, power_law_force, segment_area_force, volume_energy_force,
        volumetric_force,
    };
    pub use crate::tangential::{
        capped_spring, capped_spring_by, held_spring, rotate_into_plane, unbounded_spring, viscous_friction_force,
    };
}

/// The types and constructors a host program needs most: the composition, the sub-models,
/// the named laws and the error type. `use granula_laws::prelude::*;`
pub mod prelude {
    pub use crate::{
        hertz_mindlin, hertz_mindlin_damped, hunt_crossley_brendel_dippel, linear_cundall_strack, linear_predictor,
        linear_viscous_coulomb, planar_area_law, planar_friction_law, planar_predictor_law, AreaSpring, BrendelDippel,
        CohesionModel, Composed, ConstantCohesion, CundallStrack, DampingCoefficient, DampingModel, Hertz, HertzLmgc,
        HertzMindlin, HertzViscous, HertzViscousImpulse, HuntCrossley, HuntCrossleyBrendelDippel, LawError,
        LinearCundallStrack, LinearPredictor, LinearSpring, LinearViscous, LinearViscousCoulomb, LocalDamping,
        NoCohesion, NoDamping, NoFriction, NoRolling, NoTwisting, NormalElastic, NormalModel, PlanarAreaLaw,
        PlanarCundall, PlanarFrictionLaw, PlanarPredictor, PlanarPredictorLaw, PowerLaw, PredictorElongation,
        ReducedMassViscous, RollingModel, RollingResistance, TangentialModel, TensionPolicy, TwistingModel,
        TwistingResistance, UnboundedCundallStrack, ViscousFriction, VolumeEnergy, VolumetricSpring,
    };
}
