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
//!   polyhedron and a sphere, as [`granula_core::ContactGeometry`] with stable feature keys,
//!   pushed into a caller's vector: a narrowphase plug-in wraps them.

pub mod bvh;
pub mod contact;
pub mod error;
pub mod hull;
pub mod inside;
pub mod io;
pub mod mesh;
pub mod polyhedron;
pub mod shapes;

pub use error::{PolyError, Result};
pub use polyhedron::{BodyFrame, Placement, Polyhedron, Pose};
