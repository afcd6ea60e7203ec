//! Polyhedral particles for granula (seed 003): convex and non-convex rigid polyhedra
//! bounded by closed triangle meshes.
//!
//! - [`Polyhedron`]: the shape in its body frame (origin at the centre of mass), checked
//!   on construction ([`PolyError`] names the face or edge at fault), with exact mass
//!   properties from the divergence theorem, edges with adjacency, face planes and a
//!   bounding-volume hierarchy over its faces ([`bvh`]).
//! - [`shapes`]: built-in shapes; [`io`]: OBJ and STL files; [`hull`]: convex hulls.
//! - [`inside`]: is a point inside a body? By ray parity (003 §4), robust on edges and
//!   vertices; and the nearest point of the surface.
//! - [`contact`]: contact points between two polyhedra, a polyhedron and a plane, a
//!   cylindrical wall or a sphere, as [`granula_core::ContactGeometry`] with stable feature keys,
//!   pushed into a caller's vector: a narrowphase plug-in wraps them.
//! - [`core_shape`]: a polyhedron as a core `CustomShape`, with the narrowphase generators
//!   of its pairs (spheres, planes, cylindrical walls, polyhedra; [`register_all`]);
//!   [`PolyhedronBuilder`]: a rigid body of a polyhedron, mass and inertia from the mesh.
//! - [`overlap`]: the intersection volume, centroid and normal of two convex bodies, for
//!   overlap-volume normal forces; [`volume_contact`]: one contact per pair from it (and
//!   from the part of a body below a plane), registered by [`register_all_volumetric`].
//! - [`gjk`]: a proof that two convex point sets are farther apart than a margin (GJK),
//!   the early-out of the overlap volume.
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

pub mod body;
pub mod bvh;
mod coherence;
pub mod contact;
pub mod core_shape;
pub mod error;
pub mod gjk;
pub mod hull;
pub mod inside;
pub mod io;
pub mod mesh;
pub mod overlap;
pub mod polyhedron;
pub mod shapes;
pub mod volume_contact;

pub use body::PolyhedronBuilder;
pub use core_shape::{register_all, PolyhedronShape};
pub use error::{PolyError, Result};
pub use polyhedron::{BodyFrame, Placement, Polyhedron, Pose};
pub use volume_contact::register_all_volumetric;
