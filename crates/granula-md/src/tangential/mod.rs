//! Tangential (friction) laws: viscous with a Coulomb cap (004), the Cundall-Strack
//! incremental spring (002 eqs. 6-7; 004) and its Brendel-Dippel variant (003 eqs. 5-6).

mod brendel_dippel;
mod cundall_strack;
mod settings;
mod spring;
mod viscous;

pub use brendel_dippel::BrendelDippel;
pub use cundall_strack::CundallStrack;
pub use settings::{Friction, TangentialDamping, TangentialStiffness};
pub use spring::{capped_spring, held_spring, rotate_into_plane, SpringState, SpringStep};
pub use viscous::{viscous_friction_force, ViscousFriction};
