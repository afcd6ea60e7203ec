//! The crate's error type.

use granula_core::CoreError;
use thiserror::Error;

/// Everything that can go wrong when building or checking a contact law. Each variant names
/// the sub-model and parameter at fault and the offending value.
#[derive(Debug, Error)]
pub enum LawError {
    /// A parameter is outside its domain (negative stiffness, restitution outside (0, 1], ...).
    #[error("{model}: invalid {param} = {value}: expected {expected}")]
    InvalidParameter {
        /// The sub-model or helper, e.g. `"linear_spring"`.
        model: &'static str,
        /// The parameter name, e.g. `"stiffness"`.
        param: &'static str,
        /// The offending value.
        value: f64,
        /// What was expected instead.
        expected: &'static str,
    },
    /// The law cannot handle this pair (e.g. a material value it needs is missing or out of
    /// its domain, or the pair geometry is outside what the model describes).
    #[error("{model} cannot handle this pair: {field} = {value}: {reason}")]
    UnsupportedPair {
        /// The sub-model.
        model: &'static str,
        /// The material or geometric field at fault.
        field: &'static str,
        /// Its value.
        value: f64,
        /// Why the model cannot handle it.
        reason: &'static str,
    },
    /// The law's own pair parameter ([`ContactLaw::Pair`](granula_core::ContactLaw::Pair))
    /// could not be computed for two materials.
    #[error("pair parameters of materials '{material1}' and '{material2}': {reason}")]
    PairParameters {
        /// Name of the first material.
        material1: String,
        /// Name of the second material.
        material2: String,
        /// The reason the law gave.
        reason: String,
    },
    /// An error of the core crate (invalid material, time step, ...).
    #[error(transparent)]
    Core(#[from] CoreError),
}

/// Checks that `value` is finite and strictly positive.
pub(crate) fn positive(model: &'static str, param: &'static str, value: f64) -> Result<f64, LawError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(LawError::InvalidParameter { model, param, value, expected: "finite and > 0" })
    }
}

/// Checks that `value` is finite and non-negative.
pub(crate) fn non_negative(model: &'static str, param: &'static str, value: f64) -> Result<f64, LawError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(LawError::InvalidParameter { model, param, value, expected: "finite and >= 0" })
    }
}

/// Checks that a restitution coefficient lies in (0, 1].
pub(crate) fn restitution(model: &'static str, param: &'static str, value: f64) -> Result<f64, LawError> {
    if value > 0.0 && value <= 1.0 {
        Ok(value)
    } else {
        Err(LawError::InvalidParameter { model, param, value, expected: "in (0, 1]" })
    }
}
