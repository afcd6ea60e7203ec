//! # granula-core
//!
//! The foundation of granula: rigid bodies in structure-of-arrays storage, materials, the
//! world, contact geometry (narrowphase), the persistent contact store, and the traits that
//! solvers, contact laws, integrators and broadphase backends implement.
//!
//! The core knows no concrete law, integrator or broadphase: those live in their own crates
//! and meet here through [`ContactLaw`], [`Integrator`], [`Broadphase`] and [`Solver`].
//!
//! The public surface is this crate root's list of re-exports, plus three modules kept
//! public on purpose: [`math`] (the vector types and the orientation helpers),
//! [`narrowphase`] (the contact-geometry plug-in: generators, posed shapes, the built-in
//! sphere generators to compose with) and [`parallel`] (the deterministic parallel loops
//! that solver and integrator crates share); and the [`prelude`].
#![deny(missing_docs)]

mod body;
mod body_set;
mod body_sums;
mod broadphase;
mod clock;
mod contact;
mod contact_batch;
mod contact_law;
mod energy;
mod energy_guard;
mod error;
mod handle;
mod integrator;
mod lees_edwards;
mod material;
pub mod math;
pub mod narrowphase;
mod overlap;
mod pair_parameters;
pub mod parallel;
mod periodic;
mod permutation;
pub mod prelude;
mod shape;
mod solver;
mod vector_width;
mod world;

pub use body::{
    Body, BodyState, CylinderBuilder, Dofs, Drive, DriveSum, MassSource, Motion, Orbit, Oscillation, PlaneBuilder,
    PositionTable, Prescribed, RigidBody, RigidBodyBuilder, SphereBuilder, SurfaceVelocity,
};
pub use body_set::{euler_angular_acceleration, BodySet, MotionKind};
pub use body_sums::{BodySums, StepSums, SumRequest, SummedBody};
pub use broadphase::Broadphase;
pub use clock::Clock;
pub use contact::{
    point_relative_velocity, Contact, ContactGeometry, ContactKey, ContactRecord, ContactStatus, ContactStore,
};
pub use contact_batch::{ContactBatch, BATCH_LANES};
pub use contact_law::{ContactForce, ContactKinematics, ContactLaw};
pub use energy::{Dissipation, EnergyLedger};
pub use energy_guard::{EnergyGuard, EnergyReads, GuardAccounts, GuardMemory, Runaway};
pub use error::{BodyRef, CoreError, Result};
pub use handle::{BodyHandle, MaterialId};
pub use integrator::{AccelerationField, Integrator, IntegratorState, VelocityOffsets};
pub use lees_edwards::ImageShift;
pub use material::{Material, MaterialTable, PairMaterial};
pub use math::{normalize_scaled, rotation_quat, rotation_vector, DMat3, DQuat, DVec3};
pub use narrowphase::{ContactGenerator, Narrowphase, NarrowphaseError, PairMemory, PosedShape, ShapeKind};
pub use overlap::INSERTION_OVERLAP_TOLERANCE;
pub use pair_parameters::{PairParameterError, PairParameters};
pub use periodic::{Axis, Period, PeriodicDomain, PeriodicError, Shear};
pub use permutation::Permutation;
pub use shape::{Aabb, CustomShape, CylinderWall, MassProperties, Shape, SurfaceMesh};
pub use solver::{ContactStatusCounts, Solver, StepContext, StepReport, StepWarning};
pub use vector_width::{detected_vector_width, vector_width, VectorWidth};
pub use world::{Observer, RunReport, World, WorldBuilder, WorldState};
