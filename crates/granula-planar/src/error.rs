//! The one error type of the 2D mode.

use granula_polygons::PolygonError;
use thiserror::Error;

/// Everything that can go wrong when setting up or stepping a planar simulation. Each
/// variant names the body, the axis or the parameter at fault.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PlanarError {
    /// A body's polygon was refused (non-convex, too few vertices, ...).
    #[error("body {body}: invalid polygon: {source}")]
    BadPolygon {
        /// Index the body would have had.
        body: usize,
        /// Why the outline was refused.
        #[source]
        source: PolygonError,
    },
    /// A body's field is outside its domain (a radius, a density, a coordinate).
    #[error("body {body}: {field} = {value} is invalid: expected {expected}")]
    BadBody {
        /// Index of the body.
        body: usize,
        /// Which field.
        field: &'static str,
        /// Its value.
        value: f64,
        /// What it should be.
        expected: &'static str,
    },
    /// A parameter of the law, the domain or the solver is outside its domain.
    #[error("{name} = {value} is invalid: expected {expected}")]
    BadParameter {
        /// Which parameter.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What it should be.
        expected: &'static str,
    },
    /// A periodic length shorter than two particle diameters: a body would meet two
    /// images of the same neighbour, which the minimum-image convention cannot represent.
    #[error("periodic length along {axis} is {length}, below two diameters of the largest body ({minimum})")]
    PeriodTooShort {
        /// "x" or "y".
        axis: &'static str,
        /// The length given (m).
        length: f64,
        /// Twice the largest bounding diameter (m).
        minimum: f64,
    },
    /// Lees-Edwards shear needs both axes periodic (flow along x, gradient along y).
    #[error("Lees-Edwards shear needs a periodic {axis} axis")]
    ShearOnNonPeriodicAxis {
        /// The axis that is not periodic.
        axis: &'static str,
    },
    /// A body's state became NaN or infinite during a step.
    #[error("body {body} has a non-finite {field} at step {step}")]
    NonFinite {
        /// Index of the body.
        body: usize,
        /// Which column.
        field: &'static str,
        /// Step index.
        step: u64,
    },
    /// Bytes given to [`crate::Simulation::restore_state`] are not a state of this
    /// simulation.
    #[error("saved state, {field}: {problem}")]
    BadState {
        /// The part of the state at fault.
        field: &'static str,
        /// What is wrong.
        problem: &'static str,
    },
}

/// Result with this crate's error.
pub type Result<T> = std::result::Result<T, PlanarError>;

/// `Ok` if `value` is finite and > 0, else a [`PlanarError::BadParameter`].
pub(crate) fn positive(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(PlanarError::BadParameter { name, value, expected: "a finite positive number" })
    }
}

/// `Ok` if `value` is finite and ≥ 0, else a [`PlanarError::BadParameter`].
pub(crate) fn non_negative(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(PlanarError::BadParameter { name, value, expected: "a finite number ≥ 0" })
    }
}
