//! The bodies of a planar simulation: a structure of arrays of three-degree-of-freedom
//! state (x, y, θ), and the builder that adds one.

use crate::error::{PlanarError, Result};
use crate::shape::Shape2;
use glam::DVec2;
use granula_polygons::ConvexPolygon;
use std::sync::Arc;

/// How a body moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motion {
    /// Newton's equations (002 eqs. 1a-1b), integrated by the Gear predictor-corrector.
    Dynamic,
    /// Moves rigidly at a prescribed velocity and does not turn, whatever the forces:
    /// a particle glued into a rough wall (002 Fig. 2). Infinite mass in contacts.
    Prescribed {
        /// Velocity (m/s); change it between steps with [`Bodies::set_prescribed_velocity`].
        velocity: DVec2,
    },
}

/// The bodies as columns indexed by a dense body index (bodies are never removed, so the
/// index is the body's identity). Positions are unwrapped (see [`Domain`](crate::Domain)).
#[derive(Clone, Debug, Default)]
pub struct Bodies {
    /// Centre of mass, unwrapped (m).
    pub position: Vec<DVec2>,
    /// Rotation angle θ (rad, counter-clockwise, not reduced modulo 2π).
    pub angle: Vec<f64>,
    /// Velocity of the centre of mass (m/s).
    pub velocity: Vec<DVec2>,
    /// Angular velocity ω = θ̇ (rad/s).
    pub angular_velocity: Vec<f64>,
    /// Contact force of the last evaluation (N), without gravity and external loads.
    pub force: Vec<DVec2>,
    /// Contact torque of the last evaluation (N m).
    pub torque: Vec<f64>,
    /// A constant external force on the centre of mass (N).
    pub external_force: Vec<DVec2>,
    /// Mass m = ρA (kg).
    pub mass: Vec<f64>,
    /// Moment of inertia I = ρJ (kg m²).
    pub inertia: Vec<f64>,
    /// 1/m, zero for prescribed bodies.
    pub inv_mass: Vec<f64>,
    /// 1/I, zero for prescribed bodies and locked rotations.
    pub inv_inertia: Vec<f64>,
    /// Shape.
    pub shape: Vec<Shape2>,
    /// √(A/π) (002 eq. 5).
    pub equivalent_radius: Vec<f64>,
    /// Bounding radius about the centre (m).
    pub circumradius: Vec<f64>,
    /// Dynamic or prescribed.
    pub motion: Vec<Motion>,
    /// Gear scaled derivatives r₂ … r₅ of the position (r_k = Δt^k x⁽ᵏ⁾/k!).
    pub(crate) gear_linear: Vec<[DVec2; 4]>,
    /// Gear scaled derivatives r₂ … r₅ of the angle.
    pub(crate) gear_angular: Vec<[f64; 4]>,
}

impl Bodies {
    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// Whether body `i` is integrated (not prescribed).
    #[inline]
    pub fn is_dynamic(&self, i: usize) -> bool {
        matches!(self.motion[i], Motion::Dynamic)
    }

    /// Sets the velocity of a prescribed body (a wall particle); `Err` if `i` is dynamic
    /// or out of range or the velocity is not finite.
    pub fn set_prescribed_velocity(&mut self, i: usize, velocity: DVec2) -> Result<()> {
        if i >= self.len() || self.is_dynamic(i) || !velocity.is_finite() {
            return Err(PlanarError::BadBody {
                body: i,
                field: "prescribed velocity",
                value: velocity.x,
                expected: "an existing prescribed body and a finite velocity",
            });
        }
        self.motion[i] = Motion::Prescribed { velocity };
        self.velocity[i] = velocity;
        Ok(())
    }

    /// Kinetic energy E_k = Σ ½(m v² + I ω²) of the dynamic bodies (002 eq. 11) (J), with
    /// the velocities as stored: under Lees-Edwards shear a body that crossed the top k
    /// times carries its image's extra k γ̇ L_y (subtract it for the velocity in the box).
    pub fn kinetic_energy(&self) -> f64 {
        (0..self.len())
            .filter(|&i| self.is_dynamic(i))
            .map(|i| {
                0.5 * (self.mass[i] * self.velocity[i].length_squared()
                    + self.inertia[i] * self.angular_velocity[i].powi(2))
            })
            .sum()
    }

    /// Total linear momentum of the dynamic bodies (kg m/s).
    pub fn momentum(&self) -> DVec2 {
        (0..self.len()).filter(|&i| self.is_dynamic(i)).map(|i| self.velocity[i] * self.mass[i]).sum()
    }
}

#[derive(Clone, Debug)]
enum ShapeSpec {
    Ready(Shape2),
    Vertices(Vec<DVec2>),
}

/// Builds one body: shape, pose, velocity, density (areal, kg/m²) or mass, motion.
#[derive(Clone, Debug)]
pub struct BodyBuilder {
    shape: ShapeSpec,
    position: Option<DVec2>,
    angle: f64,
    velocity: DVec2,
    angular_velocity: f64,
    density: f64,
    mass: Option<f64>,
    motion: Motion,
    lock_rotation: bool,
    external_force: DVec2,
}

impl BodyBuilder {
    fn with(shape: ShapeSpec) -> Self {
        BodyBuilder {
            shape,
            position: None,
            angle: 0.0,
            velocity: DVec2::ZERO,
            angular_velocity: 0.0,
            density: 1.0,
            mass: None,
            motion: Motion::Dynamic,
            lock_rotation: false,
            external_force: DVec2::ZERO,
        }
    }

    /// A disc of radius `radius` (m).
    pub fn disc(radius: f64) -> Self {
        Self::with(ShapeSpec::Ready(Shape2::Disc { radius }))
    }

    /// A polygon already built (shared).
    pub fn polygon(polygon: Arc<ConvexPolygon>) -> Self {
        Self::with(ShapeSpec::Ready(Shape2::Polygon(polygon)))
    }

    /// A polygon from its outline in the world frame: checked when the body is added
    /// ([`PlanarError::BadPolygon`] names the body); placed at the outline's centroid
    /// unless [`BodyBuilder::position`] is given.
    pub fn polygon_from_vertices(points: &[DVec2]) -> Self {
        Self::with(ShapeSpec::Vertices(points.to_vec()))
    }

    /// Centre of mass (m); required except for [`BodyBuilder::polygon_from_vertices`].
    pub fn position(mut self, position: DVec2) -> Self {
        self.position = Some(position);
        self
    }

    /// Initial angle (rad).
    pub fn angle(mut self, angle: f64) -> Self {
        self.angle = angle;
        self
    }

    /// Initial velocity (m/s).
    pub fn velocity(mut self, velocity: DVec2) -> Self {
        self.velocity = velocity;
        self
    }

    /// Initial angular velocity (rad/s).
    pub fn angular_velocity(mut self, omega: f64) -> Self {
        self.angular_velocity = omega;
        self
    }

    /// Areal density ρ (kg/m²): m = ρA, I = ρJ (002 eqs. 1a-1b). Default 1.
    pub fn density(mut self, density: f64) -> Self {
        self.density = density;
        self
    }

    /// The mass (kg) instead of a density: ρ = m/A.
    pub fn mass(mut self, mass: f64) -> Self {
        self.mass = Some(mass);
        self
    }

    /// A prescribed body moving at `velocity` (a rough-wall particle, 002 Fig. 2).
    pub fn prescribed(mut self, velocity: DVec2) -> Self {
        self.motion = Motion::Prescribed { velocity };
        self.velocity = velocity;
        self
    }

    /// Locks the rotation (θ stays at its initial value; 002 Fig. 10 "rotation neglected").
    pub fn lock_rotation(mut self) -> Self {
        self.lock_rotation = true;
        self
    }

    /// A constant external force on the centre of mass (N).
    pub fn external_force(mut self, force: DVec2) -> Self {
        self.external_force = force;
        self
    }

    /// Adds the checked body to `bodies` as body number `bodies.len()`.
    pub(crate) fn add_to(self, bodies: &mut Bodies) -> Result<usize> {
        let body = bodies.len();
        let bad = |field: &'static str, value: f64, expected: &'static str| PlanarError::BadBody {
            body,
            field,
            value,
            expected,
        };
        let (shape, centroid) = match self.shape {
            ShapeSpec::Ready(s) => (s, None),
            ShapeSpec::Vertices(points) => {
                let (p, c) =
                    ConvexPolygon::from_vertices(&points).map_err(|source| PlanarError::BadPolygon { body, source })?;
                (Shape2::Polygon(Arc::new(p)), Some(c))
            }
        };
        if let Shape2::Disc { radius } = shape {
            if !(radius.is_finite() && radius > 0.0) {
                return Err(bad("radius", radius, "a finite positive number"));
            }
        }
        let position = self.position.or(centroid).ok_or(bad("position", f64::NAN, "a position"))?;
        if !position.is_finite() {
            return Err(bad("position", position.x, "finite coordinates"));
        }
        for (field, v) in [
            ("angle", self.angle),
            ("velocity", self.velocity.x),
            ("velocity", self.velocity.y),
            ("angular velocity", self.angular_velocity),
            ("external force", self.external_force.x),
            ("external force", self.external_force.y),
        ] {
            if !v.is_finite() {
                return Err(bad(field, v, "a finite number"));
            }
        }
        let area = shape.area();
        let density = match self.mass {
            Some(m) if m.is_finite() && m > 0.0 => m / area,
            Some(m) => return Err(bad("mass", m, "a finite positive number")),
            None => self.density,
        };
        if !(density.is_finite() && density > 0.0) {
            return Err(bad("density", density, "a finite positive number"));
        }
        let mass = density * area;
        let inertia = density * shape.polar_second_moment();
        let dynamic = matches!(self.motion, Motion::Dynamic);
        bodies.position.push(position);
        bodies.angle.push(self.angle);
        bodies.velocity.push(self.velocity);
        bodies.angular_velocity.push(if dynamic && !self.lock_rotation { self.angular_velocity } else { 0.0 });
        bodies.force.push(DVec2::ZERO);
        bodies.torque.push(0.0);
        bodies.external_force.push(self.external_force);
        bodies.mass.push(mass);
        bodies.inertia.push(inertia);
        bodies.inv_mass.push(if dynamic { 1.0 / mass } else { 0.0 });
        bodies.inv_inertia.push(if dynamic && !self.lock_rotation { 1.0 / inertia } else { 0.0 });
        bodies.equivalent_radius.push(shape.equivalent_radius());
        bodies.circumradius.push(shape.circumradius());
        bodies.shape.push(shape);
        bodies.motion.push(self.motion);
        bodies.gear_linear.push([DVec2::ZERO; 4]);
        bodies.gear_angular.push([0.0; 4]);
        Ok(body)
    }
}
