//! A checked triangle mesh, open or closed: its repairs, normals, connectivity, smooth
//! regions and bounding-volume hierarchy.

use crate::error::{MeshError, Result, TrianglePlace};
use crate::topology::Topology;
use crate::weld::weld;
use granula_core::math::DVec3;
use granula_core::Aabb;
use granula_polyhedra::{Bvh, TriangleOrigin};
use std::path::{Path, PathBuf};

/// The most triangles a mesh may have: feature keys number triangles, edges and vertices in
/// 30 bits (2³⁰ ids), and a mesh has at most three edges per triangle.
pub const MAX_TRIANGLES: usize = 1 << 28;

/// What to do with a triangle of zero area.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DegenerateTriangles {
    /// Leave it out of the wall and list it in [`MeshReport::dropped`] (default). A
    /// triangle of zero area has no surface of its own: its edges are edges of its
    /// neighbours, so the wall's surface is unchanged; only its normal, which is
    /// undefined, is lost.
    #[default]
    Drop,
    /// Refuse the mesh with [`MeshError::DegenerateTriangle`] naming the first one.
    Refuse,
}

/// How a mesh is read and repaired (see `docs/meshes.md`, "Checks and repairs").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshOptions {
    /// Factor from file units to metres (finite and > 0; default 1): a CAD file in
    /// millimetres takes 1e-3.
    pub scale: f64,
    /// Vertices closer than this fraction of the diagonal of the mesh's bounding box are
    /// merged into one (finite, ≥ 0; default 1e-6; 0 merges exact duplicates only, which
    /// are always merged). Exporters write a vertex shared by several triangles once per
    /// triangle, in single precision, so copies of one vertex agree to about 6e-8 of the
    /// coordinates' magnitude; 1e-6 of the diagonal merges them in any mesh that is not
    /// placed some ten diagonals away from the origin of its file, and merges no two
    /// vertices of a feature larger than a millionth of the mesh.
    pub weld_tolerance: f64,
    /// Zero-area triangles: dropped (default) or refused.
    pub degenerate: DegenerateTriangles,
    /// Largest angle between the normals of two triangles sharing an edge for which the
    /// edge counts as smooth (rad, in [0, π]; default 15°): triangles joined by smooth
    /// edges form one smooth region, whose contacts with a sphere share one feature key,
    /// and two contacts of one region whose normals are closer than this angle are one
    /// contact patch (see [`MeshSphere`](crate::MeshSphere)). 15° is above the facet angle
    /// with which CAD programs usually tessellate curved surfaces (a drum of 24 facets or
    /// more) and below the corners of hoppers, chutes and lifters.
    pub smooth_angle: f64,
}

impl Default for MeshOptions {
    fn default() -> Self {
        MeshOptions {
            scale: 1.0,
            weld_tolerance: 1e-6,
            degenerate: DegenerateTriangles::Drop,
            smooth_angle: 15f64.to_radians(),
        }
    }
}

/// A triangle left out of a mesh, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedTriangle {
    /// The triangle as it was given.
    pub place: TrianglePlace,
    /// Why: `"two corners merged into one vertex"` or `"corners on one line"`.
    pub reason: &'static str,
}

/// What the checks changed: nothing is lost without being listed here.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MeshReport {
    /// Triangles given.
    pub triangles_given: usize,
    /// Distinct vertices the triangles referred to, before merging.
    pub vertices_given: usize,
    /// Of these, the vertices merged into another one (exact duplicates or within the
    /// weld tolerance).
    pub vertices_merged: usize,
    /// The triangles left out (zero area, under [`DegenerateTriangles::Drop`]).
    pub dropped: Vec<DroppedTriangle>,
}

/// A checked triangle mesh in its own frame (scaled to metres), open or closed, consistently
/// oriented or not: what a [`MeshWall`](crate::MeshWall) is made of.
///
/// Built by [`TriangleMesh::new`] from vertices and triangles, or read from a file
/// ([`read_mesh`](crate::read_mesh)). Every triangle has finite corners and non-zero area;
/// duplicate vertices are merged, so triangles that meet share their edges and vertices.
#[derive(Clone, Debug)]
pub struct TriangleMesh {
    vertices: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    normals: Vec<DVec3>,
    /// Index among the given triangles of each kept one.
    given_index: Vec<u32>,
    origins: Vec<TriangleOrigin>,
    path: Option<PathBuf>,
    pub(crate) topology: Topology,
    bvh: Bvh,
    report: MeshReport,
    smooth_angle: f64,
}

impl TriangleMesh {
    /// A mesh from vertices (file units) and triangles (indices into `vertices`), checked
    /// and repaired under `options`. Errors: an option out of range
    /// ([`MeshError::BadParameter`]), more than [`MAX_TRIANGLES`]
    /// ([`MeshError::TooManyTriangles`]), an index out of range ([`MeshError::BadIndex`]),
    /// a non-finite corner ([`MeshError::NonFinite`]), a zero-area triangle under
    /// [`DegenerateTriangles::Refuse`] ([`MeshError::DegenerateTriangle`]), no triangle left
    /// ([`MeshError::Empty`]); each names the triangle by its index among those given.
    pub fn new(vertices: Vec<DVec3>, triangles: Vec<[u32; 3]>, options: &MeshOptions) -> Result<Self> {
        Self::build(vertices, triangles, Vec::new(), None, options)
    }

    /// [`TriangleMesh::new`] for the triangles of a file: errors name the file and the
    /// origin of each triangle (`origins`, aligned with `triangles`, or empty).
    pub(crate) fn build(
        vertices: Vec<DVec3>,
        triangles: Vec<[u32; 3]>,
        origins: Vec<TriangleOrigin>,
        path: Option<PathBuf>,
        options: &MeshOptions,
    ) -> Result<Self> {
        check_options(options)?;
        if triangles.len() > MAX_TRIANGLES {
            return Err(MeshError::TooManyTriangles { path, given: triangles.len(), max: MAX_TRIANGLES });
        }
        let place = |t: usize| TrianglePlace { triangle: t, path: path.clone(), origin: origins.get(t).copied() };
        // Indices, then finite corners once scaled; the vertices the triangles refer to.
        let mut used = vec![false; vertices.len()];
        for (t, tri) in triangles.iter().enumerate() {
            for (corner, &index) in tri.iter().enumerate() {
                let Some(v) = vertices.get(index as usize) else {
                    return Err(MeshError::BadIndex { place: place(t), corner, index, vertices: vertices.len() });
                };
                let scaled = *v * options.scale;
                if !scaled.is_finite() {
                    return Err(MeshError::NonFinite { place: place(t), corner, value: scaled.to_array() });
                }
                used[index as usize] = true;
            }
        }
        let referenced: Vec<u32> = (0..vertices.len() as u32).filter(|&i| used[i as usize]).collect();
        let points: Vec<DVec3> = referenced.iter().map(|&i| vertices[i as usize] * options.scale).collect();
        let (lo, hi) =
            points.iter().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        let diagonal = if points.is_empty() { 0.0 } else { (hi - lo).length() };
        let into = weld(&points, options.weld_tolerance * diagonal);
        // Position among `points` of each referenced vertex.
        let mut slot = vec![u32::MAX; vertices.len()];
        for (k, &i) in referenced.iter().enumerate() {
            slot[i as usize] = k as u32;
        }
        let mut report = MeshReport {
            triangles_given: triangles.len(),
            vertices_given: points.len(),
            vertices_merged: into.iter().enumerate().filter(|(k, &m)| m as usize != *k).count(),
            dropped: Vec::new(),
        };
        // Triangles on the merged vertices; zero-area ones dropped or refused.
        let mut kept: Vec<[u32; 3]> = Vec::with_capacity(triangles.len());
        let mut given_index = Vec::with_capacity(triangles.len());
        for (t, tri) in triangles.iter().enumerate() {
            let m = tri.map(|i| into[slot[i as usize] as usize]);
            let reason = if m[0] == m[1] || m[1] == m[2] || m[2] == m[0] {
                Some("two corners merged into one vertex")
            } else {
                let [a, b, c] = m.map(|i| points[i as usize]);
                let longest = (b - a).length_squared().max((c - b).length_squared()).max((a - c).length_squared());
                // |(b − a) × (c − a)| is computed with a relative error of a few ε of |b − a||c − a|
                // ≤ L²: an area within 8 ε L² of zero is zero to round-off.
                ((b - a).cross(c - a).length() <= 8.0 * f64::EPSILON * longest).then_some("corners on one line")
            };
            match (reason, options.degenerate) {
                (None, _) => {
                    kept.push(m);
                    given_index.push(t as u32);
                }
                (Some(reason), DegenerateTriangles::Refuse) => {
                    return Err(MeshError::DegenerateTriangle { place: place(t), reason })
                }
                (Some(reason), DegenerateTriangles::Drop) => {
                    report.dropped.push(DroppedTriangle { place: place(t), reason })
                }
            }
        }
        if kept.is_empty() {
            return Err(MeshError::Empty { path, given: triangles.len() });
        }
        // Only the vertices of kept triangles, in their order among the points.
        let mut renumber = vec![u32::MAX; points.len()];
        for tri in &kept {
            for &i in tri {
                renumber[i as usize] = 0;
            }
        }
        let mut mesh_vertices = Vec::new();
        for (k, r) in renumber.iter_mut().enumerate() {
            if *r == 0 {
                *r = mesh_vertices.len() as u32;
                mesh_vertices.push(points[k]);
            }
        }
        let kept: Vec<[u32; 3]> = kept.iter().map(|t| t.map(|i| renumber[i as usize])).collect();
        let corners = |t: &[u32; 3]| t.map(|i| mesh_vertices[i as usize]);
        let normals: Vec<DVec3> = kept
            .iter()
            .map(|t| {
                let [a, b, c] = corners(t);
                (b - a).cross(c - a).normalize()
            })
            .collect();
        let topology = Topology::new(mesh_vertices.len(), &kept, &normals, options.smooth_angle);
        let bvh = Bvh::build(&kept.iter().map(corners).collect::<Vec<_>>());
        let origins = if origins.len() == triangles.len() { origins } else { Vec::new() };
        Ok(TriangleMesh {
            vertices: mesh_vertices,
            triangles: kept,
            normals,
            given_index,
            origins,
            path,
            topology,
            bvh,
            report,
            smooth_angle: options.smooth_angle,
        })
    }

    /// Vertices, mesh frame (m).
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }

    /// Triangles as indices into [`TriangleMesh::vertices`], in the order given (dropped
    /// ones left out).
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Unit normal of each triangle, (b − a) × (c − a) normalised for corners (a, b, c):
    /// contacts use it up to its sign, whichever side a sphere is on.
    pub fn normals(&self) -> &[DVec3] {
        &self.normals
    }

    /// The corners of triangle `t`.
    #[inline]
    pub fn triangle(&self, t: u32) -> [DVec3; 3] {
        self.triangles[t as usize].map(|i| self.vertices[i as usize])
    }

    /// The smooth region of triangle `t` (see [`MeshOptions::smooth_angle`]), numbered
    /// from 0 in the order of their first triangles.
    pub fn region(&self, t: u32) -> u32 {
        self.topology.region[t as usize]
    }

    /// Number of smooth regions.
    pub fn region_count(&self) -> usize {
        self.topology.regions
    }

    /// Number of distinct edges.
    pub fn edge_count(&self) -> usize {
        self.topology.edges
    }

    /// The smooth angle the regions were built with (rad).
    pub fn smooth_angle(&self) -> f64 {
        self.smooth_angle
    }

    /// What the checks merged and dropped.
    pub fn report(&self) -> &MeshReport {
        &self.report
    }

    /// The file the mesh was read from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Where triangle `t` of the mesh came from: its index among the triangles given, and
    /// its file and line when read from one.
    pub fn place(&self, t: u32) -> TrianglePlace {
        let given = self.given_index[t as usize] as usize;
        TrianglePlace { triangle: given, path: self.path.clone(), origin: self.origins.get(given).copied() }
    }

    /// The bounding box of the mesh, mesh frame.
    pub fn local_aabb(&self) -> Aabb {
        self.bvh.root_aabb()
    }

    /// Appends to `out` the triangles of every leaf of the mesh's bounding-volume hierarchy
    /// whose box comes within `reach` of `center` (mesh frame): the candidates of a sphere
    /// of radius `reach` (its radius plus the detection margin) at `center`, among them
    /// every triangle within `reach`. The walk visits only the nodes whose boxes come
    /// within `reach` (squared distance from a point to a box, zero inside), so the cost is
    /// O(log T) plus the triangles near the sphere, not O(T); a leaf holds four triangles.
    pub fn triangles_near(&self, center: DVec3, reach: f64, out: &mut Vec<u32>) {
        let reach2 = reach * reach;
        self.bvh.visit(
            |b| {
                let d = (b.min - center).max(center - b.max).max(DVec3::ZERO);
                d.length_squared() <= reach2
            },
            |t| {
                out.push(t);
                true
            },
        );
    }
}

impl TriangleMesh {
    /// The triangle nearest to `point` (mesh frame); ties go to the lower index. The search
    /// starts with the triangles within a thousandth of the mesh's diagonal and widens
    /// fourfold until it finds one, so a point on the surface (a contact point) costs two
    /// short walks of the hierarchy.
    pub fn nearest_triangle(&self, point: DVec3) -> u32 {
        let b = self.local_aabb();
        let diagonal = (b.max - b.min).length().max(f64::MIN_POSITIVE);
        let far = (point - 0.5 * (b.min + b.max)).length() + diagonal;
        let mut reach = 1e-3 * diagonal;
        let mut near = Vec::new();
        loop {
            self.triangles_near(point, reach, &mut near);
            if !near.is_empty() || reach > far {
                break;
            }
            reach *= 4.0;
        }
        let distance2 = |t: u32| {
            let [a, b, c] = self.triangle(t);
            (crate::closest::nearest_on_triangle(point, a, b, c).0 - point).length_squared()
        };
        let nearest = |near: &[u32]| {
            let closer = |best: (f64, u32), x: (f64, u32)| if x < best { x } else { best };
            near.iter().map(|&t| (distance2(t), t)).fold((f64::INFINITY, 0), closer)
        };
        // A candidate's box came within the reach, not necessarily the triangle: every
        // triangle nearer than the best candidate is within its distance, so a second walk
        // to that distance holds the nearest one.
        let first = nearest(&near);
        near.clear();
        self.triangles_near(point, first.0.sqrt(), &mut near);
        let second = nearest(&near);
        if second.0 <= first.0 {
            second.1
        } else {
            first.1
        }
    }
}

fn check_options(o: &MeshOptions) -> Result<()> {
    let bad = |name, value, expected| Err(MeshError::BadParameter { name, value, expected });
    if !(o.scale.is_finite() && o.scale > 0.0) {
        return bad("scale", o.scale, "finite and > 0");
    }
    if !(o.weld_tolerance.is_finite() && o.weld_tolerance >= 0.0) {
        return bad("weld_tolerance", o.weld_tolerance, "finite and >= 0");
    }
    if !(0.0..=std::f64::consts::PI).contains(&o.smooth_angle) {
        return bad("smooth_angle", o.smooth_angle, "in [0, pi] (radians)");
    }
    Ok(())
}
