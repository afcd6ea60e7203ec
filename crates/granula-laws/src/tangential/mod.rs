//! Tangential (friction) laws: viscous with a Coulomb cap (004), the Cundall-Strack
//! incremental spring (002 eqs. 6-7; 004), the plain unbounded spring of 003 eq. 4, its
//! Brendel-Dippel variant (003 eqs. 5-6), the predictor-based elongation (002 eqs. 14-15)
//! Cundall's spring as 002 writes it for the planar world (002 eqs. 6-7) and the
//! predictor-based elongation with that spring's limit and dashpot (002 eqs. 14-15).

mod brendel_dippel;
mod cundall_strack;
mod planar_cundall;
mod planar_predictor;
mod predictor;
mod settings;
mod spring;
mod unbounded;
mod viscous;

pub use brendel_dippel::BrendelDippel;
pub use cundall_strack::CundallStrack;
pub use planar_cundall::PlanarCundall;
pub use planar_predictor::{PlanarPredictor, PlanarPredictorState};
pub use predictor::{PredictorElongation, PredictorState, RotationalIncrement};
pub use settings::{Friction, TangentialDamping, TangentialStiffness};
pub(crate) use spring::capped_spring_from;
pub use spring::{capped_spring, capped_spring_by, held_spring, rotate_into_plane, SpringState, SpringStep};
pub use unbounded::{unbounded_spring, UnboundedCundallStrack, UnboundedSpringState};
pub use viscous::{viscous_friction_force, ViscousFriction};
