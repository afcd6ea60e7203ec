//! The polyhedron shape: a closed triangle mesh in the body frame, with its edges, face
//! planes, mass properties and face hierarchy.

use crate::bvh::Bvh;
use crate::error::{PolyError, Result};
use crate::mesh::{check_and_build_edges, moments, Edge, COPLANAR_COS};
use granula_core::math::{DMat3, DQuat, DVec3};
use granula_core::{Aabb, MassProperties};
use std::collections::HashMap;

/// Position (of the centre of mass) and orientation of a body: x_world = position +
/// orientation · x_body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Position of the body frame's origin, the centre of mass (m).
    pub position: DVec3,
    /// Orientation of the body frame (unit quaternion).
    pub orientation: DQuat,
}

impl Pose {
    /// A pose from its parts.
    pub fn new(position: DVec3, orientation: DQuat) -> Self {
        Pose { position, orientation }
    }

    /// Body frame → world.
    #[inline]
    pub fn to_world(&self, x: DVec3) -> DVec3 {
        self.position + self.orientation * x
    }

    /// World → body frame.
    #[inline]
    pub fn to_body(&self, x: DVec3) -> DVec3 {
        self.orientation.inverse() * (x - self.position)
    }
}

/// Which body frame the constructor puts the mesh in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyFrame {
    /// Origin at the centre of mass, axes those of the input mesh.
    CentreOfMass,
    /// Origin at the centre of mass, axes along the principal axes of inertia (the inertia
    /// tensor is diagonal, with moments in increasing order), as the integrators expect
    /// (003 eq. 1 in the principal frame).
    PrincipalAxes,
}

/// Where the body frame sits in the input mesh's coordinates: x_input = offset +
/// rotation · x_body. A host places the body at the mesh's original place with
/// position = offset, orientation = rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// The centre of mass in the input coordinates.
    pub offset: DVec3,
    /// The rotation from the body frame to the input axes (identity for
    /// [`BodyFrame::CentreOfMass`]).
    pub rotation: DQuat,
}

/// A rigid polyhedron, convex or not, bounded by a closed, consistently and outward
/// oriented triangle mesh, stored in its body frame (origin at the centre of mass).
#[derive(Clone, Debug)]
pub struct Polyhedron {
    vertices: Vec<DVec3>,
    faces: Vec<[u32; 3]>,
    normals: Vec<DVec3>,
    edges: Vec<Edge>,
    volume: f64,
    inertia: DMat3,
    radius: f64,
    equivalent_radius: f64,
    convex: bool,
    planes: Vec<(DVec3, f64)>,
    face_planes: Vec<u32>,
    bvh: Bvh,
}

impl Polyhedron {
    /// Builds a polyhedron from a triangle mesh (faces counter-clockwise seen from outside).
    /// Checks the mesh (closed, consistently oriented, non-degenerate, positive volume;
    /// errors name the face or edge), drops vertices no face uses (they would otherwise make
    /// vertex contacts off the surface; the others keep their order), computes its exact
    /// mass properties by the divergence theorem, then moves it into the requested
    /// [`BodyFrame`]. Returns the shape and where its body frame sits in the input
    /// coordinates.
    pub fn from_mesh(vertices: Vec<DVec3>, faces: Vec<[u32; 3]>, frame: BodyFrame) -> Result<(Self, Placement)> {
        check_and_build_edges(&vertices, &faces)?;
        let (vertices, faces) = drop_unused_vertices(vertices, faces);
        let m = moments(&vertices, &faces);
        let scale = vertices.iter().map(|v| (*v - vertices[0]).length()).fold(0.0, f64::max);
        if !(m.volume > 1e-12 * scale.powi(3)) {
            return Err(PolyError::NonPositiveVolume { volume: m.volume });
        }
        let rotation = match frame {
            BodyFrame::CentreOfMass => DQuat::IDENTITY,
            BodyFrame::PrincipalAxes => MassProperties::from_tensor(m.volume, m.inertia_per_density())?.1,
        };
        let inv = rotation.inverse();
        let body: Vec<DVec3> = vertices.iter().map(|v| inv * (*v - m.centroid)).collect();
        Ok((Self::assemble(body, faces)?, Placement { offset: m.centroid, rotation }))
    }

    /// Derived data of a mesh already in its body frame.
    fn assemble(vertices: Vec<DVec3>, faces: Vec<[u32; 3]>) -> Result<Self> {
        let edges = check_and_build_edges(&vertices, &faces)?;
        let m = moments(&vertices, &faces);
        let tri = |f: &[u32; 3]| f.map(|i| vertices[i as usize]);
        let normals: Vec<DVec3> = faces
            .iter()
            .map(|f| {
                let [a, b, c] = tri(f);
                (b - a).cross(c - a).normalize()
            })
            .collect();
        let radius = vertices.iter().map(|v| v.length()).fold(0.0, f64::max);
        let tol = 1e-9 * radius;
        let convex = edges.iter().all(|e| {
            let [f0, f1] = e.faces.map(|f| f as usize);
            let opposite = faces[f1].iter().find(|&&i| !e.vertices.contains(&i)).copied().unwrap_or(0);
            normals[f0].dot(vertices[opposite as usize] - vertices[e.vertices[0] as usize]) <= tol
        });
        let (planes, face_planes) = group_planes(&vertices, &faces, &normals, tol);
        let triangles: Vec<[DVec3; 3]> = faces.iter().map(tri).collect();
        let bvh = Bvh::build(&triangles);
        Ok(Polyhedron {
            inertia: m.inertia_per_density(),
            volume: m.volume,
            vertices,
            faces,
            normals,
            edges,
            radius,
            equivalent_radius: (3.0 * m.volume / (4.0 * std::f64::consts::PI)).cbrt(),
            convex,
            planes,
            face_planes,
            bvh,
        })
    }

    /// A copy scaled uniformly by `factor` about the centre of mass.
    pub fn scaled(&self, factor: f64) -> Result<Self> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err(PolyError::BadParameter { name: "scale", value: factor, expected: "finite and > 0" });
        }
        Self::assemble(self.vertices.iter().map(|v| *v * factor).collect(), self.faces.clone())
    }

    /// Vertices in the body frame.
    #[inline]
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }

    /// Triangles as vertex indices, counter-clockwise seen from outside.
    #[inline]
    pub fn faces(&self) -> &[[u32; 3]] {
        &self.faces
    }

    /// Outward unit normal of each face, body frame.
    #[inline]
    pub fn normals(&self) -> &[DVec3] {
        &self.normals
    }

    /// Edges with their two faces.
    #[inline]
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The three corners of face `f`, body frame.
    #[inline]
    pub fn triangle(&self, f: u32) -> [DVec3; 3] {
        self.faces[f as usize].map(|i| self.vertices[i as usize])
    }

    /// Volume (m³).
    #[inline]
    pub fn volume(&self) -> f64 {
        self.volume
    }

    /// Inertia tensor per unit density about the centre of mass, body frame (m⁵): multiply
    /// by the density for kg m². Diagonal for [`BodyFrame::PrincipalAxes`].
    #[inline]
    pub fn inertia_per_density(&self) -> DMat3 {
        self.inertia
    }

    /// Mass and principal moments at `density`, and the rotation from the principal axes to
    /// the body frame (identity, up to round-off, for a body built in
    /// [`BodyFrame::PrincipalAxes`]).
    pub fn mass_properties(&self, density: f64) -> Result<(MassProperties, DQuat)> {
        Ok(MassProperties::from_tensor(density * self.volume, self.inertia * density)?)
    }

    /// Distance from the centre of mass to the farthest vertex (m).
    #[inline]
    pub fn bounding_radius(&self) -> f64 {
        self.radius
    }

    /// Radius of the sphere of equal volume, (3V/4π)^⅓: the characteristic radius used as
    /// the effective radius of a polyhedron's contacts (a vertex or an edge has no finite
    /// curvature radius; this keeps radius-dependent laws at the particle's scale).
    #[inline]
    pub fn equivalent_radius(&self) -> f64 {
        self.equivalent_radius
    }

    /// `true` when every edge is convex (dihedral angle ≤ 180° up to 1e-9 of the size).
    #[inline]
    pub fn is_convex(&self) -> bool {
        self.convex
    }

    /// The distinct face planes (unit outward normal n, offset d: n·x = d), coplanar
    /// triangles merged. For a convex body the solid is {x : n·x ≤ d for all planes}.
    #[inline]
    pub fn planes(&self) -> &[(DVec3, f64)] {
        &self.planes
    }

    /// For each face, the index of its plane in [`Polyhedron::planes`] (coplanar faces
    /// share one).
    #[inline]
    pub fn face_planes(&self) -> &[u32] {
        &self.face_planes
    }

    /// The face hierarchy (body frame).
    #[inline]
    pub fn bvh(&self) -> &Bvh {
        &self.bvh
    }

    /// Bounding box in the body frame.
    #[inline]
    pub fn local_aabb(&self) -> Aabb {
        self.bvh.root_aabb()
    }

    /// Exact world-space bounding box of the body at `pose`, from its rotated vertices
    /// (O(V); for the broadphase, 003 §3).
    pub fn world_aabb(&self, pose: &Pose) -> Aabb {
        let m = DMat3::from_quat(pose.orientation);
        let (lo, hi) = self.vertices.iter().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), v| {
            let w = m * *v;
            (lo.min(w), hi.max(w))
        });
        Aabb { min: pose.position + lo, max: pose.position + hi }
    }

    /// A cheap world box at `pose`, O(1): the cube around the bounding sphere. Looser than
    /// [`Polyhedron::world_aabb`] but independent of the orientation, so it can be reused
    /// while the body only turns.
    #[inline]
    pub fn bounding_sphere_aabb(&self, pose: &Pose) -> Aabb {
        Aabb::around(pose.position, DVec3::splat(self.radius))
    }

    /// Support point: the vertex farthest along `dir` (body frame), O(V).
    pub fn support(&self, dir: DVec3) -> DVec3 {
        *self.vertices.iter().max_by(|a, b| a.dot(dir).total_cmp(&b.dot(dir))).expect("non-empty mesh")
    }
}

/// The vertices some face uses, in their order, and the faces renumbered.
fn drop_unused_vertices(vertices: Vec<DVec3>, faces: Vec<[u32; 3]>) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut map = vec![u32::MAX; vertices.len()];
    for f in &faces {
        for &i in f {
            map[i as usize] = 0;
        }
    }
    if map.iter().all(|&m| m == 0) {
        return (vertices, faces);
    }
    let mut kept = Vec::with_capacity(vertices.len());
    for (m, v) in map.iter_mut().zip(vertices) {
        if *m == 0 {
            *m = kept.len() as u32;
            kept.push(v);
        }
    }
    let faces = faces.iter().map(|f| f.map(|i| map[i as usize])).collect();
    (kept, faces)
}

/// Side of the cells of [`group_planes`]' grid of unit normals: larger than the distance
/// between two unit normals that count as coplanar (m·n > `COPLANAR_COS` = 1 − 1e-9 gives
/// |m − n| = √(2 − 2 m·n) < 4.5e-5), so a matching normal lies in the same cell or one of its
/// 26 neighbours.
const NORMAL_CELL: f64 = 1e-4;

/// Meshes of at most this many faces group their planes by the plain scan ([`scan_planes`]):
/// below it the scan's comparisons cost less than the grid's 27 hashed cells per face
/// (cachegrind: the grid took 8 % more instructions in a run that builds 1000 hulls of
/// about 19 faces and settles them for 220 steps).
const SCAN_FACES: usize = 256;

/// The distinct face planes of a mesh and each face's plane: face f joins the first plane
/// (lowest index) whose normal m has m·n_f > `COPLANAR_COS` and whose offset is within `tol`
/// of n_f·v (v a corner of f), else it opens a new plane (n_f, n_f·v).
///
/// Large meshes look the candidates up in a hash grid of the planes' normals ([`grid_planes`]),
/// so grouping F faces costs O(F) instead of the O(F²) of comparing each face with every
/// plane found so far (81 920 faces of a six-times subdivided icosphere: 0.2 s instead of
/// 2.2 s); the result is the plain scan's, plane for plane.
fn group_planes(vertices: &[DVec3], faces: &[[u32; 3]], normals: &[DVec3], tol: f64) -> (Vec<(DVec3, f64)>, Vec<u32>) {
    if faces.len() <= SCAN_FACES {
        scan_planes(vertices, faces, normals, tol)
    } else {
        grid_planes(vertices, faces, normals, tol)
    }
}

/// [`group_planes`] by comparing each face with every plane found so far: O(F·P).
fn scan_planes(vertices: &[DVec3], faces: &[[u32; 3]], normals: &[DVec3], tol: f64) -> (Vec<(DVec3, f64)>, Vec<u32>) {
    let mut planes: Vec<(DVec3, f64)> = Vec::new();
    let mut face_planes = Vec::with_capacity(faces.len());
    for (f, n) in faces.iter().zip(normals) {
        let d = n.dot(vertices[f[0] as usize]);
        match planes.iter().position(|(m, e)| m.dot(*n) > COPLANAR_COS && (e - d).abs() <= tol) {
            Some(k) => face_planes.push(k as u32),
            None => {
                face_planes.push(planes.len() as u32);
                planes.push((*n, d));
            }
        }
    }
    (planes, face_planes)
}

/// [`group_planes`] through a hash grid of the planes' unit normals (cells of
/// [`NORMAL_CELL`]): a face is compared with the planes in its normal's cell and the 26
/// around it only, and joins the lowest-indexed match, as the scan would. O(F).
fn grid_planes(vertices: &[DVec3], faces: &[[u32; 3]], normals: &[DVec3], tol: f64) -> (Vec<(DVec3, f64)>, Vec<u32>) {
    let cell = |n: DVec3| (n / NORMAL_CELL).floor().to_array().map(|c| c as i64);
    let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    let mut planes: Vec<(DVec3, f64)> = Vec::new();
    let mut face_planes = Vec::with_capacity(faces.len());
    for (f, n) in faces.iter().zip(normals) {
        let d = n.dot(vertices[f[0] as usize]);
        let [x, y, z] = cell(*n);
        let mut first: Option<u32> = None;
        for key in (-1..=1).flat_map(|i| (-1..=1).flat_map(move |j| (-1..=1).map(move |k| [x + i, y + j, z + k]))) {
            for &k in grid.get(&key).map(Vec::as_slice).unwrap_or(&[]) {
                let (m, e) = planes[k as usize];
                if m.dot(*n) > COPLANAR_COS && (e - d).abs() <= tol && first.is_none_or(|p| k < p) {
                    first = Some(k);
                }
            }
        }
        let k = first.unwrap_or_else(|| {
            planes.push((*n, d));
            let k = planes.len() as u32 - 1;
            grid.entry([x, y, z]).or_default().push(k);
            k
        });
        face_planes.push(k);
    }
    (planes, face_planes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes;

    #[test]
    fn world_box_of_a_turned_cube_is_exact_and_the_cheap_one_contains_it() {
        let c = shapes::cube(2.0).unwrap();
        let pose = Pose::new(DVec3::new(1.0, 2.0, 3.0), DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4));
        let b = c.world_aabb(&pose);
        let h = 2f64.sqrt();
        assert!((b.min - DVec3::new(1.0 - h, 2.0 - h, 2.0)).length() < 1e-12);
        assert!((b.max - DVec3::new(1.0 + h, 2.0 + h, 4.0)).length() < 1e-12);
        assert!(c.bounding_sphere_aabb(&pose).contains(&b));
        assert_eq!(c.support(DVec3::new(1.0, 1.0, 1.0)), DVec3::ONE);
        assert!((pose.to_body(pose.to_world(DVec3::X)) - DVec3::X).length() < 1e-15);
    }

    #[test]
    fn unused_vertices_are_dropped() {
        let v = vec![DVec3::ZERO, DVec3::splat(9.0), DVec3::X, DVec3::Y, DVec3::Z];
        let f = vec![[0, 3, 2], [0, 2, 4], [0, 4, 3], [2, 3, 4]];
        let (p, at) = Polyhedron::from_mesh(v, f, BodyFrame::CentreOfMass).unwrap();
        assert_eq!(p.vertices().len(), 4);
        assert!((p.volume() - 1.0 / 6.0).abs() < 1e-15);
        assert!((at.offset - DVec3::splat(0.25)).length() < 1e-15);
    }

    #[test]
    fn convexity_and_planes() {
        let c = shapes::cube(1.0).unwrap();
        assert!(c.is_convex());
        assert_eq!(c.planes().len(), 6);
        // Each face's plane holds its corners.
        for (f, &k) in c.face_planes().iter().enumerate() {
            let (n, d) = c.planes()[k as usize];
            assert!(c.triangle(f as u32).iter().all(|x| (n.dot(*x) - d).abs() < 1e-15));
        }
        assert_eq!(c.edges().iter().filter(|e| e.sharp).count(), 12);
        let l = shapes::l_block(1.0).unwrap();
        assert!(!l.is_convex());
        assert_eq!(l.planes().len(), 8);
        assert!((l.equivalent_radius() - (9.0 / (4.0 * std::f64::consts::PI)).cbrt()).abs() < 1e-14);
    }

    /// The grid lookup gives the planes of the plain scan (every face against every plane
    /// found so far, the path of small meshes), on normals that are equal, within the coplanar tolerance, just outside
    /// it, and on either side of cell boundaries, with offsets equal, within and beyond `tol`.
    #[test]
    fn grouped_planes_are_those_of_the_plain_scan() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let tol = 1e-9;
        let mut vertices = Vec::new();
        let mut normals = Vec::new();
        let base: Vec<DVec3> = (0..40)
            .map(|i| {
                // Some normals sit on a cell boundary of the grid (a coordinate a multiple
                // of the cell), where a neighbour in the next cell must still be found.
                let v = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), 0.3).normalize();
                if i % 4 == 0 {
                    (v / NORMAL_CELL).round() * NORMAL_CELL
                } else {
                    v
                }
            })
            .collect();
        for _ in 0..4000 {
            let n0 = base[rng.random_range(0..base.len())];
            // Tilts below, near and above the coplanar angle (about 4.5e-5 rad).
            let tilt = [0.0, 1e-6, 3e-5, 4.4e-5, 4.6e-5, 1e-4][rng.random_range(0..6)];
            let axis = n0.any_orthonormal_vector();
            let n = (DQuat::from_axis_angle(axis, tilt) * n0).normalize();
            let d = [0.5, 0.5 + 0.5e-9, 0.5 + 2e-9][rng.random_range(0..3)];
            vertices.push(n * d);
            normals.push(n);
        }
        let faces: Vec<[u32; 3]> = (0..normals.len() as u32).map(|i| [i, i, i]).collect();
        let (planes, face_planes) = grid_planes(&vertices, &faces, &normals, tol);
        let (plain, plain_faces) = scan_planes(&vertices, &faces, &normals, tol);
        assert_eq!(face_planes, plain_faces);
        assert_eq!(planes, plain);
        // The draw exercises both outcomes: faces joining a plane and faces opening one.
        assert!(planes.len() > 100 && planes.len() < 3000, "{} planes", planes.len());
    }
}
