//! # granula-nscd
//!
//! Non-smooth contact dynamics for perfectly rigid particles: Signorini's condition and
//! Coulomb's law without regularisation, Moreau-Jean θ time stepping with large steps, and
//! a nonlinear Gauss-Seidel solver for the contact impulses (000; 001; 004 §2.3.3).
//!
//! The solver, [`NscdSolver`], implements the core [`Solver`](granula_core::Solver) trait and
//! is generic over the broadphase and over the [`NonSmoothLaw`]. Step it through
//! [`World::step`](granula_core::World::step).
//!
//! The step reads as the algorithm: steps 1-4 (free velocities, intermediate
//! configuration, detection, contact list, warm start) in `assemble`, step 5 (the
//! Gauss-Seidel loop) in `gauss_seidel` with one contact update in `kernels`, step 6
//! (velocities, positions, the report) in `end_step`.
#![deny(missing_docs)]

mod assemble;
mod bodies;
mod checkpoint;
mod config;
mod contacts;
mod convergence;
mod delassus;
mod detection;
mod end_step;
mod error;
mod gauss_seidel;
mod kernels;
mod local;
mod materials;
mod multi_impact;
mod pair_lock;
mod prefetch;
mod problem_export;
mod residual;
mod solver;
mod sweep;

pub use checkpoint::NscdState;
pub use config::{GapMode, NonConvergence, NscdConfig};
pub use convergence::Criterion;
pub use error::NscdError;
pub use local::{
    Bond, CohesionRule, CohesiveParams, CohesiveSignoriniCoulomb, ContactSetup, ImpactLaw, ImpactProcess, JointShock,
    LocalProblem, NonSmoothLaw, Restitution, RollingParams, RollingSignoriniCoulomb, ShockParams, SignoriniCoulomb,
};
pub use problem_export::ContactProblem;
pub use solver::{Carried, NscdSolver};
pub use sweep::SweepOrder;

/// The types a host program needs most.
pub mod prelude {
    pub use crate::{Criterion, GapMode, NonConvergence, NonSmoothLaw, NscdConfig, NscdError, NscdSolver, SweepOrder};
}
