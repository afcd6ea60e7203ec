//! Solver-local body storage, filled once per step (ELG form of 004 §2.3.3.4): each body
//! carries its current velocity v = v_free + M⁻¹ r, r its accumulated contact impulse, so
//! that one contact update reads and writes two bodies only.

use granula_core::{BodySet, DMat3, DVec3, MotionKind};

/// Linear and angular velocity of one body, side by side for the sweep's random access,
/// aligned so that one body is one cache line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(64))]
pub struct BodyVelocity {
    /// Velocity (m/s).
    pub v: DVec3,
    /// Angular velocity, world frame (rad/s).
    pub w: DVec3,
}

/// How a body's velocity answers an impulse: Δv = lin ∘ p, Δω = ang (l × p).
///
/// `lin` is 1/m on the free translations and 0 on locked ones; `ang` is the world-frame
/// inverse inertia R I⁻¹ Rᵀ with locked rotation rows and columns zeroed. Both vanish for
/// fixed and kinematic bodies (infinite inertia, 000 §2.4.2 remark on walls).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(32))]
pub struct BodyMobility {
    /// Translational mobility per world axis (1/kg).
    pub lin: DVec3,
    /// Rotational mobility, world frame (1/(kg m²)).
    pub ang: DMat3,
}

impl Default for BodyMobility {
    fn default() -> Self {
        BodyMobility { lin: DVec3::ZERO, ang: DMat3::ZERO }
    }
}

impl BodyMobility {
    /// The mobility of body `i` of `bodies`.
    pub fn of(bodies: &BodySet, i: usize) -> Self {
        if bodies.motion[i] != MotionKind::Dynamic {
            return BodyMobility::default();
        }
        let locked = bodies.locked[i];
        let lin = locked.mask_linear(DVec3::splat(bodies.inv_mass[i]));
        let inv = bodies.inv_inertia_world(i);
        let mask = locked.mask_angular(DVec3::ONE);
        let m = DMat3::from_diagonal(mask);
        BodyMobility { lin, ang: m * inv * m }
    }

    /// The velocity change caused by impulse `p` applied at branch vector `l`.
    #[inline(always)]
    pub fn response(&self, l: DVec3, p: DVec3) -> BodyVelocity {
        BodyVelocity { v: self.lin * p, w: self.ang * l.cross(p) }
    }
}
