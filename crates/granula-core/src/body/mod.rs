//! Rigid bodies: the [`Body`] trait, the built-in [`RigidBody`] and its builders.

mod builder;
mod drives;
mod motion;

pub use builder::{CylinderBuilder, PlaneBuilder, RigidBodyBuilder, SphereBuilder};
pub use drives::{Drive, DriveSum, Orbit, Oscillation, PositionTable, SurfaceVelocity};
pub use motion::{Dofs, Motion, Prescribed};

use crate::error::{BodyRef, CoreError, Result};
use crate::handle::MaterialId;
use crate::math::{DQuat, DVec3};
use crate::shape::{MassProperties, Shape};

/// Where a body's mass comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MassSource {
    /// From the shape's volume and the density of the body's material (a wall: infinite).
    Material,
    /// From an explicit density (kg/m³), overriding the material's.
    Density(f64),
    /// Explicit mass and principal moments.
    Explicit(MassProperties),
}

/// The initial kinematic state of a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Position of the centre of mass (m).
    pub position: DVec3,
    /// Orientation of the principal axes (body frame) in the world frame.
    pub orientation: DQuat,
    /// Velocity (m/s).
    pub velocity: DVec3,
    /// Angular velocity in the world frame (rad/s).
    pub angular_velocity: DVec3,
}

impl Default for BodyState {
    fn default() -> Self {
        BodyState {
            position: DVec3::ZERO,
            orientation: DQuat::IDENTITY,
            velocity: DVec3::ZERO,
            angular_velocity: DVec3::ZERO,
        }
    }
}

/// What a world needs to know of a rigid body in order to insert it. Solvers then work on
/// the structure-of-arrays copy in [`BodySet`](crate::BodySet).
///
/// The builders make a [`RigidBody`]; a host implements the trait to insert bodies from its
/// own description, e.g. a grain record read from a file:
///
/// ```
/// use granula_core::{BodyState, MassSource, Motion};
/// use granula_core::prelude::*;
/// use granula_core::{MaterialId, Shape};
///
/// /// A grain as a host program stores it: centre, velocity, shape.
/// struct Grain {
///     centre: DVec3,
///     velocity: DVec3,
///     motion: Motion,
///     shape: Shape,
/// }
///
/// impl Body for Grain {
///     fn shape(&self) -> &Shape {
///         &self.shape
///     }
///     fn mass_source(&self) -> MassSource {
///         MassSource::Density(2500.0) // glass, kg/m³
///     }
///     fn material(&self) -> MaterialId {
///         MaterialId(0)
///     }
///     fn motion(&self) -> &Motion {
///         &self.motion
///     }
///     fn locked(&self) -> Dofs {
///         Dofs::default()
///     }
///     fn state(&self) -> BodyState {
///         BodyState { position: self.centre, velocity: self.velocity, ..Default::default() }
///     }
/// }
///
/// # fn main() -> Result<(), CoreError> {
/// let r = 0.001;
/// let grain = Grain {
///     centre: DVec3::new(0.0, 0.0, 0.01),
///     velocity: DVec3::X,
///     motion: Motion::Dynamic,
///     shape: Shape::Sphere { radius: r },
/// };
/// let mut world = World::builder().build()?;
/// let h = world.insert(grain)?;
/// let i = world.bodies.index(h)?;
/// // m = ρ 4/3 π r³ from the density the grain asked for.
/// let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
/// assert!((world.bodies.mass[i] - m).abs() < 1e-12 * m);
/// assert_eq!(world.bodies.velocity[i], DVec3::X);
/// # Ok(())
/// # }
/// ```
pub trait Body {
    /// The shape.
    fn shape(&self) -> &Shape;
    /// Where the mass properties come from.
    fn mass_source(&self) -> MassSource;
    /// The material.
    fn material(&self) -> MaterialId;
    /// How the body moves.
    fn motion(&self) -> &Motion;
    /// Degrees of freedom locked for this body (the world's planar mode adds its own).
    fn locked(&self) -> Dofs;
    /// Initial state.
    fn state(&self) -> BodyState;
    /// A constant external force (N) and torque (N m), world frame, besides gravity.
    fn external_load(&self) -> (DVec3, DVec3) {
        (DVec3::ZERO, DVec3::ZERO)
    }
}

/// The built-in rigid body description, made by the builders of this module.
#[derive(Clone, Debug)]
pub struct RigidBody {
    /// Shape.
    pub shape: Shape,
    /// Mass source.
    pub mass: MassSource,
    /// Material.
    pub material: MaterialId,
    /// Motion kind.
    pub motion: Motion,
    /// Locked dofs.
    pub locked: Dofs,
    /// Initial state.
    pub state: BodyState,
    /// Constant external force (N).
    pub external_force: DVec3,
    /// Constant external torque (N m).
    pub external_torque: DVec3,
}

impl Body for RigidBody {
    fn shape(&self) -> &Shape {
        &self.shape
    }
    fn mass_source(&self) -> MassSource {
        self.mass
    }
    fn material(&self) -> MaterialId {
        self.material
    }
    fn motion(&self) -> &Motion {
        &self.motion
    }
    fn locked(&self) -> Dofs {
        self.locked
    }
    fn state(&self) -> BodyState {
        self.state
    }
    fn external_load(&self) -> (DVec3, DVec3) {
        (self.external_force, self.external_torque)
    }
}

/// Checks a vector parameter for finiteness.
pub(crate) fn finite_vec(body: BodyRef, field: &'static str, v: DVec3) -> Result<DVec3> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(CoreError::invalid_body(body, field, v, "finite components"))
    }
}

/// Checks a direction parameter: finite, non-zero; returns it normalised without overflow
/// or underflow ([`normalize_scaled`](crate::math::normalize_scaled)), so that any finite
/// non-zero vector, however long or short, gives its direction.
pub(crate) fn unit_vec(body: BodyRef, field: &'static str, v: DVec3) -> Result<DVec3> {
    crate::math::normalize_scaled(v).ok_or_else(|| CoreError::invalid_body(body, field, v, "a finite, non-zero vector"))
}

/// Checks a scalar parameter: finite and strictly positive.
pub(crate) fn positive(body: BodyRef, field: &'static str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(CoreError::invalid_body(body, field, v, "finite and > 0"))
    }
}
