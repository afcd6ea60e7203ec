//! The point-contact generators of [`PolygonShape`] in the core's narrowphase plug-in, for
//! contact dynamics ([`register_all`]): polygon–polygon, disc–polygon and plane–polygon,
//! up to two points per pair with a signed gap, found within the narrowphase margin (the
//! alert distance of 004 §2.3.3.2) by [`crate::points`].
//!
//! See [`point_contact`] for what a contact carries.

use crate::core_contact::{plane_line, pose_of};
use crate::core_shape::{PolygonShape, POLYGON};
use crate::points::{self, ContactPoints};
use crate::pose::Pose2;
use glam::DVec2;
use granula_core::math::DVec3;
use granula_core::narrowphase::{ContactGenerator, DegenerateGeometry, Narrowphase, PosedShape, ShapeKind};
use granula_core::{ContactGeometry, CoreError};
use std::cell::RefCell;

thread_local! {
    /// Per-thread buffers of the two outlines in the world frame (the pair passes may run
    /// in parallel).
    static OUTLINES: RefCell<(Vec<DVec2>, Vec<DVec2>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// The outline of `shape` at `pose`, relative to `origin`, into `out` (cleared first).
fn outline_into(shape: &PolygonShape, pose: &Pose2, origin: DVec2, out: &mut Vec<DVec2>) {
    let shift = pose.position - origin;
    out.clear();
    out.extend(shape.polygon().vertices().iter().map(|&v| shift + pose.rotate(v)));
}

/// The core contacts of the points `found` (relative to `origin`, normals from body 1 to
/// body 2), appended to `out`: one [`ContactGeometry`] per point, for bodies at `x1` and
/// `x2` with effective radius `r_star`.
///
/// What each record carries (004 §2.3.3.2):
///
/// - `point`: half-way between the two outlines along the normal, in the plane z = 0, so
///   the branch vectors of both bodies end at one point;
/// - `normal`: from body 1 to body 2, in the plane: the outward normal of the reference
///   face (the face of largest separation among both polygons' faces), of the wall, or
///   from the polygon's nearest outline point to a disc's centre;
/// - `gap`: the signed distance between the outlines along the normal, negative on
///   overlap; the points are found while the bodies are still apart, up to the margin;
/// - `branch1`, `branch2`: `point` minus each body's position;
/// - `effective_radius`: R* = (1/r₁ + 1/r₂)⁻¹ of the two equivalent radii
///   r = √(A/π) (a disc's own radius), the polygon's r against a plane: the scale that
///   laws with a length (rolling resistance, cohesion) read;
/// - `feature`: the point's slot, 0 or 1: the two ends of the common part of two parallel
///   faces, ordered along the reference face, or a face's two corners on a wall in vertex
///   order; a single point (a corner on a face, a disc) is slot 0. The contact store keys
///   the warm start on it;
/// - `overlap_volume`: 0 (a point contact; the area of 002 Fig. 1 is the overlap-area
///   contact's, [`crate::area_contact`]).
pub fn point_contact(
    found: &ContactPoints,
    origin: DVec2,
    x1: DVec3,
    x2: DVec3,
    r_star: f64,
    out: &mut Vec<ContactGeometry>,
) {
    for (slot, p) in found.iter() {
        let point = (origin + p.point).extend(0.0);
        out.push(ContactGeometry {
            point,
            normal: p.normal.extend(0.0),
            gap: p.gap,
            branch1: point - x1,
            branch2: point - x2,
            effective_radius: r_star,
            feature: slot as u32,
            overlap_volume: 0.0,
            twist_arm: 0.0,
        });
    }
}

/// R* = (1/r₁ + 1/r₂)⁻¹.
fn harmonic(r1: f64, r2: f64) -> f64 {
    r1 * r2 / (r1 + r2)
}

/// Two [`PolygonShape`]s: the reference and incident faces and their clipped ends
/// ([`points::polygon_polygon`]), up to two points (004 §2.3.3.2).
#[derive(Clone, Copy, Debug, Default)]
pub struct PolygonPairPoints;

impl ContactGenerator for PolygonPairPoints {
    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (Some(pa), Some(pb)) = (a.custom::<PolygonShape>(), b.custom::<PolygonShape>()) else { return Ok(()) };
        let (qa, qb) = (pose_of(&a), pose_of(&b));
        // Relative to body 1's centre, to keep the digits of far-away bodies.
        let origin = qa.position;
        let found = OUTLINES.with(|o| {
            let (va, vb) = &mut *o.borrow_mut();
            outline_into(pa, &qa, origin, va);
            outline_into(pb, &qb, origin, vb);
            points::polygon_polygon(va, vb, margin)
        });
        let r_star = harmonic(pa.equivalent_radius(), pb.equivalent_radius());
        point_contact(&found, origin, a.position, b.position, r_star, out);
        Ok(())
    }
}

/// A disc (a sphere of the planar world, body 1) and a [`PolygonShape`] (body 2): the
/// nearest point of the outline to the disc's centre ([`points::polygon_disc`]), one point.
#[derive(Clone, Copy, Debug, Default)]
pub struct DiscPolygonPoints;

impl ContactGenerator for DiscPolygonPoints {
    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (Some(r), Some(p)) = (a.shape.sphere_radius(), b.custom::<PolygonShape>()) else { return Ok(()) };
        let q = pose_of(&b);
        let origin = q.position;
        let found = OUTLINES.with(|o| {
            let vb = &mut o.borrow_mut().1;
            outline_into(p, &q, origin, vb);
            // From the polygon to the disc there, turned over: body 1 is the disc.
            points::polygon_disc(vb, a.position.truncate() - origin, r, margin).flipped()
        });
        point_contact(&found, origin, a.position, b.position, harmonic(r, p.equivalent_radius()), out);
        Ok(())
    }
}

/// A plane wall (body 1) whose normal lies in the plane of motion and a [`PolygonShape`]
/// (body 2): the deepest vertex and the deeper of its neighbours
/// ([`points::half_plane_polygon`]), up to two points. A plane whose normal has a z
/// component is a degenerate-geometry error (it is no line of the plane).
#[derive(Clone, Copy, Debug, Default)]
pub struct PlanePolygonPoints;

impl ContactGenerator for PlanePolygonPoints {
    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (Some(n), Some(p)) = (plane_line(&a)?, b.custom::<PolygonShape>()) else { return Ok(()) };
        let q = pose_of(&b);
        let origin = a.position.truncate();
        let found = OUTLINES.with(|o| {
            let vb = &mut o.borrow_mut().1;
            outline_into(p, &q, origin, vb);
            points::half_plane_polygon(n, vb, margin)
        });
        // The plane's reference point for its branch vector: its position, put in the plane.
        let x1 = origin.extend(0.0);
        point_contact(&found, origin, x1, b.position, p.equivalent_radius(), out);
        Ok(())
    }
}

/// Registers the point-contact generators of [`PolygonShape`] in `narrowphase`, the
/// contacts of contact dynamics (004 §2.3.3.2; [`point_contact`] says what a record
/// carries): polygon–polygon ([`PolygonPairPoints`]), disc–polygon
/// ([`DiscPolygonPoints`]) and plane–polygon ([`PlanePolygonPoints`]). Molecular dynamics
/// with the area law of 002 eq. 5 takes [`crate::register_all_areal`] instead. Errors as
/// [`Narrowphase::register`] does (a pair registered before).
pub fn register_all(narrowphase: &mut Narrowphase) -> Result<(), CoreError> {
    narrowphase.register(POLYGON, POLYGON, PolygonPairPoints)?;
    narrowphase.register(ShapeKind::Sphere, POLYGON, DiscPolygonPoints)?;
    narrowphase.register(ShapeKind::Plane, POLYGON, PlanePolygonPoints)
}
