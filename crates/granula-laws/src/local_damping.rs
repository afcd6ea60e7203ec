//! Non-viscous (local) damping, a body-level option (004 §2.3.2.4).

use crate::error::LawError;
use glam::DVec3;

/// Kernel: F_d = −α |F| sign(v) component-wise (004 §2.3.2.4: F_d = −α r sign(q̇)), added to
/// the resultant force F of a body moving with velocity v. Returns (F + F_d, power
/// dissipated −F_d·v ≥ 0). Works the same for a torque and an angular velocity.
#[inline]
pub fn local_damping(alpha: f64, force: DVec3, velocity: DVec3) -> (DVec3, f64) {
    let sign = DVec3::new(sign0(velocity.x), sign0(velocity.y), sign0(velocity.z));
    let fd = -alpha * force.abs() * sign;
    (force + fd, -fd.dot(velocity))
}

/// sign with sign(0) = 0: a body at rest is not damped.
#[inline]
fn sign0(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// Non-viscous damping of coefficient α in [0, 1) (004 §2.3.2.4 suggests 0.7 for
/// quasi-static problems, less for dynamics, 0.1 for wave propagation). The solver applies
/// it to each dynamic body's resultant force and torque and books the dissipated power in
/// `Dissipation::body_damping`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalDamping {
    alpha: f64,
}

impl LocalDamping {
    /// α in [0, 1).
    pub fn new(alpha: f64) -> Result<Self, LawError> {
        if !(0.0..1.0).contains(&alpha) {
            return Err(LawError::InvalidParameter {
                model: "local_damping",
                param: "alpha",
                value: alpha,
                expected: "in [0, 1)",
            });
        }
        Ok(LocalDamping { alpha })
    }

    /// α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The damped force and the dissipated power (W), see [`local_damping`].
    #[inline]
    pub fn apply(&self, force: DVec3, velocity: DVec3) -> (DVec3, f64) {
        local_damping(self.alpha, force, velocity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposes_motion_and_dissipates() {
        let d = LocalDamping::new(0.7).unwrap();
        let (f, p) = d.apply(DVec3::new(2.0, -1.0, 0.5), DVec3::new(1.0, 1.0, 0.0));
        // x: 2 − 0.7·2 = 0.6; y: −1 − 0.7·1 = −1.7; z: v = 0, untouched. Exact decimals ± round-off.
        assert!((f - DVec3::new(0.6, -1.7, 0.5)).length() < 1e-15);
        // Power: 0.7·2·1 + 0.7·1·1 = 2.1 W.
        assert!((p - 2.1).abs() < 1e-15);
        assert!(LocalDamping::new(1.0).is_err());
        assert!(LocalDamping::new(-0.1).is_err());
    }
}
