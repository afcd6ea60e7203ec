//! How a body moves: dynamic, fixed or kinematic, and which degrees of freedom are locked.

use super::drives::Drive;
use crate::math::DVec3;
use std::fmt;
use std::sync::Arc;

/// A prescribed vector as a function of time (a velocity or an angular velocity).
#[derive(Clone)]
pub enum Prescribed {
    /// The same value at all times.
    Constant(DVec3),
    /// A value computed from the simulated time t (s) by user code; a step moves the body
    /// by its value at the step's midpoint times the step.
    Function(Arc<dyn Fn(f64) -> DVec3 + Send + Sync>),
    /// A value that knows its own integral ([`Drive`]): an orbit, a vibration, a table of
    /// positions, a moving surface, a sum of these; a step moves the body by the integral.
    Drive(Arc<dyn Drive>),
}

impl Prescribed {
    /// The prescription of `drive`.
    pub fn drive(drive: impl Drive + 'static) -> Self {
        Prescribed::Drive(Arc::new(drive))
    }

    /// The value at time `t`.
    #[inline]
    pub fn at(&self, t: f64) -> DVec3 {
        match self {
            Prescribed::Constant(v) => *v,
            Prescribed::Function(f) => f(t),
            Prescribed::Drive(d) => d.at(t),
        }
    }

    /// What a body moves by over the step from `t` to `t + dt`: v Δt for a constant,
    /// v(t + Δt/2) Δt for a function (exact for values linear in time), the integral of a
    /// drive.
    #[inline]
    pub fn step(&self, t: f64, dt: f64) -> DVec3 {
        match self {
            Prescribed::Constant(v) => *v * dt,
            Prescribed::Function(f) => f(t + 0.5 * dt) * dt,
            Prescribed::Drive(d) => d.integral(t, t + dt),
        }
    }
}

impl fmt::Debug for Prescribed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Prescribed::Constant(v) => write!(f, "Constant({v:?})"),
            Prescribed::Function(_) => write!(f, "Function(..)"),
            Prescribed::Drive(d) => write!(f, "Drive({d:?})"),
        }
    }
}

impl Default for Prescribed {
    fn default() -> Self {
        Prescribed::Constant(DVec3::ZERO)
    }
}

/// How a body moves.
#[derive(Clone, Debug, Default)]
pub enum Motion {
    /// Moved by forces and torques.
    #[default]
    Dynamic,
    /// Never moves.
    Fixed,
    /// Moves with prescribed linear and angular velocities whatever the forces (a piston,
    /// a rotating drum). It acts on other bodies as if its mass were infinite.
    Kinematic {
        /// Velocity of the body's position (m/s).
        linear: Prescribed,
        /// Angular velocity about the body's position (rad/s).
        angular: Prescribed,
    },
}

impl Motion {
    /// `true` for [`Motion::Dynamic`].
    #[inline]
    pub fn is_dynamic(&self) -> bool {
        matches!(self, Motion::Dynamic)
    }
}

/// A set of locked degrees of freedom in the world frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dofs(u8);

impl Dofs {
    /// Nothing locked.
    pub const NONE: Dofs = Dofs(0);
    /// Translation along x.
    pub const TX: Dofs = Dofs(1);
    /// Translation along y.
    pub const TY: Dofs = Dofs(2);
    /// Translation along z.
    pub const TZ: Dofs = Dofs(4);
    /// Rotation about x.
    pub const RX: Dofs = Dofs(8);
    /// Rotation about y.
    pub const RY: Dofs = Dofs(16);
    /// Rotation about z.
    pub const RZ: Dofs = Dofs(32);
    /// All translations.
    pub const TRANSLATION: Dofs = Dofs(7);
    /// All rotations.
    pub const ROTATION: Dofs = Dofs(56);
    /// The planar (2D) mode: no z translation, rotation about z only.
    pub const PLANAR: Dofs = Dofs(4 | 8 | 16);

    /// The union of two sets.
    #[inline]
    pub const fn union(self, other: Dofs) -> Dofs {
        Dofs(self.0 | other.0)
    }

    /// `true` if every dof of `other` is in `self`.
    #[inline]
    pub const fn contains(self, other: Dofs) -> bool {
        self.0 & other.0 == other.0
    }

    /// `true` when nothing is locked.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The raw bits (x, y, z translation, then x, y, z rotation).
    #[inline]
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// `v` with the locked translation components set to zero.
    #[inline]
    pub fn mask_linear(self, v: DVec3) -> DVec3 {
        if self.0 & 7 == 0 {
            return v;
        }
        DVec3::new(
            if self.0 & 1 != 0 { 0.0 } else { v.x },
            if self.0 & 2 != 0 { 0.0 } else { v.y },
            if self.0 & 4 != 0 { 0.0 } else { v.z },
        )
    }

    /// `w` with the locked rotation components set to zero.
    #[inline]
    pub fn mask_angular(self, w: DVec3) -> DVec3 {
        if self.0 & 56 == 0 {
            return w;
        }
        DVec3::new(
            if self.0 & 8 != 0 { 0.0 } else { w.x },
            if self.0 & 16 != 0 { 0.0 } else { w.y },
            if self.0 & 32 != 0 { 0.0 } else { w.z },
        )
    }
}

impl std::ops::BitOr for Dofs {
    type Output = Dofs;
    fn bitor(self, rhs: Dofs) -> Dofs {
        self.union(rhs)
    }
}
