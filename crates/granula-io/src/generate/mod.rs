//! Generators of initial sphere sets: regular lattices and random loose packings with a
//! size distribution. All randomness is seeded (ChaCha8), so a scene always gives the same
//! bodies.
//!
//! The regions, size distributions and sphere grid live in `granula-feed`, which places
//! spheres the same way while a run goes on; they are re-exported here unchanged.

mod lattice;
mod packing;

pub use granula_feed::{PlacedSphere, Region, SizeDistribution, SphereGrid, MAX_REDRAWS};
pub use lattice::{lattice, triangular_lattice};
pub use packing::random_packing;
