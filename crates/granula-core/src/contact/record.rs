//! The [`Contact`] trait, the one way a contact is seen outside its solver, and the plain
//! record [`ContactRecord`] the solvers publish through
//! [`Solver::contacts`](crate::Solver::contacts).

use super::store::ContactKey;
use crate::math::DVec3;

/// The state of a contact as the law (or the local solver) decided it at the step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ContactStatus {
    /// The contact carries no force: within the detection range or the law's range but not
    /// pressed (zero normal force and no attraction), or opening.
    Open,
    /// Closed and not slipping: the tangential force is strictly inside the friction
    /// limit (or the law has no friction limit). The default of
    /// [`ContactForce::status`](crate::ContactForce::status): a law that reports nothing
    /// is taken to hold its contact without slip.
    #[default]
    Sticking,
    /// Closed and slipping: the tangential force is at its Coulomb-like limit.
    Sliding,
    /// Held in tension by cohesion: the net normal force on body 2 pulls it towards body 1
    /// (f·n < 0), whether or not the surfaces overlap.
    Cohesive,
}

/// One contact of a step, as the step saw it: at the configuration where its force was
/// computed (the predicted configuration under a predictor-corrector, the positions of the
/// force pass under Verlet, the detection configuration q_m of a Moreau-Jean step), with
/// the force and couple the step applied.
///
/// Conventions (000 Fig. 3): the normal n points from body 1 to body 2; the gap g is
/// negative for overlap; the force f and the couple c act on body 2 and body 1 receives
/// −f and −c; the branch vectors l₁, l₂ go from each body's position to the contact
/// point, so the torque on body 2 is l₂ × f + c and on body 1 −l₁ × f − c.
///
/// Which body of a pair is body 1 is the solver's order (the MD solver puts the smaller
/// handle first, whether it is a wall or a particle): read it from the record's bodies
/// rather than assume it. The force a wall `w` exerts on the other body is f when `w` is
/// body 1 and −f when it is body 2.
///
/// Outputs (contact network, stress tensor, force chains, fabric) read contacts through
/// this trait only. The Love-Weber stress of a set of contacts, for example, is
/// σ = −(1/V) Σ_c (l₂ ⊗ f − l₁ ⊗ f) written with f ⊗ l (compression positive):
///
/// ```
/// use granula_core::{Contact, ContactKey, ContactRecord, ContactStatus, BodyHandle, DMat3, DVec3};
///
/// fn stress_sum(contacts: &[impl Contact]) -> DMat3 {
///     let mut s = DMat3::ZERO;
///     for c in contacts {
///         let (l1, l2) = c.branches();
///         let f = c.force();
///         // −(f ⊗ l₂) on body 2 and −(−f ⊗ l₁) on body 1.
///         s -= DMat3::from_cols(f * l2.x, f * l2.y, f * l2.z);
///         s += DMat3::from_cols(f * l1.x, f * l1.y, f * l1.z);
///     }
///     s
/// }
///
/// // Two unit spheres at x = 0 and x = 2, pressed together by 10 N along x.
/// let c = ContactRecord {
///     key: ContactKey { body1: BodyHandle(0), body2: BodyHandle(1), feature: 0 },
///     body1: 0,
///     body2: 1,
///     point: DVec3::new(1.0, 0.0, 0.0),
///     normal: DVec3::X,
///     tangent: DVec3::Y,
///     gap: -1e-3,
///     branch1: DVec3::new(1.0, 0.0, 0.0),
///     branch2: DVec3::new(-1.0, 0.0, 0.0),
///     relative_velocity: DVec3::ZERO,
///     force: DVec3::new(10.0, 0.0, 0.0),
///     couple: DVec3::ZERO,
///     status: ContactStatus::Sticking,
/// };
/// assert_eq!(c.normal_force(), DVec3::new(10.0, 0.0, 0.0));
/// // σ_xx V = f |x₂ − x₁| = 20 N m, compression positive.
/// assert_eq!(stress_sum(&[c]).x_axis.x, 20.0);
/// ```
pub trait Contact {
    /// The persistent key: both bodies by handle and the geometric feature.
    fn key(&self) -> ContactKey;
    /// Dense indices (body 1, body 2) in the body set of the step; valid until the body
    /// set's structure changes (an insertion or a removal). The key's handles stay valid.
    fn bodies(&self) -> (u32, u32);
    /// Contact point, world frame (m).
    fn point(&self) -> DVec3;
    /// Unit normal n from body 1 to body 2.
    fn normal(&self) -> DVec3;
    /// Gap g along the normal (m); negative is overlap.
    fn gap(&self) -> f64;
    /// Branch vectors (l₁, l₂) from each body's position to the contact point (m).
    fn branches(&self) -> (DVec3, DVec3);
    /// The orthonormal contact frame (n, t, s), s = n × t.
    fn frame(&self) -> (DVec3, DVec3, DVec3);
    /// Relative velocity of body 2 with respect to body 1 at the contact point,
    /// 𝒱 = v₂ + ω₂ × l₂ − (v₁ + ω₁ × l₁) (000 eq. 3), as the law saw it.
    fn relative_velocity(&self) -> DVec3;
    /// Force the step applied to body 2 (N); body 1 received the opposite. Under contact
    /// dynamics, the step's impulse divided by Δt (the mean force over the step).
    fn force(&self) -> DVec3;
    /// Pure couple the step applied to body 2 (N m), besides the moment of the force;
    /// body 1 received the opposite.
    fn couple(&self) -> DVec3;
    /// What the law decided for this contact.
    fn status(&self) -> ContactStatus;

    /// Normal part of the force, (f·n) n (N); f·n is positive in compression.
    fn normal_force(&self) -> DVec3 {
        let n = self.normal();
        self.force().dot(n) * n
    }

    /// Tangential force f − (f·n) n (N), evaluated as (n × f) × n (equal for a unit n):
    /// a force along the normal then has no tangential part to round-off, and exactly none
    /// when the normal is along an axis.
    fn tangential_force(&self) -> DVec3 {
        let n = self.normal();
        n.cross(self.force()).cross(n)
    }
}

/// The plain record of one contact that solvers publish
/// ([`Solver::contacts`](crate::Solver::contacts)); see [`Contact`] for the conventions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactRecord {
    /// The persistent key.
    pub key: ContactKey,
    /// Dense index of body 1 in the body set of the step.
    pub body1: u32,
    /// Dense index of body 2.
    pub body2: u32,
    /// Contact point, world frame (m).
    pub point: DVec3,
    /// Unit normal from body 1 to body 2.
    pub normal: DVec3,
    /// First tangent t of the frame (n, t, s); s = n × t.
    pub tangent: DVec3,
    /// Gap (m), negative for overlap.
    pub gap: f64,
    /// Branch vector l₁ from body 1's position to the contact point (m).
    pub branch1: DVec3,
    /// Branch vector l₂ from body 2's position to the contact point (m).
    pub branch2: DVec3,
    /// Relative velocity at the contact point (000 eq. 3), as the law saw it (m/s).
    pub relative_velocity: DVec3,
    /// Force on body 2 (N); body 1 received the opposite.
    pub force: DVec3,
    /// Pure couple on body 2 (N m); body 1 received the opposite.
    pub couple: DVec3,
    /// The law's status.
    pub status: ContactStatus,
}

impl Contact for ContactRecord {
    #[inline]
    fn key(&self) -> ContactKey {
        self.key
    }
    #[inline]
    fn bodies(&self) -> (u32, u32) {
        (self.body1, self.body2)
    }
    #[inline]
    fn point(&self) -> DVec3 {
        self.point
    }
    #[inline]
    fn normal(&self) -> DVec3 {
        self.normal
    }
    #[inline]
    fn gap(&self) -> f64 {
        self.gap
    }
    #[inline]
    fn branches(&self) -> (DVec3, DVec3) {
        (self.branch1, self.branch2)
    }
    #[inline]
    fn frame(&self) -> (DVec3, DVec3, DVec3) {
        (self.normal, self.tangent, self.normal.cross(self.tangent))
    }
    #[inline]
    fn relative_velocity(&self) -> DVec3 {
        self.relative_velocity
    }
    #[inline]
    fn force(&self) -> DVec3 {
        self.force
    }
    #[inline]
    fn couple(&self) -> DVec3 {
        self.couple
    }
    #[inline]
    fn status(&self) -> ContactStatus {
        self.status
    }
}
