//! Running a scene: the solver it names, its outputs, checkpoints, and the loop with a stop
//! flag and progress reports that the `granula` binary drives.

mod adapters;
mod checkpoint;
mod driver;
mod folder;
mod outputs;
mod sim_solver;
mod warnings;

pub use adapters::{AnyBroadphase, AnyIntegrator};
pub use checkpoint::{Checkpoint, CHECKPOINT_FORMAT};
pub use driver::{Progress, Run, RunEnd};
pub use folder::{clear_outputs, prepare_new, rewind, ExistingOutput, CHECKPOINT_FILE};
pub use outputs::{OutputState, Outputs};
pub use sim_solver::{build_solver, MdRun, SimSolver};
pub use warnings::{WarnedStep, WarningSummary};
