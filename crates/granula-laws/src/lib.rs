//! # granula-laws
//!
//! Smooth (molecular-dynamics) contact laws for granula, composed from small sub-models:
//!
//! - normal: [`LinearSpring`], [`Hertz`], [`HertzLmgc`], [`PowerLaw`];
//! - normal damping: [`LinearViscous`], [`HertzViscous`], [`HertzViscousImpulse`], [`HuntCrossley`], [`NoDamping`];
//! - tangential: [`CundallStrack`], [`BrendelDippel`], [`PredictorElongation`],
//!   [`ViscousFriction`], [`NoFriction`];
//! - rolling and twisting resistance: [`RollingResistance`], [`TwistingResistance`];
//! - cohesion: [`ConstantCohesion`];
//! - body-level non-viscous damping: [`LocalDamping`];
//! - parameter helpers in [`params`];
//! - the [`conformance`] kit that checks any [`ContactLaw`](granula_core::ContactLaw).
//!
//! A law is a [`Composed`] of sub-models and implements [`ContactLaw`](granula_core::ContactLaw); the
//! aliases [`HertzMindlin`], [`LinearCundallStrack`], [`HuntCrossleyBrendelDippel`] and
//! [`LinearViscousCoulomb`] name the common ones. A user writes a new law by implementing
//! `ContactLaw` directly, or a new sub-model by implementing one of the traits in
//! [`submodel`]; the built-in laws use nothing a user cannot.
//!
//! Every sub-model reports the energy it dissipates and the elastic energy it stores, so
//! that a solver can keep the world's energy ledger.
//!
//! `use granula_laws::prelude::*;` brings the composition, the sub-models, the named laws
//! and the sub-model traits ([`prelude`]); [`Composed`] and [`hertz_mindlin`] show a law
//! evaluated on one contact.
#![deny(missing_docs)]

pub mod aliases;
pub mod batched;
pub mod cohesion;
pub mod composed;
pub mod conformance;
pub mod damping;
pub mod error;
mod gamma_function;
pub mod history;
pub mod local_damping;
pub mod normal;
pub mod optional;
pub mod params;
pub mod resistance_length;
pub mod rolling;
pub mod submodel;
pub mod tangential;
pub mod twisting;

pub use aliases::{
    hertz_mindlin, hertz_mindlin_damped, hunt_crossley_brendel_dippel, linear_cundall_strack, linear_predictor,
    linear_viscous_coulomb, HertzMindlin, HuntCrossleyBrendelDippel, LinearCundallStrack, LinearPredictor,
    LinearViscousCoulomb,
};
/// The types and constructors a host program needs most: the composition, the sub-models,
/// the named laws and the error type. `use granula_laws::prelude::*;`
pub mod prelude {
    pub use crate::aliases::{
        hertz_mindlin, hertz_mindlin_damped, hunt_crossley_brendel_dippel, linear_cundall_strack, linear_predictor,
        linear_viscous_coulomb, HertzMindlin, HuntCrossleyBrendelDippel, LinearCundallStrack, LinearPredictor,
        LinearViscousCoulomb,
    };
    pub use crate::cohesion::ConstantCohesion;
    pub use crate::composed::{Composed, TensionPolicy};
    pub use crate::damping::{DampingCoefficient, HertzViscous, HertzViscousImpulse, HuntCrossley, LinearViscous};
    pub use crate::error::MdError;
    pub use crate::local_damping::LocalDamping;
    pub use crate::normal::{Hertz, HertzLmgc, LinearSpring, PowerLaw, VolumetricSpring};
    pub use crate::rolling::RollingResistance;
    pub use crate::submodel::{
        CohesionModel, DampingModel, NoCohesion, NoDamping, NoFriction, NoRolling, NoTwisting, NormalModel,
        RollingModel, TangentialModel, TwistingModel,
    };
    pub use crate::tangential::{BrendelDippel, CundallStrack, PredictorElongation, ViscousFriction};
    pub use crate::twisting::TwistingResistance;
}

pub use cohesion::ConstantCohesion;
pub use composed::{contact_status, Composed, TensionPolicy, MAX_DAMPING_STEP};
pub use damping::{DampingCoefficient, HertzViscous, HertzViscousImpulse, HuntCrossley, LinearViscous};
pub use error::MdError;
pub use history::{ComposedHistory, SubHistory};
pub use local_damping::LocalDamping;
pub use normal::{Hertz, HertzLmgc, LinearSpring, PowerLaw, VolumetricSpring};
pub use resistance_length::{AngularSpring, ResistanceLength};
pub use rolling::RollingResistance;
pub use submodel::{
    CohesionModel, DampingModel, NoCohesion, NoDamping, NoFriction, NoRolling, NoTwisting, NormalModel, RollingModel,
    TangentialModel, TwistingModel,
};
pub use tangential::{
    BrendelDippel, CundallStrack, Friction, PredictorElongation, RotationalIncrement, TangentialDamping,
    TangentialStiffness, ViscousFriction,
};
pub use twisting::TwistingResistance;
