//! Normal damping laws: viscous (coefficient, or from restitution for linear and Hertz
//! springs) and Hunt-Crossley (003 eq. 3).

mod hunt_crossley;
mod viscous;

pub use hunt_crossley::{hunt_crossley_force, HuntCrossley, ImpactVelocity};
pub use viscous::{viscous_coefficient_from_restitution, DampingCoefficient, HertzViscous, LinearViscous};
