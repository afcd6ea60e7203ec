//! # granula-run
//!
//! The composition root of granula: the solver a scene names, composed from the law,
//! integrator and broadphase crates ([`build_solver`]), and the run that drives it with
//! its outputs, checkpoints, warnings and a stop flag, as the `granula` binary does
//! ([`Run`]). Scenes are read and outputs written by `granula-io`.
//!
//! A scene read from a string, run to its end; the outputs it asks for (here the series
//! and the final checkpoint) go to the output folder:
//!
//! ```
//! use granula_io::Scene;
//! use granula_run::Run;
//!
//! # fn main() -> Result<(), granula_io::IoError> {
//! let text = r#"
//! [simulation]
//! dt = 1e-5
//! end_time = 0.01
//!
//! [solver]
//! kind = "md"
//!
//! [[planes]]
//! name = "floor"
//! point = [0.0, 0.0, 0.0]
//! normal = [0.0, 0.0, 1.0]
//!
//! [[spheres]]
//! name = "ball"
//! radius = 0.01
//! position = [0.0, 0.0, 0.05]
//! "#;
//! let scene = Scene::parse("drop.toml", text)?;
//! let out = std::env::temp_dir().join(format!("granula-run-doc-{}", std::process::id()));
//! let mut run = Run::start(scene, &out)?;
//! while !run.is_done() {
//!     run.step()?;
//! }
//! assert_eq!(run.world.time(), 0.01);
//! # let _ = std::fs::remove_dir_all(&out);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod adapters;
mod checkpoint;
mod compose;
mod distributed;
mod driver;
mod feeding;
mod folder;
mod outputs;
mod polyhedra;
mod sim_solver;
pub mod time_step;
mod warnings;

pub use adapters::{AnyBroadphase, AnyIntegrator};
pub use checkpoint::{Checkpoint, CHECKPOINT_FORMAT, DISTRIBUTED_CHECKPOINT_MAGIC};
pub use compose::build_solver;
pub use distributed::{DistributedMd, HistoryBytes};
pub use driver::{Progress, Run, RunEnd};
pub use feeding::{FeedingState, InsertedParticle, FEEDS_CSV, OUTLETS_CSV};
pub use folder::{clear_outputs, prepare_new, rewind, ExistingOutput, FolderLock, CHECKPOINT_FILE, LOCK_FILE};
pub use granula_io::{IoError, Result};
pub use outputs::{OutputState, Outputs};
pub use polyhedra::{load_scene, parse_scene, PolyhedraMaker};
pub use sim_solver::{MdRun, SimSolver};
pub use warnings::{WarnedStep, WarningSummary};
