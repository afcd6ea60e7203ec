//! # granula-feed
//!
//! Feeds and outlets of a running world: a [`Feed`] inserts spheres between steps into a
//! region at a count or mass rate, never overlapping a body already there, and reports
//! what it could not place; an [`Outlet`] removes the dynamic bodies whose centre is in a
//! region and counts them. Both are seeded and serial, so a run gives the same bodies on
//! any thread count, and their state ([`FeedState`], [`OutletCounts`]) goes into
//! checkpoints. The regions ([`Region`]), size distributions ([`SizeDistribution`]) and
//! sphere grid ([`SphereGrid`]) are those of the scene's packing generators.
//!
//! A feed of 2 g/s into a box above a floor, an outlet below it:
//!
//! ```
//! use granula_core::{DVec3, MaterialId, PlaneBuilder, World};
//! use granula_feed::{
//!     Feed, FeedConfig, FeedRate, Outlet, OutletConfig, OutletRegion, Particle, Region, SizeDistribution,
//! };
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut world = World::builder().build()?;
//! world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build()?)?;
//! let mut feed = Feed::new(FeedConfig {
//!     name: "top".into(),
//!     region: Region::Box { min: DVec3::new(0.0, 0.0, 0.1), max: DVec3::new(0.1, 0.1, 0.2) },
//!     size: SizeDistribution::Uniform { min: 0.004, max: 0.005 },
//!     material: MaterialId(0),
//!     rate: FeedRate::Mass(0.002),
//!     velocity: DVec3::new(0.0, 0.0, -0.5),
//!     start: 0.0,
//!     end: f64::INFINITY,
//!     every: 100,
//!     attempts: 100,
//!     seed: 1,
//!     particle: Particle::Sphere,
//! })?;
//! let mut outlet = Outlet::new(OutletConfig {
//!     name: "bin".into(),
//!     region: OutletRegion::Below { point: DVec3::new(0.0, 0.0, -0.01), normal: DVec3::Z },
//!     every: 100,
//! })?;
//! world.set_clock(granula_core::Clock::at(1.0, 1000))?; // as after 1 s of steps
//! let batch = feed.feed(&mut world)?;
//! let c = feed.counts();
//! // 2 g due after 1 s: inserted within one sphere's mass (at most 1.3 g) below it.
//! assert!(c.inserted_mass <= 0.002 * (1.0 + 1e-9) && c.inserted_mass > 0.002 - 1.4e-3);
//! assert_eq!(batch.inserted.len() as u64, c.inserted);
//! assert!(outlet.remove(&mut world)?.is_empty());
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod error;
mod feed;
mod grid;
mod obstacles;
mod outlet;
mod region;
mod size;
#[cfg(test)]
mod tests;

pub use error::FeedError;
pub use feed::{Drawn, Feed, FeedBatch, FeedConfig, FeedCounts, FeedRate, FeedState, Particle, ParticleMaker};
pub use grid::{PlacedSphere, SphereGrid};
pub use outlet::{Outlet, OutletConfig, OutletCounts};
pub use region::{OutletRegion, Region};
pub use size::{SizeDistribution, MAX_REDRAWS};
