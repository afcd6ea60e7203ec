//! Elastic normal force laws: linear spring, Hertz (two forms) and the power law of
//! Kelvin-Voigt / Hunt-Crossley.

mod hertz;
mod linear;
mod power_law;

pub use hertz::{hertz_force, hertz_lmgc_stiffness, Hertz, HertzLmgc};
pub use linear::{linear_spring_force, LinearSpring};
pub use power_law::{power_law_contact_time, power_law_force, PowerLaw};
