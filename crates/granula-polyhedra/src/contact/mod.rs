//! Contact points of polyhedra (003 §4), as [`ContactGeometry`] pushed into a caller's
//! vector, so that a narrowphase generator for a shape pair is a thin wrapper.
//!
//! Conventions, shared with the core's built-in pairs: the normal is a unit vector from
//! body 1 to body 2; the gap is negative for an overlap; the point is the middle of the
//! overlap (or of the gap); branch vectors go from each body's position (its centre of
//! mass) to the point. A polyhedron has no finite curvature radius at a vertex or an edge,
//! so its effective radius is the radius of the sphere of equal volume
//! ([`Polyhedron::equivalent_radius`]); a plane or a face counts as flat.
//!
//! **Polyhedron–polyhedron** ([`polyhedron_polyhedron`]): every vertex of each body is
//! tested against the other (vertex contacts: point at the vertex moved half the depth
//! toward the surface, normal toward the nearest surface point, depth the distance to
//! it), then pairs of sharp edges that cross each other inside both bodies (edge–edge
//! contacts: two boxes crossing edge on edge have no vertex inside the other; the corners
//! of a face-on-face overlap). [`Method::General`] classifies by ray parity over the face
//! hierarchy and works for non-convex bodies; [`Method::Convex`] replaces every ray cast
//! and nearest-face search by the face planes.
//!
//! **Walls and spheres**: [`plane_polyhedron`] and [`cylinder_polyhedron`] (the wall is
//! body 1, one point per vertex beyond it), [`polyhedron_sphere`] (one point).
//!
//! **Feature keys** ([`FeatureKey`]): a vertex of body 1, a vertex of body 2 or a pair of
//! edges, so that the same physical contact keeps its key from step to step.
//!
//! The seed (003 §4) is followed for the vertex test; edge–edge contacts, the convex
//! path and the walls are additions documented in `docs/polyhedra.md`.

pub(crate) mod certificate;
mod cylinder;
mod edge;
pub(crate) mod motion;
mod plane;
pub(crate) mod prepared;
mod sphere;
mod vertex;

pub use crate::volume_contact::{
    convex_volume_contact, convex_volume_contact_at, plane_overlap, plane_volume_contact, plane_volume_contact_at,
};
pub use cylinder::cylinder_polyhedron;
pub use plane::plane_polyhedron;
pub use sphere::{polyhedron_sphere, sphere_contact};

use crate::polyhedron::{Polyhedron, Pose};
use granula_core::math::{DMat3, DVec3};
use granula_core::ContactGeometry;
use std::cell::RefCell;

/// Reusable per-thread buffers of [`polyhedron_polyhedron_with`].
#[derive(Default)]
struct Scratch {
    /// Body 1's vertices in body 2's frame, and body 2's in body 1's.
    a_in_b: Vec<DVec3>,
    b_in_a: Vec<DVec3>,
    /// Depth of each vertex of body 1 and 2 inside the other (`None`: outside).
    depth: [Vec<Option<f64>>; 2],
    /// The plane of the other body that rejected each vertex (convex path).
    beyond: [Vec<u32>; 2],
    /// The edges of each body that meet the other's surface, and the vertex codes of the
    /// edge pass (see `edge::meeting_edges`).
    edges: edge::EdgeScratch,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// How vertex-in-body and edge tests are decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Ray parity and nearest face over the hierarchy: any closed body (003 §4).
    General,
    /// Face planes: both bodies must be convex (exact for them, wrong otherwise).
    Convex,
    /// [`Method::Convex`] when both bodies are convex with at most
    /// [`CONVEX_PATH_MAX_PLANES`] face planes each, else [`Method::General`]: the plane
    /// tests are O(V·F) per pair, the hierarchy O(V log F), and the bench
    /// (`benches/contact_pairs.rs`) finds the two paths about even at 320 faces and the
    /// hierarchy twice as fast at 1280.
    Auto,
}

/// Largest number of distinct face planes for which [`Method::Auto`] takes the convex path.
pub const CONVEX_PATH_MAX_PLANES: usize = 384;

/// Bits 30–31 of a feature key tell its kind; the rest is the index (or indices).
const KIND_SHIFT: u32 = 30;
const INDEX_MASK: u32 = (1 << KIND_SHIFT) - 1;
const EDGE_BITS: u32 = 15;
const EDGE_MASK: u32 = (1 << EDGE_BITS) - 1;

/// What a contact's `feature: u32` stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureKey {
    /// A vertex of body 1 (index in its mesh) inside or near body 2: key = vertex.
    Vertex1(u32),
    /// A vertex of body 2 inside or near body 1: key = 1·2³⁰ + vertex.
    Vertex2(u32),
    /// Edge e₁ of body 1 crossing edge e₂ of body 2: key = 2·2³⁰ + (e₁ mod 2¹⁵)·2¹⁵ +
    /// (e₂ mod 2¹⁵). Meshes of more than 32768 edges may share keys between edge pairs.
    EdgePair(u32, u32),
    /// A single contact of the pair (sphere): key = 3·2³⁰.
    Single,
}

impl FeatureKey {
    /// The `u32` stored in [`ContactGeometry::feature`].
    pub fn encode(self) -> u32 {
        match self {
            FeatureKey::Vertex1(v) => v & INDEX_MASK,
            FeatureKey::Vertex2(v) => (1 << KIND_SHIFT) | (v & INDEX_MASK),
            FeatureKey::EdgePair(a, b) => (2 << KIND_SHIFT) | ((a & EDGE_MASK) << EDGE_BITS) | (b & EDGE_MASK),
            FeatureKey::Single => 3 << KIND_SHIFT,
        }
    }

    /// Back from a stored key (edge indices modulo 2¹⁵).
    pub fn decode(key: u32) -> Self {
        let index = key & INDEX_MASK;
        match key >> KIND_SHIFT {
            0 => FeatureKey::Vertex1(index),
            1 => FeatureKey::Vertex2(index),
            2 => FeatureKey::EdgePair(index >> EDGE_BITS, index & EDGE_MASK),
            _ => FeatureKey::Single,
        }
    }
}

/// The transform from body `from`'s frame to body `to`'s frame: x_to = rot · x_from + shift
/// (a matrix: cheaper than a quaternion per point).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Relative {
    pub rot: DMat3,
    pub shift: DVec3,
}

impl Relative {
    pub fn between(from: &Pose, to: &Pose) -> Self {
        let inv = to.orientation.inverse();
        Relative { rot: DMat3::from_quat(inv * from.orientation), shift: inv * (from.position - to.position) }
    }

    /// The transform back (`to` → `from`).
    #[inline]
    pub fn inverse(&self) -> Self {
        let rot = self.rot.transpose();
        Relative { rot, shift: -(rot * self.shift) }
    }

    #[inline]
    pub fn apply(&self, x: DVec3) -> DVec3 {
        self.rot * x + self.shift
    }
}

/// The larger of `m` and `x`, `m` when `x` is NaN: as `f64::max` for a running maximum
/// that starts from a number (the same value for any `x`, up to the sign of a zero result,
/// which no caller's comparison or sum sees), but one `maxsd` on x86-64, where `f64::max`
/// spends a further compare and blend on a NaN in `m`.
#[inline(always)]
pub(crate) fn larger(m: f64, x: f64) -> f64 {
    if x > m {
        x
    } else {
        m
    }
}

/// The smaller of `m` and `x`, `m` when `x` is NaN (see [`larger`]).
#[inline(always)]
pub(crate) fn smaller(m: f64, x: f64) -> f64 {
    if x < m {
        x
    } else {
        m
    }
}

/// R* = (1/R₁ + 1/R₂)⁻¹ of two polyhedra's equivalent radii.
fn effective_radius(a: &Polyhedron, b: &Polyhedron) -> f64 {
    let (ra, rb) = (a.equivalent_radius(), b.equivalent_radius());
    ra * rb / (ra + rb)
}

/// A contact from its point, normal (body 1 → body 2) and gap.
fn geometry(
    point: DVec3,
    normal: DVec3,
    gap: f64,
    pose1: &Pose,
    pose2: &Pose,
    r: f64,
    key: FeatureKey,
) -> ContactGeometry {
    ContactGeometry {
        point,
        normal,
        gap,
        branch1: point - pose1.position,
        branch2: point - pose2.position,
        effective_radius: r,
        feature: key.encode(),
        overlap_volume: 0.0,
        twist_arm: 0.0,
    }
}

/// Contact points between polyhedron `a` (body 1) at `pose_a` and `b` (body 2) at
/// `pose_b`, appended to `out`: vertex contacts with a gap up to `margin`, and edge–edge
/// contacts where edges cross inside both bodies. [`Method::Auto`]: the face-plane path
/// when both are convex and not finely meshed. Returns the number of points added.
pub fn polyhedron_polyhedron(
    a: &Polyhedron,
    pose_a: &Pose,
    b: &Polyhedron,
    pose_b: &Pose,
    margin: f64,
    out: &mut Vec<ContactGeometry>,
) -> usize {
    polyhedron_polyhedron_with(Method::Auto, a, pose_a, b, pose_b, margin, out)
}

/// [`polyhedron_polyhedron`] with a chosen [`Method`].
pub fn polyhedron_polyhedron_with(
    method: Method,
    a: &Polyhedron,
    pose_a: &Pose,
    b: &Polyhedron,
    pose_b: &Pose,
    margin: f64,
    out: &mut Vec<ContactGeometry>,
) -> usize {
    let extents = |u: DVec3| extent(a, pose_a, u) + extent(b, pose_b, -u);
    if apart_on_centre_line(pose_a, pose_b, a.bounding_radius() + b.bounding_radius(), margin, extents) {
        return 0;
    }
    pair_points(method, a, pose_a, b, pose_b, margin, out)
}

/// `true` when the pair is proved apart by more than `margin` by its bounding spheres
/// (radii summing to `radii`) or by the plane normal to the centre line: with u = d/|d|,
/// body 1 lies below the largest u·x of its vertices and body 2 above |d| − the largest
/// (−u)·x of its own (support functions, O(V₁ + V₂), summed by `extents(u)`); when the two
/// fall short of |d| − margin no point is within the margin. Most candidate pairs of a
/// packing end here.
#[inline]
pub(crate) fn apart_on_centre_line(
    pose_a: &Pose,
    pose_b: &Pose,
    radii: f64,
    margin: f64,
    extents: impl Fn(DVec3) -> f64,
) -> bool {
    let d = pose_b.position - pose_a.position;
    let reach = radii + margin.max(0.0);
    let dist2 = d.length_squared();
    if dist2 > reach * reach {
        return true;
    }
    if dist2 > 0.0 {
        let dist = dist2.sqrt();
        if extents(d / dist) < dist - margin {
            return true;
        }
    }
    false
}

/// The points of a pair that the centre-line test did not prove apart
/// ([`polyhedron_polyhedron_with`] after [`apart_on_centre_line`]).
pub(crate) fn pair_points(
    method: Method,
    a: &Polyhedron,
    pose_a: &Pose,
    b: &Polyhedron,
    pose_b: &Pose,
    margin: f64,
    out: &mut Vec<ContactGeometry>,
) -> usize {
    let before = out.len();
    let convex = match method {
        Method::General => false,
        Method::Convex => true,
        Method::Auto => [a, b].iter().all(|p| p.is_convex() && p.planes().len() <= CONVEX_PATH_MAX_PLANES),
    };
    // Every array of both bodies that the search reads, asked for at once, so that their
    // cache misses overlap each other and the work below (the edge lists are read last,
    // after the screening and the vertex pass).
    for poly in [a, b] {
        prefetch(poly.planes());
        prefetch(poly.vertices());
        prefetch(poly.edges());
    }
    let rel_ab = Relative::between(pose_a, pose_b);
    let rel_ba = rel_ab.inverse();
    let facing = if convex { [facing_plane(a, &rel_ba), facing_plane(b, &rel_ab)] } else { [0, 0] };
    if convex
        && (plane_separates(a, facing[0], b, &rel_ba, margin) || plane_separates(b, facing[1], a, &rel_ab, margin))
    {
        return 0;
    }
    // Deep interpenetration (the centre of one body inside the other, e.g. two bodies
    // placed at the same spot): the vertex and edge contacts may all lie on the surfaces
    // with no depth, or point every way. One contact along the axis of least penetration
    // instead (see `least_penetration`).
    if centre_inside(b, rel_ab.shift, convex, facing[1]) || centre_inside(a, rel_ba.shift, convex, facing[0]) {
        let (n, depth, mid) = least_penetration(a, &rel_ab, b);
        let normal = pose_b.orientation * n;
        let point = pose_b.to_world(mid);
        out.push(geometry(point, normal, -depth, pose_a, pose_b, effective_radius(a, b), FeatureKey::Single));
        return 1;
    }
    // The thread's buffers, taken out for the call: nothing is allocated per pair once they
    // have grown to the largest meshes seen.
    let mut scratch = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    scratch.a_in_b.clear();
    scratch.a_in_b.extend(a.vertices().iter().map(|v| rel_ab.apply(*v)));
    scratch.b_in_a.clear();
    scratch.b_in_a.extend(b.vertices().iter().map(|v| rel_ba.apply(*v)));
    let pair = vertex::Pair {
        a,
        pose_a,
        b,
        pose_b,
        margin,
        convex,
        r: effective_radius(a, b),
        a_in_b: &scratch.a_in_b,
        b_in_a: &scratch.b_in_a,
        rel_ab,
        rel_ba,
        facing,
    };
    pair.vertices(&mut scratch.depth, &mut scratch.beyond, out);
    if convex && out.len() == before && {
        let slack = margin.max(0.0) + SEPARATION_SLACK * (a.bounding_radius() + b.bounding_radius());
        face_separates(b, &scratch.a_in_b, &scratch.beyond[0], slack)
            || face_separates(a, &scratch.b_in_a, &scratch.beyond[1], slack)
    } {
        SCRATCH.with(|s| *s.borrow_mut() = scratch);
        return 0;
    }
    edge::edge_contacts(&pair, &scratch.depth, &scratch.beyond, &mut scratch.edges, out);
    SCRATCH.with(|s| *s.borrow_mut() = scratch);
    out.len() - before
}

/// A hint to the processor to bring `items` into the cache (every 64-byte line of it);
/// nothing elsewhere than x86-64. A prefetch has no effect on any value.
#[inline(always)]
fn prefetch<T>(items: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let bytes = std::mem::size_of_val(items);
        let start = items.as_ptr().cast::<i8>();
        for offset in (0..bytes).step_by(64) {
            // SAFETY: SSE is part of the x86-64 baseline, and a prefetch neither faults nor
            // reads or writes any value (the address stays inside `items`).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = items;
}

/// Relative slack (times the sum of the bounding radii) by which [`face_separates`] asks
/// the vertices to lie beyond a plane on top of the margin: a million times the round-off
/// of a plane distance (about 1e-16 of the radius), so that the edge pass's clipping of a
/// segment by that plane (which divides the two ends' distances) cannot find it inside by
/// round-off, and still a billionth of the bodies' size, far below any physical gap.
const SEPARATION_SLACK: f64 = 1e-10;

/// `true` when every vertex of `src` (mapped into `dst`'s frame) lies beyond one face plane
/// of `dst` by more than `slack`, trying the planes that rejected `src`'s vertices in the
/// vertex pass (`beyond`, [`vertex::NO_PLANE`] for none): a plane of a convex body with the
/// other body wholly beyond it separates the two (the separating-axis theorem's face
/// axes), so no edge of `src` meets `dst` and the pair has no edge crossing. Each distinct
/// plane is tried once; a plane fails at its first vertex on the near side.
fn face_separates(dst: &Polyhedron, mapped: &[DVec3], beyond: &[u32], slack: f64) -> bool {
    // Planes tried so far (indices below 64; others are tried again, which only costs time).
    let mut tried = 0u64;
    for &k in beyond {
        if k == vertex::NO_PLANE {
            continue;
        }
        if k < 64 {
            if tried & (1 << k) != 0 {
                continue;
            }
            tried |= 1 << k;
        }
        let (n, d) = dst.planes()[k as usize];
        if mapped.iter().all(|p| n.dot(*p) - d > slack) {
            return true;
        }
    }
    false
}

/// The face plane of `dst` that faces `src` most directly: its normal closest to the
/// direction of `src`'s centre.
fn facing_plane(dst: &Polyhedron, src_in_dst: &Relative) -> usize {
    let centre = src_in_dst.shift;
    let (mut best, mut best_dot) = (0, f64::NEG_INFINITY);
    for (k, (n, _)) in dst.planes().iter().enumerate() {
        let d = n.dot(centre);
        if d > best_dot {
            (best, best_dot) = (k, d);
        }
    }
    best
}

/// Quick rejection for convex pairs: every vertex of `src` beyond plane `k` of `dst` by
/// more than `margin`. O(V); a pair it does not reject may still be apart (separated by
/// another plane, or by an edge–edge axis).
fn plane_separates(dst: &Polyhedron, k: usize, src: &Polyhedron, src_in_dst: &Relative, margin: f64) -> bool {
    let (n, d) = dst.planes()[k];
    let n_src = src_in_dst.rot.transpose() * n;
    let offset = n.dot(src_in_dst.shift) - d;
    src.vertices().iter().all(|v| n_src.dot(*v) + offset > margin)
}

/// The largest distance from the centre of mass of `poly` at `pose` along the world
/// direction `u` (its support function at u).
#[inline]
fn extent(poly: &Polyhedron, pose: &Pose, u: DVec3) -> f64 {
    let local = pose.orientation.inverse() * u;
    poly.vertices().iter().fold(f64::NEG_INFINITY, |m, v| larger(m, v.dot(local)))
}

/// Is point `p` (the body's frame) inside the body or on its surface? Face planes for a
/// convex body, ray parity otherwise. The convex test tries plane `first` before the
/// others (the plane facing the other body's centre, which usually has `p` beyond it):
/// the answer is the same in any order.
fn centre_inside(poly: &Polyhedron, p: DVec3, convex: bool, first: usize) -> bool {
    if convex {
        let below = |&(n, d): &(DVec3, f64)| n.dot(p) <= d;
        below(&poly.planes()[first]) && poly.planes().iter().all(below)
    } else {
        crate::inside::classify(poly, p) != crate::inside::PointClass::Outside
    }
}

/// The contact of a deep interpenetration, in body 2's frame: the face normal (of either
/// body, convex hulls of the vertices) along which the two bodies' extents overlap least,
/// turned from body 1 to body 2, that overlap as the depth, and the point in the middle of
/// the overlap along it, on the line between the centres. It is the separating-axis test
/// over face normals (the least overlap over them bounds the true penetration depth from
/// above; edge-edge axes are not tried): the push that separates the bodies soonest. Ties
/// go to the first axis (body 1's planes, then body 2's), so the result is deterministic;
/// for coincident centres the normal is that face normal itself.
pub(crate) fn least_penetration(a: &Polyhedron, a_in_b: &Relative, b: &Polyhedron) -> (DVec3, f64, DVec3) {
    let range = |dir: DVec3, points: &mut dyn Iterator<Item = DVec3>| {
        points.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| (lo.min(p.dot(dir)), hi.max(p.dot(dir))))
    };
    let centre_a = a_in_b.shift;
    let (mut best, mut normal, mut mid) = (f64::INFINITY, DVec3::Z, 0.0);
    let axes = a.planes().iter().map(|&(n, _)| a_in_b.rot * n).chain(b.planes().iter().map(|&(n, _)| n));
    for n in axes {
        let (lo_a, hi_a) = range(n, &mut a.vertices().iter().map(|v| a_in_b.apply(*v)));
        let (lo_b, hi_b) = range(n, &mut b.vertices().iter().copied());
        // Body 2 above body 1 along n (push 2 along +n) or below (along −n); with the
        // centres coincident both are tried and the smaller wins, +n on a tie.
        let (up, down) = (hi_a - lo_b, hi_b - lo_a);
        if up < best && up <= down {
            (best, normal, mid) = (up, n, 0.5 * (hi_a + lo_b));
        } else if down < best {
            (best, normal, mid) = (down, -n, -0.5 * (hi_b + lo_a));
        }
    }
    // On the line between the centres, at the middle of the overlap along the normal.
    let centres = 0.5 * centre_a;
    let point = centres + normal * (mid - normal.dot(centres));
    (normal, best, point)
}

#[cfg(test)]
mod sample;
#[cfg(test)]
mod tests;
