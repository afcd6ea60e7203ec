//! # granula-nscd
//!
//! Non-smooth contact dynamics for perfectly rigid particles: Signorini's condition and
//! Coulomb's law without regularisation, Moreau-Jean θ time stepping with large steps, and
//! a nonlinear Gauss-Seidel solver for the contact impulses (000; 001; 004 §2.3.3).
//!
//! The solver, [`NscdSolver`], implements the core [`Solver`](granula_core::Solver) trait and
//! is generic over the broadphase and over the [`NonSmoothLaw`]. Step it through
//! [`World::step`](granula_core::World::step).
#![deny(missing_docs)]

pub mod apgd;
pub mod bodies;
pub mod checkpoint;
pub mod coarse;
pub mod coloured;
pub mod config;
pub mod contacts;
pub mod convergence;
pub mod delassus;
pub mod detection;
pub mod error;
pub mod local;
pub mod materials;
pub mod moreau_jean;
pub mod newton;
pub mod pair_lock;
mod prefetch;
mod prepare;
pub mod problem_export;
mod report;
pub mod residual;
pub mod subspace;
pub mod sweep;

pub use apgd::ApgdSettings;
pub use checkpoint::NscdState;
pub use coarse::{Aggregates, CoarseCorrection};
pub use config::{GapMode, NonConvergence, NscdConfig};
pub use convergence::Criterion;
pub use error::NscdError;
pub use local::{
    CohesiveSignoriniCoulomb, ContactSetup, ContactStatus, LocalProblem, NonSmoothLaw, Restitution,
    RollingSignoriniCoulomb, SignoriniCoulomb,
};
pub use moreau_jean::{Carried, NscdSolver};
pub use newton::{NewtonSettings, Preconditioner};
pub use subspace::SubspaceCorrection;
pub use sweep::SweepOrder;

/// The types a host program needs most.
pub mod prelude {
    pub use crate::{
        Aggregates, ApgdSettings, CoarseCorrection, Criterion, GapMode, NewtonSettings, NonConvergence, NonSmoothLaw,
        NscdConfig, NscdError, NscdSolver, SignoriniCoulomb, SubspaceCorrection, SweepOrder,
    };
}
