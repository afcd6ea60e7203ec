//! Errors of distributed runs.

use thiserror::Error;

/// What went wrong in a distributed run; each message names the rank, body, field or file
/// at fault.
#[derive(Debug, Error)]
pub enum DistributedError {
    /// More ranks than subdomains of at least the interaction range fit in the box.
    #[error(
        "{ranks} ranks cannot split the box {extent:?} m into subdomains at least {cutoff:.3e} m thick (the \
         interaction range: largest diameter + law range + skin); at most {fit} fit: run on fewer ranks"
    )]
    TooManyRanks {
        /// Ranks asked for.
        ranks: usize,
        /// Extent of the box of the bodies (m).
        extent: [f64; 3],
        /// The interaction range (m).
        cutoff: f64,
        /// The largest rank count that fits.
        fit: usize,
    },
    /// A subdomain thinner than the interaction range.
    #[error(
        "subdomain of rank {rank} is {thickness:.3e} m thick along {axis}, less than the interaction range \
         {cutoff:.3e} m"
    )]
    SubdomainTooThin {
        /// The rank of the subdomain.
        rank: usize,
        /// Axis name (x, y or z).
        axis: char,
        /// Its thickness along that axis (m).
        thickness: f64,
        /// The interaction range (m).
        cutoff: f64,
    },
    /// A periodic axis whose period is shorter than two interaction ranges: a body could
    /// then reach two images of one partner.
    #[error(
        "the period along {axis} is {period:.3e} m, less than twice the interaction range {cutoff:.3e} m \
         (largest diameter + law range + skin): lengthen the period"
    )]
    PeriodTooShort {
        /// Axis name (x, y or z).
        axis: char,
        /// The period (m).
        period: f64,
        /// The interaction range (m).
        cutoff: f64,
    },
    /// The periodic domain is sheared (Lees-Edwards): the ghosts do not follow the offset
    /// yet.
    #[error("Lees-Edwards shear along {flow} with gradient along {gradient} is not supported in a distributed run")]
    ShearNotSupported {
        /// Flow axis name (x, y or z).
        flow: char,
        /// Gradient axis name (x, y or z).
        gradient: char,
    },
    /// A scene or solver the distributed run does not handle.
    #[error("{file}: not supported in a distributed run: {what}")]
    Unsupported {
        /// The scene file.
        file: String,
        /// What is not supported.
        what: String,
    },
    /// A message between ranks that does not decode (a bug, or ranks of different builds).
    #[error("rank {rank}: message from rank {from} unreadable: {reason}")]
    Message {
        /// The receiving rank.
        rank: usize,
        /// The sending rank.
        from: usize,
        /// The decoder's reason.
        reason: String,
    },
    /// A checkpoint that does not belong to the scene being run.
    #[error("{path}: checkpoint of another scene ({found}), expected {expected}")]
    CheckpointMismatch {
        /// The checkpoint file.
        path: String,
        /// What the checkpoint holds.
        found: String,
        /// What the scene needs.
        expected: String,
    },
    /// An error of the world or the solver, on a rank.
    #[error("rank {rank}: {source}")]
    Core {
        /// The rank.
        rank: usize,
        /// The error.
        source: granula_core::CoreError,
    },
    /// An error reading the scene or writing the outputs.
    #[error(transparent)]
    Io(#[from] granula_io::IoError),
}
