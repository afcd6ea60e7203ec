//! # granula-io
//!
//! Scene files (TOML) with validation that names the file, key and line; seeded generators
//! of initial packings; outputs for ParaView (VTK + `.pvd`), CSV time series, trajectories,
//! contact lists and the Love-Weber stress of a region; checkpoints; the run driver used by
//! the `granula` binary.
#![deny(missing_docs)]

pub mod error;
pub mod generate;
pub mod output;
pub mod run;
pub mod scene;

pub use error::{IoError, Location, Result};
pub use scene::Scene;
