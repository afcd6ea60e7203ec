//! The broadphase crate's error type.

use thiserror::Error;

/// Everything that can go wrong when configuring a broadphase. Finding pairs itself never
/// fails: degenerate boxes (NaN bounds, `min > max`) are empty and pair with nothing.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum BroadphaseError {
    /// A parameter is out of its domain.
    #[error("invalid broadphase parameter {parameter} = {value}: {expected}")]
    InvalidParameter {
        /// The parameter's name, e.g. `"skin"`.
        parameter: &'static str,
        /// The offending value.
        value: f64,
        /// What was expected instead.
        expected: &'static str,
    },
    /// A saved skin-layer state ([`VerletState`](crate::VerletState)) is inconsistent.
    #[error("invalid skin-layer state: {problem}")]
    InvalidState {
        /// What is wrong.
        problem: String,
    },
}

/// `Result` with [`BroadphaseError`].
pub type Result<T, E = BroadphaseError> = std::result::Result<T, E>;

/// `Ok(value)` when `value` is finite and `> 0`, else an error naming `parameter`.
pub(crate) fn positive(parameter: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(BroadphaseError::InvalidParameter { parameter, value, expected: "finite and > 0" })
    }
}

/// `Ok(value)` when `value` is finite and `>= 0`, else an error naming `parameter`.
pub(crate) fn non_negative(parameter: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(BroadphaseError::InvalidParameter { parameter, value, expected: "finite and >= 0" })
    }
}
