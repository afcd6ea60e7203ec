//! Sphere against mesh wall: the nearest feature of each triangle near the sphere, reduced
//! to one contact per contact patch.

use crate::closest::{nearest_on_triangle, Nearest};
use crate::mesh::TriangleMesh;
use crate::topology::{KEY_EDGE, KEY_FACE, KEY_REGION, KEY_VERTEX};
use crate::wall::MeshWall;
use granula_core::math::{DQuat, DVec3};
use granula_core::narrowphase::{sphere_plane, ContactGenerator, DegenerateGeometry, PosedShape};
use granula_core::{ContactGeometry, PairMemory};
use std::cell::RefCell;

/// Relative tolerance of the comparisons of distances and points between triangles, as a
/// fraction of the sphere's reach r + margin: the distances of one point computed from two
/// triangles differ by round-off (some 1e-16 of the coordinates' magnitude), far below it,
/// and geometry finer than 1e-9 of a sphere's size does not matter to its contacts.
const TIE: f64 = 1e-9;

/// The feature of the mesh a triangle's nearest point lies on, by its mesh-wide id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Feature {
    Face(u32),
    Edge(u32),
    Vertex(u32),
}

/// The nearest point of one triangle within reach.
#[derive(Clone, Copy, Debug)]
struct Near {
    triangle: u32,
    feature: Feature,
    /// The nearest point, mesh frame.
    point: DVec3,
    /// Distance from the sphere's centre (m).
    distance: f64,
    /// Unit normal from the mesh to the centre, mesh frame.
    normal: DVec3,
}

/// The buffers of one call, kept per thread.
#[derive(Default)]
struct Scratch {
    candidates: Vec<u32>,
    near: Vec<Near>,
    minima: Vec<Near>,
    accepted: Vec<(u32, Near)>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The contacts of a sphere (centre `center`, radius `radius`) with the mesh wall `mesh`
/// placed at `position` with `orientation`, appended to `out`: every contact patch whose gap
/// is at most `margin`, one contact each, with the normal from the wall to the sphere.
///
/// The rule (`docs/meshes.md`, "The contact rule"):
/// 1. Each triangle of the leaves of the mesh's bounding-volume hierarchy whose boxes come
///    within r + margin of the centre ([`TriangleMesh::triangles_near`]) gives its point
///    nearest to the centre and the feature it lies on, face, edge or vertex (Ericson 2005,
///    §5.1.5), when it is within r + margin of the centre.
/// 2. Only local minima of the distance over the surface are contacts: a point on an edge
///    or at a vertex is dropped when a triangle at that edge or vertex comes nearer to the
///    centre (the sphere is then over that triangle's face, or nearer to another of its
///    edges). On a flat or convex surface this leaves the one nearest point, so a sphere
///    over a tiled floor has one contact, that of the plane; in a fold (concave) each side
///    is a local minimum.
/// 3. Each minimum gets the feature key of its smooth region (triangles joined by edges
///    whose normals differ by at most [`TriangleMesh::smooth_angle`]; an edge or vertex
///    between regions has a key of its own). Taken nearest first, a minimum is the same
///    contact as an accepted one, and dropped, when their points coincide (to a tolerance of
///    1e-9 (r + margin)), or when they share a key and their normals differ by less than the
///    smooth angle (a fold within a smooth region: one patch). A minimum of a region whose
///    key is taken, at a larger angle (a sphere touching a smooth surface twice, say across
///    a narrow smooth channel), is kept under the key of its own face, edge or vertex.
///
/// A face contact is computed as [`sphere_plane`] computes a plane's, from the triangle's
/// unit normal n (turned to the sphere's side) and its first corner p: d = (x − p)·n,
/// gap d − r, point x − (r + g/2) n, so a sphere on a flat mesh gets the plane's contact to
/// round-off (exactly when the plane and the mesh lie in z = 0). An edge or vertex contact
/// has the normal (x − q)/|x − q| from its nearest point q. The effective radius is the
/// sphere's (a wall counts as flat, as planes do); branch vectors are from the wall's
/// position and the sphere's centre.
pub fn sphere_mesh(
    mesh: &TriangleMesh,
    position: DVec3,
    orientation: DQuat,
    center: DVec3,
    radius: f64,
    margin: f64,
    out: &mut Vec<ContactGeometry>,
) {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        let Scratch { candidates, near, minima, accepted } = &mut *s;
        let c = orientation.inverse() * (center - position);
        let reach = radius + margin;
        candidates.clear();
        mesh.triangles_near(c, reach, candidates);
        nearest_points(mesh, c, reach, candidates, near);
        local_minima(mesh, reach, near, minima);
        patches(mesh, reach, minima, accepted);
        for (key, m) in accepted.iter() {
            let n = orientation * m.normal;
            // A face contact from the triangle's plane through its first corner, as a plane's.
            let on_plane = match m.feature {
                Feature::Face(t) => mesh.vertices()[mesh.triangles()[t as usize][0] as usize],
                _ => m.point,
            };
            let p0 = position + orientation * on_plane;
            if let Some(mut g) = sphere_plane(p0, n, center, radius, f64::INFINITY) {
                g.branch1 = g.point - position;
                g.feature = *key;
                out.push(g);
            }
        }
    });
}

/// Step 1: the nearest point of each candidate triangle within `reach` of `c`, sorted by
/// triangle.
fn nearest_points(mesh: &TriangleMesh, c: DVec3, reach: f64, candidates: &[u32], near: &mut Vec<Near>) {
    near.clear();
    let topo = &mesh.topology;
    for &t in candidates {
        let [a, b, v2] = mesh.triangle(t);
        let (q, kind) = nearest_on_triangle(c, a, b, v2);
        let n = mesh.normals()[t as usize];
        let (feature, distance, normal) = match kind {
            Nearest::Face => {
                let s = n.dot(c - a);
                (Feature::Face(t), s.abs(), if s >= 0.0 { n } else { -n })
            }
            Nearest::Edge(k) | Nearest::Corner(k) => {
                let feature = match kind {
                    Nearest::Edge(_) => Feature::Edge(topo.triangle_edges[t as usize][k as usize]),
                    _ => Feature::Vertex(mesh.triangles()[t as usize][k as usize]),
                };
                let d = (c - q).length();
                // A centre exactly on the edge or vertex (half through the wall): the
                // triangle's normal, the limit from its front side.
                let normal = if d > 0.0 { (c - q) / d } else { n };
                (feature, d, normal)
            }
        };
        if distance <= reach {
            near.push(Near { triangle: t, feature, point: q, distance, normal });
        }
    }
    near.sort_unstable_by_key(|m| m.triangle);
}

/// Step 2: the points of `near` that are local minima of the distance over the surface.
fn local_minima(mesh: &TriangleMesh, reach: f64, near: &[Near], minima: &mut Vec<Near>) {
    minima.clear();
    let topo = &mesh.topology;
    let tie = TIE * reach;
    for m in near {
        let around = match m.feature {
            Feature::Face(_) => &[][..],
            Feature::Edge(e) => topo.edge_triangles.of(e),
            Feature::Vertex(v) => topo.vertex_triangles.of(v),
        };
        // A triangle at the feature that is not within reach is farther than this point.
        let nearer = around
            .iter()
            .any(|&t| near.binary_search_by_key(&t, |n| n.triangle).is_ok_and(|k| near[k].distance < m.distance - tie));
        if !nearer {
            minima.push(*m);
        }
    }
    // Nearest first; ties in triangle order (a fixed order whatever the traversal's).
    minima.sort_unstable_by(|a, b| a.distance.total_cmp(&b.distance).then(a.triangle.cmp(&b.triangle)));
}

/// Step 3: one contact per patch, with its feature key.
fn patches(mesh: &TriangleMesh, reach: f64, minima: &[Near], accepted: &mut Vec<(u32, Near)>) {
    accepted.clear();
    let topo = &mesh.topology;
    let tie = TIE * reach;
    let cos_smooth = mesh.smooth_angle().cos();
    for m in minima {
        if accepted.iter().any(|(_, a)| (a.point - m.point).length() <= tie) {
            continue;
        }
        let (key, own) = match m.feature {
            Feature::Face(t) => (KEY_REGION | topo.region[t as usize], KEY_FACE | t),
            Feature::Edge(e) => (topo.edge_key[e as usize], KEY_EDGE | e),
            Feature::Vertex(v) => (topo.vertex_key[v as usize], KEY_VERTEX | v),
        };
        let taken = |k: u32, accepted: &[(u32, Near)]| accepted.iter().find(|(a, _)| *a == k).map(|(_, n)| *n);
        let key = match taken(key, accepted) {
            None => key,
            // A region's key taken: the same patch if the normals are close, else a second
            // patch of the region under the feature's own key.
            Some(first) if (key & KEY_VERTEX) == KEY_REGION => {
                if first.normal.dot(m.normal) >= cos_smooth || taken(own, accepted).is_some() {
                    continue;
                }
                own
            }
            Some(_) => continue,
        };
        accepted.push((key, *m));
    }
}

/// The contact generator of a mesh wall (body 1) and a sphere (body 2):
/// [`sphere_mesh`] at the bodies' poses. Registered by [`register_all`](crate::register_all).
#[derive(Clone, Copy, Debug, Default)]
pub struct MeshSphere;

impl ContactGenerator for MeshSphere {
    /// Usually one point; two or three in a fold or a corner.
    fn max_contacts(&self) -> u16 {
        3
    }

    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let wall = a.custom::<MeshWall>().ok_or(DegenerateGeometry { reason: "body 1 is not a mesh wall" })?;
        let radius = b.shape.sphere_radius().ok_or(DegenerateGeometry { reason: "body 2 is not a sphere" })?;
        sphere_mesh(wall.mesh(), a.position, a.orientation, b.position, radius, margin, out);
        Ok(())
    }

    /// [`MeshSphere::generate`], skipping the mesh when the memory proves the sphere out of
    /// reach. A call that finds no contact stores the sphere's centre in the mesh frame and
    /// a clearance h: the mesh is farther than its reach (radius + margin) by more than h
    /// from that centre, so while the centre stays within h of it (the sphere and the wall
    /// moving either way), no triangle comes within reach and the call returns no point, as
    /// `generate` would. A sphere deep in a drum's charge then costs a distance test per
    /// step instead of a walk of the hierarchy.
    fn generate_remembering(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        memory: &PairMemory,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let wall = a.custom::<MeshWall>().ok_or(DegenerateGeometry { reason: "body 1 is not a mesh wall" })?;
        let radius = b.shape.sphere_radius().ok_or(DegenerateGeometry { reason: "body 2 is not a sphere" })?;
        let c = a.orientation.inverse() * (b.position - a.position);
        if let Some((cached, h)) = Clearance::read(memory) {
            if (c - cached).length() < h {
                return Ok(());
            }
        }
        let before = out.len();
        sphere_mesh(wall.mesh(), a.position, a.orientation, b.position, radius, margin, out);
        if out.len() == before {
            Clearance::write(memory, c, clearance(wall.mesh(), c, radius + margin));
        } else {
            memory.clear();
        }
        Ok(())
    }
}

/// A lower bound of the distance from `c` (mesh frame) to the mesh minus `reach`, at most
/// `reach`: the triangles within twice the reach are searched, and the mesh is at least
/// that far when none is nearer. Zero when a triangle is within reach.
pub(crate) fn clearance(mesh: &TriangleMesh, c: DVec3, reach: f64) -> f64 {
    SCRATCH.with(|s| {
        let candidates = &mut s.borrow_mut().candidates;
        candidates.clear();
        let wide = 2.0 * reach;
        mesh.triangles_near(c, wide, candidates);
        let nearest = candidates.iter().fold(wide, |d, &t| {
            let [p, q, r] = mesh.triangle(t);
            d.min((nearest_on_triangle(c, p, q, r).0 - c).length())
        });
        (nearest - reach).max(0.0)
    })
}

/// The clearance a call leaves in its pair's memory: the centre in single precision (two
/// words) and the clearance (one word), lowered by the centre's rounding and a guard.
pub(crate) struct Clearance;

impl Clearance {
    /// The stored centre and clearance, if the memory holds a positive clearance.
    pub(crate) fn read(memory: &PairMemory) -> Option<(DVec3, f64)> {
        let [xy, z, h] = memory.load();
        let h = f64::from_bits(h);
        (h > 0.0).then(|| {
            let f = |bits: u64| f32::from_bits(bits as u32) as f64;
            (DVec3::new(f(xy), f(xy >> 32), f(z)), h)
        })
    }

    /// Stores `c` and the clearance `h` found for it, less what rounding `c` to single
    /// precision moved it (2⁻²⁴ of each coordinate) and a guard of 1e-9 of the clearance
    /// and the centre's size against the round-off of the distances: a stored clearance is
    /// one that holds. Stores nothing usable when too little remains.
    pub(crate) fn write(memory: &PairMemory, c: DVec3, h: f64) {
        let rounded = DVec3::new(c.x as f32 as f64, c.y as f32 as f64, c.z as f32 as f64);
        let safe = h - (rounded - c).length() - 1e-9 * (h + c.length());
        if !(safe > 0.0) || !rounded.is_finite() {
            memory.clear();
            return;
        }
        let bits = |v: f64| (v as f32).to_bits() as u64;
        memory.store([bits(c.x) | (bits(c.y) << 32), bits(c.z), safe.to_bits()]);
    }
}
