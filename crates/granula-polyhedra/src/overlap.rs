//! Overlap volume of two convex polyhedra: the intersection polyhedron's volume, centroid
//! and mean normal, for normal forces proportional to the overlap volume (the 3D form of
//! the overlap-area law of 002 eq. 5, as YADE's Polyhedra uses), which do not depend on
//! how finely the faces are meshed.
//!
//! The boundary of A ∩ B is the part of A's surface inside B plus the part of B's surface
//! inside A. Each triangle of one body is clipped by every face plane of the other
//! (Sutherland–Hodgman, one plane at a time); the clipped polygons, still outward, close
//! the intersection, and the divergence theorem (signed tetrahedra with a reference point,
//! as for the mass properties) gives its volume and centroid. Where a face of A and a face
//! of B lie in the same plane with the same orientation, A's copy is kept and B's dropped
//! (a face is counted once). The normal is the area-weighted sum of A's clipped outward
//! normals: it points from A into B, and its length is the projected contact area.

use crate::contact::{least_penetration, Relative};
use crate::gjk;
use crate::polyhedron::{Polyhedron, Pose};
use granula_core::math::{DMat3, DVec3};
use granula_core::shape::Aabb;
use std::cell::RefCell;

/// The intersection of two convex bodies, world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overlap {
    /// Volume of A ∩ B (m³).
    pub volume: f64,
    /// Its centroid: the contact point of an overlap-volume law.
    pub centroid: DVec3,
    /// Unit normal from body 1 to body 2: the mean outward normal of body 1's surface
    /// inside body 2.
    pub normal: DVec3,
    /// Area of that surface projected on the normal (m²).
    pub area: f64,
}

/// Overlap of convex polyhedra `a` (body 1) and `b` (body 2), `None` when they do not
/// overlap (zero volume). Exact up to round-off; O(F_a·F_b). Both bodies must be convex
/// ([`Polyhedron::is_convex`]); for non-convex ones the result is meaningless.
pub fn convex_overlap(a: &Polyhedron, pose_a: &Pose, b: &Polyhedron, pose_b: &Pose) -> Option<Overlap> {
    let reach = a.bounding_radius() + b.bounding_radius();
    if (pose_a.position - pose_b.position).length_squared() >= reach * reach {
        return None;
    }
    // Everything in b's frame, in the thread's buffers (nothing allocated per pair once
    // they have grown to the largest meshes seen).
    let inv = pose_b.orientation.inverse();
    let rot = DMat3::from_quat(inv * pose_a.orientation);
    let shift = inv * (pose_a.position - pose_b.position);
    let mut scratch = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let sums = overlap_sums(a, b, rot, shift, reach, &mut scratch);
    SCRATCH.with(|s| *s.borrow_mut() = scratch);
    let sums = sums?;
    let volume = sums.volume6 / 6.0;
    let centroid = sums.moment24 / (4.0 * sums.volume6);
    let mut area = sums.area_a.length();
    let mut normal = sums.area_a / area;
    // One body wholly inside the other (or both at the same spot): the surface of body 1
    // inside body 2 is closed (or all of it), its area vector vanishes to round-off and
    // gives no direction. Then the axis of least penetration (the separating-axis test over
    // the face normals) gives the normal, and the area is V over that depth.
    if !(area > 1e-9 * a.bounding_radius() * b.bounding_radius()) {
        let (n, depth, _) = least_penetration(a, &Relative { rot, shift }, b);
        (normal, area) = (n, volume / depth);
    }
    Some(Overlap { volume, centroid: pose_b.to_world(centroid), normal: pose_b.orientation * normal, area })
}

/// Reusable per-thread buffers of [`convex_overlap`].
#[derive(Default)]
struct Scratch {
    a_vertices: Vec<DVec3>,
    a_planes: Vec<(DVec3, f64)>,
    b_planes: Vec<(DVec3, f64)>,
    current: Vec<DVec3>,
    next: Vec<DVec3>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The divergence-theorem sums of A ∩ B in b's frame (a mapped by x ↦ rot·x + shift),
/// `None` when the bodies are apart (a proof by GJK on the vertex sets, or no volume).
fn overlap_sums(
    a: &Polyhedron,
    b: &Polyhedron,
    rot: DMat3,
    shift: DVec3,
    reach: f64,
    scratch: &mut Scratch,
) -> Option<Sums> {
    let Scratch { a_vertices, a_planes, b_planes, current, next } = scratch;
    a_vertices.clear();
    a_vertices.extend(a.vertices().iter().map(|v| rot * *v + shift));
    if gjk::separated(a_vertices, b.vertices(), 0.0, shift) {
        return None;
    }
    // Each body's planes with the one facing the other body first: a triangle far from
    // the overlap is beyond it and dropped after one plane.
    a_planes.clear();
    a_planes.extend(a.planes().iter().map(|&(n, d)| (rot * n, d + (rot * n).dot(shift))));
    facing_first(a_planes, -shift);
    b_planes.clear();
    b_planes.extend_from_slice(b.planes());
    facing_first(b_planes, shift);
    // Tie-break only (coplanar faces): far below the round-off of a volume.
    let eps = 1e-14 * reach;
    let box_b = b.local_aabb();
    let box_a = a_vertices.iter().fold(Aabb { min: DVec3::INFINITY, max: DVec3::NEG_INFINITY }, |bx, v| Aabb {
        min: bx.min.min(*v),
        max: bx.max.max(*v),
    });
    let mut sums = Sums::default();
    for f in a.faces() {
        let tri = f.map(|i| a_vertices[i as usize]);
        if overlaps_box(&tri, &box_b) && clip(&tri, b_planes, eps, current, next) {
            sums.add(current, true);
        }
    }
    for f in 0..b.faces().len() as u32 {
        let tri = b.triangle(f);
        if overlaps_box(&tri, &box_a) && clip(&tri, a_planes, -eps, current, next) {
            sums.add(current, false);
        }
    }
    (sums.volume6 > 0.0).then_some(sums)
}

/// Running sums of the divergence theorem over the clipped polygons (reference point: the
/// origin of body 2's frame, b's centre of mass).
#[derive(Default)]
struct Sums {
    volume6: f64,
    moment24: DVec3,
    area_a: DVec3,
}

impl Sums {
    fn add(&mut self, poly: &[DVec3], from_a: bool) {
        for k in 1..poly.len() - 1 {
            let (p, q, r) = (poly[0], poly[k], poly[k + 1]);
            let d = p.dot(q.cross(r));
            self.volume6 += d;
            self.moment24 += d * (p + q + r);
            if from_a {
                self.area_a += 0.5 * (q - p).cross(r - p);
            }
        }
    }
}

/// Moves the plane whose outward normal is closest to `dir` (toward the other body) to
/// the front.
fn facing_first(planes: &mut [(DVec3, f64)], dir: DVec3) {
    if let Some(k) = (0..planes.len()).max_by(|&i, &j| planes[i].0.dot(dir).total_cmp(&planes[j].0.dot(dir))) {
        planes.swap(0, k);
    }
}

/// Does the triangle's box meet `bx`? (Triangles away from the other body are skipped
/// before clipping.)
fn overlaps_box(tri: &[DVec3; 3], bx: &Aabb) -> bool {
    Aabb { min: tri[0].min(tri[1]).min(tri[2]), max: tri[0].max(tri[1]).max(tri[2]) }.overlaps(bx)
}

/// Clips the triangle to n·x − d ≤ `threshold` for every plane, into `current` (`next` is
/// scratch). `false` when less than a triangle is left.
fn clip(
    tri: &[DVec3; 3],
    planes: &[(DVec3, f64)],
    threshold: f64,
    current: &mut Vec<DVec3>,
    next: &mut Vec<DVec3>,
) -> bool {
    current.clear();
    current.extend_from_slice(tri);
    for &(n, d) in planes {
        next.clear();
        for (k, &p) in current.iter().enumerate() {
            let q = current[(k + 1) % current.len()];
            let (sp, sq) = (n.dot(p) - d - threshold, n.dot(q) - d - threshold);
            if sp <= 0.0 {
                next.push(p);
            }
            if (sp <= 0.0) != (sq <= 0.0) {
                next.push(p + (q - p) * (sp / (sp - sq)));
            }
        }
        std::mem::swap(current, next);
        if current.len() < 3 {
            return false;
        }
    }
    true
}
