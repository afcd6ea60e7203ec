//! The crate's error type. Every variant names the file, the key path (and line when it is
//! known) or the body at fault, and the value.

use granula_core::CoreError;
use std::path::PathBuf;
use thiserror::Error;

/// Where in a scene file something is: the key path (e.g. `spheres[2].radius`) and, when
/// the key is present in the text, its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The scene file (or `<string>` for a scene parsed from memory).
    pub file: String,
    /// The key path, e.g. `packings[0].size.max`.
    pub key: String,
    /// 1-based line of the key in the file, if found.
    pub line: Option<usize>,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: key `{}`", self.file, l, self.key),
            None => write!(f, "{}: key `{}`", self.file, self.key),
        }
    }
}

/// Everything that can go wrong in `granula-io`.
#[derive(Debug, Error)]
pub enum IoError {
    /// The TOML text is malformed, or does not match the scene schema (unknown key, missing
    /// field, wrong type). `message` is the parser's description, which names the key.
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        /// The scene file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A value is out of its physical or logical domain.
    #[error("{at}: invalid value {value}: {problem}")]
    Invalid {
        /// Where.
        at: Location,
        /// The offending value, formatted.
        value: String,
        /// What was expected.
        problem: String,
    },
    /// Two initial bodies overlap.
    #[error("{at}: overlaps {other} by {overlap:.3e} m (initial bodies must not overlap)")]
    InitialOverlap {
        /// The first body's location (a key path, with the generated index if any).
        at: Location,
        /// The other body, as a key path.
        other: String,
        /// Overlap depth (m).
        overlap: f64,
    },
    /// A random packing could not place all its spheres without overlaps.
    #[error("{at}: placed only {placed} of {requested} spheres without overlap after {attempts} attempts; enlarge the region or lower `count`")]
    PackingFailed {
        /// The generator's location.
        at: Location,
        /// Spheres placed.
        placed: usize,
        /// Spheres requested.
        requested: usize,
        /// Attempts made.
        attempts: usize,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    File {
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// An input file (a scene, a checkpoint) is not a regular file (a FIFO, a device, a
    /// socket, a folder) or is larger than granula reads.
    #[error("{path}: {problem}")]
    InputFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// A checkpoint is unreadable or does not match its scene.
    #[error("checkpoint {path}: {problem}")]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// A checkpoint file is damaged: too short, cut, a checksum that does not match its
    /// content, or a content that no run can have written (non-finite values, columns of
    /// different lengths, a state inconsistent with its scene).
    #[error("checkpoint {path} is damaged: {problem}")]
    CheckpointDamaged {
        /// The checkpoint file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// The output folder cannot take the run's results (not empty, or not a folder).
    #[error("output folder {path}: {problem}")]
    OutputFolder {
        /// The folder.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// A step left an energy that is not finite: the run stops before writing it.
    #[error("step {step} (t = {time} s): the {quantity} is {value}, not finite; {body}")]
    NonFinite {
        /// The step just taken.
        step: u64,
        /// Simulated time after it (s).
        time: f64,
        /// Which energy, e.g. `kinetic energy`.
        quantity: &'static str,
        /// Its value (inf or NaN).
        value: f64,
        /// The body with the largest energy, named, with its velocity and position.
        body: String,
    },
    /// An error of the core (a body or material rejected, a failed step).
    #[error(transparent)]
    Core(#[from] CoreError),
    /// A solver could not be built or failed.
    #[error("solver: {0}")]
    Solver(String),
    /// A feed or an outlet (`[[feeds]]`, `[[outlets]]`) failed while the run went on; the
    /// message names it.
    #[error(transparent)]
    Feed(#[from] granula_feed::FeedError),
}

impl IoError {
    /// Wraps an OS error with its path.
    pub fn file(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        IoError::File { path: path.into(), source }
    }
}

/// `Result` with [`IoError`].
pub type Result<T, E = IoError> = std::result::Result<T, E>;
