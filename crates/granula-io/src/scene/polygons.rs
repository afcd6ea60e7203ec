//! Convex polygons in planar scenes (002 §2): the bodies of `[[polygons]]` and of a
//! lattice's polygon sites, built as `granula_polygons::PolygonShape` bodies of the core's
//! planar world, and the contact generators a world of polygons registers.
//!
//! `granula-io` builds polygons itself, where polyhedra come through a
//! [`ShapeMaker`](super::ShapeMaker): `granula-polygons` is a small crate on the core alone
//! (no mesh readers), and a planar scene read by [`Scene::parse`](super::Scene::parse)
//! then needs no host.

use super::bodies::BodyPlan;
use super::check::Check;
use super::limits::MAX_POLYGON_SIDES;
use super::source::KeyPath;
use super::spec::{MotionSpec, PolygonShapeSpec, PolygonSpec, SolverSpec};
use crate::error::Result;
use glam::{DQuat, DVec2, DVec3};
use granula_core::{CoreError, Dofs, MassProperties, MaterialId, Narrowphase, Prescribed, RigidBodyBuilder, Shape};
use granula_polygons::{shapes, ConvexPolygon, PolygonShape, UNIT_THICKNESS};
use std::sync::Arc;

/// Registers the contact generators of polygons (against polygons, discs and planes) in
/// `narrowphase`, chosen by the solver: overlap-area contacts for MD (one per pair, the A
/// of 002 eq. 5), point contacts for contact dynamics.
///
/// The one place where a scene picks the polygon generators by solver kind.
pub fn register_polygon_generators(
    narrowphase: &mut Narrowphase,
    solver: &SolverSpec,
) -> std::result::Result<(), CoreError> {
    match solver {
        // The overlap-area contacts of 002 Fig. 1.
        SolverSpec::Md(_) => granula_polygons::register_all_areal(narrowphase),
        // Up to two points per pair with signed gaps (004 §2.3.3.2).
        SolverSpec::Nscd(_) => granula_polygons::register_all(narrowphase),
    }
}

/// The polygon of a body, if it is one.
pub fn polygon_of(shape: &Shape) -> Option<&PolygonShape> {
    match shape {
        Shape::Custom(c) => c.as_any().downcast_ref::<PolygonShape>(),
        _ => None,
    }
}

/// SplitMix64: the portable stream of a lattice's site shapes and angles.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform number in [0, 1) from the stream.
fn uniform(state: &mut u64) -> f64 {
    (next(state) >> 11) as f64 / (1u64 << 53) as f64
}

/// The stream of a lattice's sites from its `seed`.
pub fn site_stream(seed: u64) -> u64 {
    seed ^ 0x5DEE_CE66
}

/// A vertex count `n` of `key` checked against [3, [`MAX_POLYGON_SIDES`]].
fn sides(c: &Check, path: &KeyPath, n: u32) -> Result<usize> {
    if !(3..=MAX_POLYGON_SIDES).contains(&n) {
        return Err(c.invalid(path, n, format!("must be in [3, {MAX_POLYGON_SIDES}]")));
    }
    Ok(n as usize)
}

/// The outline of `s` (at `path`); `site` is a lattice's stream, from which a random shape
/// draws its vertex count in [`sides`, `sides_max`] and its seed (a single body uses its
/// own `seed` and `sides`).
pub fn outline(c: &Check, path: &KeyPath, s: &PolygonShapeSpec, site: Option<&mut u64>) -> Result<Arc<ConvexPolygon>> {
    let bad = |key: &'static str, e: granula_polygons::PolygonError| c.invalid(&path.key(key), "", e.to_string());
    let p = match s {
        PolygonShapeSpec::Regular { sides: n, radius } => {
            let n = sides(c, &path.key("sides"), *n)?;
            let r = c.positive(&path.key("radius"), *radius)?;
            shapes::regular(n, r).map_err(|e| bad("radius", e))?
        }
        PolygonShapeSpec::Vertices { vertices } => {
            if vertices.len() > MAX_POLYGON_SIDES as usize {
                let n = vertices.len();
                return Err(c.invalid(&path.key("vertices"), n, format!("at most {MAX_POLYGON_SIDES} vertices")));
            }
            let points: Vec<DVec2> = vertices.iter().map(|v| DVec2::from_array(*v)).collect();
            if !points.iter().all(|p| p.is_finite()) {
                return Err(c.invalid(&path.key("vertices"), vertices, "components must be finite"));
            }
            ConvexPolygon::from_vertices(&points).map_err(|e| bad("vertices", e))?.0
        }
        PolygonShapeSpec::Random { sides: lo, sides_max, radius, elongation, seed } => {
            let lo = sides(c, &path.key("sides"), *lo)?;
            let hi = match sides_max {
                Some(h) => sides(c, &path.key("sides_max"), *h)?,
                None => lo,
            };
            if hi < lo {
                return Err(c.invalid(&path.key("sides_max"), hi, format!("must be >= sides = {lo}")));
            }
            let r = c.positive(&path.key("radius"), *radius)?;
            if !(elongation.is_finite() && *elongation >= 1.0) {
                return Err(c.invalid(&path.key("elongation"), elongation, "must be finite and >= 1"));
            }
            let (n, seed) = match site {
                Some(rng) => (lo + (next(rng) % (hi - lo + 1) as u64) as usize, next(rng)),
                None => (lo, *seed),
            };
            shapes::random_convex(n, r, *elongation, seed).map_err(|e| bad("radius", e))?
        }
    };
    Ok(Arc::new(p))
}

/// A random angle in [0, 2π) from a lattice's stream.
pub fn site_angle(rng: &mut u64) -> f64 {
    uniform(rng) * std::f64::consts::TAU
}

/// What a polygon body is made of, before its motion.
pub struct PolygonBody {
    /// The outline.
    pub outline: Arc<ConvexPolygon>,
    /// Centroid (m).
    pub position: DVec2,
    /// Angle θ (rad).
    pub angle: f64,
    /// Velocity (m/s).
    pub velocity: DVec2,
    /// Angular velocity θ̇ (rad/s).
    pub angular_velocity: f64,
    /// Material.
    pub material: MaterialId,
    /// Motion.
    pub motion: MotionSpec,
    /// Explicit mass (kg).
    pub mass: Option<f64>,
    /// Locked rotation.
    pub lock_rotation: bool,
    /// Constant external force (N).
    pub force: DVec2,
}

/// The core body of `p` (its key `path` in errors): a prism of unit thickness in the plane
/// z = 0 turned by θ about z, its mass from the material's density (002 eq. 1a) or `mass`.
pub fn build(c: &Check, path: &KeyPath, p: PolygonBody) -> Result<granula_core::RigidBody> {
    let shape = PolygonShape::new(Arc::clone(&p.outline));
    let (v, w) = (p.velocity.extend(0.0), DVec3::Z * p.angular_velocity);
    let mut b = RigidBodyBuilder::new(Shape::Custom(Arc::new(shape.clone())), p.position.extend(0.0))
        .orientation(DQuat::from_rotation_z(p.angle))
        .velocity(v)
        .angular_velocity(w)
        .material(p.material)
        .external_force(p.force.extend(0.0));
    if let Some(m) = p.mass {
        let m = c.positive(&path.key("mass"), m)?;
        let rho = m / (p.outline.area() * UNIT_THICKNESS);
        let props = granula_core::CustomShape::mass_properties(&shape, rho)
            .ok_or_else(|| c.invalid(&path.key("mass"), m, "the outline has no mass properties"))?;
        b = b.mass_properties(MassProperties { mass: m, ..props });
    }
    b = match p.motion {
        MotionSpec::Dynamic => b.dynamic(),
        MotionSpec::Fixed => b.fixed(),
        MotionSpec::Kinematic => b.kinematic(Prescribed::Constant(v), Prescribed::Constant(w)),
    };
    if p.lock_rotation {
        b = b.lock(Dofs::ROTATION);
    }
    b.build().map_err(|e| c.core(path, e))
}

/// A polygon from `[[polygons]]`; refused outside a planar scene.
pub fn polygon(c: &Check, path: &KeyPath, s: &PolygonSpec, planar: bool) -> Result<BodyPlan> {
    if !planar {
        return Err(c.invalid(path, "polygon", "polygons need a planar scene: set [simulation] planar = true"));
    }
    let finite2 = |key: &'static str, v: [f64; 2]| -> Result<DVec2> {
        let d = DVec2::from_array(v);
        if d.is_finite() {
            Ok(d)
        } else {
            Err(c.invalid(&path.key(key), v, "components must be finite"))
        }
    };
    let finite = |key: &'static str, v: f64| -> Result<f64> {
        if v.is_finite() {
            Ok(v)
        } else {
            Err(c.invalid(&path.key(key), v, "must be finite"))
        }
    };
    let body = PolygonBody {
        outline: outline(c, &path.key("shape"), &s.shape, None)?,
        position: finite2("position", s.position)?,
        angle: finite("angle", s.angle)?,
        velocity: finite2("velocity", s.velocity)?,
        angular_velocity: finite("angular_velocity", s.angular_velocity)?,
        material: c.material(&path.key("material"), s.material.as_ref())?,
        motion: s.motion,
        mass: s.mass,
        lock_rotation: s.lock_rotation,
        force: finite2("force", s.force)?,
    };
    let body = build(c, path, body)?;
    Ok(BodyPlan { body, name: s.name.clone(), origin: path.to_string() })
}
