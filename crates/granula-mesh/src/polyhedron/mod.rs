//! Polyhedron against mesh wall: the contact points a polyhedron gets against a plane and a
//! polyhedron, with the mesh's smooth regions as the planes and its sharp convex edges and
//! corners as a polyhedron's edges and vertices.
//!
//! The rule (`docs/meshes.md`, "Polyhedra against mesh walls"), all in the mesh frame:
//! 1. **Candidates and side** ([`local`]): the triangles whose hierarchy leaves come within
//!    the polyhedron's bounding sphere (plus the margin). The surface is two-sided: each
//!    set of candidates joined by manifold edges gets the side of the polyhedron's centre,
//!    read at the candidate nearest to the centre with the angle-weighted pseudo-normal of
//!    the feature there (Bærentzen & Aanæs, *Signed distance computation using the angle
//!    weighted pseudonormal*, IEEE TVCG 11, 2005) and carried to the others through the
//!    mesh's orientation across each edge. Each edge between two candidates is then
//!    convex, concave or flat as seen from that side.
//! 2. **Polyhedron vertices** ([`vertex`]): a vertex counts against a triangle when its
//!    projection on the triangle's plane falls inside the triangle, or beyond a concave
//!    edge of it (a valley: the two faces are then two planes, each pushing what is below
//!    it). Those triangles are grouped: one group per smooth region, and regions whose
//!    triangles lie behind each other's planes (a convex fold, the faces of a closed
//!    convex mesh) in one group. A group gives one contact, at its triangle of least
//!    penetration (the largest signed distance d, as a convex polyhedron's face planes
//!    give it), when d ≤ margin, with the plane's formulas
//!    ([`granula_polyhedra::contact::plane_polyhedron`]): gap d, normal n, point x − (d/2) n.
//! 3. **Mesh corners** ([`edge`]): a vertex of the mesh where sharp edges meet, all convex
//!    (not just two in line), inside the polyhedron: a contact as a polyhedron's vertex in
//!    the other body gets.
//! 4. **Edge crossings** ([`edge`]): a sharp convex edge of the mesh and a sharp edge of the
//!    polyhedron that cross each other inside both bodies, by the rules and the continuous
//!    depth of the polyhedron pairs (`granula_polyhedra::contact`, edge.rs), the mesh's
//!    solid near its edge being the intersection of the half-spaces behind the edge's two
//!    triangles and the candidates of the same convex part.
//!
//! So a closed convex mesh against a polyhedron gives the polyhedron pair's points, a
//! triangulated plane the plane's, and a valley the two planes'.

mod edge;
mod local;
mod vertex;

use crate::mesh::TriangleMesh;
use crate::sphere::{clearance, Clearance};
use crate::wall::MeshWall;
use granula_core::math::{DMat3, DQuat, DVec3};
use granula_core::narrowphase::{ContactGenerator, DegenerateGeometry, PosedShape};
use granula_core::{ContactGeometry, PairMemory};
use granula_polyhedra::{Polyhedron, PolyhedronShape, Pose};
use local::Local;
use std::cell::RefCell;

/// What a contact of a polyhedron with a mesh wall stands for, stored in its
/// [`ContactGeometry::feature`]: the two top bits tell the kind, the other 30 the ids, so
/// that the same physical contact keeps its key from step to step (the MD solver matches
/// tangential springs by it). Ids are taken modulo the room each kind has; two contacts of
/// one call whose keys would coincide (ids that many apart) get distinct keys, the later
/// one the next free key of its kind, so such a key may decode to a neighbour's ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolyhedronMeshKey {
    /// Vertex `vertex` of the polyhedron against smooth region `region` of the mesh:
    /// 0·2³⁰ + (vertex mod 2¹⁴)·2¹⁶ + (region mod 2¹⁶). The key stays the same while the
    /// vertex moves from triangle to triangle of one region.
    Vertex {
        /// Index of the polyhedron's vertex.
        vertex: u32,
        /// The smooth region ([`TriangleMesh::region`]).
        region: u32,
    },
    /// A corner of the mesh (its vertex index) inside the polyhedron: 1·2³⁰ + vertex.
    Corner(u32),
    /// Sharp edge `mesh_edge` of the mesh crossing edge `edge` of the polyhedron (its index in
    /// `Polyhedron::edges`): 2·2³⁰ + (mesh_edge mod 2¹⁶)·2¹⁴ + (edge mod 2¹⁴).
    Crossing {
        /// The mesh's edge, numbered as the mesh's topology numbers them.
        mesh_edge: u32,
        /// The polyhedron's edge.
        edge: u32,
    },
}

const KIND_SHIFT: u32 = 30;
const LOW_MASK: u32 = (1 << KIND_SHIFT) - 1;

impl PolyhedronMeshKey {
    /// The `u32` stored in [`ContactGeometry::feature`].
    pub fn encode(self) -> u32 {
        match self {
            PolyhedronMeshKey::Vertex { vertex, region } => ((vertex & 0x3fff) << 16) | (region & 0xffff),
            PolyhedronMeshKey::Corner(v) => (1 << KIND_SHIFT) | (v & LOW_MASK),
            PolyhedronMeshKey::Crossing { mesh_edge, edge } => {
                (2 << KIND_SHIFT) | ((mesh_edge & 0xffff) << 14) | (edge & 0x3fff)
            }
        }
    }

    /// Back from a stored key (ids modulo the room of their kind). `None` for a key of no
    /// kind of this generator (the top bits 3).
    pub fn decode(key: u32) -> Option<Self> {
        let low = key & LOW_MASK;
        match key >> KIND_SHIFT {
            0 => Some(PolyhedronMeshKey::Vertex { vertex: low >> 16, region: low & 0xffff }),
            1 => Some(PolyhedronMeshKey::Corner(low)),
            2 => Some(PolyhedronMeshKey::Crossing { mesh_edge: low >> 14, edge: low & 0x3fff }),
            _ => None,
        }
    }
}

/// Pushes `g` with `key`, or with the next free key of its kind when an earlier contact of
/// this call (`out[from..]`) holds it already: keys are distinct within a call.
fn push_keyed(out: &mut Vec<ContactGeometry>, from: usize, mut g: ContactGeometry, key: PolyhedronMeshKey) {
    let mut k = key.encode();
    while out[from..].iter().any(|o| o.feature == k) {
        k = (k & !LOW_MASK) | (k.wrapping_add(1) & LOW_MASK);
    }
    g.feature = k;
    out.push(g);
}

/// A rigid transform x' = rot x + shift (a matrix: cheaper than a quaternion per point).
#[derive(Clone, Copy, Debug)]
struct Frame {
    rot: DMat3,
    shift: DVec3,
}

impl Frame {
    #[inline]
    fn apply(&self, x: DVec3) -> DVec3 {
        self.rot * x + self.shift
    }

    fn inverse(&self) -> Frame {
        let rot = self.rot.transpose();
        Frame { rot, shift: -(rot * self.shift) }
    }
}

/// The pair of one call: the mesh wall's pose, the polyhedron and its pose, the margin and
/// the transforms between the polyhedron's body frame and the mesh frame.
struct Pair<'a> {
    mesh: &'a TriangleMesh,
    position: DVec3,
    orientation: DQuat,
    poly: &'a Polyhedron,
    pose: &'a Pose,
    margin: f64,
    /// Polyhedron body frame → mesh frame, and back.
    to_mesh: Frame,
    to_poly: Frame,
    /// Whether the polyhedron is convex (face planes) or not (ray parity).
    convex: bool,
}

impl Pair<'_> {
    /// A contact from its world point, normal (wall → polyhedron) and gap; no key yet.
    fn geometry(&self, point: DVec3, normal: DVec3, gap: f64) -> ContactGeometry {
        ContactGeometry {
            point,
            normal,
            gap,
            branch1: point - self.position,
            branch2: point - self.pose.position,
            effective_radius: self.poly.equivalent_radius(),
            feature: 0,
            overlap_volume: 0.0,
            twist_arm: 0.0,
        }
    }
}

/// The buffers of one call, kept per thread: nothing is allocated once they have grown to
/// the largest pair seen.
#[derive(Default)]
struct Scratch {
    candidates: Vec<u32>,
    local: Local,
    /// The polyhedron's vertices in the mesh frame.
    vertices: Vec<DVec3>,
    /// Depth of each polyhedron vertex below the mesh (0: none), for the crossings of a
    /// non-convex polyhedron.
    depth: Vec<f64>,
    vertex: vertex::Scratch,
    edge: edge::Scratch,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The contacts of the polyhedron `poly` at `pose` with the mesh wall `mesh` placed at
/// `position` with `orientation`, appended to `out`: every point whose gap is at most
/// `margin`, with the normal from the wall to the polyhedron (the wall is body 1), branch
/// vectors from the wall's position and the polyhedron's centre of mass, and the
/// polyhedron's equivalent radius as the effective radius (a wall counts as flat, as for
/// planes). Returns the number of points added.
///
/// The contacts (see the module's documentation and `docs/meshes.md`): one per polyhedron
/// vertex below a smooth region, computed as [`granula_polyhedra::contact::plane_polyhedron`]
/// computes a plane's (so a triangulated plane gives the plane's points to round-off, keyed
/// by vertex and region); one per sharp convex corner of the mesh inside the polyhedron;
/// one per crossing of a sharp convex edge of the mesh with an edge of the polyhedron. A
/// closed convex mesh gives the points `polyhedron_polyhedron` gives for the polyhedron of
/// its triangles, a valley those of its two planes.
pub fn polyhedron_mesh(
    mesh: &TriangleMesh,
    position: DVec3,
    orientation: DQuat,
    poly: &Polyhedron,
    pose: &Pose,
    margin: f64,
    out: &mut Vec<ContactGeometry>,
) -> usize {
    let before = out.len();
    let inv = orientation.inverse();
    let to_mesh = Frame { rot: DMat3::from_quat(inv * pose.orientation), shift: inv * (pose.position - position) };
    let pair = Pair {
        mesh,
        position,
        orientation,
        poly,
        pose,
        margin,
        to_mesh,
        to_poly: to_mesh.inverse(),
        convex: poly.is_convex(),
    };
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        let Scratch { candidates, local, vertices, depth, vertex, edge } = &mut *s;
        vertices.clear();
        vertices.extend(poly.vertices().iter().map(|v| to_mesh.apply(*v)));
        if !near_triangles(&pair, candidates) {
            return;
        }
        local.build(mesh, to_mesh.shift, candidates);
        depth.clear();
        depth.resize(vertices.len(), 0.0);
        vertex::contacts(&pair, local, vertices, vertex, depth, out);
        edge::contacts(&pair, local, depth, edge, out);
    });
    out.len() - before
}

/// The candidate triangles of the pair, sorted: those of the hierarchy's leaves within the
/// polyhedron's bounding sphere plus the margin (so that every triangle at a mesh vertex
/// within that sphere is one). `false` when there is none.
fn near_triangles(pair: &Pair, candidates: &mut Vec<u32>) -> bool {
    candidates.clear();
    pair.mesh.triangles_near(pair.to_mesh.shift, pair.poly.bounding_radius() + pair.margin.max(0.0), candidates);
    candidates.sort_unstable();
    !candidates.is_empty()
}

/// The contact generator of a mesh wall (body 1) and a polyhedron
/// ([`granula_polyhedra::PolyhedronShape`], body 2): [`polyhedron_mesh`] at the bodies'
/// poses. Registered by [`register_all`](crate::register_all).
#[derive(Clone, Copy, Debug, Default)]
pub struct MeshPolyhedron;

impl MeshPolyhedron {
    fn shapes<'a>(
        a: &PosedShape<'a>,
        b: &PosedShape<'a>,
    ) -> Result<(&'a MeshWall, &'a PolyhedronShape), DegenerateGeometry> {
        let wall = a.custom::<MeshWall>().ok_or(DegenerateGeometry { reason: "body 1 is not a mesh wall" })?;
        let poly = b.custom::<PolyhedronShape>().ok_or(DegenerateGeometry { reason: "body 2 is not a polyhedron" })?;
        Ok((wall, poly))
    }
}

impl ContactGenerator for MeshPolyhedron {
    /// A face on a flat region: one point per corner of the face (4 for a box).
    fn max_contacts(&self) -> u16 {
        4
    }

    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (wall, shape) = Self::shapes(&a, &b)?;
        let pose = Pose::new(b.position, b.orientation);
        polyhedron_mesh(wall.mesh(), a.position, a.orientation, shape.polyhedron(), &pose, margin, out);
        Ok(())
    }

    /// [`MeshPolyhedron::generate`], skipping the mesh when the memory proves the
    /// polyhedron out of reach, as `MeshSphere` does for a sphere: the polyhedron lies
    /// within its bounding sphere whatever its orientation, so a call that finds no point
    /// stores the centre (mesh frame) and a clearance h by which the mesh is farther than
    /// the bounding radius plus the margin, and while the centre stays within h of it, no
    /// triangle comes within reach and the call returns no point, as `generate` would.
    fn generate_remembering(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        memory: &PairMemory,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (wall, shape) = Self::shapes(&a, &b)?;
        let c = a.orientation.inverse() * (b.position - a.position);
        if let Some((cached, h)) = Clearance::read(memory) {
            if (c - cached).length() < h {
                return Ok(());
            }
        }
        let pose = Pose::new(b.position, b.orientation);
        let poly = shape.polyhedron();
        let found = polyhedron_mesh(wall.mesh(), a.position, a.orientation, poly, &pose, margin, out);
        if found == 0 {
            Clearance::write(memory, c, clearance(wall.mesh(), c, poly.bounding_radius() + margin.max(0.0)));
        } else {
            memory.clear();
        }
        Ok(())
    }
}
