//! The overlap-area contact generators of [`PolygonShape`] in the core's narrowphase
//! plug-in, for molecular dynamics ([`register_all_areal`]): polygon–polygon, disc–polygon
//! and plane–polygon, each from the overlap region of 002 §2 (Fig. 1) computed by this
//! crate.
//!
//! See [`area_contact`] for what a contact carries.

use crate::core_shape::{PolygonShape, POLYGON, UNIT_THICKNESS};
use crate::overlap::{disc_polygon, half_plane_polygon, polygon_polygon, Overlap2, OverlapScratch};
use crate::pose::Pose2;
use glam::DVec2;
use granula_core::math::DVec3;
use granula_core::narrowphase::{ContactGenerator, DegenerateGeometry, Narrowphase, PosedShape, ShapeKind};
use granula_core::{ContactGeometry, CoreError, Shape};
use std::cell::RefCell;
use std::f64::consts::PI;

thread_local! {
    /// Per-thread buffers of the overlap computations (the pair passes run in parallel).
    static SCRATCH: RefCell<OverlapScratch> = RefCell::new(OverlapScratch::default());
}

/// The in-plane pose of a posed body: (x, y) and the rotation about z, read from the
/// turned x axis (cos θ, sin θ) without trigonometry.
pub(crate) fn pose_of(p: &PosedShape<'_>) -> Pose2 {
    let x = p.orientation * DVec3::X;
    Pose2::from_rotation(p.position.truncate(), x.x, x.y)
}

/// The core contact of an overlap `o` between bodies at `x1` and `x2` with characteristic
/// length `l_c` of 002 eq. 5.
///
/// One contact per overlapping pair (feature 0; there is no force before contact, so the
/// margin is not used), published as a core `ContactGeometry`:
///
/// - `point`: the centroid of the overlap region, the contact point of 002 §2;
/// - `normal`: perpendicular to the chord through the crossings of the two outlines
///   (002 Fig. 1), from body 1 to body 2 (the plane's own normal for a plane);
/// - `overlap_volume`: the overlap area A times the unit thickness
///   ([`crate::UNIT_THICKNESS`]), the A of 002 eq. 5;
/// - `gap`: −A/L, L the chord's length: the mean depth of the overlap across the chord,
///   the 2D counterpart of the −V/A of polyhedral volume contacts. A normal approach dx
///   adds L dx to A, so the area law's elastic energy ∫F dx is ½ F A/L exactly while L
///   stays constant (flat faces pressed together). Without a chord
///   (one outline inside the other) L is the diameter 2√(A/π) of the disc of area A;
/// - `effective_radius`: half of 002 eq. 5's characteristic length, l_c/2, with
///   l_c = rᵢ + rⱼ the sum of the bodies' equivalent radii r = √(A_body/π) (a disc's own
///   radius), and l_c = 2r against a plane, as in the 2D engine: the mean equivalent radius
///   of the pair, or the body's own against a wall, where it equals the R* of the 3D
///   convention. The area law of `granula_laws` reads l_c = 2 R from it.
pub fn area_contact(o: &Overlap2, x1: DVec3, x2: DVec3, l_c: f64) -> ContactGeometry {
    let chord = match o.chord {
        Some([p, q]) if p != q => (q - p).length(),
        _ => 2.0 * (o.area / PI).sqrt(),
    };
    let point = o.centroid.extend(0.0);
    ContactGeometry {
        point,
        normal: o.normal.extend(0.0),
        gap: -o.area / chord,
        branch1: point - x1,
        branch2: point - x2,
        effective_radius: 0.5 * l_c,
        feature: 0,
        overlap_volume: o.area * UNIT_THICKNESS,
        twist_arm: 0.0,
    }
}

/// Two [`PolygonShape`]s (002 Fig. 1), by [`polygon_polygon`]; l_c = rᵢ + rⱼ (002 eq. 5).
#[derive(Clone, Copy, Debug, Default)]
pub struct PolygonPair;

impl ContactGenerator for PolygonPair {
    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        _margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (Some(pa), Some(pb)) = (a.custom::<PolygonShape>(), b.custom::<PolygonShape>()) else { return Ok(()) };
        let (qa, qb) = (pose_of(&a), pose_of(&b));
        let o = SCRATCH.with(|s| polygon_polygon(pa.polygon(), &qa, pb.polygon(), &qb, &mut s.borrow_mut()));
        let l_c = pa.equivalent_radius() + pb.equivalent_radius();
        out.extend(o.map(|o| area_contact(&o, a.position, b.position, l_c)));
        Ok(())
    }
}

/// A disc (a sphere of the planar world, body 1) and a [`PolygonShape`] (body 2), by
/// [`disc_polygon`]; l_c = r + √(A/π) (002 eq. 5).
#[derive(Clone, Copy, Debug, Default)]
pub struct DiscPolygon;

impl ContactGenerator for DiscPolygon {
    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        _margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (Some(r), Some(p)) = (a.shape.sphere_radius(), b.custom::<PolygonShape>()) else { return Ok(()) };
        let q = pose_of(&b);
        let o = SCRATCH.with(|s| disc_polygon(a.position.truncate(), r, p.polygon(), &q, &mut s.borrow_mut()));
        out.extend(o.map(|o| area_contact(&o, a.position, b.position, r + p.equivalent_radius())));
        Ok(())
    }
}

/// A plane wall (body 1) whose normal lies in the plane of motion and a [`PolygonShape`]
/// (body 2), by [`half_plane_polygon`]: the part of the polygon behind the wall's line,
/// normal the wall's; l_c = 2√(A/π). A plane whose normal has a z component is a
/// degenerate-geometry error (it is no line of the plane).
#[derive(Clone, Copy, Debug, Default)]
pub struct PlanePolygon;

impl ContactGenerator for PlanePolygon {
    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        _margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (Some(n2), Some(p)) = (plane_line(&a)?, b.custom::<PolygonShape>()) else { return Ok(()) };
        let q = pose_of(&b);
        let o = SCRATCH.with(|s| half_plane_polygon(a.position.truncate(), n2, p.polygon(), &q, &mut s.borrow_mut()));
        // The plane's reference point for its branch vector: its position, put in the plane.
        let x1 = DVec3::new(a.position.x, a.position.y, 0.0);
        out.extend(o.map(|o| area_contact(&o, x1, b.position, 2.0 * p.equivalent_radius())));
        Ok(())
    }
}

/// The in-plane unit normal of a plane body `a` (its normal turned by its orientation), or
/// `None` if `a` is not a plane; a normal with a z component is a degenerate-geometry
/// error (the plane is no line of the plane of motion).
pub(crate) fn plane_line(a: &PosedShape<'_>) -> Result<Option<DVec2>, DegenerateGeometry> {
    let Shape::Plane { normal } = a.shape else { return Ok(None) };
    let n = a.orientation * *normal;
    if n.z.abs() > 1e-12 * n.length() {
        return Err(DegenerateGeometry { reason: "a plane against a polygon needs its normal in the plane z = 0" });
    }
    Ok(Some(n.truncate().normalize()))
}

/// Registers the overlap-area generators of [`PolygonShape`] in `narrowphase`, the contacts
/// of molecular dynamics with the area law of 002 eq. 5 (one per pair, [`area_contact`]):
/// polygon–polygon ([`PolygonPair`]), disc–polygon ([`DiscPolygon`]) and plane–polygon
/// ([`PlanePolygon`]). Contact dynamics takes the point contacts of [`crate::register_all`]
/// instead. Errors as [`Narrowphase::register`] does (a pair registered before).
pub fn register_all_areal(narrowphase: &mut Narrowphase) -> Result<(), CoreError> {
    narrowphase.register(POLYGON, POLYGON, PolygonPair)?;
    narrowphase.register(ShapeKind::Sphere, POLYGON, DiscPolygon)?;
    narrowphase.register(ShapeKind::Plane, POLYGON, PlanePolygon)
}
