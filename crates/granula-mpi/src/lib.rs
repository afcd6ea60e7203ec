//! # granula-mpi
//!
//! Distributed MD runs: the world's box is split into one subdomain per rank (a regular
//! grid, rebalanced by recursive coordinate bisection), each rank steps its own world with
//! its own solver on its owned bodies plus ghost copies of the bodies near its subdomain,
//! and bodies migrate between ranks with their contact histories and the integrator's
//! memory. The design, its decisions and the measured figures are in
//! `docs/distributed.md`.
//!
//! The communication sits behind the [`Communicator`] trait: [`SingleProcess`] is always
//! compiled; `Mpi` (rsmpi over the system's MPI library) only with the crate feature
//! `mpi`, so that nothing here needs an MPI library without it.
#![deny(missing_docs)]

mod communicator;
mod decomposition;
mod driver;
mod error;
mod ghost_message;
#[cfg(feature = "mpi")]
mod mpi_backend;
mod record;
mod timings;

pub use communicator::{Communicator, SingleProcess};
pub use decomposition::{Decomposition, Subdomain};
pub use driver::{
    DistributedCheckpoint, DistributedCheckpointFile, DistributedConfig, DistributedRun, DistributedStats,
    GatheredContacts, RunEnergies,
};
pub use error::DistributedError;
#[cfg(feature = "mpi")]
pub use mpi_backend::Mpi;
pub use record::{BodyRecord, HistoryRecord, Migration};
pub use timings::DistributedTimings;
