//! # granula-integrators
//!
//! Explicit integrators for smooth (MD) dynamics behind the
//! [`Integrator`](granula_core::Integrator) trait of the core: the Gear
//! predictor-corrector with 4, 5 or 6 values (002 Appendix A), velocity Verlet and symplectic
//! Euler. Each keeps its per-body state keyed by dense index and follows
//! [`BodySet::structure_version`](granula_core::BodySet::structure_version).
//!
//! Contract shared by all three: they read the contact loads from the
//! [`AccelerationField`](granula_core::AccelerationField) passed to each half step, never
//! from the body set's load columns; on the first step (and for bodies inserted later) the
//! integrator takes the initial accelerations from the loads passed to
//! [`Integrator::predict`](granula_core::Integrator::predict), which the solver computes at
//! the initial state (the `granula-md` solver does).
//! Checkpoints: [`Gear`] and [`VelocityVerlet`] save and restore their per-body memory by
//! handle through [`Integrator::save_state`](granula_core::Integrator::save_state) /
//! [`Integrator::restore_state`](granula_core::Integrator::restore_state);
//! [`SymplecticEuler`] keeps nothing between steps, so the trait's empty default is right.
//! [`VelocityVerlet`] offers the offsets to its predicted velocities through
//! [`Integrator::force_velocity_offsets`](granula_core::Integrator::force_velocity_offsets)
//! so that dashpots see a velocity at the force's time level ([`ForceVelocity`]).
//! Integration itself cannot fail, so the crate has no error type (a rejected state is a
//! [`CoreError`](granula_core::CoreError)).
#![deny(missing_docs)]

mod coefficients;
mod gear;
mod per_body;
mod symplectic_euler;
mod verlet;

pub use coefficients::GearCoefficients;
pub use gear::{Gear, StartDerivatives};
pub use symplectic_euler::SymplecticEuler;
pub use verlet::{ForceVelocity, VelocityVerlet};
