//! Builders for the built-in bodies. Every builder validates its input in `build()` and
//! returns an error that names the field at fault.

use super::{finite_vec, positive, unit_vec, BodyState, Dofs, MassSource, Motion, Prescribed, RigidBody};
use crate::error::{BodyRef, CoreError, Result};
use crate::handle::MaterialId;
use crate::math::{DQuat, DVec3};
use crate::shape::{CylinderWall, MassProperties, Shape};

/// Settings shared by all builders.
#[derive(Clone, Debug)]
struct Common {
    state: BodyState,
    material: MaterialId,
    motion: Motion,
    locked: Dofs,
    mass: MassSource,
    external_force: DVec3,
    external_torque: DVec3,
}

impl Common {
    fn new(position: DVec3, motion: Motion) -> Self {
        Common {
            state: BodyState { position, ..Default::default() },
            material: MaterialId(0),
            motion,
            locked: Dofs::NONE,
            mass: MassSource::Material,
            external_force: DVec3::ZERO,
            external_torque: DVec3::ZERO,
        }
    }

    fn finish(self, shape: Shape) -> Result<RigidBody> {
        let b = BodyRef::New;
        finite_vec(b, "position", self.state.position)?;
        finite_vec(b, "velocity", self.state.velocity)?;
        finite_vec(b, "angular velocity", self.state.angular_velocity)?;
        finite_vec(b, "external force", self.external_force)?;
        finite_vec(b, "external torque", self.external_torque)?;
        let q = self.state.orientation;
        if !q.is_finite() || (q.length() - 1.0).abs() > 1e-9 {
            return Err(CoreError::invalid_body(b, "orientation", q, "a finite unit quaternion"));
        }
        match self.mass {
            MassSource::Density(rho) => {
                positive(b, "density", rho)?;
            }
            MassSource::Explicit(p) => {
                positive(b, "mass", p.mass)?;
                for k in 0..3 {
                    if !(p.inertia[k] > 0.0) || p.inertia[k].is_nan() {
                        return Err(CoreError::invalid_body(b, "inertia", p.inertia, "> 0 (or infinite)"));
                    }
                }
            }
            MassSource::Material => {}
        }
        if let Motion::Kinematic { linear: Prescribed::Constant(v), angular: Prescribed::Constant(w) } = &self.motion {
            finite_vec(b, "kinematic velocity", *v)?;
            finite_vec(b, "kinematic angular velocity", *w)?;
        }
        Ok(RigidBody {
            shape,
            mass: self.mass,
            material: self.material,
            motion: self.motion,
            locked: self.locked,
            state: self.state,
            external_force: self.external_force,
            external_torque: self.external_torque,
        })
    }
}

macro_rules! common_setters {
    () => {
        /// Initial velocity (m/s). Default zero.
        pub fn velocity(mut self, v: DVec3) -> Self {
            self.common.state.velocity = v;
            self
        }
        /// Initial angular velocity, world frame (rad/s). Default zero.
        pub fn angular_velocity(mut self, w: DVec3) -> Self {
            self.common.state.angular_velocity = w;
            self
        }
        /// Initial orientation. Default identity.
        pub fn orientation(mut self, q: DQuat) -> Self {
            self.common.state.orientation = q;
            self
        }
        /// Material. Default `MaterialId(0)`.
        pub fn material(mut self, m: MaterialId) -> Self {
            self.common.material = m;
            self
        }
        /// Locks degrees of freedom (world frame). Default none.
        pub fn lock(mut self, dofs: Dofs) -> Self {
            self.common.locked = self.common.locked | dofs;
            self
        }
        /// Makes the body fixed.
        pub fn fixed(mut self) -> Self {
            self.common.motion = Motion::Fixed;
            self
        }
        /// Makes the body dynamic.
        pub fn dynamic(mut self) -> Self {
            self.common.motion = Motion::Dynamic;
            self
        }
        /// Makes the body kinematic with prescribed velocities.
        pub fn kinematic(mut self, linear: Prescribed, angular: Prescribed) -> Self {
            self.common.motion = Motion::Kinematic { linear, angular };
            self
        }
        /// Explicit mass; inertia is derived from the shape where it is finite.
        pub fn mass(mut self, m: f64) -> Self {
            self.common.mass = MassSource::Explicit(MassProperties { mass: m, inertia: DVec3::splat(f64::INFINITY) });
            self.explicit_mass_hook(m);
            self
        }
        /// Explicit density (kg/m³), overriding the material's.
        pub fn density(mut self, rho: f64) -> Self {
            self.common.mass = MassSource::Density(rho);
            self
        }
        /// A constant external force (N), besides gravity.
        pub fn external_force(mut self, f: DVec3) -> Self {
            self.common.external_force = f;
            self
        }
        /// A constant external torque (N m).
        pub fn external_torque(mut self, t: DVec3) -> Self {
            self.common.external_torque = t;
            self
        }
    };
}

/// Builds a sphere. Dynamic by default; mass from its material's density unless set.
#[must_use = "call build() to get the body"]
#[derive(Clone, Debug)]
pub struct SphereBuilder {
    radius: f64,
    common: Common,
}

impl SphereBuilder {
    /// A sphere of `radius` (m) centred at `position`.
    pub fn new(radius: f64, position: DVec3) -> Self {
        SphereBuilder { radius, common: Common::new(position, Motion::Dynamic) }
    }
    common_setters!();
    fn explicit_mass_hook(&mut self, m: f64) {
        self.common.mass = MassSource::Explicit(MassProperties::sphere_of_mass(m, self.radius));
    }
    /// Validates and returns the body. Errors: non-positive or non-finite radius, mass,
    /// density; non-finite state.
    pub fn build(self) -> Result<RigidBody> {
        let r = positive(BodyRef::New, "radius", self.radius)?;
        if self.common.motion.is_dynamic() {
            // The mass from an explicit density or mass is known now; one from the
            // material's density is checked at insertion.
            let props = match self.common.mass {
                MassSource::Density(rho) if rho.is_finite() && rho > 0.0 => Some(MassProperties::solid_sphere(rho, r)),
                MassSource::Explicit(p) if p.mass.is_finite() && p.mass > 0.0 => Some(p),
                _ => None,
            };
            if let Some(p) = props {
                p.check_dynamic(BodyRef::New)?;
            }
        }
        self.common.finish(Shape::Sphere { radius: r })
    }
}

/// Builds an infinite plane wall. Fixed by default.
#[must_use = "call build() to get the body"]
#[derive(Clone, Debug)]
pub struct PlaneBuilder {
    normal: DVec3,
    common: Common,
}

impl PlaneBuilder {
    /// The plane through `point` with `normal` pointing to the side where particles are.
    pub fn new(point: DVec3, normal: DVec3) -> Self {
        PlaneBuilder { normal, common: Common::new(point, Motion::Fixed) }
    }
    common_setters!();
    fn explicit_mass_hook(&mut self, _m: f64) {}
    /// Validates and returns the body. Errors: zero or non-finite normal, non-finite state.
    pub fn build(self) -> Result<RigidBody> {
        let n = unit_vec(BodyRef::New, "normal", self.normal)?;
        self.common.finish(Shape::Plane { normal: n })
    }
}

/// Builds a cylindrical wall. Fixed, infinite and with particles inside by default.
#[must_use = "call build() to get the body"]
#[derive(Clone, Debug)]
pub struct CylinderBuilder {
    wall: CylinderWall,
    common: Common,
    /// Angular velocity about the axis (rad/s), set by [`CylinderBuilder::rotating`].
    spin: Option<f64>,
}

impl CylinderBuilder {
    /// A cylinder of `radius` around the line through `center` along `axis`.
    pub fn new(center: DVec3, axis: DVec3, radius: f64) -> Self {
        CylinderBuilder {
            wall: CylinderWall { radius, axis, inside: true, half_length: None },
            common: Common::new(center, Motion::Fixed),
            spin: None,
        }
    }
    common_setters!();
    fn explicit_mass_hook(&mut self, _m: f64) {}
    /// Particles outside the cylinder (an obstacle) instead of inside.
    pub fn outside(mut self) -> Self {
        self.wall.inside = false;
        self
    }
    /// Particles inside (default).
    pub fn inside(mut self) -> Self {
        self.wall.inside = true;
        self
    }
    /// A finite length (m) centred on `center`; no caps at the ends.
    pub fn length(mut self, length: f64) -> Self {
        self.wall.half_length = Some(0.5 * length);
        self
    }
    /// A drum turning about its own axis at `omega` (rad/s, counter-clockwise seen from
    /// the tip of the axis): a kinematic body with that constant angular velocity and no
    /// translation, whose surface drags the particles it touches (the contact sees the
    /// wall's velocity ω × r at the contact point).
    ///
    /// ```
    /// use granula_core::prelude::*;
    /// # fn main() -> Result<(), CoreError> {
    /// let drum = CylinderBuilder::new(DVec3::ZERO, DVec3::Y, 0.1).length(0.05).rotating(2.0).build()?;
    /// assert!(matches!(drum.motion(), Motion::Kinematic { .. }));
    /// # Ok(())
    /// # }
    /// ```
    pub fn rotating(mut self, omega: f64) -> Self {
        self.spin = Some(omega);
        self
    }
    /// Validates and returns the body. Errors: non-positive radius or length, zero or
    /// non-finite axis, non-finite angular velocity, non-finite state.
    pub fn build(self) -> Result<RigidBody> {
        let b = BodyRef::New;
        let mut wall = self.wall;
        wall.radius = positive(b, "radius", wall.radius)?;
        wall.axis = unit_vec(b, "axis", wall.axis)?;
        if let Some(h) = wall.half_length {
            positive(b, "length", 2.0 * h)?;
        }
        let mut common = self.common;
        if let Some(omega) = self.spin {
            if !omega.is_finite() {
                return Err(CoreError::invalid_body(b, "angular velocity", omega, "finite"));
            }
            common.motion = Motion::Kinematic {
                linear: Prescribed::Constant(DVec3::ZERO),
                angular: Prescribed::Constant(wall.axis * omega),
            };
        }
        common.finish(Shape::Cylinder(wall))
    }
}

/// Builds a body of any shape (a custom shape, or a body with explicit mass properties).
#[must_use = "call build() to get the body"]
#[derive(Clone, Debug)]
pub struct RigidBodyBuilder {
    shape: Shape,
    common: Common,
}

impl RigidBodyBuilder {
    /// A dynamic body of `shape` at `position`.
    pub fn new(shape: Shape, position: DVec3) -> Self {
        RigidBodyBuilder { shape, common: Common::new(position, Motion::Dynamic) }
    }
    common_setters!();
    fn explicit_mass_hook(&mut self, _m: f64) {}
    /// Explicit mass and principal moments (body frame).
    pub fn mass_properties(mut self, p: MassProperties) -> Self {
        self.common.mass = MassSource::Explicit(p);
        self
    }
    /// Validates and returns the body.
    pub fn build(self) -> Result<RigidBody> {
        if let Shape::Sphere { radius } = self.shape {
            positive(BodyRef::New, "radius", radius)?;
        }
        self.common.finish(self.shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_inputs_name_their_field() {
        let field = |e: CoreError| match e {
            CoreError::InvalidBody { field, .. } => field,
            other => panic!("unexpected {other}"),
        };
        assert_eq!(field(SphereBuilder::new(-1.0, DVec3::ZERO).build().unwrap_err()), "radius");
        assert_eq!(field(SphereBuilder::new(f64::NAN, DVec3::ZERO).build().unwrap_err()), "radius");
        assert_eq!(field(SphereBuilder::new(1.0, DVec3::ZERO).mass(0.0).build().unwrap_err()), "mass");
        assert_eq!(field(SphereBuilder::new(1.0, DVec3::ZERO).density(f64::INFINITY).build().unwrap_err()), "density");
        assert_eq!(field(SphereBuilder::new(1.0, DVec3::new(f64::NAN, 0.0, 0.0)).build().unwrap_err()), "position");
        assert_eq!(
            field(SphereBuilder::new(1.0, DVec3::ZERO).velocity(DVec3::INFINITY).build().unwrap_err()),
            "velocity"
        );
        assert_eq!(field(PlaneBuilder::new(DVec3::ZERO, DVec3::ZERO).build().unwrap_err()), "normal");
        assert_eq!(field(PlaneBuilder::new(DVec3::ZERO, DVec3::NAN).build().unwrap_err()), "normal");
        assert_eq!(field(CylinderBuilder::new(DVec3::ZERO, DVec3::ZERO, 1.0).build().unwrap_err()), "axis");
        assert_eq!(field(CylinderBuilder::new(DVec3::ZERO, DVec3::Z, 0.0).build().unwrap_err()), "radius");
        assert_eq!(
            field(CylinderBuilder::new(DVec3::ZERO, DVec3::Z, 1.0).rotating(f64::NAN).build().unwrap_err()),
            "angular velocity"
        );
        assert_eq!(field(CylinderBuilder::new(DVec3::ZERO, DVec3::Z, 1.0).length(-2.0).build().unwrap_err()), "length");
    }

    #[test]
    fn builders_normalise_directions_and_keep_state() {
        let p = PlaneBuilder::new(DVec3::ZERO, DVec3::new(0.0, 0.0, 2.0)).build().unwrap();
        assert!(matches!(p.shape, Shape::Plane { normal } if normal == DVec3::Z));
        assert!(matches!(p.motion, Motion::Fixed));
        let s = SphereBuilder::new(0.5, DVec3::ONE).velocity(DVec3::X).build().unwrap();
        assert_eq!(s.state.velocity, DVec3::X);
        assert!(s.motion.is_dynamic());
    }

    #[test]
    fn masses_that_underflow_are_rejected_when_built() {
        let field = |e: CoreError| match e {
            CoreError::InvalidBody { field, .. } => field,
            other => panic!("unexpected {other}"),
        };
        // ρ r³ = 2500 · 1e-600 underflows to zero.
        assert_eq!(field(SphereBuilder::new(1e-200, DVec3::ZERO).density(2500.0).build().unwrap_err()), "mass");
        // m = 1e-300 is fine, but I = 0.4 m r² = 4e-321 is subnormal and 1/I overflows.
        assert_eq!(field(SphereBuilder::new(1e-10, DVec3::ZERO).mass(1e-300).build().unwrap_err()), "inertia");
        // A wall of any size has no mass to check.
        assert!(SphereBuilder::new(1e-200, DVec3::ZERO).fixed().build().is_ok());
    }

    #[test]
    fn huge_and_tiny_directions_keep_their_direction() {
        // |(0, 0, 1e200)|² overflows and |(0, 1e-200, 0)|² underflows: a plain v/|v| gave a
        // zero normal (a wall that vanished) or NaN.
        let p = PlaneBuilder::new(DVec3::ZERO, DVec3::new(0.0, 0.0, 1e200)).build().unwrap();
        assert!(matches!(p.shape, Shape::Plane { normal } if normal == DVec3::Z));
        let p = PlaneBuilder::new(DVec3::ZERO, DVec3::new(0.0, -1e-200, 0.0)).build().unwrap();
        assert!(matches!(p.shape, Shape::Plane { normal } if normal == -DVec3::Y));
        let c = CylinderBuilder::new(DVec3::ZERO, DVec3::new(0.0, 1e300, 0.0), 0.02).build().unwrap();
        assert!(matches!(c.shape, Shape::Cylinder(w) if w.axis == DVec3::Y));
        let field = |e: CoreError| match e {
            CoreError::InvalidBody { field, .. } => field,
            other => panic!("unexpected {other}"),
        };
        let inf = DVec3::new(0.0, f64::INFINITY, 0.0);
        assert_eq!(field(PlaneBuilder::new(DVec3::ZERO, inf).build().unwrap_err()), "normal");
        assert_eq!(field(CylinderBuilder::new(DVec3::ZERO, inf, 1.0).build().unwrap_err()), "axis");
    }

    #[test]
    fn a_rotating_drum_turns_about_its_unit_axis() {
        use crate::body::Body;
        // The axis is given unnormalised: the spin is ω along the unit axis.
        let drum = CylinderBuilder::new(DVec3::ZERO, DVec3::new(0.0, 2.0, 0.0), 0.1).rotating(3.0).build().unwrap();
        match drum.motion() {
            Motion::Kinematic { linear: Prescribed::Constant(v), angular: Prescribed::Constant(w) } => {
                assert_eq!((v, w), (&DVec3::ZERO, &DVec3::new(0.0, 3.0, 0.0)));
            }
            other => panic!("{other:?}"),
        }
    }
}
