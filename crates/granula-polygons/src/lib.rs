//! Convex polygons in two dimensions for granula (seed 002): the particle shape of the
//! slow-shear studies, with its exact mass properties and the overlap-area contact
//! geometry of 002 §2.
//!
//! - [`ConvexPolygon`]: a validated outline in its body frame (origin at the centroid),
//!   with area, polar moment and the equivalent radius of 002 eq. 5; [`PolygonError`]
//!   names the vertex at fault.
//! - [`shapes`]: regular n-gons, rectangles, seeded random convex polygons.
//! - [`polygon_polygon`], [`half_plane_polygon`], [`disc_polygon`], [`disc_disc`]: the overlap region of two polygons, a polygon and a wall or a disc, and
//!   two discs: area, centroid (the contact point) and the normal perpendicular to the
//!   chord through the crossings of the outlines (002 Fig. 1).
//! - [`law`]: the normal force of 002 eq. 5 on the overlap area.
//! - [`points`]: contact points with signed gaps for contact dynamics (004 §2.3.3.2): up
//!   to two per pair, from the reference and incident faces, found within an alert
//!   distance while the bodies are still apart.
//! - [`PolygonShape`], [`PolygonBuilder`]: polygons as bodies of the core's planar world
//!   (`World::builder().planar(true)`), prisms of unit thickness with three degrees of
//!   freedom. Their contacts with polygons, discs and planes come through the core's
//!   narrowphase plug-in, in one of two forms:
//!   - [`register_all`]: the point contacts of [`points`], for contact dynamics
//!     (`granula_nscd`; [`point_contact`] says what a contact carries);
//!   - [`register_all_areal`]: one contact per pair from the overlap region, for molecular
//!     dynamics ([`area_contact`] says what a contact carries); `granula_laws::AreaSpring`
//!     is the force of 002 eq. 5 on them.
//!
//! ```
//! use glam::DVec2;
//! use granula_polygons::{polygon_polygon, shapes, OverlapScratch, Pose2};
//!
//! // Two unit squares, the second shifted by (0.5, 0.25): their overlap is a 0.5 × 0.75
//! // rectangle, and the outlines cross at (1, 0.25) and (0.5, 1).
//! let square = shapes::rectangle(1.0, 1.0)?;
//! let (a, b) = (Pose2::new(DVec2::new(0.5, 0.5), 0.0), Pose2::new(DVec2::new(1.0, 0.75), 0.0));
//! let mut scratch = OverlapScratch::default();
//! let o = polygon_polygon(&square, &a, &square, &b, &mut scratch).unwrap();
//! assert!((o.area - 0.375).abs() < 1e-15);
//! assert!((o.centroid - DVec2::new(0.75, 0.625)).length() < 1e-15);
//! let chord = DVec2::new(0.5, 1.0) - DVec2::new(1.0, 0.25);
//! assert!(o.normal.dot(chord).abs() < 1e-15 && o.normal.dot(b.position - a.position) > 0.0);
//! # Ok::<(), granula_polygons::PolygonError>(())
//! ```

mod core_contact;
mod core_points;
mod core_shape;
mod error;
pub mod law;
mod overlap;
pub mod points;
mod polygon;
mod pose;
pub mod shapes;

pub use core_contact::{area_contact, register_all_areal, DiscPolygon, PlanePolygon, PolygonPair};
pub use core_points::{point_contact, register_all, DiscPolygonPoints, PlanePolygonPoints, PolygonPairPoints};
pub use core_shape::{PolygonBodyError, PolygonBuilder, PolygonShape, POLYGON, UNIT_THICKNESS};
pub use error::{PolygonError, Result};
/// The plane vector of positions, velocities and outlines (glam's), re-exported so that a
/// host builds polygons without naming glam.
pub use glam::DVec2;
pub use overlap::{disc_disc, disc_polygon, half_plane_polygon, polygon_polygon, Overlap2, OverlapScratch};
pub use polygon::ConvexPolygon;
pub use pose::{cross, Pose2};
