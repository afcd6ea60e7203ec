//! Overlap volume of two convex polyhedra: the intersection polyhedron's volume, centroid
//! and mean normal, for normal forces proportional to the overlap volume (the 3D form of
//! the overlap-area law of 002 eq. 5, as YADE's Polyhedra uses), which do not depend on
//! how finely the faces are meshed.
//!
//! The boundary of A ∩ B is the part of A's surface inside B plus the part of B's surface
//! inside A. Each triangle of one body is clipped by the face planes of the other
//! (Sutherland–Hodgman, one plane at a time); the clipped polygons, still outward, close
//! the intersection, and the divergence theorem (signed tetrahedra with a reference point,
//! as for the mass properties) gives its volume and centroid. Only the triangles near the
//! overlap and only the planes that cut them are visited (see `overlap_sums`): the result
//! is that of clipping every triangle by every plane, to round-off. Where a face of A and a face
//! of B lie in the same plane with the same orientation, A's copy is kept and B's dropped
//! (a face is counted once). The normal is the area-weighted sum of A's clipped outward
//! normals: it points from A into B, and its length is the projected contact area. The
//! same surface's moment ∫ (x − c) × n dS gives the line of action and the twist of a
//! uniform pressure on it (the torque of an energy of the overlap volume, see
//! [`Overlap::surface_moment`]).

use crate::contact::{least_penetration, Relative};
use crate::gjk;
use crate::polyhedron::{Polyhedron, Pose};
use granula_core::math::{DMat3, DVec3};
use granula_core::Aabb;
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
    /// Moment M = ∫ (x − c) × n dS of that surface about the centroid c (m³), n its
    /// outward normal: with its area vector S = A n̂, a uniform pressure p on it loads
    /// body 2 with the force p S and, about c, the couple p M. For an energy U(V) of the
    /// volume these are body 2's −∂U/∂x and −∂U/∂θ (moving body 2 by dx changes V by
    /// −S·dx, turning it by dθ about c by −M·dθ). Zero when one body is inside the other
    /// (no area vector, see [`convex_overlap`]).
    pub surface_moment: DVec3,
}

/// Overlap of convex polyhedra `a` (body 1) and `b` (body 2), `None` when they do not
/// overlap (zero volume). Exact up to round-off; O(F_a + F_b) for the culls plus the
/// clipping of the triangles near the overlap by the planes that cut them. Both bodies must be convex
/// ([`Polyhedron::is_convex`]); for non-convex ones the result is meaningless.
pub fn convex_overlap(a: &Polyhedron, pose_a: &Pose, b: &Polyhedron, pose_b: &Pose) -> Option<Overlap> {
    SCRATCH.with(|s| overlap_in(a, pose_a, b, pose_b, &mut s.borrow_mut()))
}

/// [`convex_overlap`] in the buffers of `scratch`.
fn overlap_in(a: &Polyhedron, pose_a: &Pose, b: &Polyhedron, pose_b: &Pose, scratch: &mut Scratch) -> Option<Overlap> {
    let reach = a.bounding_radius() + b.bounding_radius();
    if (pose_a.position - pose_b.position).length_squared() >= reach * reach {
        return None;
    }
    // Everything in b's frame, in the thread's buffers (nothing allocated per pair once
    // they have grown to the largest meshes seen; what they hold from earlier pairs is
    // never read).
    let inv = pose_b.orientation.inverse();
    let rot = DMat3::from_quat(inv * pose_a.orientation);
    let shift = inv * (pose_a.position - pose_b.position);
    let sums = overlap_sums(a, b, rot, shift, reach, scratch)?;
    let volume = sums.volume6 / 6.0;
    let centroid = sums.moment24 / (4.0 * sums.volume6);
    let mut area = sums.area_a.length();
    let mut normal = sums.area_a / area;
    // ∫ x × n dS over A's surface inside B, moved from b's origin to the centroid.
    let mut surface_moment = sums.moment_a - centroid.cross(sums.area_a);
    // One body wholly inside the other (or both at the same spot): the surface of body 1
    // inside body 2 is closed (or all of it), its area vector vanishes to round-off and
    // gives no direction. Then the axis of least penetration (the separating-axis test over
    // the face normals) gives the normal, and the area is V over that depth.
    if !(area > 1e-9 * a.bounding_radius() * b.bounding_radius()) {
        let (n, depth, _) = least_penetration(a, &Relative { rot, shift }, b);
        (normal, area, surface_moment) = (n, volume / depth, DVec3::ZERO);
    }
    Some(Overlap {
        volume,
        centroid: pose_b.to_world(centroid),
        normal: pose_b.orientation * normal,
        area,
        surface_moment: pose_b.orientation * surface_moment,
    })
}

/// Reusable per-thread buffers of [`convex_overlap`].
#[derive(Default)]
struct Scratch {
    a_vertices: Vec<DVec3>,
    a_planes: Vec<(DVec3, f64)>,
    a_side: Side,
    b_side: Side,
    polygon: Polygon,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// One body's share of the intersection's surface: its triangles that may meet the other
/// body, and the other body's planes that may cut them.
#[derive(Default)]
struct Side {
    /// Height of each vertex along the centre line.
    heights: Vec<f64>,
    /// Out-code of each vertex (see [`Side::select`]).
    codes: Vec<u8>,
    /// Triangles that may meet the other body.
    triangles: Vec<u32>,
    /// For each vertex, its row in `outside` (`u32::MAX`: in no kept triangle); the rows
    /// number the used vertices in index order.
    row: Vec<u32>,
    /// The vertices of the kept triangles, in row (index) order.
    used: Vec<u32>,
    /// The box of the kept triangles.
    kept_box: Option<Aabb>,
    /// The other body's planes that may cut a kept triangle.
    planes: Vec<u32>,
    /// A bit per plane of the other body: is it in `planes`?
    listed: Vec<u64>,
    /// The listed planes that may cut a kept triangle, in `planes` order.
    cutting: Vec<(DVec3, f64)>,
    /// With at most 64 of them, per vertex (by index; only the used ones are written): bit
    /// j set when the vertex is beyond `cutting[j]`.
    bits: Vec<u64>,
    /// With more, per used vertex (by row), `words` such bit sets.
    outside: Vec<u64>,
    /// Takes the path of more than 64 cutting planes whatever their number (set by tests,
    /// which compare the two paths).
    multi_word: bool,
}

/// The divergence-theorem sums of A ∩ B in b's frame (a mapped by x ↦ rot·x + shift),
/// `None` when the bodies are apart (an empty slab along the centre line, a proof by GJK
/// on the vertex sets, or no volume).
///
/// Three culls keep the clipping to the triangles and planes near the overlap, all exact:
/// - A ∩ B lies in the slab between A's lowest and B's highest point along the centre
///   line u (from b's centre to a's): a triangle beyond the slab cannot meet the other
///   body, nor can one whose box misses the other body's box;
/// - when the bodies are proven to share a point (a vertex of one inside the other, or
///   GJK's enclosing tetrahedron), only the faces of B that meet A
///   bound A ∩ B: if a point x of A were inside every other plane of B but outside B, the
///   segment from a common point y to x (in A and in those half-spaces, both convex) would
///   leave B through one of the omitted faces, inside A. So each triangle of A is clipped
///   by the planes of B's kept triangles only, and the other way round;
/// - a plane that leaves every corner of a triangle on its inner side does not cut it (see
///   [`Side::add_clipped`]).
fn overlap_sums(
    a: &Polyhedron,
    b: &Polyhedron,
    rot: DMat3,
    shift: DVec3,
    reach: f64,
    scratch: &mut Scratch,
) -> Option<Sums> {
    let Scratch { a_vertices, a_planes, a_side, b_side, polygon } = scratch;
    // The slab along the centre line u (from b's centre to a's), widened by far more than
    // the round-off of a height (1e-16 of the reach) and far less than any feature: it
    // only keeps more triangles. A's heights are taken in a's frame (u turned back), so
    // that a pair apart along u is rejected before A's vertices are mapped.
    let u = shift.normalize_or_zero();
    let slack = 1e-12 * reach;
    let (u_in_a, base) = (rot.transpose() * u, u.dot(shift));
    a_side.heights.clear();
    a_side.heights.extend(a.vertices().iter().map(|v| u_in_a.dot(*v) + base));
    b_side.heights.clear();
    b_side.heights.extend(b.vertices().iter().map(|x| u.dot(*x)));
    let (lowest_a, low_a) = lowest(&a_side.heights, 1.0);
    let (highest_b, high_b) = lowest(&b_side.heights, -1.0);
    let high_b = -high_b;
    if high_b < low_a {
        return None;
    }
    a_vertices.clear();
    a_vertices.extend(a.vertices().iter().map(|v| rot * *v + shift));
    // A common point proves the bodies intersect: A's lowest vertex inside B or B's
    // highest inside A (the usual overlap of a packing), else GJK decides (and proves
    // most pairs that are still apart apart).
    let inside = |x: DVec3, planes: &[(DVec3, f64)]| planes.iter().all(|&(n, d)| n.dot(x) <= d);
    let proven = inside(a_vertices[lowest_a], b.planes())
        || inside(rot.transpose() * (b.vertices()[highest_b] - shift), a.planes())
        || match gjk::relation(a_vertices, b.vertices(), 0.0, shift) {
            gjk::Relation::Separated => return None,
            relation => relation == gjk::Relation::Intersecting,
        };
    // Tie-break only (coplanar faces): far below the round-off of a volume.
    let eps = 1e-14 * reach;
    let box_a = bounding_box(a_vertices);
    a_side.select(a_vertices, a.faces(), &b.local_aabb(), |h| h > high_b + slack);
    b_side.select(b.vertices(), b.faces(), &box_a, |h| h < low_a - slack);
    a_side.list_planes(proven, b.planes().len(), &b_side.triangles, b.face_planes());
    b_side.list_planes(proven, a.planes().len(), &a_side.triangles, a.face_planes());
    // A's planes in b's frame, only those listed.
    a_planes.clear();
    a_planes.resize(a.planes().len(), (DVec3::ZERO, 0.0));
    for &k in &b_side.planes {
        let (n, d) = a.planes()[k as usize];
        let n = rot * n;
        a_planes[k as usize] = (n, d + n.dot(shift));
    }
    let mut sums = Sums::default();
    a_side.add_clipped(a_vertices, a.faces(), b.planes(), eps, true, &mut sums, polygon);
    b_side.add_clipped(b.vertices(), b.faces(), a_planes, -eps, false, &mut sums, polygon);
    (sums.volume6 > 0.0).then_some(sums)
}

/// The index and value of the smallest of `sign`·`values` (first on ties).
fn lowest(values: &[f64], sign: f64) -> (usize, f64) {
    values
        .iter()
        .enumerate()
        .fold((0, f64::INFINITY), |(k, m), (i, &h)| if sign * h < m { (i, sign * h) } else { (k, m) })
}

/// The box of a point set.
fn bounding_box(points: &[DVec3]) -> Aabb {
    points.iter().fold(Aabb { min: DVec3::INFINITY, max: DVec3::NEG_INFINITY }, |bx, v| Aabb {
        min: bx.min.min(*v),
        max: bx.max.max(*v),
    })
}

impl Side {
    /// Keeps the triangles whose box meets `other_box` and that have a corner whose height
    /// is not `beyond` the slab, and numbers their vertices.
    ///
    /// Each vertex gets an out-code once, a bit per side of the other box it lies beyond
    /// and one for the slab; a triangle misses the box (or lies beyond the slab) exactly
    /// when its three corners share a bit, so the test is an AND per triangle instead of a
    /// box per triangle.
    fn select(&mut self, vertices: &[DVec3], faces: &[[u32; 3]], other_box: &Aabb, beyond: impl Fn(f64) -> bool) {
        self.codes.clear();
        self.codes.extend(vertices.iter().zip(&self.heights).map(|(x, &h)| {
            let (below, above) = (x.cmplt(other_box.min).bitmask(), x.cmpgt(other_box.max).bitmask());
            (below | above << 3 | u32::from(beyond(h)) << 6) as u8
        }));
        // Without a branch per triangle or vertex (whether a triangle is kept is hard to
        // predict): every index is written at the end of the list, which grows only for
        // the kept ones, and the corners of kept triangles are marked in `row` first.
        self.triangles.clear();
        self.triangles.resize(faces.len(), 0);
        self.row.clear();
        self.row.resize(vertices.len(), 0);
        let mut kept = 0;
        for (f, face) in faces.iter().enumerate() {
            let [c0, c1, c2] = face.map(|i| self.codes[i as usize]);
            let keep = u32::from(c0 & c1 & c2 == 0);
            self.triangles[kept] = f as u32;
            kept += keep as usize;
            for &i in face {
                self.row[i as usize] |= keep;
            }
        }
        self.triangles.truncate(kept);
        // The marked vertices numbered in index order (the rows only address the bit sets:
        // their order changes no result).
        self.used.clear();
        self.used.resize(vertices.len(), 0);
        let mut used = 0;
        for (i, row) in self.row.iter_mut().enumerate() {
            let marked = *row;
            self.used[used] = i as u32;
            *row = if marked != 0 { used as u32 } else { u32::MAX };
            used += marked as usize;
        }
        self.used.truncate(used);
        // The kept triangles' boxes together: the box of their corners.
        self.kept_box = self.used.first().map(|&i| {
            let first = vertices[i as usize];
            self.used[1..].iter().fold(Aabb { min: first, max: first }, |k, &i| Aabb {
                min: k.min.min(vertices[i as usize]),
                max: k.max.max(vertices[i as usize]),
            })
        });
    }

    /// Lists the other body's planes that may bound the intersection: all of them, or,
    /// when the bodies are `proven` to intersect, the planes of its kept triangles
    /// (`other_triangles`, `other_face_planes`), in increasing order.
    fn list_planes(&mut self, proven: bool, other_planes: usize, other_triangles: &[u32], other_face_planes: &[u32]) {
        self.planes.clear();
        if !proven {
            self.planes.extend(0..other_planes as u32);
            return;
        }
        // A bit per plane; reading the set bits in order gives the planes sorted, once each.
        self.listed.clear();
        self.listed.resize(other_planes.div_ceil(64), 0);
        for &f in other_triangles {
            let k = other_face_planes[f as usize] as usize;
            self.listed[k / 64] |= 1 << (k % 64);
        }
        for (w, &word) in self.listed.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                self.planes.push((w * 64) as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
    }

    /// Adds to `sums` the kept triangles (`vertices`, `faces`, in the common frame)
    /// clipped to n·x − d ≤ `threshold` for the listed `planes` of the other body.
    ///
    /// The result is each triangle clipped by every listed plane (Sutherland–Hodgman), but
    /// only the planes that cut it are applied: a triangle with its three corners beyond
    /// one plane is outside and dropped, and a plane with the three corners on its inner
    /// side leaves it (and every polygon clipped from it, a convex combination of the
    /// corners) unchanged. The side of each plane is computed once per vertex, as a bit
    /// set, instead of once per triangle corner and plane; planes whose inner side holds
    /// the box of all the kept triangles cannot cut any of them and are not tested at all.
    #[allow(clippy::too_many_arguments)]
    fn add_clipped(
        &mut self,
        vertices: &[DVec3],
        faces: &[[u32; 3]],
        planes: &[(DVec3, f64)],
        threshold: f64,
        from_a: bool,
        sums: &mut Sums,
        polygon: &mut Polygon,
    ) {
        let Some(kept_box) = self.kept_box else { return };
        // Planes that may cut a kept triangle: some corner of the kept box is beyond them.
        // They are copied out in their order, so that the passes below read them in a row.
        let (centre, half) = ((kept_box.min + kept_box.max) * 0.5, (kept_box.max - kept_box.min) * 0.5);
        self.cutting.clear();
        for &k in &self.planes {
            let (n, d) = planes[k as usize];
            if n.dot(centre) + n.abs().dot(half) - d - threshold > 0.0 {
                self.cutting.push((n, d));
            }
        }
        let cutting = &self.cutting[..];
        if cutting.len() <= 64 && !self.multi_word {
            // One word per vertex (any body of up to 64 planes, and most pairs of larger
            // ones): the bits are kept by vertex index, with no row in between.
            self.bits.clear();
            self.bits.resize(vertices.len(), 0);
            for &i in &self.used {
                let p = vertices[i as usize];
                let mut word = 0u64;
                for (j, &(n, d)) in cutting.iter().enumerate() {
                    word |= u64::from(n.dot(p) - d - threshold > 0.0) << j;
                }
                self.bits[i as usize] = word;
            }
            for &f in &self.triangles {
                let face = faces[f as usize];
                let [m0, m1, m2] = face.map(|i| self.bits[i as usize]);
                if m0 & m1 & m2 != 0 {
                    continue;
                }
                let tri = face.map(|i| vertices[i as usize]);
                let mut bits = m0 | m1 | m2;
                if bits == 0 {
                    sums.add(&tri, from_a);
                    continue;
                }
                polygon.start(tri);
                let left = loop {
                    let j = bits.trailing_zeros() as usize;
                    if !polygon.clip(cutting[j], threshold) {
                        break false;
                    }
                    bits &= bits - 1;
                    if bits == 0 {
                        break true;
                    }
                };
                if left {
                    sums.add(polygon.corners(), from_a);
                }
            }
            return;
        }
        let words = cutting.len().div_ceil(64);
        self.outside.clear();
        self.outside.resize(self.used.len() * words, 0);
        for (r, &i) in self.used.iter().enumerate() {
            let p = vertices[i as usize];
            let bits = &mut self.outside[r * words..(r + 1) * words];
            for (w, chunk) in cutting.chunks(64).enumerate() {
                let mut word = 0u64;
                for (j, &(n, d)) in chunk.iter().enumerate() {
                    word |= u64::from(n.dot(p) - d - threshold > 0.0) << j;
                }
                bits[w] = word;
            }
        }
        for &f in &self.triangles {
            let face = faces[f as usize];
            let [r0, r1, r2] = face.map(|i| self.row[i as usize] as usize * words);
            let (mut beyond_one, mut cut) = (false, false);
            for w in 0..words {
                let (m0, m1, m2) = (self.outside[r0 + w], self.outside[r1 + w], self.outside[r2 + w]);
                beyond_one |= m0 & m1 & m2 != 0;
                cut |= (m0 | m1 | m2) != 0;
            }
            if beyond_one {
                continue;
            }
            let tri = face.map(|i| vertices[i as usize]);
            if !cut {
                sums.add(&tri, from_a);
                continue;
            }
            polygon.start(tri);
            let mut left = true;
            'words: for w in 0..words {
                let mut bits = self.outside[r0 + w] | self.outside[r1 + w] | self.outside[r2 + w];
                while bits != 0 {
                    let j = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if !polygon.clip(cutting[j], threshold) {
                        left = false;
                        break 'words;
                    }
                }
            }
            if left {
                sums.add(polygon.corners(), from_a);
            }
        }
    }
}

/// Running sums of the divergence theorem over the clipped polygons (reference point: the
/// origin of body 2's frame, b's centre of mass).
#[derive(Default)]
struct Sums {
    volume6: f64,
    moment24: DVec3,
    area_a: DVec3,
    /// Σ c_t × a_t over A's clipped triangles (centroid c_t, area vector a_t): the exact
    /// ∫ x × n dS of a flat triangle.
    moment_a: DVec3,
}

impl Sums {
    fn add(&mut self, poly: &[DVec3], from_a: bool) {
        for k in 1..poly.len() - 1 {
            let (p, q, r) = (poly[0], poly[k], poly[k + 1]);
            let d = p.dot(q.cross(r));
            self.volume6 += d;
            self.moment24 += d * (p + q + r);
            if from_a {
                let area = 0.5 * (q - p).cross(r - p);
                self.area_a += area;
                self.moment_a += ((p + q + r) / 3.0).cross(area);
            }
        }
    }
}

/// A convex polygon being clipped (Sutherland–Hodgman), in buffers reused from triangle
/// to triangle: `corners[..len]`, `spare` the buffer of the next pass, `sides` the corners'
/// sides of the current plane.
#[derive(Default)]
struct Polygon {
    corners: Vec<DVec3>,
    spare: Vec<DVec3>,
    sides: Vec<f64>,
    len: usize,
}

impl Polygon {
    /// Starts from a triangle.
    fn start(&mut self, tri: [DVec3; 3]) {
        if self.corners.len() < 3 {
            self.corners.resize(3, DVec3::ZERO);
        }
        self.corners[..3].copy_from_slice(&tri);
        self.len = 3;
    }

    /// The corners.
    fn corners(&self) -> &[DVec3] {
        &self.corners[..self.len]
    }

    /// Clips the polygon to n·x − d ≤ `threshold`; `false` when less than a triangle is
    /// left. The sides of all corners are computed first: a plane with no corner beyond it
    /// leaves the polygon as it is (the pass would copy every corner in order), one with
    /// every corner beyond empties it, and only the others build a new polygon.
    #[inline(always)]
    fn clip(&mut self, (n, d): (DVec3, f64), threshold: f64) -> bool {
        let len = self.len;
        if self.sides.len() < len {
            self.sides.resize(len, 0.0);
        }
        let (mut any, mut all) = (false, true);
        for (s, q) in self.sides[..len].iter_mut().zip(&self.corners[..len]) {
            *s = n.dot(*q) - d - threshold;
            any |= *s > 0.0;
            all &= *s > 0.0;
        }
        if !any {
            return len >= 3;
        }
        if all {
            self.len = 0;
            return false;
        }
        // Each corner adds at most two (a crossing and itself).
        if self.spare.len() < 2 * len {
            self.spare.resize(2 * len, DVec3::ZERO);
        }
        let (source, sides, target) = (&self.corners[..len], &self.sides[..len], &mut self.spare[..2 * len]);
        // Each edge (p, q) in turn, p the previous corner.
        let (mut p, mut sp) = (source[len - 1], sides[len - 1]);
        let mut out = 0;
        for (&q, &sq) in source.iter().zip(sides) {
            if (sp <= 0.0) != (sq <= 0.0) {
                target[out] = p + (q - p) * (sp / (sp - sq));
                out += 1;
            }
            if sq <= 0.0 {
                target[out] = q;
                out += 1;
            }
            (p, sp) = (q, sq);
        }
        std::mem::swap(&mut self.corners, &mut self.spare);
        self.len = out;
        out >= 3
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes;
    use granula_core::math::DQuat;

    /// The clipping as it was before the per-vertex plane sides: every triangle whose box
    /// meets the other body's box clipped by every plane of the other body, the plane
    /// facing the other body first. The reference the faster [`overlap_sums`] must
    /// reproduce to round-off.
    fn reference_sums(a: &Polyhedron, b: &Polyhedron, rot: DMat3, shift: DVec3, reach: f64) -> Sums {
        let a_vertices: Vec<DVec3> = a.vertices().iter().map(|v| rot * *v + shift).collect();
        let mut a_planes: Vec<(DVec3, f64)> =
            a.planes().iter().map(|&(n, d)| (rot * n, d + (rot * n).dot(shift))).collect();
        let mut b_planes = b.planes().to_vec();
        let facing_first = |planes: &mut [(DVec3, f64)], dir: DVec3| {
            let k = (0..planes.len()).max_by(|&i, &j| planes[i].0.dot(dir).total_cmp(&planes[j].0.dot(dir)));
            planes.swap(0, k.unwrap_or(0));
        };
        facing_first(&mut a_planes, -shift);
        facing_first(&mut b_planes, shift);
        let eps = 1e-14 * reach;
        let (box_a, box_b) = (bounding_box(&a_vertices), b.local_aabb());
        let mut sums = Sums::default();
        let (mut current, mut next) = (Vec::new(), Vec::new());
        let mut clip_all = |tri: [DVec3; 3], planes: &[(DVec3, f64)], threshold: f64, other: &Aabb, from_a: bool| {
            if !bounding_box(&tri).overlaps(other) {
                return;
            }
            current.clear();
            current.extend_from_slice(&tri);
            if planes.iter().all(|&plane| reference_clip(plane, threshold, &mut current, &mut next)) {
                sums.add(&current, from_a);
            }
        };
        for f in a.faces() {
            clip_all(f.map(|i| a_vertices[i as usize]), &b_planes, eps, &box_b, true);
        }
        for f in 0..b.faces().len() as u32 {
            clip_all(b.triangle(f), &a_planes, -eps, &box_a, false);
        }
        sums
    }

    /// One Sutherland–Hodgman step as the reference wrote it.
    fn reference_clip((n, d): (DVec3, f64), threshold: f64, current: &mut Vec<DVec3>, next: &mut Vec<DVec3>) -> bool {
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
        current.len() >= 3
    }

    /// SplitMix64 in [0, 1).
    fn uniform(state: &mut u64) -> f64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn rotation(state: &mut u64) -> DQuat {
        let axis = DVec3::new(uniform(state) - 0.5, uniform(state) - 0.5, uniform(state) - 0.5).normalize();
        DQuat::from_axis_angle(axis, 2.0 * std::f64::consts::PI * uniform(state))
    }

    /// Compares [`overlap_sums`] with [`reference_sums`] for one pose (pair number `k`),
    /// raising the worst relative differences of the volume, centroid and area vector;
    /// `true` when the pair overlaps. A pair found apart must have no reference volume
    /// beyond 1e-12 of the smaller body (round-off of sums of some hundred terms).
    fn compare_with_reference(
        a: &Polyhedron,
        b: &Polyhedron,
        rot: DMat3,
        shift: DVec3,
        k: u64,
        worst: &mut [f64; 3],
    ) -> bool {
        let reach = a.bounding_radius() + b.bounding_radius();
        let fast = overlap_sums(a, b, rot, shift, reach, &mut Scratch::default());
        let slow = reference_sums(a, b, rot, shift, reach);
        let scale = a.volume().min(b.volume());
        let Some(s) = fast else {
            // Not a positive volume: bodies touching along opposite faces in one plane give
            // the reference a negative sum (one face counted, the other dropped by the
            // tie-break), and no volume here.
            assert!(slow.volume6 <= 1e-12 * scale, "pair {k}: apart here, reference volume {}", slow.volume6 / 6.0);
            return false;
        };
        worst[0] = worst[0].max((s.volume6 - slow.volume6).abs() / 6.0 / scale);
        // The centroid is the moment over the volume: compared for overlaps of at least
        // 1e-3 of the smaller body, where that quotient is well conditioned.
        if s.volume6 / 6.0 > 1e-3 * scale {
            let c = (s.moment24 / (4.0 * s.volume6) - slow.moment24 / (4.0 * slow.volume6)).length();
            worst[1] = worst[1].max(c / reach);
        }
        worst[2] = worst[2].max((s.area_a - slow.area_a).length() / scale.powf(2.0 / 3.0));
        true
    }

    #[test]
    fn culled_clipping_matches_clipping_every_triangle_by_every_plane() {
        // Bodies of 48-face hulls (one word of plane bits), cubes (coplanar faces, the
        // tie-break) and 320-face icospheres (several words).
        let mut state = 5u64;
        let mut worst = [0.0f64; 3];
        let mut overlapping = 0;
        for k in 0..300u64 {
            let make = |s: u64| match k % 3 {
                0 => shapes::random_convex(26, 1.0, s).unwrap(),
                1 => shapes::cube(1.5).unwrap(),
                _ => shapes::icosphere(1.0, 2).unwrap(),
            };
            let (a, b) = (make(2 * k + 1), make(2 * k + 2));
            let reach = a.bounding_radius() + b.bounding_radius();
            let rot = DMat3::from_quat(rotation(&mut state));
            let dir = rotation(&mut state) * DVec3::X;
            // From deep (centres 0.1 reach apart) to apart.
            let shift = dir * reach * (0.1 + 0.8 * uniform(&mut state));
            overlapping += usize::from(compare_with_reference(&a, &b, rot, shift, k, &mut worst));
        }
        eprintln!("{overlapping} overlapping, worst {worst:?}");
        assert!(overlapping > 100);
        assert!(worst.iter().all(|&w| w < 1e-13), "worst differences {worst:?}");
    }

    #[test]
    fn grazing_pairs_along_the_centre_line_match_the_reference() {
        // 48-face hulls (like YADE's random polyhedra) placed about where they touch along
        // the centre line (found by bisection on the reference volume): from 2 % of the
        // reach into each other to 0.2 % apart; every tenth pair with A's lowest point
        // level with B's highest along that line, where the slab along it closes. These
        // are the pairs whose heights decide the slab cull, so heights that differ by
        // round-off must not change the result.
        let mut state = 11u64;
        let mut worst = [0.0f64; 3];
        let (mut overlapping, mut apart) = (0, 0);
        for k in 0..200u64 {
            let a = shapes::random_convex(26, 1.0, 1000 + 2 * k).unwrap();
            let b = shapes::random_convex(26, 1.0, 1001 + 2 * k).unwrap();
            let reach = a.bounding_radius() + b.bounding_radius();
            let rot = DMat3::from_quat(rotation(&mut state));
            let dir = rotation(&mut state) * DVec3::X;
            // The slab is empty for centre distances beyond `level`.
            let high_b = b.vertices().iter().map(|w| dir.dot(*w)).fold(f64::NEG_INFINITY, f64::max);
            let low_a = a.vertices().iter().map(|v| dir.dot(rot * *v)).fold(f64::INFINITY, f64::min);
            let level = high_b - low_a;
            let offset = if k % 10 == 0 {
                0.0
            } else {
                let (mut inner, mut outer) = (0.0, level);
                for _ in 0..40 {
                    let mid = 0.5 * (inner + outer);
                    if reference_sums(&a, &b, rot, dir * mid, reach).volume6 > 0.0 {
                        inner = mid;
                    } else {
                        outer = mid;
                    }
                }
                inner - level + reach * (0.002 - 0.022 * uniform(&mut state))
            };
            let shift = dir * (level + offset);
            if compare_with_reference(&a, &b, rot, shift, k, &mut worst) {
                overlapping += 1;
            } else {
                apart += 1;
            }
        }
        eprintln!("{overlapping} overlapping, {apart} apart, worst {worst:?}");
        assert!(overlapping > 100 && apart > 10, "{overlapping} overlapping, {apart} apart");
        // Same bound as above: sums of some hundred terms, each a few ulps.
        assert!(worst.iter().all(|&w| w < 1e-13), "worst differences {worst:?}");
    }

    /// The Sutherland–Hodgman pass as it was before [`Polygon::clip`] (growing vectors,
    /// every plane a full pass): the order of its arithmetic, which the polygon must
    /// reproduce bit for bit.
    fn former_clip((n, d): (DVec3, f64), threshold: f64, current: &mut Vec<DVec3>, next: &mut Vec<DVec3>) -> bool {
        next.clear();
        let Some(&last) = current.last() else { return false };
        let (mut p, mut sp) = (last, n.dot(last) - d - threshold);
        for &q in current.iter() {
            let sq = n.dot(q) - d - threshold;
            if (sp <= 0.0) != (sq <= 0.0) {
                next.push(p + (q - p) * (sp / (sp - sq)));
            }
            if sq <= 0.0 {
                next.push(q);
            }
            (p, sp) = (q, sq);
        }
        std::mem::swap(current, next);
        current.len() >= 3
    }

    #[test]
    fn polygon_clipping_repeats_the_former_passes_bit_for_bit() {
        // Triangles clipped by sequences of up to 12 planes, one buffer reused for all (as
        // in `convex_overlap`), against the former pass on fresh vectors: planes that miss
        // the polygon (every corner inside), that empty it, that pass through a corner
        // (side exactly zero) and that cut it anywhere, with the threshold of either side.
        let mut state = 21u64;
        let mut polygon = Polygon::default();
        let (mut whole, mut emptied, mut through, mut cut) = (0, 0, 0, 0);
        for t in 0..2000u64 {
            let mut point = || DVec3::new(uniform(&mut state), uniform(&mut state), uniform(&mut state)) - 0.5;
            let tri = [point(), point(), point()];
            let threshold = if t % 2 == 0 { 1e-14 } else { -1e-14 };
            polygon.start(tri);
            let (mut current, mut next) = (tri.to_vec(), Vec::new());
            for k in 0..12 {
                let n = rotation(&mut state) * DVec3::X;
                // Through a corner of the current polygon: with no threshold, that
                // corner's side is exactly zero (the same dot product on both sides).
                let threshold = if k % 4 == 0 { 0.0 } else { threshold };
                let d = match k % 4 {
                    0 => n.dot(current[0]),
                    1 => current.iter().map(|x| n.dot(*x)).fold(f64::NEG_INFINITY, f64::max) + 0.1,
                    _ => 0.6 * uniform(&mut state) - 0.3,
                };
                if current.iter().any(|x| n.dot(*x) - d - threshold == 0.0) {
                    through += 1;
                }
                let before = current.len();
                let former = former_clip((n, d), threshold, &mut current, &mut next);
                let now = polygon.clip((n, d), threshold);
                assert_eq!(former, now, "triangle {t}, plane {k}");
                if !former {
                    emptied += 1;
                    break;
                }
                if current.len() == before && current.iter().zip(&next).all(|(a, b)| a == b) {
                    whole += 1;
                } else {
                    cut += 1;
                }
                // Bit for bit: the same corners in the same order.
                assert_eq!(polygon.corners(), &current[..], "triangle {t}, plane {k}");
            }
        }
        eprintln!("{whole} passes left whole, {emptied} emptied, {through} through a corner, {cut} cut");
        assert!(whole > 1000 && emptied > 1000 && through > 1000 && cut > 1000);
    }

    /// The bits of an overlap, to compare results exactly (0.0 and -0.0 apart).
    fn overlap_bits(o: Option<Overlap>) -> Option<[u64; 8]> {
        o.map(|o| {
            let [cx, cy, cz] = o.centroid.to_array().map(f64::to_bits);
            let [nx, ny, nz] = o.normal.to_array().map(f64::to_bits);
            [o.volume.to_bits(), cx, cy, cz, nx, ny, nz, o.area.to_bits()]
        })
    }

    #[test]
    fn one_word_and_multi_word_plane_bits_give_the_same_overlap() {
        // Pairs of 48-face hulls (YADE's bodies have 49 faces on average) and of 320-face
        // icospheres moved by small steps, as a simulation moves them (1e-3 of the reach
        // and 2e-3 rad per step, from deep overlap to apart, 40 random starts): the plane
        // bits of at most 64 cutting planes kept in one word per vertex, and the same
        // planes in the multi-word rows, clip the same triangles by the same planes in
        // the same order, so volume, centroid, normal and area agree bit for bit.
        let mut state = 17u64;
        let (mut fast, mut multi) = (Scratch::default(), Scratch::default());
        (multi.a_side.multi_word, multi.b_side.multi_word) = (true, true);
        let (mut overlapping, mut compared) = (0, 0);
        for start in 0..40u64 {
            let (a, b) = if start % 4 == 3 {
                (shapes::icosphere(1.0, 2).unwrap(), shapes::icosphere(0.8, 2).unwrap())
            } else {
                (
                    shapes::random_convex(26, 1.0, 50 + 2 * start).unwrap(),
                    shapes::random_convex(26, 1.0, 51 + 2 * start).unwrap(),
                )
            };
            let reach = a.bounding_radius() + b.bounding_radius();
            let (qa, qb) = (rotation(&mut state), rotation(&mut state));
            let (axis_a, axis_b) = (rotation(&mut state) * DVec3::X, rotation(&mut state) * DVec3::Y);
            let dir = rotation(&mut state) * DVec3::Z;
            for step in 0..120 {
                let s = step as f64;
                let pose_a = Pose::new(DVec3::ZERO, DQuat::from_axis_angle(axis_a, 2e-3 * s) * qa);
                let pose_b = Pose::new(dir * reach * (0.3 + 5e-3 * s), DQuat::from_axis_angle(axis_b, -2e-3 * s) * qb);
                let one = overlap_in(&a, &pose_a, &b, &pose_b, &mut fast);
                let many = overlap_in(&a, &pose_a, &b, &pose_b, &mut multi);
                assert_eq!(overlap_bits(one), overlap_bits(many), "start {start}, step {step}");
                overlapping += usize::from(one.is_some());
                compared += 1;
            }
        }
        // From 0.3 to 0.9 of the reach apart: deep, shallow and apart poses are all met.
        assert!(overlapping > compared / 4 && overlapping < compared, "{overlapping} of {compared} overlapping");
    }

    #[test]
    fn reused_buffers_do_not_change_the_overlap() {
        // A pair moved by small steps (as a simulation moves it: 1e-4 of the reach and a
        // small turn per step, from deep overlap to apart), computed through the thread's
        // buffers with other pairs in between (larger meshes leave longer buffers behind)
        // and on fresh buffers: the same bits every step.
        let a = shapes::random_convex(26, 1.0, 7).unwrap();
        let b = shapes::random_convex(26, 1.0, 8).unwrap();
        let big = shapes::icosphere(1.0, 3).unwrap();
        let reach = a.bounding_radius() + b.bounding_radius();
        let mut state = 3u64;
        let (axis, dir) = (rotation(&mut state) * DVec3::Y, rotation(&mut state) * DVec3::X);
        let mut overlapping = 0;
        for step in 0..2000 {
            let s = step as f64;
            let pose_a = Pose::new(DVec3::ZERO, DQuat::from_axis_angle(axis, 1e-3 * s));
            let pose_b = Pose::new(dir * reach * (0.2 + 4e-4 * s), DQuat::from_axis_angle(DVec3::Z, -5e-4 * s));
            if step % 3 == 0 {
                let shift = Pose::new(pose_b.position * 0.5, DQuat::IDENTITY);
                let _ = convex_overlap(&big, &shift, &a, &pose_a);
            }
            let reused = convex_overlap(&a, &pose_a, &b, &pose_b);
            let fresh = overlap_in(&a, &pose_a, &b, &pose_b, &mut Scratch::default());
            // `Overlap`'s equality compares every field exactly.
            assert_eq!(reused, fresh, "step {step}");
            overlapping += usize::from(fresh.is_some());
        }
        // The pair starts deep and ends apart: both kinds are met.
        assert!(overlapping > 100 && overlapping < 2000, "{overlapping} overlapping steps");
    }

    #[test]
    fn nested_coplanar_edge_on_edge_touching_and_apart_match_the_reference() {
        // The special poses of a pair, each turned as a whole by a few random rotations:
        // (a, b, rotation of a in b's frame, shift of a's centre, overlapping?).
        let cube = shapes::cube(1.0).unwrap();
        let small = shapes::cube(0.4).unwrap();
        let hull = shapes::random_convex(26, 0.5, 9).unwrap();
        let quarter = std::f64::consts::FRAC_PI_4;
        let edge_a = DMat3::from_rotation_x(quarter);
        let edge_b = DMat3::from_rotation_y(quarter);
        let cases: [(&Polyhedron, &Polyhedron, DMat3, DVec3, bool); 9] = [
            // One inside the other, either way round, and a hull inside a cube.
            (&small, &cube, DMat3::from_rotation_z(0.3), DVec3::new(0.1, -0.05, 0.1), true),
            (&cube, &small, DMat3::IDENTITY, DVec3::new(0.05, 0.0, -0.1), true),
            (&hull, &shapes::cube(3.0).unwrap(), DMat3::from_rotation_x(1.0), DVec3::new(0.2, 0.1, 0.0), true),
            // Face on face, two side faces coplanar and facing the same way.
            (&cube, &cube, DMat3::IDENTITY, DVec3::new(0.0, 0.5, 0.9), true),
            // Face on face, only the pressed faces parallel.
            (&cube, &cube, DMat3::from_rotation_z(0.4), DVec3::new(0.1, 0.2, 0.95), true),
            // Edge on edge: crossed edges pressed 5 % into each other.
            (&cube, &cube, edge_b * edge_a.transpose(), DVec3::new(0.0, 0.0, 2.0f64.sqrt() * 0.95), true),
            // Touching face to face (no volume), and apart.
            (&cube, &cube, DMat3::IDENTITY, DVec3::new(1.0, 0.0, 0.0), false),
            (&cube, &cube, DMat3::from_rotation_y(0.2), DVec3::new(0.0, 1.6, 0.0), false),
            (&hull, &cube, DMat3::IDENTITY, DVec3::new(0.0, 0.0, 1.2), false),
        ];
        let mut state = 17u64;
        let mut worst = [0.0f64; 3];
        for (c, &(a, b, rot, shift, overlapping)) in cases.iter().enumerate() {
            for turn in 0..4 {
                // The case's pose, then a turned about its centre by 1e-3 rad about random
                // axes, off the exact ties.
                let rot =
                    if turn == 0 { rot } else { DMat3::from_axis_angle(rotation(&mut state) * DVec3::X, 1e-3) * rot };
                let k = (c * 4 + turn) as u64;
                let found = compare_with_reference(a, b, rot, shift, k, &mut worst);
                if turn == 0 {
                    assert_eq!(found, overlapping, "case {c}");
                }
            }
        }
        eprintln!("worst {worst:?}");
        // Ten times the bound of the random pairs: the touching cubes turned by 1e-3 rad
        // overlap in a sliver between faces 1e-3 rad apart, whose clipped corners (a side
        // over a difference of sides about 1e-3 times the edge) are about 1e3 times less
        // well conditioned than at right angles (seen: 2.7e-14 of the volume, 9.7e-14 of
        // the area).
        assert!(worst.iter().all(|&w| w < 1e-12), "worst differences {worst:?}");
    }
}
