//! The work arrays of a joint shock (`super`), reused from step to step.

use crate::bodies::BodyVelocity;
use granula_core::DVec3;

/// A body that touches nothing in the step's list.
pub(crate) const NO_PARTNER: u32 = u32::MAX;
/// A body that touches more than one other body.
pub(crate) const SEVERAL: u32 = u32::MAX - 1;

/// Work arrays of the joint shock, reused from step to step.
#[derive(Clone, Debug, Default)]
pub(crate) struct JointImpact {
    /// Per body, the one other body it touches in this step's list, [`NO_PARTNER`] or
    /// [`SEVERAL`].
    pub(crate) partner: Vec<u32>,
    /// The contacts solved jointly.
    pub(crate) members: Vec<u32>,
    /// Body velocities of the shock problems.
    pub(crate) vel: Vec<BodyVelocity>,
    /// Compression impulses, local frame, aligned with `members`.
    pub(crate) compression: Vec<DVec3>,
    /// Restitution impulses, local frame, aligned with `members`.
    pub(crate) restitution: Vec<DVec3>,
    /// Restitution floors r P_c,n, aligned with `members`.
    pub(crate) floor: Vec<f64>,
    /// The impulses of the previous sweep, for the extrapolation.
    pub(crate) previous: Vec<DVec3>,
    /// Sweeps of the last step's two problems.
    pub(crate) sweeps: u32,
}
