//! Contacts: the geometry of one contact point, the contact frame, the relative velocity
//! (000 eq. 3), the persistent store of per-pair state, and the [`Contact`] trait through
//! which a solver publishes the contacts of its last step ([`ContactRecord`]).

mod record;
mod store;

pub use record::{Contact, ContactRecord, ContactStatus};
pub use store::{ContactKey, ContactStore};

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
    /// Volume of the bodies' intersection (m³), for laws whose normal force grows with it;
    /// 0 when the generator does not compute it (every built-in pair: a law then derives
    /// it from the overlap and R*, see `granula_laws::VolumetricSpring`).
    pub overlap_volume: f64,
    /// Twist arm τ (m) of a contact spread over a surface: a normal force F_n n at the
    /// point comes with the couple F_n τ n on body 2 (−F_n τ n on body 1), the part of
    /// a uniform pressure's moment about the normal that no point force carries. 0 for
    /// a point contact (every built-in pair); see `granula_polyhedra`'s overlap-volume
    /// contacts, where it makes the torque of an energy of the volume exact.
    pub twist_arm: f64,
}

impl ContactGeometry {
    /// The couple F_n τ n on body 2 that the normal part F_n = F·n of the force `force`
    /// brings with it ([`ContactGeometry::twist_arm`]); zero for a point contact.
    #[inline(always)]
    pub fn twist_couple(&self, force: DVec3) -> DVec3 {
        if self.twist_arm == 0.0 {
            return DVec3::ZERO;
        }
        (force.dot(self.normal) * self.twist_arm) * self.normal
    }

    /// The orthonormal tangent pair (t, s) of the contact frame (n, t, s).
    #[inline]
    pub fn tangents(&self) -> (DVec3, DVec3) {
        tangent_frame(self.normal)
    }
}

/// 𝒱 = v₂ + ω₂ × l₂ − (v₁ + ω₁ × l₁) (000 eq. 3): the velocity of body 2's material point
/// at the contact relative to body 1's, from each body's velocity v, angular velocity ω
/// and branch vector l (centre to contact point). The one place the solvers, the outputs
/// and the conformance kit compute it.
#[inline(always)]
pub fn point_relative_velocity(v1: DVec3, w1: DVec3, l1: DVec3, v2: DVec3, w2: DVec3, l2: DVec3) -> DVec3 {
    v2 + w2.cross(l2) - v1 - w1.cross(l1)
}
