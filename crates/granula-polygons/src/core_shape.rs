//! A convex polygon as a body of the core's planar world: the shape
//! ([`PolygonShape`], a core `CustomShape`), its mass properties as a prism of unit
//! thickness (002 eqs. 1a-1b), and the builder of a rigid body ([`PolygonBuilder`]).

use crate::error::PolygonError;
use crate::polygon::ConvexPolygon;
use crate::pose::cross;
use glam::DVec2;
use granula_core::math::{DQuat, DVec3};
use granula_core::narrowphase::ShapeKind;
use granula_core::{
    Aabb, CoreError, CustomShape, MassProperties, MaterialId, Prescribed, RigidBody, RigidBodyBuilder, Shape,
};
use std::any::Any;
use std::sync::Arc;
use thiserror::Error;

/// The thickness (m) of a polygon of the planar world along z: a unit, as the core's discs,
/// so that a density in kg/m³ is the areal density of 002 eq. 1a in kg/m² and a contact's
/// overlap volume is its overlap area (002 eq. 5) in m² times 1 m.
pub const UNIT_THICKNESS: f64 = 1.0;

/// The shape kind of [`PolygonShape`], under which [`crate::register_all`] (point contacts)
/// and [`crate::register_all_areal`] (overlap areas) register its contact generators.
pub const POLYGON: ShapeKind = ShapeKind::Custom("polygon");

/// A convex polygon in the plane z = 0 of a planar world (`World::builder().planar(true)`),
/// a prism of [`UNIT_THICKNESS`] in its body frame (origin at the centroid). Its contacts
/// come from the generators of [`crate::register_all`] (points, for contact dynamics) or
/// [`crate::register_all_areal`] (overlap areas, for molecular dynamics); a world that is
/// not planar refuses it ([`CustomShape::planar_only`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PolygonShape {
    polygon: Arc<ConvexPolygon>,
    second_moments: DVec2,
}

impl PolygonShape {
    /// The shape of `polygon` (shared: copies of one outline store it once).
    pub fn new(polygon: Arc<ConvexPolygon>) -> Self {
        let second_moments = axial_second_moments(polygon.vertices());
        PolygonShape { polygon, second_moments }
    }

    /// The outline.
    pub fn polygon(&self) -> &Arc<ConvexPolygon> {
        &self.polygon
    }

    /// The radius of the disc of equal area, √(A/π): half of 002 eq. 5's characteristic
    /// length l_c = rᵢ + rⱼ for a pair of equal bodies.
    pub fn equivalent_radius(&self) -> f64 {
        self.polygon.equivalent_radius()
    }
}

/// (∫ y² dA, ∫ x² dA) about the centroid (body frame), from the outline by Green's
/// theorem: ∫ y² dA = 1/12 Σ (pᵢ × pᵢ₊₁)(yᵢ² + yᵢ yᵢ₊₁ + yᵢ₊₁²), and alike in x.
fn axial_second_moments(v: &[DVec2]) -> DVec2 {
    let n = v.len();
    let mut sum = DVec2::ZERO;
    for i in 0..n {
        let (a, b) = (v[i], v[(i + 1) % n]);
        let c = cross(a, b);
        sum += c * DVec2::new(a.y * a.y + a.y * b.y + b.y * b.y, a.x * a.x + a.x * b.x + b.x * b.x);
    }
    sum / 12.0
}

impl CustomShape for PolygonShape {
    fn name(&self) -> &'static str {
        match POLYGON {
            ShapeKind::Custom(name) => name,
            _ => unreachable!("POLYGON is a custom kind"),
        }
    }

    /// The box of the outline at the pose, its z extent ±r_c about the centre (r_c the
    /// outline's circumradius about its centroid), not the prism's ±½ thickness: in the
    /// planar world every body lies in z = 0, so any z extent holding 0 finds the same
    /// pairs, and one as large as the in-plane size keeps the broadphase's cells sized
    /// by the particles (a 1 m thickness would make 1 m cells, one cell for a whole cell
    /// of centimetre polygons and a quadratic pair search).
    fn aabb(&self, position: DVec3, orientation: DQuat) -> Aabb {
        let mut lo = DVec3::splat(f64::INFINITY);
        let mut hi = DVec3::splat(f64::NEG_INFINITY);
        for v in self.polygon.vertices() {
            let w = position + orientation * DVec3::new(v.x, v.y, 0.0);
            lo = lo.min(w);
            hi = hi.max(w);
        }
        let r = self.polygon.circumradius();
        lo.z = position.z - r;
        hi.z = position.z + r;
        Aabb { min: lo, max: hi }
    }

    /// The prism of unit thickness at density ρ (kg/m³): m = ρA (002 eq. 1a), I_z = ρJ with
    /// J the polar second moment of the outline (002 eq. 1b); I_x = ρ(∫y² dA + A/12) and
    /// I_y = ρ(∫x² dA + A/12) about the body axes, which the planar world never turns (its
    /// locked rotations), so they need not be principal.
    fn mass_properties(&self, density: f64) -> Option<MassProperties> {
        let a = self.polygon.area() * UNIT_THICKNESS;
        let slab = a * UNIT_THICKNESS * UNIT_THICKNESS / 12.0;
        let m = self.second_moments * UNIT_THICKNESS;
        let inertia = DVec3::new(m.x + slab, m.y + slab, self.polygon.polar_second_moment() * UNIT_THICKNESS);
        Some(MassProperties { mass: density * a, inertia: density * inertia })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn registration(&self) -> Option<&'static str> {
        Some(
            "granula_polygons::register_all(&mut narrowphase) (point contacts, contact dynamics) or \
             granula_polygons::register_all_areal(&mut narrowphase) (overlap areas, molecular dynamics)",
        )
    }

    fn planar_only(&self) -> bool {
        true
    }
}

/// What can go wrong when building a polygon body of the core world.
#[derive(Debug, Error)]
pub enum PolygonBodyError {
    /// The outline is not a valid convex polygon (the error names the vertex).
    #[error("polygon outline: {0}")]
    Outline(#[from] PolygonError),
    /// A body parameter is out of its domain (the core's error names the field).
    #[error(transparent)]
    Core(#[from] CoreError),
}

/// Builds a rigid body of a convex polygon for a planar world: position (x, y) of its
/// centroid in the plane z = 0, angle θ about z, mass and moment from the outline as a
/// prism of unit thickness ([`PolygonShape`]), at the material's density or
/// [`PolygonBuilder::density`] (kg/m³, the areal density of 002 eq. 1a in kg/m²), or a
/// given [`PolygonBuilder::mass`] (the moment then scales with it).
///
/// ```
/// use glam::DVec2;
/// use granula_core::World;
/// use granula_polygons::{register_all, shapes, PolygonBuilder};
/// use granula_core::narrowphase::Narrowphase;
/// use std::sync::Arc;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut narrowphase = Narrowphase::new();
/// register_all(&mut narrowphase)?;
/// let mut world = World::builder().planar(true).narrowphase(narrowphase).build()?;
/// let square = Arc::new(shapes::rectangle(0.1, 0.1)?);
/// let h = world.insert(PolygonBuilder::new(square, DVec2::new(0.0, 0.2)).angle(0.3).density(1000.0).build()?)?;
/// let i = world.bodies.index(h)?;
/// // m = ρ A = 1000 × 0.01, I_z = m a²/6.
/// assert!((world.bodies.mass[i] - 10.0).abs() < 1e-12);
/// assert!((world.bodies.inertia[i].z - 10.0 * 0.01 / 6.0).abs() < 1e-15);
/// # Ok(())
/// # }
/// ```
#[must_use = "call build() to get the body"]
#[derive(Clone, Debug)]
pub struct PolygonBuilder {
    shape: Result<Arc<ConvexPolygon>, PolygonError>,
    position: DVec2,
    angle: f64,
    mass: Option<f64>,
    inner: RigidBodyBuilder,
}

impl PolygonBuilder {
    /// A dynamic body of `polygon` with its centroid at `position` (m).
    pub fn new(polygon: Arc<ConvexPolygon>, position: DVec2) -> Self {
        Self::with(Ok(polygon), position)
    }

    /// A dynamic body of the outline `points` given in the world plane (any winding), placed
    /// where the points are: at the outline's centroid, angle 0. The outline is checked in
    /// [`PolygonBuilder::build`] ([`PolygonBodyError::Outline`] names the vertex).
    pub fn from_vertices(points: &[DVec2]) -> Self {
        match ConvexPolygon::from_vertices(points) {
            Ok((p, centroid)) => Self::with(Ok(Arc::new(p)), centroid),
            Err(e) => Self::with(Err(e), DVec2::ZERO),
        }
    }

    fn with(shape: Result<Arc<ConvexPolygon>, PolygonError>, position: DVec2) -> Self {
        // The shape is set in `build`; the inner builder holds a placeholder until then.
        let inner = RigidBodyBuilder::new(Shape::Sphere { radius: 1.0 }, DVec3::ZERO);
        PolygonBuilder { shape, position, angle: 0.0, mass: None, inner }
    }

    /// Position of the centroid in the plane (m), replacing the one given.
    pub fn position(mut self, position: DVec2) -> Self {
        self.position = position;
        self
    }

    /// Initial angle θ about z (rad, counter-clockwise). Default 0.
    pub fn angle(mut self, angle: f64) -> Self {
        self.angle = angle;
        self
    }

    /// Initial velocity of the centroid in the plane (m/s). Default zero.
    pub fn velocity(mut self, v: DVec2) -> Self {
        self.inner = self.inner.velocity(v.extend(0.0));
        self
    }

    /// Initial angular velocity ω = θ̇ (rad/s). Default zero.
    pub fn angular_velocity(mut self, omega: f64) -> Self {
        self.inner = self.inner.angular_velocity(DVec3::Z * omega);
        self
    }

    /// Material. Default `MaterialId(0)`.
    pub fn material(mut self, m: MaterialId) -> Self {
        self.inner = self.inner.material(m);
        self
    }

    /// Density ρ (kg/m³ over the unit thickness), overriding the material's.
    pub fn density(mut self, rho: f64) -> Self {
        self.inner = self.inner.density(rho);
        self.mass = None;
        self
    }

    /// The mass (kg) instead of a density: I = m J / A.
    pub fn mass(mut self, m: f64) -> Self {
        self.mass = Some(m);
        self
    }

    /// A constant external force in the plane (N).
    pub fn external_force(mut self, f: DVec2) -> Self {
        self.inner = self.inner.external_force(f.extend(0.0));
        self
    }

    /// Makes the body kinematic: it moves at the constant velocity `v` (m/s) in the plane and
    /// turns at `omega` (rad/s) whatever the forces, as if its mass were infinite (a glued
    /// particle of a rough wall, 002 §3). `BodySet::set_drive` changes the motion later.
    pub fn kinematic(mut self, v: DVec2, omega: f64) -> Self {
        self.inner = self.inner.kinematic(Prescribed::Constant(v.extend(0.0)), Prescribed::Constant(DVec3::Z * omega));
        self
    }

    /// Makes the body fixed (a polygonal obstacle).
    pub fn fixed(mut self) -> Self {
        self.inner = self.inner.fixed();
        self
    }

    /// Validates and returns the body: the outline ([`PolygonBodyError::Outline`]), the
    /// angle, and the core's checks of state and density or mass ([`PolygonBodyError::Core`],
    /// naming the field).
    pub fn build(self) -> Result<RigidBody, PolygonBodyError> {
        let polygon = self.shape?;
        if !self.angle.is_finite() {
            return Err(
                CoreError::invalid_body(granula_core::BodyRef::New, "angle", self.angle, "a finite angle").into()
            );
        }
        let shape = PolygonShape::new(polygon);
        let mut inner = self.inner.orientation(DQuat::from_rotation_z(self.angle));
        if let Some(m) = self.mass {
            let rho = m / (shape.polygon.area() * UNIT_THICKNESS);
            let props = shape.mass_properties(rho).expect("a polygon is a finite solid");
            inner = inner.mass_properties(MassProperties { mass: m, ..props });
        }
        let mut body = inner.build()?;
        body.state.position = self.position.extend(0.0);
        if !body.state.position.is_finite() {
            return Err(CoreError::invalid_body(granula_core::BodyRef::New, "position", self.position, "finite").into());
        }
        body.shape = Shape::Custom(Arc::new(shape));
        Ok(body)
    }
}
