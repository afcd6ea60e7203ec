//! The core crate's error type.

use crate::handle::{BodyHandle, MaterialId};
use std::fmt;
use thiserror::Error;

/// Which body an error is about: one already in a world, or one still being built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyRef {
    /// A body that has not been inserted yet (a builder or a description).
    New,
    /// A body of a world.
    Handle(BodyHandle),
}

impl fmt::Display for BodyRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyRef::New => write!(f, "new body"),
            BodyRef::Handle(h) => write!(f, "{h}"),
        }
    }
}

/// Everything that can go wrong in `granula-core`. Each variant names the body, material or
/// field at fault and the offending value.
#[derive(Debug, Error)]
pub enum CoreError {
    /// A body parameter is out of its domain (non-positive radius, non-finite mass, zero axis...).
    #[error("{body}: invalid {field} = {value}: {expected}")]
    InvalidBody {
        /// The body.
        body: BodyRef,
        /// The parameter name, e.g. `"radius"` or `"normal"`.
        field: &'static str,
        /// The offending value, formatted.
        value: String,
        /// What was expected instead.
        expected: &'static str,
    },
    /// A material parameter is out of its domain.
    #[error("material '{material}': invalid {field} = {value}: {expected}")]
    InvalidMaterial {
        /// The material's name.
        material: String,
        /// The parameter name.
        field: &'static str,
        /// The offending value.
        value: f64,
        /// What was expected instead.
        expected: &'static str,
    },
    /// A body refers to a material the table does not have.
    #[error("{body}: unknown material '{material}'")]
    UnknownMaterial {
        /// The body (or [`BodyRef::New`] for a lookup by name).
        body: BodyRef,
        /// The material's name or id.
        material: String,
    },
    /// A handle that does not (or no longer) exist.
    #[error("{handle} does not exist in this world")]
    NoSuchBody {
        /// The stale or foreign handle.
        handle: BodyHandle,
    },
    /// A body's state became NaN or infinite.
    #[error("{body}: non-finite {field} at step {step} (t = {time} s)")]
    NonFiniteState {
        /// The body.
        body: BodyHandle,
        /// `"position"`, `"velocity"`, `"angular velocity"` or `"orientation"`.
        field: &'static str,
        /// The step count when it was found.
        step: u64,
        /// The simulated time when it was found.
        time: f64,
    },
    /// Two bodies overlap far beyond what the method tolerates: the simulation blew up
    /// or the initial state is wrong.
    #[error("{body1} and {body2} overlap by {overlap:.3e} m ({ratio:.3} of the smaller radius, limit {limit}) at step {step} (t = {time} s)")]
    ExcessiveOverlap {
        /// First body.
        body1: BodyHandle,
        /// Second body.
        body2: BodyHandle,
        /// Overlap `-g` in metres.
        overlap: f64,
        /// Overlap divided by the smaller radius of the pair.
        ratio: f64,
        /// The allowed ratio.
        limit: f64,
        /// Step count.
        step: u64,
        /// Simulated time.
        time: f64,
    },
    /// The energy balance grew by itself in two consecutive intervals of the runaway-energy
    /// guard ([`EnergyGuard`](crate::EnergyGuard)): the integration is unstable (time step
    /// too large for the stiffest contact, or a law that creates energy).
    #[error("energy runaway at step {step} (t = {time} s): the energy balance gained {gain} J in the last {interval} steps, {ratio:.3} of the energy in play (limit {limit}); the fastest body is {body} with {kinetic} J of kinetic energy")]
    EnergyRunaway {
        /// The dynamic body with the largest kinetic energy (where the blow-up shows).
        body: BodyHandle,
        /// Its translational kinetic energy (J).
        kinetic: f64,
        /// Growth of kinetic + potential + stored + dissipated − external work over the
        /// last interval (J).
        gain: f64,
        /// The growth over the energy in play during the interval.
        ratio: f64,
        /// The guard's `max_gain`.
        limit: f64,
        /// Steps per interval.
        interval: u64,
        /// Step count.
        step: u64,
        /// Simulated time.
        time: f64,
    },
    /// Two bodies overlap when first stepped after one of them was inserted
    /// ([`World::check_overlaps`](crate::World::check_overlaps)): an initial state must not
    /// overlap, as in scene files.
    #[error("{body1} and {body2} overlap by {overlap:.3e} m ({ratio:.3} of the smaller radius) before step {step}, after {inserted} was inserted: inserted bodies must not overlap; move them apart, or call World::accept_overlaps() for a state restored from a run")]
    InsertedOverlap {
        /// First body (the lower dense index).
        body1: BodyHandle,
        /// Second body.
        body2: BodyHandle,
        /// The one of the two inserted since the last check (the later handle if both were).
        inserted: BodyHandle,
        /// Overlap `-g` in metres.
        overlap: f64,
        /// Overlap divided by the smaller radius of the pair.
        ratio: f64,
        /// The step about to be taken (steps taken so far + 1).
        step: u64,
    },
    /// The contact geometry of a pair is undefined (e.g. concentric spheres).
    #[error("contact between {body1} and {body2} is undefined: {reason}")]
    DegenerateContact {
        /// First body.
        body1: BodyHandle,
        /// Second body.
        body2: BodyHandle,
        /// Why.
        reason: &'static str,
    },
    /// No contact geometry exists for this pair of shapes.
    #[error("no contact geometry between a {shape1} ({body1}) and a {shape2} ({body2})")]
    UnsupportedPair {
        /// First body.
        body1: BodyHandle,
        /// Its shape's name.
        shape1: &'static str,
        /// Second body.
        body2: BodyHandle,
        /// Its shape's name.
        shape2: &'static str,
    },
    /// The time step is zero, negative or not finite.
    #[error("time step must be finite and > 0, got {dt}")]
    InvalidTimeStep {
        /// The offending value.
        dt: f64,
    },
    /// A world-level parameter is invalid (gravity, overlap limit...).
    #[error("invalid world parameter {field} = {value}: {expected}")]
    InvalidWorld {
        /// The parameter.
        field: &'static str,
        /// Its value, formatted.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A solver failed during a step.
    #[error("solver failed at step {step} (t = {time} s): {source}")]
    Solver {
        /// Step count.
        step: u64,
        /// Simulated time.
        time: f64,
        /// The solver's own error.
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
}

impl CoreError {
    /// Shorthand for [`CoreError::InvalidBody`].
    pub fn invalid_body(body: BodyRef, field: &'static str, value: impl fmt::Debug, expected: &'static str) -> Self {
        CoreError::InvalidBody { body, field, value: format!("{value:?}"), expected }
    }

    /// Shorthand for [`CoreError::UnknownMaterial`] with an id.
    pub fn unknown_material_id(body: BodyRef, id: MaterialId) -> Self {
        CoreError::UnknownMaterial { body, material: id.to_string() }
    }
}

/// `Result` with [`CoreError`].
pub type Result<T, E = CoreError> = std::result::Result<T, E>;
