//! The smooth solver's error type.

use granula_broadphase::BroadphaseError;
use granula_core::{CoreError, PairParameterError};
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
    /// The law's own pair parameters
    /// ([`PairParameters::from_materials`](granula_core::PairParameters::from_materials))
    /// could not be computed for a pair of the world's materials; reported when the solver
    /// primes, before any step runs.
    #[error("contact law: pair parameters of materials '{material1}' and '{material2}': {reason}")]
    PairParameters {
        /// Name of the first material of the pair.
        material1: String,
        /// Name of the second material of the pair.
        material2: String,
        /// The reason the law gave.
        reason: String,
    },
    /// A period of the world is too short for the solver's detection: a body's box grown by
    /// the law's range and the skin must stay within half the period along every periodic
    /// axis, so that a pair meets one image only ([`granula_core::PeriodicDomain`]).
    #[error(
        "periodic axis {axis}: period {period} m is shorter than twice the detection extent {extent} m of {body} \
         (its size plus the law's range plus the skin); use a longer period or a smaller skin"
    )]
    PeriodTooShort {
        /// The axis.
        axis: granula_core::Axis,
        /// The period (m).
        period: f64,
        /// The body.
        body: granula_core::BodyHandle,
        /// Its extent along the axis with the range and the skin (m).
        extent: f64,
    },
    /// Under Lees-Edwards shear, a body whose box is unbounded along the flow or the
    /// gradient axis (a wall spanning the sheared faces): the velocity of its images is
    /// not defined.
    #[error(
        "shear: body {body} is unbounded along the {axis} axis of the shear (walls cannot span the sheared faces)"
    )]
    ShearUnboundedBody {
        /// The body.
        body: granula_core::BodyHandle,
        /// The flow or gradient axis.
        axis: granula_core::Axis,
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

impl From<PairParameterError> for MdError {
    fn from(e: PairParameterError) -> Self {
        MdError::PairParameters { material1: e.material1, material2: e.material2, reason: e.reason }
    }
}
