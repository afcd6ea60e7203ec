//! Contacts: the geometry of one contact point, the contact frame, the relative velocity
//! (000 eq. 3), and the persistent store of per-pair state.

mod store;

pub use store::{ContactKey, ContactStore};

use crate::body_set::BodySet;
use crate::math::{tangent_frame, DVec3};

/// The geometry of one contact point between body 1 and body 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactGeometry {
    /// Contact point, world frame: the middle of the gap (or of the overlap).
    pub point: DVec3,
    /// Unit normal from body 1 to body 2.
    pub normal: DVec3,
    /// Gap g along the normal (m); negative is overlap.
    pub gap: f64,
    /// Branch vector l₁ from body 1's position to the contact point (000 Fig. 3).
    pub branch1: DVec3,
    /// Branch vector l₂ from body 2's position to the contact point.
    pub branch2: DVec3,
    /// Effective radius R* = (1/R₁ + 1/R₂)⁻¹ of the surfaces at the contact (a flat or
    /// cylindrical wall counts as flat: R* is the sphere's radius).
    pub effective_radius: f64,
    /// Geometric feature key, to tell several contacts of one pair apart (0 for the
    /// built-in pairs, which touch at one point).
    pub feature: u32,
}

impl ContactGeometry {
    /// The orthonormal tangent pair (t, s) of the contact frame (n, t, s).
    #[inline]
    pub fn tangents(&self) -> (DVec3, DVec3) {
        tangent_frame(self.normal)
    }
}

/// One contact between the bodies of dense indices `body1` and `body2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Dense index of body 1.
    pub body1: u32,
    /// Dense index of body 2.
    pub body2: u32,
    /// Geometry.
    pub geometry: ContactGeometry,
}

impl Contact {
    /// Relative velocity of body 2 with respect to body 1 at the contact point,
    /// 𝒱 = v₂ + ω₂ × l₂ − (v₁ + ω₁ × l₁) (000 eq. 3).
    #[inline]
    pub fn relative_velocity(&self, bodies: &BodySet) -> DVec3 {
        relative_velocity(bodies, self.body1 as usize, self.body2 as usize, &self.geometry)
    }
}

/// 𝒱 = v₂ + ω₂ × l₂ − (v₁ + ω₁ × l₁) (000 eq. 3) for bodies `i` (1) and `j` (2).
#[inline]
pub fn relative_velocity(bodies: &BodySet, i: usize, j: usize, g: &ContactGeometry) -> DVec3 {
    bodies.velocity[j] + bodies.angular_velocity[j].cross(g.branch2)
        - bodies.velocity[i]
        - bodies.angular_velocity[i].cross(g.branch1)
}
