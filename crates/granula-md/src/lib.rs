//! # granula-md
//!
//! The smooth (molecular-dynamics) DEM solver: [`MdSolver`] advances a
//! [`World`](granula_core::World) with any [`ContactLaw`](granula_core::ContactLaw),
//! [`Integrator`](granula_core::Integrator) and [`Broadphase`](granula_core::Broadphase),
//! computing contact forces in parallel with a bit-deterministic reduction, and reports the
//! energies that keep the world's ledger balanced.
#![deny(missing_docs)]

mod accumulation;
mod body_loads;
mod checkpoint;
mod config;
mod error;
mod forces;
mod history_transfer;
mod pairs;
mod points;
mod reorder;
mod solver;

pub use checkpoint::MdState;
pub use config::{LoadOrder, MdConfig};
pub use error::MdError;
pub use history_transfer::TransferredHistory;
pub use points::PointState;
pub use solver::MdSolver;
