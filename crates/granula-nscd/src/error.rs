//! The crate's error type.

use granula_core::CoreError;
use thiserror::Error;

/// Everything that can go wrong in `granula-nscd`. Each variant names the parameter at
/// fault and the offending value.
#[derive(Debug, Error)]
pub enum NscdError {
    /// A body, grown by the detection margin, is longer than half a period along a
    /// periodic axis: two of its images could touch the same body at once.
    #[error(
        "periodic axis {axis}: period {period} m is shorter than twice the detection extent {extent} m of {body} \
         (its size plus the detection margin); use a longer period or a smaller margin"
    )]
    PeriodTooShort {
        /// The axis.
        axis: granula_core::Axis,
        /// The period (m).
        period: f64,
        /// The body.
        body: granula_core::BodyHandle,
        /// Its extent along the axis with the margin (m).
        extent: f64,
    },
    /// The world's periodic domain is sheared (Lees-Edwards): contact dynamics does not
    /// move its images with the offset yet (the MD solver does).
    #[error("Lees-Edwards shear (flow {flow}, gradient {gradient}) is not supported by contact dynamics")]
    ShearNotSupported {
        /// The flow axis.
        flow: granula_core::Axis,
        /// The gradient axis.
        gradient: granula_core::Axis,
    },
    /// The θ of the θ-method (004 §2.3.3.1) is outside [0.5, 1].
    #[error("theta must be in [0.5, 1] (004 §2.3.3.1), got {value}")]
    ThetaOutOfRange {
        /// The offending value.
        value: f64,
    },
    /// A convergence tolerance is zero, negative or not finite.
    #[error("convergence parameter {param} must be finite and > 0, got {value}")]
    NonPositiveTolerance {
        /// `"epsilon"` or `"cutoff"`.
        param: &'static str,
        /// The offending value.
        value: f64,
    },
    /// An iteration count (cap or fixed N_I) is zero.
    #[error("{param} must be > 0, got {value}")]
    NonPositiveIterations {
        /// `"max_iterations"` or `"fixed iterations"`.
        param: &'static str,
        /// The offending value.
        value: u32,
    },
    /// A friction coefficient is negative or not finite.
    #[error("friction coefficient {param} of pair ({material1}, {material2}) must be finite and >= 0, got {value}")]
    NegativeFriction {
        /// `"friction"`, `"rolling_friction"` or `"torsion_friction"`.
        param: &'static str,
        /// First material's name.
        material1: String,
        /// Second material's name.
        material2: String,
        /// The offending value.
        value: f64,
    },
    /// A cohesion range is set while the cohesion force is zero (d_C = E_C / F_C needs F_C > 0).
    #[error("cohesion range {range} m of pair ({material1}, {material2}) needs a cohesion force > 0 (001 §1.8)")]
    CohesionRangeWithoutForce {
        /// First material's name.
        material1: String,
        /// Second material's name.
        material2: String,
        /// The offending range.
        range: f64,
    },
    /// A solver setting other than the above is out of its domain.
    #[error("solver setting {param} = {value}: {expected}")]
    InvalidSetting {
        /// The setting.
        param: &'static str,
        /// Its value.
        value: f64,
        /// What was expected.
        expected: &'static str,
    },
    /// A contact law that cannot apply the chosen impact law (004 §2.2.2.2).
    #[error("impact law {impact:?} is not available with the contact law {law:?}: use \"newton\" or \"none\"")]
    UnsupportedImpactLaw {
        /// The contact law's name.
        law: String,
        /// The impact law's name (`"poisson"`, `"stronge"`).
        impact: &'static str,
    },
    /// The Gauss-Seidel loop reached its cap without meeting the tolerance, under
    /// [`NonConvergence::Error`](crate::config::NonConvergence::Error).
    #[error("contact impulses not converged: {iterations} sweeps, residual {residual:.3e} > tolerance {tolerance:.1e} (raise max_iterations, or choose on_cap = \"warn\" or \"extend\")")]
    NotConverged {
        /// Sweeps performed.
        iterations: u32,
        /// The criterion's value after the last sweep.
        residual: f64,
        /// The tolerance asked for.
        tolerance: f64,
    },
    /// An error of the core (contact geometry, unknown body...).
    #[error(transparent)]
    Core(#[from] CoreError),
}
