//! The mesh near a polyhedron as the polyhedron sees it: the candidate triangles, each with
//! its normal turned to the polyhedron's side, and whether each edge between two of them is
//! convex or concave from that side.

use crate::closest::{nearest_on_triangle, Nearest};
use crate::mesh::TriangleMesh;
use crate::topology::{KEY_EDGE, KEY_VERTEX};
use granula_core::math::DVec3;

/// Relative tolerance of the plane tests between triangles (times a triangle's size): far
/// above the round-off of a signed distance (some 1e-16 of the coordinates), far below any
/// fold that matters (a fold of 1e-9 rad is flat).
pub(super) const PLANE_TIE: f64 = 1e-9;

/// A candidate triangle.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cand {
    /// The triangle.
    pub t: u32,
    /// Its corners (mesh frame).
    pub corners: [DVec3; 3],
    /// Its unit normal turned to the polyhedron's side.
    pub normal: DVec3,
    /// Its smooth region.
    pub region: u32,
    /// Its longest edge (m).
    pub size: f64,
    /// Bit j set: edge j (corners j, j + 1) is shared with another candidate that lies in
    /// front of this triangle's plane (a concave edge).
    pub concave: u8,
    /// Bit j set: edge j is sharp (between two smooth regions) and convex: the other
    /// candidate at it lies behind this triangle's plane.
    pub convex: u8,
}

impl Cand {
    /// Signed distance of `p` from the triangle's plane, positive on the polyhedron's side.
    #[inline]
    pub fn distance(&self, p: DVec3) -> f64 {
        self.normal.dot(p - self.corners[0])
    }

    /// Whether every corner of `other` lies behind this triangle's plane (to
    /// [`PLANE_TIE`] of the sizes).
    pub fn behind(&self, other: &Cand) -> bool {
        let tol = PLANE_TIE * (self.size + other.size);
        other.corners.iter().all(|&c| self.distance(c) <= tol)
    }
}

/// The candidates of a call, with the buffers of their orientation.
#[derive(Default)]
pub(super) struct Local {
    pub cands: Vec<Cand>,
    /// Orientation of each candidate relative to its component's first (±1), then final.
    sign: Vec<f64>,
    /// Component of each candidate (`u32::MAX`: not reached yet).
    component: Vec<u32>,
    /// The candidates of the component being oriented, in the order reached.
    queue: Vec<u32>,
}

impl Local {
    /// The candidates `triangles` (sorted) of `mesh`, oriented towards the point `c` (the
    /// polyhedron's centre, mesh frame), with their edges classified.
    pub fn build(&mut self, mesh: &TriangleMesh, c: DVec3, triangles: &[u32]) {
        self.cands.clear();
        for &t in triangles {
            let corners = mesh.triangle(t);
            let [a, b, d] = corners;
            let size = (b - a).length().max((d - b).length()).max((a - d).length());
            let (normal, region) = (mesh.normals()[t as usize], mesh.region(t));
            self.cands.push(Cand { t, corners, normal, region, size, concave: 0, convex: 0 });
        }
        self.sign.clear();
        self.sign.resize(self.cands.len(), 1.0);
        self.component.clear();
        self.component.resize(self.cands.len(), u32::MAX);
        for start in 0..self.cands.len() {
            if self.component[start] == u32::MAX {
                self.orient_component(mesh, c, start);
            }
        }
        for (k, s) in self.sign.iter().enumerate() {
            self.cands[k].normal *= *s;
        }
        for k in 0..self.cands.len() {
            self.classify_edges(mesh, k);
        }
    }

    /// The index among the candidates of triangle `t`, if it is one.
    #[inline]
    pub fn find(&self, t: u32) -> Option<usize> {
        self.cands.binary_search_by_key(&t, |c| c.t).ok()
    }

    /// Orients the component of candidate `start` (candidates joined through manifold
    /// edges): relative orientations through the mesh's orientation across each edge, then
    /// the side of `c` at the candidate nearest to it.
    fn orient_component(&mut self, mesh: &TriangleMesh, c: DVec3, start: usize) {
        let topo = &mesh.topology;
        let label = start as u32;
        self.queue.clear();
        self.queue.push(start as u32);
        self.component[start] = label;
        let mut nearest = (f64::INFINITY, start);
        let mut head = 0;
        while head < self.queue.len() {
            let k = self.queue[head] as usize;
            head += 1;
            let cand = self.cands[k];
            let [a, b, d] = cand.corners;
            let d2 = (nearest_on_triangle(c, a, b, d).0 - c).length_squared();
            if d2 < nearest.0 {
                nearest = (d2, k);
            }
            let tri = mesh.triangles()[cand.t as usize];
            for j in 0..3 {
                let e = topo.triangle_edges[cand.t as usize][j];
                let &[t1, t2] = topo.edge_triangles.of(e) else { continue };
                let other = if t1 == cand.t { t2 } else { t1 };
                let Some(m) = self.find(other) else { continue };
                if self.component[m] != u32::MAX {
                    continue;
                }
                // Consistent orientations run through the shared edge in opposite directions.
                let o = mesh.triangles()[other as usize];
                let (u, v) = (tri[j], tri[(j + 1) % 3]);
                let opposite = (0..3).any(|i| o[i] == v && o[(i + 1) % 3] == u);
                self.sign[m] = if opposite { self.sign[k] } else { -self.sign[k] };
                self.component[m] = label;
                self.queue.push(m as u32);
            }
        }
        if self.side(mesh, c, nearest.1) < 0.0 {
            for &k in &self.queue {
                self.sign[k as usize] = -self.sign[k as usize];
            }
        }
    }

    /// The sign of (c − q)·N at the point q of candidate `k` nearest to `c`, N the
    /// pseudo-normal of the feature q lies on with the component's tentative orientations:
    /// the face's normal, the sum of the normals at an edge, the angle-weighted sum at a
    /// vertex (Bærentzen & Aanæs 2005), whose sign tells the side of a closed or open
    /// surface near its nearest point. 1 when c lies on the surface.
    fn side(&self, mesh: &TriangleMesh, c: DVec3, k: usize) -> f64 {
        let topo = &mesh.topology;
        let cand = self.cands[k];
        let [a, b, d] = cand.corners;
        let (q, kind) = nearest_on_triangle(c, a, b, d);
        let label = self.component[k];
        let oriented = |t: u32| {
            self.find(t).filter(|&m| self.component[m] == label).map(|m| self.sign[m] * mesh.normals()[t as usize])
        };
        let n = match kind {
            Nearest::Face => self.sign[k] * mesh.normals()[cand.t as usize],
            Nearest::Edge(j) => {
                let e = topo.triangle_edges[cand.t as usize][j as usize];
                topo.edge_triangles.of(e).iter().filter_map(|&t| oriented(t)).sum()
            }
            Nearest::Corner(j) => {
                let w = mesh.triangles()[cand.t as usize][j as usize];
                let mut sum = DVec3::ZERO;
                for &t in topo.vertex_triangles.of(w) {
                    let Some(n) = oriented(t) else { continue };
                    let tri = mesh.triangles()[t as usize];
                    let i = (0..3).find(|&i| tri[i] == w).unwrap_or(0);
                    let p = |i: usize| mesh.vertices()[tri[i % 3] as usize];
                    let angle = (p(i + 1) - p(i)).angle_between(p(i + 2) - p(i));
                    sum += angle * n;
                }
                sum
            }
        };
        if (c - q).dot(n) < 0.0 {
            -1.0
        } else {
            1.0
        }
    }

    /// Sets the concave and convex bits of candidate `k`'s edges (after orientation).
    fn classify_edges(&mut self, mesh: &TriangleMesh, k: usize) {
        let topo = &mesh.topology;
        let cand = self.cands[k];
        let (mut concave, mut convex) = (0u8, 0u8);
        for j in 0..3 {
            let e = topo.triangle_edges[cand.t as usize][j];
            let &[t1, t2] = topo.edge_triangles.of(e) else { continue };
            let other = if t1 == cand.t { t2 } else { t1 };
            let Some(m) = self.find(other) else { continue };
            // The other triangle's corner off the edge, against this plane.
            let (tri, o) = (mesh.triangles()[cand.t as usize], mesh.triangles()[other as usize]);
            let Some(i) = (0..3).find(|&i| o[i] != tri[j] && o[i] != tri[(j + 1) % 3]) else { continue };
            let (u, far) = (cand.corners[j], self.cands[m].corners[i]);
            let s = cand.distance(far);
            let tol = PLANE_TIE * (far - u).length();
            if s > tol {
                concave |= 1 << j;
            } else if s < -tol && is_sharp(mesh, e) {
                convex |= 1 << j;
            }
        }
        self.cands[k].concave = concave;
        self.cands[k].convex = convex;
    }
}

/// Whether mesh edge `e` lies between two smooth regions (or more triangles).
#[inline]
pub(super) fn is_sharp(mesh: &TriangleMesh, e: u32) -> bool {
    mesh.topology.edge_key[e as usize] & KEY_VERTEX == KEY_EDGE
}
