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
    /// A user property of a material ([`Material::properties`](crate::Material::properties))
    /// is not finite.
    #[error("material '{material}': property '{property}' = {value} is not finite")]
    InvalidProperty {
        /// The material's name.
        material: String,
        /// The property's name.
        property: String,
        /// The offending value.
        value: f64,
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
    /// The energy balance grew by itself: in two consecutive intervals of the runaway-energy
    /// guard ([`EnergyGuard`](crate::EnergyGuard)), by more than
    /// [`EnergyGuard::MAX_STEP_GAIN`](crate::EnergyGuard::MAX_STEP_GAIN) times the energy in
    /// play in one step (`interval` = 1), or to a non-finite value. The integration is
    /// unstable (time step too large for the stiffest contact), or a contact law creates
    /// energy or does not book the energy it stores and dissipates.
    #[error("energy runaway at step {step} (t = {time} s): the energy balance gained {gain:.3e} J in the last {interval} step(s), {ratio:.3e} times the energy in play (limit {limit:.3e}); the fastest body is {body} with {kinetic:.3e} J of kinetic energy. Check the time step against the stiffest contact, and that {ledger} books the energy it stores and dissipates (`ContactForce::stored`, `ContactForce::dissipated`): a law that keeps no such ledger says so (`ContactLaw::keeps_ledger` returns false), and `World::energy_guard = None` turns this guard off")]
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
        /// The limit of the check that stopped: the guard's `max_gain`, or
        /// `EnergyGuard::MAX_STEP_GAIN` for the one-step check.
        limit: f64,
        /// Steps per interval (1 for the one-step check).
        interval: u64,
        /// Step count.
        step: u64,
        /// Simulated time.
        time: f64,
        /// What books the energies ([`Solver::ledger_source`](crate::Solver::ledger_source)),
        /// e.g. `contact law 'hertz+...'`.
        ledger: String,
    },
    /// An energy of the step's report, of the ledger or of the bodies is not finite: the
    /// run overflowed (a stiffness or density so large that energies exceed 1.8e308 J) or
    /// produced a NaN.
    #[error("non-finite {account} ({value}) at step {step} (t = {time} s){}", body.map(|b| format!(", largest at {b}")).unwrap_or_default())]
    NonFiniteEnergy {
        /// Which energy: `"kinetic energy"`, `"potential energy"`, `"stored energy"`,
        /// `"dissipated energy"`, `"external work"`.
        account: &'static str,
        /// Its value.
        value: f64,
        /// The body with the largest (or a non-finite) share of it, where one is known.
        body: Option<BodyHandle>,
        /// Step count.
        step: u64,
        /// Simulated time.
        time: f64,
    },
    /// A dynamic sphere moves farther in one step (its speed times Δt) than the allowed
    /// fraction of its radius ([`World::max_travel_ratio`](crate::World::max_travel_ratio)):
    /// it can pass through a wall or another body between two force evaluations
    /// (tunnelling) without any contact being seen.
    #[error("{body} moves {distance:.3e} m in one step at step {step} (t = {time} s), more than {limit} of its radius {radius:.3e} m: it can pass through walls and bodies unseen; reduce the time step (or the speed)")]
    ExcessiveTravel {
        /// The body.
        body: BodyHandle,
        /// Its speed times the time step (m).
        distance: f64,
        /// Its radius (m).
        radius: f64,
        /// The allowed fraction of the radius.
        limit: f64,
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
    /// A body was inserted whose shape has no contact geometry with a shape already in the
    /// world: no generator for the pair is registered in the world's narrowphase.
    #[error(
        "no contact geometry between a {shape1} and a {shape2} (the {shape1} was being inserted): register a \
         contact generator for the pair in the narrowphase given to WorldBuilder::narrowphase before inserting{hint}"
    )]
    MissingContactGeometry {
        /// The inserted body's shape.
        shape1: &'static str,
        /// The shape already in the world.
        shape2: &'static str,
        /// The call that registers the shapes' generators, as the shapes name it
        /// ([`CustomShape::registration`](crate::CustomShape::registration)), with its
        /// leading separator; empty when neither names one.
        hint: String,
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
    /// A prescribed motion's parameter is invalid (a vibration's frequency, a table's
    /// times...).
    #[error("invalid {field} = {value}: {expected}")]
    InvalidDrive {
        /// The parameter, e.g. `"vibration frequency"`.
        field: &'static str,
        /// Its value, formatted.
        value: String,
        /// What was expected.
        expected: &'static str,
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
    /// Bad periodic input: bounds, a repeated axis, a period shorter than two body extents.
    #[error(transparent)]
    Periodic(#[from] crate::periodic::PeriodicError),
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

    /// Shorthand for [`CoreError::InvalidDrive`].
    pub fn invalid_drive(field: &'static str, value: impl fmt::Display, expected: &'static str) -> Self {
        CoreError::InvalidDrive { field, value: value.to_string(), expected }
    }

    /// Shorthand for [`CoreError::UnknownMaterial`] with an id.
    pub fn unknown_material_id(body: BodyRef, id: MaterialId) -> Self {
        CoreError::UnknownMaterial { body, material: id.to_string() }
    }
}

/// `Result` with [`CoreError`].
pub type Result<T, E = CoreError> = std::result::Result<T, E>;
