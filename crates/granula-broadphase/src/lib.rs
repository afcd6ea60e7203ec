//! # granula-broadphase
//!
//! Which bodies may touch: from axis-aligned bounding boxes to the sorted list of candidate
//! pairs, through the [`Broadphase`] trait. Three backends give the same pairs:
//! [`BruteForce`] (the `O(n²)` oracle), [`SweepAndPrune`] (the Linked Linear List of 003 §3,
//! incremental) and [`LinkedCells`] (a uniform grid, polydisperse-safe), and [`VerletPairs`]
//! adds a skin so that the list is rebuilt only when some body has moved far enough.
//!
//! Walls and other unbounded or very large boxes are kept out of the sort lists and the
//! grid and tested against every other box. A degenerate box (a NaN bound or `min > max`)
//! is empty and pairs with nothing in every backend.
//!
//! ```
//! use granula_broadphase::{LinkedCells, SweepAndPrune, BruteForce};
//! use granula_core::{Aabb, Broadphase, DVec3};
//!
//! let boxes = [
//!     Aabb::around(DVec3::ZERO, DVec3::splat(0.5)),
//!     Aabb::around(DVec3::new(0.9, 0.0, 0.0), DVec3::splat(0.5)),
//!     Aabb::around(DVec3::new(5.0, 0.0, 0.0), DVec3::splat(0.5)),
//! ];
//! let mut pairs = Vec::new();
//! for mut backend in [Box::new(BruteForce) as Box<dyn Broadphase>, Box::new(SweepAndPrune::new()),
//!                     Box::new(LinkedCells::new())] {
//!     backend.find_pairs(&boxes, &[], &mut pairs);
//!     assert_eq!(pairs, vec![(0, 1)]);
//! }
//! ```
#![deny(missing_docs)]

mod brute_force;
mod error;
mod grid;
mod linked_cells;
mod pair_rows;
mod partition;
mod periodic_images;
mod sweep_and_prune;
mod verlet_list;

pub use brute_force::BruteForce;
pub use error::{BroadphaseError, Result};
pub use granula_core::Broadphase;
pub use linked_cells::{CellSize, LinkedCells};
pub use partition::is_void;
pub use periodic_images::PeriodicImages;
pub use sweep_and_prune::SweepAndPrune;
pub use verlet_list::{VerletPairs, VerletState};

/// The types a host program needs: `use granula_broadphase::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Broadphase, BroadphaseError, BruteForce, CellSize, LinkedCells, SweepAndPrune, VerletPairs, VerletState,
    };
}
