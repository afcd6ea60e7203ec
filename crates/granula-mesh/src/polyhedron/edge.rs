//! The mesh's sharp convex features against the polyhedron: its corners inside the
//! polyhedron, and its sharp convex edges crossing the polyhedron's edges.
//!
//! A mesh edge is sharp when it joins two smooth regions, convex when each of its two
//! triangles lies behind the other's plane as seen from the polyhedron's side. A vertex
//! where exactly two sharp edges meet in line is a *line vertex*: a straight ridge (or
//! valley) goes on through it, split into several mesh edges. A corner is a mesh vertex
//! that is no line vertex, where sharp edges meet, all of them convex and every edge
//! shared by two triangles. Near a sharp convex edge the mesh is taken as the solid behind
//! the planes of its two triangles and of every candidate triangle that lies behind both
//! and has both behind its own plane (the faces of one convex part): the edge's *local
//! solid*, which for a closed convex mesh is the body itself.

use super::local::{is_sharp, Local};
use super::{push_keyed, Pair, PolyhedronMeshKey};
use crate::closest::nearest_on_triangle;
use crate::topology::KEY_VERTEX;
use granula_core::math::DVec3;
use granula_core::{Aabb, ContactGeometry};
use granula_polyhedra::{classify, nearest_surface, PointClass, Polyhedron};

/// cos 0.1 rad and cos 0.05 rad: between these angles of a face of each edge to the
/// crossing's plane, the depth's clip turns from its strict form to its face-on-face form,
/// as for pairs of polyhedra.
const FACE_ON_FACE_COS: f64 = 0.995_004_165_278_025_8;
const FACE_ON_FACE_FULL_COS: f64 = 0.998_750_260_394_966_3;
/// Largest tilt (rad) of two faces lying on each other.
const FACE_ON_FACE_TILT: f64 = 0.1;
/// The crossing no deeper than 1.5 times the depth of each crossing point inside the other
/// body (the slope of the polyhedron pairs: crossings of faces at up to 48° unclipped).
const INSIDE_SLOPE: f64 = 1.5;
/// Parameter tolerance at the ends of the segments of a crossing.
const END_TIE: f64 = 1e-9;

/// A sharp convex edge of the mesh near the polyhedron, in the polyhedron's body frame.
#[derive(Clone, Copy, Debug)]
struct MeshEdge {
    e: u32,
    ends: [DVec3; 2],
    /// Its two triangles' normals, turned to the polyhedron's side.
    normals: [DVec3; 2],
    /// Whether each end ends the edge (else it is a line vertex, where the ridge goes on).
    corner: [bool; 2],
    /// Its local solid: the range of its planes in [`Scratch::planes`].
    planes: (u32, u32),
}

/// The buffers of the edge pass.
#[derive(Default)]
pub(super) struct Scratch {
    /// The mesh vertices between smooth regions near the polyhedron, sorted, each with
    /// whether it is a corner and whether it is a line vertex.
    vertices: Vec<(u32, bool, bool)>,
    /// The sharp edges met at the vertex being classified, with their directions.
    around: Vec<(u32, DVec3)>,
    edges: Vec<MeshEdge>,
    /// The planes of the edges' local solids: candidate, outward normal n and offset o in
    /// the polyhedron's frame (inside: n·x ≤ o).
    planes: Vec<(u32, DVec3, f64)>,
}

/// The corner and crossing contacts of the pair, appended to `out`. `depth` holds how deep
/// each polyhedron vertex is below the mesh (from the vertex pass), for the crossings of a
/// non-convex polyhedron.
pub(super) fn contacts(pair: &Pair, local: &Local, depth: &[f64], s: &mut Scratch, out: &mut Vec<ContactGeometry>) {
    corners(pair, local, s);
    let from = out.len();
    for &(w, corner, _) in &s.vertices {
        if corner {
            poke(pair, w, from, out);
        }
    }
    mesh_edges(pair, local, s);
    let from = out.len();
    for me in &s.edges {
        let planes = &s.planes[me.planes.0 as usize..me.planes.1 as usize];
        if segment_meets(pair, me.ends) {
            crossings(pair, local, me, planes, depth, from, out);
        }
    }
}

/// Fills `s.vertices` with the vertices of the candidates that join several smooth
/// regions, each classified.
fn corners(pair: &Pair, local: &Local, s: &mut Scratch) {
    let topo = &pair.mesh.topology;
    s.vertices.clear();
    for c in &local.cands {
        for &w in &pair.mesh.triangles()[c.t as usize] {
            if topo.vertex_key[w as usize] & KEY_VERTEX == KEY_VERTEX {
                s.vertices.push((w, false, false));
            }
        }
    }
    s.vertices.sort_unstable_by_key(|v| v.0);
    s.vertices.dedup_by_key(|v| v.0);
    for k in 0..s.vertices.len() {
        let w = s.vertices[k].0;
        let line = is_line_vertex(pair, w, &mut s.around);
        s.vertices[k].1 = !line && is_corner(pair, local, w);
        s.vertices[k].2 = line;
    }
}

/// Whether mesh vertex `w` is a line vertex: every edge at it shared by two triangles, and
/// exactly two of them sharp, in line. Read from the mesh alone, whatever the side.
fn is_line_vertex(pair: &Pair, w: u32, around: &mut Vec<(u32, DVec3)>) -> bool {
    let (mesh, topo) = (pair.mesh, &pair.mesh.topology);
    around.clear();
    for &t in topo.vertex_triangles.of(w) {
        let tri = mesh.triangles()[t as usize];
        let Some(m) = (0..3).find(|&i| tri[i] == w) else { return false };
        for (j, other) in [(m, (m + 1) % 3), ((m + 2) % 3, (m + 2) % 3)] {
            let e = topo.triangle_edges[t as usize][j];
            if topo.edge_triangles.of(e).len() != 2 {
                return false;
            }
            if is_sharp(mesh, e) && !around.iter().any(|(x, _)| *x == e) {
                let x = mesh.vertices()[w as usize];
                around.push((e, mesh.vertices()[tri[other] as usize] - x));
            }
        }
    }
    match around.as_slice() {
        [(_, a), (_, b)] => a.dot(*b) <= -(1.0 - 1e-12) * a.length() * b.length(),
        _ => false,
    }
}

/// Whether mesh vertex `w` (no line vertex) is a corner: all its triangles are candidates,
/// every edge at it is shared by two triangles, and the sharp ones, one at least, are all
/// convex.
fn is_corner(pair: &Pair, local: &Local, w: u32) -> bool {
    let (mesh, topo) = (pair.mesh, &pair.mesh.topology);
    let mut sharp = false;
    for &t in topo.vertex_triangles.of(w) {
        let Some(k) = local.find(t) else { return false };
        let c = &local.cands[k];
        let tri = mesh.triangles()[t as usize];
        let Some(m) = (0..3).find(|&i| tri[i] == w) else { return false };
        // The two edges of t at w: edge m (corners m, m + 1) and edge m + 2 (m + 2, m).
        for j in [m, (m + 2) % 3] {
            let e = topo.triangle_edges[t as usize][j];
            if topo.edge_triangles.of(e).len() != 2 {
                return false;
            }
            if is_sharp(mesh, e) {
                if c.concave & (1 << j) != 0 {
                    return false;
                }
                sharp |= c.convex & (1 << j) != 0;
            }
        }
    }
    sharp
}

/// The contact of corner `w` if it is inside the polyhedron (or within the margin), as the
/// polyhedron pairs give a vertex of body 1 inside body 2: gap the signed distance g from the
/// polyhedron's surface, normal −n for its outward normal n there, point w − (g/2) n.
fn poke(pair: &Pair, w: u32, from: usize, out: &mut Vec<ContactGeometry>) {
    let x = pair.mesh.vertices()[w as usize];
    let p = pair.to_poly.apply(x);
    let Some((gap, n_body)) = signed_distance(pair, p) else { return };
    let n = pair.pose.orientation * n_body;
    let world = pair.position + pair.orientation * x;
    let point = world - n * (0.5 * gap);
    push_keyed(out, from, pair.geometry(point, -n, gap), PolyhedronMeshKey::Corner(w));
}

/// Fills `s.edges` with the sharp convex edges between two candidates, each once, and
/// their local solids' planes.
fn mesh_edges(pair: &Pair, local: &Local, s: &mut Scratch) {
    let (mesh, topo) = (pair.mesh, &pair.mesh.topology);
    s.edges.clear();
    s.planes.clear();
    let rot = pair.to_poly.rot;
    for (k, c) in local.cands.iter().enumerate() {
        for j in 0..3 {
            if c.convex & (1 << j) == 0 {
                continue;
            }
            let e = topo.triangle_edges[c.t as usize][j];
            let &[t1, t2] = topo.edge_triangles.of(e) else { continue };
            let Some(m) = local.find(if t1 == c.t { t2 } else { t1 }) else { continue };
            let other = &local.cands[m];
            if c.t > other.t {
                continue;
            }
            let tri = mesh.triangles()[c.t as usize];
            let line = |w: u32| s.vertices.binary_search_by_key(&w, |v| v.0).is_ok_and(|i| s.vertices[i].2);
            let corner = [!line(tri[j]), !line(tri[(j + 1) % 3])];
            let start = s.planes.len() as u32;
            for (i, d) in local.cands.iter().enumerate() {
                let joined = |x: &super::local::Cand| x.behind(d) && d.behind(x);
                if i == k || i == m || (joined(c) && joined(other)) {
                    let n = rot * d.normal;
                    s.planes.push((i as u32, n, n.dot(pair.to_poly.apply(d.corners[0]))));
                }
            }
            let ends = [c.corners[j], c.corners[(j + 1) % 3]].map(|x| pair.to_poly.apply(x));
            let normals = [rot * c.normal, rot * other.normal];
            s.edges.push(MeshEdge { e, ends, normals, corner, planes: (start, s.planes.len() as u32) });
        }
    }
}

/// The crossings of mesh edge `me` (local solid `planes`) with the polyhedron's sharp
/// edges, by the rules of the polyhedron pairs with body 1 the mesh (`granula_polyhedra`'s
/// contact/edge.rs): the closest points pa (on the mesh edge) and pb (on the polyhedron's)
/// inside both segments; the normal e₁ × e₂ out of the mesh's edge and into the
/// polyhedron's; the depth, the lines' distance d along it, clipped continuously to zero
/// where a rule stops to hold ([`clipped`]). An end of the mesh edge at a line vertex
/// lets the crossing reach it (the ridge goes on), and a crossing at such a vertex, found
/// from both its edges, is kept once.
fn crossings(
    pair: &Pair,
    local: &Local,
    me: &MeshEdge,
    planes: &[(u32, DVec3, f64)],
    depth: &[f64],
    from: usize,
    out: &mut Vec<ContactGeometry>,
) {
    let poly = pair.poly;
    let [p0, p1] = me.ends;
    let outward_a = me.normals[0] + me.normals[1];
    let tol = 1e-9 * (poly.bounding_radius() + (p1 - p0).length());
    let solid = Solid { pair, local, planes };
    for (ef, f) in poly.edges().iter().enumerate() {
        if !f.sharp {
            continue;
        }
        let [q0, q1] = f.vertices.map(|i| poly.vertices()[i as usize]);
        if !solid.segment_meets(q0, q1) {
            continue;
        }
        let Some((pa, s, pb, t)) = closest_points(p0, p1, q0, q1) else { continue };
        // Strictly inside at a corner end; at an end where the ridge goes on, up to it.
        let within = |x: f64, corner: bool| x >= if corner { END_TIE } else { -END_TIE };
        let in_a = within(s, me.corner[0]) && within(1.0 - s, me.corner[1]);
        if !in_a || !(END_TIE..=1.0 - END_TIE).contains(&t) {
            continue;
        }
        let mut n = (p1 - p0).cross(q1 - q0).normalize();
        if n.dot(outward_a) < 0.0 {
            n = -n;
        }
        let outward_b = poly.normals()[f.faces[0] as usize] + poly.normals()[f.faces[1] as usize];
        let d = (pa - pb).dot(n);
        if !(d > 0.0) || n.dot(outward_b) >= 0.0 {
            continue;
        }
        if !pair.convex && too_deep(pair, me, depth, f.vertices, d, tol) {
            continue;
        }
        let c = Crossing { pa, s, pb, t, n, d, ends: [q0, q1], faces: f.faces };
        let limit = clipped(&solid, me, &c, tol);
        if !(limit > 0.0) || (!pair.convex && passes_through_a_face(poly, pa, pb)) {
            continue;
        }
        let point = pair.pose.to_world(0.5 * (pa + pb));
        let same_edge = |g: &ContactGeometry| match PolyhedronMeshKey::decode(g.feature) {
            Some(PolyhedronMeshKey::Crossing { edge, .. }) => edge == ef as u32 & 0x3fff,
            _ => false,
        };
        if out[from..].iter().any(|g| same_edge(g) && (g.point - point).length() <= tol) {
            continue;
        }
        let key = PolyhedronMeshKey::Crossing { mesh_edge: me.e, edge: ef as u32 };
        push_keyed(out, from, pair.geometry(point, pair.pose.orientation * n, -limit), key);
    }
}

/// A crossing of a mesh edge (point pa, parameter s) with a polyhedron edge (pb, t; its
/// ends and faces), normal n and lines' distance d, in the polyhedron's frame.
struct Crossing {
    pa: DVec3,
    s: f64,
    pb: DVec3,
    t: f64,
    n: DVec3,
    d: f64,
    ends: [DVec3; 2],
    faces: [u32; 2],
}

/// The depth of crossing `c`, the lines' distance clipped continuously to zero where a rule
/// of the polyhedron pairs stops to hold:
/// δ = min(d, s·L₁, (1 − s)·L₁, t·L₂, (1 − t)·L₂, 1.5·D_P(pa), 1.5·D_M(pb), o_M, o_P),
/// D the depth of a point inside the polyhedron P or the mesh's local solid M (blended into
/// d (1 + D/(0.1 d)) where a face of each edge lies within 0.1 rad of the crossing's plane,
/// wholly within 0.05 rad), o the larger distance of an edge's ends outside the other body
/// (rule 1: an edge with both ends inside is carried by its vertices). The terms of an end
/// of the mesh edge at a line vertex are left out.
fn clipped(solid: &Solid, me: &MeshEdge, c: &Crossing, tol: f64) -> f64 {
    let (pair, poly) = (solid.pair, solid.pair.poly);
    let (len_a, len_b) = ((me.ends[1] - me.ends[0]).length(), (c.ends[1] - c.ends[0]).length());
    // Rule 2: fading out towards a corner end of the mesh edge and either end of the
    // polyhedron's.
    let mut limit = c.d.min(c.t.min(1.0 - c.t) * len_b);
    for (end, corner) in [(c.s, me.corner[0]), (1.0 - c.s, me.corner[1])] {
        if corner {
            limit = limit.min(end * len_a);
        }
    }
    // Rule 3: each point inside the other body, blended into the face-on-face form.
    let flat_a = me.normals.iter().map(|m| m.dot(c.n)).fold(f64::NEG_INFINITY, f64::max);
    let flat_b = c.faces.iter().map(|&k| poly.normals()[k as usize].dot(-c.n)).fold(f64::NEG_INFINITY, f64::max);
    let blend = ((flat_a.min(flat_b) - FACE_ON_FACE_COS) / (FACE_ON_FACE_FULL_COS - FACE_ON_FACE_COS)).clamp(0.0, 1.0);
    let reach = FACE_ON_FACE_TILT * c.d;
    for inside_of in [0, 1] {
        if limit <= 0.0 {
            return limit;
        }
        let r = blend * reach + tol;
        let inside = if inside_of == 0 { poly_depth(pair, c.pa, r) } else { solid.depth(c.pb, r) } + tol;
        limit = limit.min((1.0 - blend) * INSIDE_SLOPE * inside + blend * c.d * (1.0 + inside / reach));
    }
    // Rule 1: an edge with both ends inside the other body is carried by its vertices.
    if limit > 0.0 {
        let out_a =
            me.ends.iter().zip(me.corner).fold(0.0f64, |m, (&x, corner)| {
                m.max(if corner { poly_outside(pair, x, limit) } else { f64::INFINITY })
            });
        let out_b = solid.outside(c.ends[0], limit).max(solid.outside(c.ends[1], limit));
        limit = limit.min(out_a).min(out_b);
    }
    limit
}

/// Rule 5 of the polyhedron pairs, for a non-convex polyhedron: when an end of either edge
/// is inside the other body, the crossing is no deeper than the deepest such end.
fn too_deep(pair: &Pair, me: &MeshEdge, depth: &[f64], ends_b: [u32; 2], d: f64, tol: f64) -> bool {
    let mut deepest: Option<f64> = None;
    for (x, corner) in me.ends.iter().zip(me.corner) {
        if let (true, Some((g, _))) = (corner, signed_distance(pair, *x)) {
            if g <= 0.0 {
                deepest = Some(deepest.unwrap_or(0.0).max(-g));
            }
        }
    }
    for v in ends_b {
        if depth[v as usize] > 0.0 {
            deepest = Some(deepest.unwrap_or(0.0).max(depth[v as usize]));
        }
    }
    deepest.is_some_and(|deep| d > deep + tol)
}

/// The local solid of a mesh edge, in the polyhedron's frame.
struct Solid<'a> {
    pair: &'a Pair<'a>,
    local: &'a Local,
    planes: &'a [(u32, DVec3, f64)],
}

impl Solid<'_> {
    /// The largest plane distance of `p` (positive outside, minus the depth inside).
    fn gap(&self, p: DVec3) -> f64 {
        self.planes.iter().fold(f64::NEG_INFINITY, |m, &(_, n, o)| m.max(n.dot(p) - o))
    }

    /// The distance from `p` (outside) to the solid's triangles.
    fn distance(&self, p: DVec3) -> f64 {
        let x = self.pair.to_mesh.apply(p);
        self.planes.iter().fold(f64::INFINITY, |m, &(k, _, _)| {
            let [a, b, c] = self.local.cands[k as usize].corners;
            m.min((nearest_on_triangle(x, a, b, c).0 - x).length())
        })
    }

    /// Depth of `p` inside (negative outside; only values above −`reach` exact).
    fn depth(&self, p: DVec3, reach: f64) -> f64 {
        let gap = self.gap(p);
        if gap <= 0.0 || gap > reach {
            -gap
        } else {
            -self.distance(p)
        }
    }

    /// Distance of `p` outside (0 inside; values of `needed` or more may be any such).
    fn outside(&self, p: DVec3, needed: f64) -> f64 {
        let gap = self.gap(p);
        if gap <= 0.0 {
            0.0
        } else if gap >= needed {
            gap
        } else {
            self.distance(p)
        }
    }

    /// Whether segment q₀q₁ crosses the solid's surface: clipped by its planes
    /// (Cyrus–Beck), a part inside and not the whole.
    fn segment_meets(&self, q0: DVec3, q1: DVec3) -> bool {
        clip(self.planes.iter().map(|&(_, n, o)| (n, o)), q0, q1)
    }
}

/// Cyrus–Beck: whether segment p₀p₁ has a part inside the planes (n·x ≤ o) and not all of it.
fn clip(planes: impl Iterator<Item = (DVec3, f64)>, p0: DVec3, p1: DVec3) -> bool {
    let d = p1 - p0;
    let (mut enter, mut exit) = (0.0f64, 1.0f64);
    for (n, o) in planes {
        let denom = n.dot(d);
        let num = o - n.dot(p0);
        if denom < 0.0 {
            enter = enter.max(num / denom);
        } else if denom > 0.0 {
            exit = exit.min(num / denom);
        } else if num < 0.0 {
            return false;
        }
        if enter > exit {
            return false;
        }
    }
    enter > 0.0 || exit < 1.0
}

/// Whether the mesh edge (ends in the polyhedron's frame) crosses the polyhedron's
/// surface: its box meets the polyhedron's box, and it is clipped by the face planes
/// (convex) or meets a face (otherwise, over the face hierarchy).
fn segment_meets(pair: &Pair, [p0, p1]: [DVec3; 2]) -> bool {
    let poly = pair.poly;
    let seg = Aabb { min: p0.min(p1), max: p0.max(p1) };
    if !seg.overlaps(&poly.local_aabb()) {
        return false;
    }
    if pair.convex {
        return clip(poly.planes().iter().copied(), p0, p1);
    }
    let mut hit = false;
    poly.bvh().visit(
        |b| b.overlaps(&seg),
        |f| {
            hit = segment_meets_triangle(p0, p1, poly.triangle(f));
            !hit
        },
    );
    hit
}

/// Segment–triangle test (Möller & Trumbore, the segment's parameter in [0, 1]), touching
/// counted as meeting.
fn segment_meets_triangle(p0: DVec3, p1: DVec3, [a, b, c]: [DVec3; 3]) -> bool {
    let (e1, e2, d) = (b - a, c - a, p1 - p0);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det * det <= 1e-28 * e1.length_squared() * e2.length_squared() * d.length_squared() {
        return false;
    }
    let s = p0 - a;
    let u = s.dot(p) / det;
    let q = s.cross(e1);
    let v = d.dot(q) / det;
    let t = e2.dot(q) / det;
    let tol = END_TIE;
    u >= -tol && v >= -tol && u + v <= 1.0 + tol && (-tol..=1.0 + tol).contains(&t)
}

/// Closest points of the lines through two segments and their parameters (0 at the first
/// end, 1 at the second), if the lines are not parallel.
fn closest_points(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> Option<(DVec3, f64, DVec3, f64)> {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, b) = (d1.length_squared(), d2.length_squared(), d1.dot(d2));
    let denom = a * e - b * b;
    if denom <= 1e-12 * a * e {
        return None;
    }
    let (c, f) = (d1.dot(r), d2.dot(r));
    let s = (b * f - c * e) / denom;
    let t = (a * f - b * c) / denom;
    Some((p0 + d1 * s, s, q0 + d2 * t, t))
}

/// Squared distance from `p` to box `b` (0 inside).
fn box_dist2(b: &Aabb, p: DVec3) -> f64 {
    (b.min - p).max(p - b.max).max(DVec3::ZERO).length_squared()
}

/// Signed distance of `p` (the polyhedron's frame) from its surface and the outward normal
/// there, if within the margin (negative inside), as the polyhedron pairs compute a vertex's:
/// the largest face-plane distance for a convex polyhedron, ray parity and the nearest
/// surface point otherwise.
fn signed_distance(pair: &Pair, p: DVec3) -> Option<(f64, DVec3)> {
    let poly = pair.poly;
    let m = pair.margin.max(0.0);
    if box_dist2(&poly.local_aabb(), p) > m * m {
        return None;
    }
    if pair.convex {
        let (mut best, mut normal) = (f64::NEG_INFINITY, DVec3::Z);
        for &(n, d) in poly.planes() {
            let s = n.dot(p) - d;
            if s > best {
                (best, normal) = (s, n);
                if best > pair.margin {
                    return None;
                }
            }
        }
        return Some((best, normal));
    }
    let class = classify(poly, p);
    if class == PointClass::Outside && pair.margin <= 0.0 {
        return None;
    }
    let s = nearest_surface(poly, p);
    let gap = match class {
        PointClass::Inside => -s.distance,
        PointClass::OnSurface => 0.0,
        PointClass::Outside if s.distance <= pair.margin => s.distance,
        PointClass::Outside => return None,
    };
    let face = poly.normals()[s.face as usize];
    if class == PointClass::OnSurface || s.distance <= 1e-12 * poly.bounding_radius() {
        return Some((gap, face));
    }
    let dir = if class == PointClass::Inside { s.point - p } else { p - s.point } / s.distance;
    Some((gap, if dir.dot(face) > 1.0 - 1e-9 { face } else { dir }))
}

/// Depth of `p` inside the polyhedron, negative outside (exact above −`reach`).
fn poly_depth(pair: &Pair, p: DVec3, reach: f64) -> f64 {
    let poly = pair.poly;
    if pair.convex {
        let gap = poly.planes().iter().fold(f64::NEG_INFINITY, |m, &(n, d)| m.max(n.dot(p) - d));
        return if gap <= 0.0 || gap > reach { -gap } else { -nearest_surface(poly, p).distance };
    }
    match classify(poly, p) {
        PointClass::OnSurface => 0.0,
        PointClass::Inside => nearest_surface(poly, p).distance,
        PointClass::Outside => -nearest_surface(poly, p).distance,
    }
}

/// Distance of `p` outside the polyhedron, 0 inside (values of `needed` or more may be any
/// such).
fn poly_outside(pair: &Pair, p: DVec3, needed: f64) -> f64 {
    let poly = pair.poly;
    if pair.convex {
        let gap = poly.planes().iter().fold(f64::NEG_INFINITY, |m, &(n, d)| m.max(n.dot(p) - d));
        return if gap <= 0.0 {
            0.0
        } else if gap >= needed {
            gap
        } else {
            nearest_surface(poly, p).distance
        };
    }
    match classify(poly, p) {
        PointClass::Outside => nearest_surface(poly, p).distance,
        _ => 0.0,
    }
}

/// Whether segment s₀s₁ (the polyhedron's frame) crosses a face of the polyhedron properly
/// (ends on both sides of its plane by more than 1e-9 of the radius, the crossing in it):
/// a crossing of a non-convex polyhedron counts only when the segment between its two
/// points stays inside.
fn passes_through_a_face(poly: &Polyhedron, s0: DVec3, s1: DVec3) -> bool {
    let eps = 1e-9 * poly.bounding_radius();
    let seg = Aabb { min: s0.min(s1), max: s0.max(s1) };
    let mut hit = false;
    poly.bvh().visit(
        |b| b.overlaps(&seg),
        |f| {
            let [a, b, c] = poly.triangle(f);
            let n = poly.normals()[f as usize];
            let (d0, d1) = (n.dot(s0 - a), n.dot(s1 - a));
            if (d0 > eps && d1 < -eps) || (d0 < -eps && d1 > eps) {
                let x = s0 + (s1 - s0) * (d0 / (d0 - d1));
                hit = (nearest_on_triangle(x, a, b, c).0 - x).length() <= eps;
            }
            !hit
        },
    );
    hit
}
