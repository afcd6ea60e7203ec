//! One contact per pair from the overlap volume, for normal laws F_n = k_V V (YADE's
//! Polyhedra law; the 3D form of the overlap-area law of 002 eq. 5), which do not depend on
//! how the faces are meshed (`granula_laws::VolumetricSpring`).
//!
//! Each contact carries the intersection's volume V in
//! [`ContactGeometry::overlap_volume`], the normal of [`convex_overlap`] (or the
//! plane's), and the gap −V/A: the depth of a prism of volume V on the projected contact
//! area A, so that overlap-based quantities (the tangential spring's stiffness, damping)
//! see the mean depth. Its point and twist arm ([`ContactGeometry::twist_arm`]) are those
//! of a uniform pressure on body 1's surface inside body 2: the force and couple an
//! energy U(V) of the volume exerts (`granula_laws::VolumeEnergy`). The key is fixed
//! ([`FeatureKey::Single`]), so a tangential history lasts as long as the overlap.
//!
//! - [`convex_volume_contact`]: two convex polyhedra, by [`convex_overlap`].
//! - [`plane_volume_contact`]: a plane and any closed polyhedron, convex or not: the part
//!   of the body below the plane.
//!
//! [`register_all_volumetric`] registers these in place of the point generators of
//! [`crate::register_all`].

use crate::coherence::{Coherence, Screen};
use crate::contact::FeatureKey;
use crate::core_shape::{register_sphere_pair, CylinderPolyhedron, PolyhedronShape, POLYHEDRON};
use crate::overlap::{convex_overlap, Overlap};
use crate::polyhedron::{Polyhedron, Pose};
use granula_core::math::DVec3;
use granula_core::narrowphase::{ContactGenerator, DegenerateGeometry, Narrowphase, PairMemory, PosedShape, ShapeKind};
use granula_core::{Aabb, Shape};
use granula_core::{BodySet, ContactGeometry, CoreError};

/// The part of `poly` (at `pose`) below the plane through `p0` with unit normal `n` (the
/// free side where `n` points), world frame: volume, centroid, normal `n` (from the plane,
/// body 1, into the polyhedron, body 2) and the area of the cut, `None` when nothing is
/// below. Each triangle is clipped to the half-space; with the reference point of the
/// divergence theorem on the plane, the cut's own faces add nothing to the volume and
/// moment sums, so no polygon of the cut is built, and the cut's area is minus the normal
/// component of the clipped surface's area vector (the two close the solid), as its
/// moment is minus the clipped surface's ([`Overlap::surface_moment`]). Works for
/// non-convex bodies (a cut of several pieces). O(F), one dot product per vertex for the
/// bodies far above.
pub fn plane_overlap(p0: DVec3, n: DVec3, poly: &Polyhedron, pose: &Pose) -> Option<Overlap> {
    let n_body = pose.orientation.inverse() * n;
    // Signed height of the body's origin above the plane; the plane in the body frame is
    // n_body·x = −base.
    let base = (pose.position - p0).dot(n);
    if base >= poly.bounding_radius() {
        return None;
    }
    let reference = -base * n_body;
    let height = |x: DVec3| n_body.dot(x) + base;
    let (mut volume6, mut moment24, mut area) = (0.0, DVec3::ZERO, DVec3::ZERO);
    let mut surface_moment = DVec3::ZERO;
    let mut polygon = [DVec3::ZERO; 4];
    for f in 0..poly.faces().len() as u32 {
        let tri = poly.triangle(f);
        let h = tri.map(height);
        if h.iter().all(|&x| x >= 0.0) {
            continue;
        }
        // Sutherland–Hodgman against one plane: a triangle gives at most a quadrilateral.
        let mut len = 0;
        for k in 0..3 {
            let (p, q, hp, hq) = (tri[k], tri[(k + 1) % 3], h[k], h[(k + 1) % 3]);
            if hp < 0.0 {
                polygon[len] = p - reference;
                len += 1;
            }
            if (hp < 0.0) != (hq < 0.0) {
                polygon[len] = p + (q - p) * (hp / (hp - hq)) - reference;
                len += 1;
            }
        }
        for k in 1..len.saturating_sub(1) {
            let (a, b, c) = (polygon[0], polygon[k], polygon[k + 1]);
            let d = a.dot(b.cross(c));
            volume6 += d;
            moment24 += d * (a + b + c);
            let triangle_area = 0.5 * (b - a).cross(c - a);
            area += triangle_area;
            surface_moment += ((a + b + c) / 3.0).cross(triangle_area);
        }
    }
    if !(volume6 > 0.0) {
        return None;
    }
    let centroid = moment24 / (4.0 * volume6);
    // The cut (the plane's surface inside the body) closes the clipped surface: its area
    // vector is −`area` and its moment about the reference −`surface_moment`; moved to
    // the centroid.
    let cut_moment = -surface_moment + centroid.cross(area);
    Some(Overlap {
        volume: volume6 / 6.0,
        centroid: pose.to_world(reference + centroid),
        normal: n,
        area: -area.dot(n_body),
        surface_moment: pose.orientation * cut_moment,
    })
}

/// Where an overlap-volume contact acts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VolumePoint {
    /// On the line of action of a uniform pressure on body 1's surface inside body 2,
    /// nearest the intersection's centroid c: c + S × M / |S|² (S = A n̂ the area vector, M
    /// the surface's moment about c), with the twist arm M·S / |S|² (what of M lies along
    /// n̂). The force and couple are then those of the pressure: for an energy U(V), −∇U
    /// exactly (`granula_laws::VolumeEnergy`).
    #[default]
    Pressure,
    /// At the intersection's centroid, no twist: YADE's Polyhedra law
    /// (`granula_laws::VolumetricSpring`). Its force k_V V is not a pressure's resultant (it
    /// does not shrink with the area), so on the pressure's line, which runs far from the
    /// overlap where the surface's area vector nearly cancels, it would turn the bodies
    /// with an unbounded lever.
    Centroid,
}

/// The contact of an overlap between bodies whose positions (centres of mass; a point of a
/// plane) are `x1` and `x2` (see the module), acting at `at`: `None` when the overlap has
/// no area to spread over.
fn volume_contact(
    o: &Overlap,
    x1: DVec3,
    x2: DVec3,
    effective_radius: f64,
    at: VolumePoint,
) -> Option<ContactGeometry> {
    if !(o.area > 0.0) {
        return None;
    }
    let s = o.normal * o.area;
    let inverse_square = 1.0 / (o.area * o.area);
    let (point, twist_arm) = match at {
        VolumePoint::Pressure => {
            (o.centroid + s.cross(o.surface_moment) * inverse_square, o.surface_moment.dot(s) * inverse_square)
        }
        VolumePoint::Centroid => (o.centroid, 0.0),
    };
    Some(ContactGeometry {
        point,
        normal: o.normal,
        gap: -o.volume / o.area,
        branch1: point - x1,
        branch2: point - x2,
        effective_radius,
        feature: FeatureKey::Single.encode(),
        overlap_volume: o.volume,
        twist_arm,
    })
}

/// One contact for two convex polyhedra `a` (body 1) and `b` (body 2) that overlap, from
/// [`convex_overlap`]: point on the line of a uniform pressure (see above), its normal, gap −V/A,
/// `overlap_volume` V, R* = (1/R₁ + 1/R₂)⁻¹ of the equivalent radii. `None` apart or when
/// a body is not convex ([`Polyhedron::is_convex`]).
pub fn convex_volume_contact(a: &Polyhedron, pose_a: &Pose, b: &Polyhedron, pose_b: &Pose) -> Option<ContactGeometry> {
    convex_volume_contact_at(a, pose_a, b, pose_b, VolumePoint::Pressure)
}

/// [`convex_volume_contact`] acting at `at` ([`VolumePoint`]).
pub fn convex_volume_contact_at(
    a: &Polyhedron,
    pose_a: &Pose,
    b: &Polyhedron,
    pose_b: &Pose,
    at: VolumePoint,
) -> Option<ContactGeometry> {
    if !a.is_convex() || !b.is_convex() {
        return None;
    }
    let o = convex_overlap(a, pose_a, b, pose_b)?;
    let (ra, rb) = (a.equivalent_radius(), b.equivalent_radius());
    volume_contact(&o, pose_a.position, pose_b.position, ra * rb / (ra + rb), at)
}

/// One contact for the plane through `p0` with unit normal `n` (body 1) and `poly` (body 2)
/// from [`plane_overlap`]: point on the line of the pressure on the cut (along `n` through its centroid), normal `n`,
/// gap −V/A (A the area of the cut), `overlap_volume` V, R* the polyhedron's equivalent
/// radius. `None` when nothing is below the plane.
pub fn plane_volume_contact(p0: DVec3, n: DVec3, poly: &Polyhedron, pose: &Pose) -> Option<ContactGeometry> {
    plane_volume_contact_at(p0, n, poly, pose, VolumePoint::Pressure)
}

/// [`plane_volume_contact`] acting at `at` ([`VolumePoint`]; the cut's centroid line and
/// the volume's centroid differ wherever the part below the plane is not a prism).
pub fn plane_volume_contact_at(
    p0: DVec3,
    n: DVec3,
    poly: &Polyhedron,
    pose: &Pose,
    at: VolumePoint,
) -> Option<ContactGeometry> {
    let o = plane_overlap(p0, n, poly, pose)?;
    volume_contact(&o, p0, pose.position, poly.equivalent_radius(), at)
}

/// The overlap-volume generator of a plane wall (body 1) against a [`PolyhedronShape`]
/// (body 2), by [`plane_volume_contact`]: one contact while the body dips below the plane
/// (the margin is not used: a volume law has no force before contact).
#[derive(Clone, Copy, Debug, Default)]
pub struct PlaneVolume {
    /// Where its contacts act.
    pub at: VolumePoint,
}

impl ContactGenerator for PlaneVolume {
    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        _margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (Shape::Plane { normal }, Some(shape)) = (a.shape, b.custom::<PolyhedronShape>()) else {
            return Ok(());
        };
        let n = (a.orientation * *normal).normalize();
        let pose = Pose::new(b.position, b.orientation);
        out.extend(plane_volume_contact_at(a.position, n, shape.polyhedron(), &pose, self.at));
        Ok(())
    }
}

/// The overlap-volume generator of two convex [`PolyhedronShape`]s, by
/// [`convex_volume_contact`]; a non-convex body is a degenerate-geometry error naming the
/// pair (its intersection is not computed). The bodies are prepared once per step and a
/// pair is screened first: apart by its world boxes, or, with a
/// pair memory from the solver, by a proof of separation kept from the last step; the
/// contacts are the same bits with or without the memory.
///
/// Clones share the prepared bodies; [`register_all_volumetric`] and
/// [`register_all_volume_energy`] register one.
#[derive(Clone, Debug, Default)]
pub struct ConvexPairVolume {
    coherence: Coherence,
    at: VolumePoint,
}

impl ConvexPairVolume {
    /// A generator whose contacts act at `at`.
    pub fn acting_at(at: VolumePoint) -> Self {
        ConvexPairVolume { coherence: Coherence::default(), at }
    }

    /// The contact of a pair, with the pair's memory when the solver keeps one.
    fn generate_with(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        memory: Option<&PairMemory>,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (Some(pa), Some(pb)) = (a.custom::<PolyhedronShape>(), b.custom::<PolyhedronShape>()) else {
            return Ok(());
        };
        let (pa, pb) = (pa.polyhedron(), pb.polyhedron());
        if !pa.is_convex() || !pb.is_convex() {
            return Err(DegenerateGeometry { reason: "overlap-volume contacts need convex polyhedra" });
        }
        // The margin is not used: a volume law has no force before contact.
        let recall = match self.coherence.screen(&a, &b, 0.0, memory, false) {
            Screen::Apart => return Ok(()),
            Screen::Unprepared => None,
            Screen::Search(recall) => recall,
        };
        let (pose_a, pose_b) = (Pose::new(a.position, a.orientation), Pose::new(b.position, b.orientation));
        let contact = convex_volume_contact_at(pa, &pose_a, pb, &pose_b, self.at);
        if let Some(recall) = recall {
            recall.searched(contact.is_some());
        }
        out.extend(contact);
        Ok(())
    }
}

impl ContactGenerator for ConvexPairVolume {
    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        _margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        self.generate_with(a, b, None, out)
    }

    fn generate_remembering(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        _margin: f64,
        memory: &PairMemory,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        self.generate_with(a, b, Some(memory), out)
    }

    /// Prepares every polyhedral body once for the step (O(total vertices)).
    fn prepare(&self, bodies: &BodySet) {
        self.coherence.prepare(bodies);
    }

    fn prepared_aabb(&self, bodies: &BodySet, i: usize) -> Option<Aabb> {
        self.coherence.prepared_aabb(bodies, i)
    }
}

/// Registers the overlap-volume generators of YADE's law (`granula_laws::VolumetricSpring`,
/// contacts at the intersection's centroid, [`VolumePoint::Centroid`]) in `narrowphase`:
/// plane–polyhedron ([`PlaneVolume`]) and polyhedron–polyhedron ([`ConvexPairVolume`],
/// convex bodies only), with the point generators of [`crate::register_all`] for
/// polyhedron–sphere and cylinder–polyhedron (their contacts carry no volume: a volume law
/// then uses the cap of depth δ and radius R*). Use it instead of `register_all`. Errors as
/// [`Narrowphase::register`] does.
pub fn register_all_volumetric(narrowphase: &mut Narrowphase) -> Result<(), CoreError> {
    register_volume(narrowphase, VolumePoint::Centroid)
}

/// [`register_all_volumetric`] with the contacts of an energy of the volume
/// (`granula_laws::VolumeEnergy`): on the line of a uniform pressure, with its twist
/// ([`VolumePoint::Pressure`]).
pub fn register_all_volume_energy(narrowphase: &mut Narrowphase) -> Result<(), CoreError> {
    register_volume(narrowphase, VolumePoint::Pressure)
}

fn register_volume(narrowphase: &mut Narrowphase, at: VolumePoint) -> Result<(), CoreError> {
    narrowphase.register(POLYHEDRON, POLYHEDRON, ConvexPairVolume::acting_at(at))?;
    register_sphere_pair(narrowphase)?;
    narrowphase.register(ShapeKind::Plane, POLYHEDRON, PlaneVolume { at })?;
    narrowphase.register(ShapeKind::Cylinder, POLYHEDRON, CylinderPolyhedron)
}
