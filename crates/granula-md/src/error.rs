//! The smooth solver's error type.

use granula_broadphase::BroadphaseError;
use granula_core::CoreError;
use thiserror::Error;

/// Everything that can go wrong in the smooth (MD) solver. Errors from the core (unsupported
/// shape pairs, degenerate contacts, both naming the two bodies) pass through unchanged.
#[derive(Debug, Error)]
pub enum MdError {
    /// An error of the core, e.g. [`CoreError::UnsupportedPair`] or
    /// [`CoreError::DegenerateContact`] from the narrowphase for the pair it names.
    #[error(transparent)]
    Core(#[from] CoreError),
    /// The broadphase's skin layer rejected a setting.
    #[error(transparent)]
    Broadphase(#[from] BroadphaseError),
    /// A configuration value is out of its domain.
    #[error("invalid MD solver setting {field} = {value}: {expected}")]
    InvalidConfig {
        /// The field of [`MdConfig`](crate::MdConfig).
        field: &'static str,
        /// The offending value.
        value: f64,
        /// What was expected.
        expected: &'static str,
    },
    /// The private rayon thread pool could not be built.
    #[error("cannot build a rayon pool of {threads} threads: {reason}")]
    ThreadPool {
        /// Requested thread count.
        threads: usize,
        /// rayon's message.
        reason: String,
    },
}
