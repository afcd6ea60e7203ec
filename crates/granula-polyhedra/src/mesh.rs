//! Mesh checks, edge adjacency and the exact moments of the enclosed solid.

use crate::error::{PolyError, Result};
use granula_core::math::{DMat3, DVec3};
use std::collections::HashMap;

/// An undirected edge of a closed mesh with its two faces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    /// Its vertices, `vertices[0] < vertices[1]`.
    pub vertices: [u32; 2],
    /// The face that traverses it from `vertices[0]` to `vertices[1]`, then the other one.
    pub faces: [u32; 2],
    /// `false` when its two faces are coplanar (a diagonal of a flat polygon that was
    /// split into triangles): such an edge is not a physical edge and makes no edge contact.
    pub sharp: bool,
}

/// Relative area below which a face counts as degenerate (area / size², size = the largest
/// extent of the mesh's bounding box).
pub const DEGENERATE_AREA: f64 = 1e-12;

/// Extents of a mesh (largest side of its bounding box) accepted by
/// [`check_and_build_edges`]: the second moments grow as the fifth power of the size, and
/// (10⁻⁶⁰)⁵ and (10⁶⁰)⁵ are well inside the range of normal doubles, with room for a density.
pub const EXTENT_RANGE: (f64, f64) = (1e-60, 1e60);

/// Cosine of the dihedral deviation below which two faces count as coplanar.
pub const COPLANAR_COS: f64 = 1.0 - 1e-9;

/// Checks a triangle mesh: finite vertices, an extent within [`EXTENT_RANGE`], valid
/// indices, no zero-area face, every edge shared by exactly two faces that traverse it in
/// opposite directions (closed and consistently oriented), one shell (every face reached
/// from every other through shared edges: a hollow body or two bodies in one mesh are
/// refused, [`PolyError::Shells`]), and, when it encloses a positive
/// volume, the second moments of a solid: a positive definite covariance (a surface that
/// intersects itself or folds over may fail this, [`PolyError::NotASolid`], though not
/// every self-intersection does). Returns its edges with adjacency. The sign of the volume
/// (outward orientation) is checked by the caller, from [`moments`].
pub fn check_and_build_edges(vertices: &[DVec3], faces: &[[u32; 3]]) -> Result<Vec<Edge>> {
    if vertices.len() < 4 || faces.len() < 4 {
        return Err(PolyError::Empty { vertices: vertices.len(), faces: faces.len() });
    }
    if let Some(v) = vertices.iter().position(|v| !v.is_finite()) {
        return Err(PolyError::NonFiniteVertex { vertex: v });
    }
    let (lo, hi) = vertices.iter().fold((vertices[0], vertices[0]), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let extent = (hi - lo).max_element();
    let (min, max) = EXTENT_RANGE;
    if !(extent >= min && extent <= max) {
        return Err(PolyError::BadExtent { extent, min, max });
    }
    let size2 = extent.powi(2);
    let mut directed: HashMap<(u32, u32), u32> = HashMap::with_capacity(faces.len() * 3);
    for (f, tri) in faces.iter().enumerate() {
        let n = vertices.len() as u32;
        if tri.iter().any(|&i| i >= n) || tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
            return Err(PolyError::BadFaceIndex { face: f, indices: *tri, vertices: vertices.len() });
        }
        let [a, b, c] = tri.map(|i| vertices[i as usize]);
        let area = 0.5 * (b - a).cross(c - a).length() / size2;
        if !(area > DEGENERATE_AREA) {
            return Err(PolyError::DegenerateFace { face: f, area });
        }
        for k in 0..3 {
            let key = (tri[k], tri[(k + 1) % 3]);
            if let Some(&first) = directed.get(&key) {
                return Err(PolyError::InconsistentEdge { a: key.0, b: key.1, first: first as usize, second: f });
            }
            directed.insert(key, f as u32);
        }
    }
    let normal = |f: u32| {
        let [a, b, c] = faces[f as usize].map(|i| vertices[i as usize]);
        (b - a).cross(c - a).normalize()
    };
    let mut edges = Vec::with_capacity(directed.len() / 2);
    // Iterate faces in order (not the hash map) so edge numbering is deterministic.
    for (f, tri) in faces.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            let Some(&twin) = directed.get(&(b, a)) else {
                return Err(PolyError::OpenEdge { a, b, face: f });
            };
            if a < b {
                let sharp = normal(f as u32).dot(normal(twin)) < COPLANAR_COS;
                edges.push(Edge { vertices: [a, b], faces: [f as u32, twin], sharp });
            }
        }
    }
    let shells = shell_count(faces.len(), &edges);
    if shells > 1 {
        return Err(PolyError::Shells { shells, path: None });
    }
    let m = moments(vertices, faces);
    if m.volume > 0.0 {
        // Relative to its largest diagonal entry, so that the minors of a tiny or huge mesh
        // neither underflow nor overflow.
        let c = m.covariance * (1.0 / m.covariance.x_axis.x.max(m.covariance.y_axis.y).max(m.covariance.z_axis.z));
        let minors = [c.x_axis.x, c.x_axis.x * c.y_axis.y - c.y_axis.x * c.x_axis.y, c.determinant()];
        if let Some(&minor) = minors.iter().find(|&&d| !(d > 0.0)) {
            return Err(PolyError::NotASolid { minor });
        }
    }
    Ok(edges)
}

/// Volume, centroid and second moment of a closed, outward-oriented triangle mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Moments {
    /// Enclosed volume V (m³).
    pub volume: f64,
    /// Centroid (centre of mass at uniform density).
    pub centroid: DVec3,
    /// Second moment ∫ (x − c)(x − c)ᵀ dV about the centroid (m⁵).
    pub covariance: DMat3,
}

impl Moments {
    /// Inertia tensor per unit density about the centroid: I = tr(C) 𝟙 − C (m⁵).
    pub fn inertia_per_density(&self) -> DMat3 {
        let c = self.covariance;
        DMat3::from_diagonal(DVec3::splat(c.x_axis.x + c.y_axis.y + c.z_axis.z)) - c
    }
}

/// The number of shells of a closed mesh: sets of faces connected through shared edges. A
/// hollow body (an outer surface and an inner one) has two, as do two bodies in one file.
fn shell_count(faces: usize, edges: &[Edge]) -> usize {
    let mut parent: Vec<u32> = (0..faces as u32).collect();
    let root = |parent: &mut Vec<u32>, mut i: u32| {
        while parent[i as usize] != i {
            let up = parent[parent[i as usize] as usize];
            parent[i as usize] = up;
            i = up;
        }
        i
    };
    let mut shells = faces;
    for e in edges {
        let (a, b) = (root(&mut parent, e.faces[0]), root(&mut parent, e.faces[1]));
        if a != b {
            parent[a.max(b) as usize] = a.min(b);
            shells -= 1;
        }
    }
    shells
}

/// Exact volume, centroid and covariance of the solid bounded by the mesh, by the
/// divergence theorem: the volume integrals of 1, x and x xᵀ become surface integrals over
/// the faces, which for a triangle are those of the tetrahedron it spans with the origin
/// (Mirtich 1996, "Fast and accurate computation of polyhedral mass properties"; Tonon 2004,
/// J. Math. Stat. 1(1)). For the tetrahedron (0, a, b, c) with D = a·(b×c):
/// V = D/6, ∫x dV = D/24 (a+b+c), ∫x xᵀ dV = D/120 (a aᵀ + b bᵀ + c cᵀ + s sᵀ), s = a+b+c.
/// The sums are taken relative to the first vertex, so round-off does not grow with the
/// distance of the mesh from the origin.
pub fn moments(vertices: &[DVec3], faces: &[[u32; 3]]) -> Moments {
    let o = vertices[0];
    let mut vol6 = 0.0;
    let mut first24 = DVec3::ZERO;
    let mut second120 = DMat3::ZERO;
    for tri in faces {
        let [a, b, c] = tri.map(|i| vertices[i as usize] - o);
        let d = a.dot(b.cross(c));
        let s = a + b + c;
        vol6 += d;
        first24 += d * s;
        second120 += outer(a, a * d) + outer(b, b * d) + outer(c, c * d) + outer(s, s * d);
    }
    let volume = vol6 / 6.0;
    let rel = first24 / (24.0 * volume);
    let covariance = second120 * (1.0 / 120.0) - outer(rel, rel * volume);
    Moments { volume, centroid: o + rel, covariance }
}

/// The outer product u vᵀ.
fn outer(u: DVec3, v: DVec3) -> DMat3 {
    DMat3::from_cols(u * v.x, u * v.y, u * v.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tetra() -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
        (v, vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    }

    #[test]
    fn tetrahedron_edges_and_moments() {
        let (v, f) = tetra();
        let e = check_and_build_edges(&v, &f).unwrap();
        assert_eq!(e.len(), 6);
        assert!(e.iter().all(|e| e.sharp && e.vertices[0] < e.vertices[1]));
        let m = moments(&v, &f);
        assert!((m.volume - 1.0 / 6.0).abs() < 1e-15);
        assert!((m.centroid - DVec3::splat(0.25)).length() < 1e-15);
    }

    #[test]
    fn broken_meshes_name_the_fault() {
        let (v, mut f) = tetra();
        f.pop();
        assert!(matches!(check_and_build_edges(&v, &f), Err(PolyError::Empty { .. })));
        let (v, mut f) = tetra();
        f[3] = [1, 3, 2];
        assert!(matches!(check_and_build_edges(&v, &f), Err(PolyError::InconsistentEdge { .. })));
        let (v, mut f) = tetra();
        f[3] = [1, 2, 7];
        assert!(matches!(check_and_build_edges(&v, &f), Err(PolyError::BadFaceIndex { face: 3, .. })));
        let (mut v, f) = tetra();
        v[3] = DVec3::new(0.5, 0.5, 0.0);
        assert!(matches!(check_and_build_edges(&v, &f), Err(PolyError::DegenerateFace { .. })));
        let (mut v, f) = tetra();
        v[2] = DVec3::NAN;
        assert!(matches!(check_and_build_edges(&v, &f), Err(PolyError::NonFiniteVertex { vertex: 2 })));
    }

    #[test]
    fn a_missing_face_is_an_open_edge() {
        // Octahedron without its last face: open.
        let v = vec![DVec3::X, -DVec3::X, DVec3::Y, -DVec3::Y, DVec3::Z, -DVec3::Z];
        let f = vec![[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5]];
        assert!(matches!(check_and_build_edges(&v, &f), Err(PolyError::OpenEdge { .. })));
    }
}
