//! Polyhedral particles for granula (seed 003): convex and non-convex rigid polyhedra
//! bounded by closed triangle meshes.
//!
//! - [`Polyhedron`]: the shape in its body frame (origin at the centre of mass), checked
//!   on construction ([`PolyError`] names the face or edge at fault), with exact mass
//!   properties from the divergence theorem, edges with adjacency, face planes and a
//!   bounding-volume hierarchy over its faces.
//! - [`shapes`]: built-in shapes; [`read_obj`] and [`read_stl`]: mesh files (their
//!   triangles as read, for open surfaces too: [`read_obj_triangles`],
//!   [`read_stl_triangles`]); [`Bvh`]: a bounding-volume hierarchy over triangles;
//!   [`convex_hull`]: convex hulls.
//! - [`classify`]: is a point inside a body? By ray parity (003 §4), robust on edges and
//!   vertices; [`nearest_surface`]: the nearest point of the surface.
//! - [`contact`]: contact points between two polyhedra, a polyhedron and a plane, a
//!   cylindrical wall or a sphere, as [`granula_core::ContactGeometry`] with stable feature
//!   keys, pushed into a caller's vector; and the one-contact-per-pair overlap-volume forms.
//! - [`PolyhedronShape`]: a polyhedron as a core `CustomShape`; [`register_all`] registers
//!   the narrowphase generators of its pairs (spheres, planes, cylindrical walls, polyhedra),
//!   [`register_all_volumetric`] the overlap-volume ones; [`PolyhedronBuilder`]: a rigid
//!   body of a polyhedron, mass and inertia from the mesh.
//! - [`convex_overlap`]: the intersection volume, centroid and normal of two convex bodies,
//!   for overlap-volume normal forces.
//!
//! A contact generator for a pair of polyhedra is a call per candidate pair:
//!
//! ```
//! use granula_core::math::{DQuat, DVec3};
//! use granula_polyhedra::contact::{plane_polyhedron, polyhedron_polyhedron, FeatureKey};
//! use granula_polyhedra::{shapes, Pose};
//!
//! let cube = shapes::cube(0.1)?;
//! let block = shapes::l_block(0.05)?;
//! // A cube resting on the floor with a 0.1 mm overlap: one point per bottom corner.
//! let on_floor = Pose::new(DVec3::new(0.0, 0.0, 0.05 - 1e-4), DQuat::IDENTITY);
//! let mut points = Vec::new();
//! plane_polyhedron(DVec3::ZERO, DVec3::Z, &cube, &on_floor, 0.0, &mut points);
//! assert_eq!(points.len(), 4);
//! // The L-block pressed 0.1 mm onto the cube's top face (body 1 = cube, body 2 = block),
//! // its footprint partly over the edge: the corners of the overlap polygon, two vertices
//! // of the block and four crossings of the cube's top edges with the block's bottom edges.
//! points.clear();
//! let bottom = block.local_aabb().min.z;
//! let above = Pose::new(on_floor.position + DVec3::new(0.0, 0.0, 0.05 - bottom - 1e-4), DQuat::IDENTITY);
//! polyhedron_polyhedron(&cube, &on_floor, &block, &above, 0.0, &mut points);
//! let edges = points.iter().filter(|p| matches!(FeatureKey::decode(p.feature), FeatureKey::EdgePair(..)));
//! assert_eq!((points.len(), edges.count()), (6, 4));
//! for p in &points {
//!     assert!((p.gap + 1e-4).abs() < 1e-12 && (p.normal - DVec3::Z).length() < 1e-12);
//! }
//! # Ok::<(), granula_polyhedra::PolyError>(())
//! ```

mod body;
mod bvh;
mod coherence;
pub mod contact;
mod core_shape;
mod error;
mod gjk;
mod hull;
mod inside;
mod io;
mod mesh;
mod overlap;
mod polyhedron;
pub mod shapes;
mod volume_contact;

pub use body::PolyhedronBuilder;
pub use bvh::Bvh;
pub use core_shape::{
    register_all, register_sphere_pair, CylinderPolyhedron, PlanePolyhedron, PolyhedronPair, PolyhedronShape,
    PolyhedronSphere, PreparedPolyhedronPair, POLYHEDRON,
};
pub use error::{PolyError, Result};
pub use hull::convex_hull;
pub use inside::{classify, nearest_surface, PointClass, SurfacePoint};
pub use io::{
    read_obj, read_obj_triangles, read_stl, read_stl_triangles, MeshFile, TriangleOrigin,
    MAX_FILE_BYTES as MAX_MESH_FILE_BYTES,
};
pub use overlap::{convex_overlap, Overlap};
pub use polyhedron::{BodyFrame, Placement, Polyhedron, Pose};
pub use volume_contact::{
    register_all_volume_energy, register_all_volumetric, ConvexPairVolume, PlaneVolume, VolumePoint,
};
