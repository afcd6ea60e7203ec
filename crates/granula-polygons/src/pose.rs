//! Where a body is in the plane: the position of its centre of mass and its angle.

use glam::DVec2;

/// The pose of a rigid body in the plane: position x of its centre of mass and rotation
/// angle θ (counter-clockwise, rad) of its body frame, kept as cos θ and sin θ, so a pose
/// maps many points cheaply and is made from a rotation without trigonometry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose2 {
    /// Position of the centre of mass (m).
    pub position: DVec2,
    cos: f64,
    sin: f64,
}

impl Pose2 {
    /// A pose at `position` turned by `angle` (rad, counter-clockwise).
    pub fn new(position: DVec2, angle: f64) -> Self {
        let (sin, cos) = angle.sin_cos();
        Self { position, cos, sin }
    }

    /// A pose from the cosine and sine of its angle, known to the caller (a solver that
    /// keeps them per body, or the first column of a rotation matrix), so that no
    /// trigonometric function is evaluated. The caller guarantees cos² + sin² = 1 to
    /// rounding; [`Pose2::new`] computes them from an angle.
    #[inline]
    pub fn from_rotation(position: DVec2, cos: f64, sin: f64) -> Self {
        Self { position, cos, sin }
    }

    /// The rotation angle θ in (−π, π] (rad).
    pub fn angle(&self) -> f64 {
        self.sin.atan2(self.cos)
    }

    /// The identity pose: at the origin, not turned.
    pub fn identity() -> Self {
        Self::new(DVec2::ZERO, 0.0)
    }

    /// A body-frame vector turned into the world frame, R(θ) v.
    #[inline]
    pub fn rotate(&self, v: DVec2) -> DVec2 {
        DVec2::new(self.cos * v.x - self.sin * v.y, self.sin * v.x + self.cos * v.y)
    }

    /// A body-frame point in the world frame, x + R(θ) p.
    #[inline]
    pub fn to_world(&self, p: DVec2) -> DVec2 {
        self.position + self.rotate(p)
    }

    /// A world point in the body frame, R(θ)ᵀ (q − x).
    #[inline]
    pub fn to_body(&self, q: DVec2) -> DVec2 {
        let d = q - self.position;
        DVec2::new(self.cos * d.x + self.sin * d.y, -self.sin * d.x + self.cos * d.y)
    }
}

/// The 2D cross product a × b = a_x b_y − a_y b_x (the z component of the 3D one).
#[inline]
pub fn cross(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}
