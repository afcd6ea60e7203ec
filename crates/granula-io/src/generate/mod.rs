//! Generators of initial sphere sets: regular lattices and random loose packings with a
//! size distribution. All randomness is seeded (ChaCha8), so a scene always gives the same
//! bodies.

mod grid;
mod lattice;
mod packing;
mod size;

pub use grid::SphereGrid;
pub use lattice::{lattice, triangular_lattice};
pub use packing::{random_packing, Region};
pub use size::{SizeDistribution, MAX_REDRAWS};

use glam::DVec3;

/// A generated sphere: centre and radius.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlacedSphere {
    /// Centre (m).
    pub center: DVec3,
    /// Radius (m).
    pub radius: f64,
}
