//! The command line (clap).

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// granula: Discrete Element Method simulations of granular media.
///
/// With no command, runs the built-in default scene (a settling box) and writes its results
/// under granula-out/settling_box_md.
#[derive(Debug, Parser)]
#[command(name = "granula", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Runs a scene file.
    Run {
        /// The scene (TOML, see docs/scene-format.md).
        scene: PathBuf,
        /// Output folder (default granula-out/<scene name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Replace the results of an earlier run in the output folder (granula's files
        /// only); without it a folder that is not empty is refused.
        #[arg(long)]
        overwrite: bool,
    },
    /// Continues a run from a checkpoint (written on Ctrl-C, periodically, and at the end).
    Resume {
        /// The checkpoint file.
        checkpoint: PathBuf,
        /// Output folder (default: the one of the interrupted run).
        #[arg(long)]
        out: Option<PathBuf>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Validates a scene file without running it.
    Check {
        /// The scene.
        scene: PathBuf,
    },
}
