//! # granula-io
//!
//! Scene files (TOML) with validation that names the file, key and line; seeded generators
//! of initial packings; outputs for ParaView (VTK + `.pvd`), CSV time series, trajectories,
//! contact lists and the Love-Weber stress of a region. It reads and writes files and
//! depends on `granula-core` only: composing a solver from a scene and running it is
//! `granula-run`'s work.
#![deny(missing_docs)]

mod error;
pub mod generate;
mod input;
pub mod output;
pub mod scene;

pub use error::{IoError, Location, Result};
pub use input::{is_regular_file, read_input, read_input_text, MAX_CHECKPOINT_BYTES, MAX_SCENE_BYTES};
pub use scene::Scene;
