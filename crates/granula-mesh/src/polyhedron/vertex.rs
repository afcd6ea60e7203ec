//! Polyhedron vertices against the mesh's faces: one contact per vertex and group of
//! triangles it lies under (a smooth region, or regions joined by convex folds).

use super::local::{Cand, Local, PLANE_TIE};
use super::{push_keyed, Pair, PolyhedronMeshKey};
use granula_core::math::DVec3;
use granula_core::ContactGeometry;

/// A triangle a vertex counts against.
#[derive(Clone, Copy, Debug)]
struct Hit {
    /// The candidate.
    k: u32,
    /// Signed distance of the vertex from its plane (m), positive on the polyhedron's side.
    d: f64,
    /// Union-find parent among the vertex's hits.
    parent: u32,
}

/// The buffers of the vertex pass.
#[derive(Default)]
pub(super) struct Scratch {
    hits: Vec<Hit>,
}

/// The vertex contacts of the pair, appended to `out`; `vertices` are the polyhedron's
/// vertices in the mesh frame. Records in `depth` how deep each vertex is below the mesh
/// (the deepest of its contacts, 0 without one).
///
/// A vertex counts against a candidate triangle when its projection on the triangle's
/// plane lies in the closed triangle (to 1e-9 of its size), or beyond a concave edge of it
/// within that edge's span (a valley, where the faces act as two planes). Its triangles are
/// grouped: triangles of one smooth region together, and two triangles that lie behind each
/// other's planes together (a convex fold: the vertex is inside the intersection of their
/// half-spaces, as inside a convex body, whose depth is the least of the plane depths).
/// Each group gives one contact, from its triangle of largest signed distance d, when
/// d ≤ margin: a triangle of the group above which the vertex stands by more than the
/// margin keeps it out, as a convex body's face plane does.
pub(super) fn contacts(
    pair: &Pair,
    local: &Local,
    vertices: &[DVec3],
    scratch: &mut Scratch,
    depth: &mut [f64],
    out: &mut Vec<ContactGeometry>,
) {
    let from = out.len();
    let hits = &mut scratch.hits;
    for (i, &v) in vertices.iter().enumerate() {
        // The triangles within the margin first: most vertices have none, and cost one dot
        // product per candidate.
        hits.clear();
        let mesh_normals = pair.mesh.normals();
        for (k, c) in local.cands.iter().enumerate() {
            let d = c.distance(v);
            if d <= pair.margin && in_prism(c, mesh_normals[c.t as usize], v) {
                hits.push(Hit { k: k as u32, d, parent: hits.len() as u32 });
            }
        }
        if hits.is_empty() {
            continue;
        }
        for (k, c) in local.cands.iter().enumerate() {
            let d = c.distance(v);
            if d > pair.margin && in_prism(c, mesh_normals[c.t as usize], v) {
                hits.push(Hit { k: k as u32, d, parent: hits.len() as u32 });
            }
        }
        group(local, hits);
        for root in 0..hits.len() {
            if hits[root].parent != root as u32 {
                continue;
            }
            // The group's largest distance; ties to the first (candidate order).
            let mut best = hits[root];
            for h in hits.iter() {
                if find(hits, h.parent) == root as u32 && h.d > best.d {
                    best = *h;
                }
            }
            if best.d <= pair.margin {
                emit(pair, &local.cands[best.k as usize], i, from, depth, out);
            }
        }
    }
}

/// Whether the projection of `v` on the plane of candidate `c` (whose corners wind about
/// the unit normal `winding`) lies in the closed triangle, to [`PLANE_TIE`] of its size, or
/// beyond a concave edge with its foot within the edge's span.
fn in_prism(c: &Cand, winding: DVec3, v: DVec3) -> bool {
    let tol = PLANE_TIE * c.size;
    let mut inside = true;
    let mut strip = false;
    for j in 0..3 {
        let p = c.corners[j];
        let edge = c.corners[(j + 1) % 3] - p;
        let len2 = edge.length_squared();
        // |edge| times the signed distance of the projection from the edge's line, positive
        // on the triangle's side.
        let s = winding.dot(edge.cross(v - p));
        if s < -tol * len2.sqrt() {
            inside = false;
            if c.concave & (1 << j) != 0 {
                let foot = edge.dot(v - p) / len2;
                strip |= (-PLANE_TIE..=1.0 + PLANE_TIE).contains(&foot);
            }
        }
    }
    inside || strip
}

/// Groups the hits (union-find through `parent`): same smooth region, or each triangle
/// behind the other's plane. Every hit's parent is left its group's root.
fn group(local: &Local, hits: &mut [Hit]) {
    for a in 1..hits.len() {
        for b in 0..a {
            let (ca, cb) = (&local.cands[hits[a].k as usize], &local.cands[hits[b].k as usize]);
            if ca.region == cb.region || (ca.behind(cb) && cb.behind(ca)) {
                let (ra, rb) = (find(hits, a as u32), find(hits, b as u32));
                // The smaller index is the root.
                hits[ra.max(rb) as usize].parent = ra.min(rb);
            }
        }
    }
    for a in 0..hits.len() {
        hits[a].parent = find(hits, a as u32);
    }
}

/// The root of hit `a`'s group.
fn find(hits: &[Hit], mut a: u32) -> u32 {
    while hits[a as usize].parent != a {
        a = hits[a as usize].parent;
    }
    a
}

/// The contact of polyhedron vertex `i` with the plane of candidate `c`, as
/// `plane_polyhedron` computes it in the world frame (plane through the triangle's first
/// corner): d = (x_c − p₀)·n + n_b·v, point x − (d/2) n, when d ≤ margin.
fn emit(pair: &Pair, c: &Cand, i: usize, from: usize, depth: &mut [f64], out: &mut Vec<ContactGeometry>) {
    let n = pair.orientation * c.normal;
    let p0 = pair.position + pair.orientation * c.corners[0];
    let n_body = pair.pose.orientation.inverse() * n;
    let base = (pair.pose.position - p0).dot(n);
    let v = pair.poly.vertices()[i];
    let d = base + n_body.dot(v);
    if d > pair.margin {
        return;
    }
    let x = pair.pose.to_world(v);
    let point = x - n * (0.5 * d);
    depth[i] = depth[i].max(-d);
    let key = PolyhedronMeshKey::Vertex { vertex: i as u32, region: c.region };
    push_keyed(out, from, pair.geometry(point, n, d), key);
}
