//! The types a host program needs most: `use granula_core::prelude::*;`.

pub use crate::body::{
    Body, CylinderBuilder, Dofs, Motion, PlaneBuilder, Prescribed, RigidBody, RigidBodyBuilder, SphereBuilder,
};
pub use crate::body_set::MotionKind;
pub use crate::broadphase::Broadphase;
pub use crate::clock::Clock;
pub use crate::contact::{Contact, ContactGeometry, ContactKey, ContactRecord, ContactStatus, ContactStore};
pub use crate::contact_law::{ContactForce, ContactKinematics, ContactLaw};
pub use crate::energy::{Dissipation, EnergyLedger};
pub use crate::energy_guard::{EnergyGuard, EnergyReads};
pub use crate::error::CoreError;
pub use crate::handle::{BodyHandle, MaterialId};
pub use crate::integrator::{AccelerationField, Integrator};
pub use crate::material::{Material, MaterialTable, PairMaterial};
pub use crate::math::{DMat3, DQuat, DVec3};
pub use crate::narrowphase::Narrowphase;
pub use crate::permutation::Permutation;
pub use crate::shape::{Aabb, MassProperties, Shape};
pub use crate::solver::{Solver, StepContext, StepReport, StepWarning};
pub use crate::world::{Observer, RunReport, World, WorldBuilder, WorldState};
