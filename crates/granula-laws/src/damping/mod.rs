//! Normal damping laws: viscous (coefficient, or from restitution for linear and Hertz
//! springs, optionally calibrated to the no-attraction clamp; for Hertz also with its
//! impulse integrated over the step) and Hunt-Crossley
//! (003 eq. 3); the reduced head-on impact that gives their restitution.

mod clamped_calibration;
mod hunt_crossley;
mod onset_exact;
mod reduced_impact;
mod reduced_mass;
mod viscous;

pub use clamped_calibration::{
    hertz_tsuji_clamped_damping_ratio, hertz_tsuji_collision, linear_clamped_damping_ratio, ReducedCollision,
};

pub use hunt_crossley::{hunt_crossley_force, HuntCrossley, ImpactVelocity};
pub use onset_exact::{HertzViscousImpulse, Touching};
pub use reduced_mass::ReducedMassViscous;
pub use viscous::{viscous_coefficient_from_restitution, DampingCoefficient, HertzViscous, LinearViscous};
