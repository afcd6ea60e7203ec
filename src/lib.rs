//! # granula
//!
//! A Discrete Element Method library for granular media. This facade re-exports the
//! workspace crates and a [`prelude`].
//!
//! A ball dropped on a floor, with the Hertz-Mindlin law of `granula-laws`, velocity Verlet
//! and linked cells behind a Verlet skin (the same pieces as `examples/settling.rs`):
//!
//! ```
//! use granula::prelude::*;
//! use granula::laws::hertz_mindlin;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut world = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).build()?;
//! world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build()?)?;
//! let ball = world.insert(SphereBuilder::new(0.01, DVec3::new(0.0, 0.0, 0.05)).build()?)?;
//! let config = MdConfig { skin: 1e-3, ..Default::default() };
//! let mut solver = MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config)?;
//! let dt = 1e-5;
//! for _ in 0..1000 {
//!     world.step(&mut solver, dt)?;
//! }
//! // Still in free fall after 0.01 s: z = 0.05 − g t²/2 (Verlet is exact for constant
//! // acceleration, up to round-off).
//! let z = world.bodies.position[world.bodies.index(ball)?].z;
//! assert!((z - (0.05 - 0.5 * 9.81 * 0.01f64.powi(2))).abs() < 1e-12);
//! # Ok(())
//! # }
//! ```
//!
//! The same ball with the contact dynamics solver ([`nscd::NscdSolver`]): rigid bodies,
//! Signorini's condition and Coulomb's law, no integrator, and steps a hundred times larger.
//! Its constructor takes the broadphase and an [`nscd::NscdConfig`]:
//!
//! ```
//! use granula::prelude::*;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut world = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).build()?;
//! world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build()?)?;
//! let ball = world.insert(SphereBuilder::new(0.01, DVec3::new(0.0, 0.0, 0.05)).build()?)?;
//! let mut solver = NscdSolver::new(LinkedCells::new(), NscdConfig::default())?;
//! assert_eq!(world.run_until(&mut solver, 0.3, 1e-3)?.steps, 300);
//! // Landed (after 0.09 s) and at rest on the floor: the inelastic Signorini condition
//! // stops the approach within the step it closes the gap, so the centre sits at one
//! // radius up to the overlap of that last step (at most v Δt ≈ 0.9 mm, in practice far
//! // less) — 1e-3 m bounds it.
//! let i = world.bodies.index(ball)?;
//! assert!((world.bodies.position[i].z - 0.01).abs() < 1e-3);
//! assert!(world.bodies.velocity[i].length() < 1e-9);
//! # Ok(())
//! # }
//! ```
//!
//! ## Features
//!
//! - `cli` (on by default): the `granula` command-line runner and its dependencies (clap,
//!   indicatif, ctrlc). A host program that embeds the library depends on
//!   `granula = { version = "0.1", default-features = false }` and compiles none of them
//!   (`cargo tree -p granula --no-default-features -e normal` lists none; the test
//!   `tests/suite/lean_library.rs` checks it).
#![deny(missing_docs)]

/// The README's code blocks, compiled and run as doctests so that they cannot drift from
/// the library.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub use granula_broadphase as broadphase;
pub use granula_core as core;
pub use granula_feed as feed;
pub use granula_integrators as integrators;
pub use granula_io as io;
pub use granula_laws as laws;
pub use granula_md as md;
pub use granula_nscd as nscd;
pub use granula_polygons as polygons;
pub use granula_polyhedra as polyhedra;
pub use granula_run as run;

/// The types a host program needs most.
pub mod prelude {
    pub use granula_broadphase::prelude::*;
    pub use granula_core::prelude::*;
    pub use granula_feed::{Feed, FeedConfig, FeedRate, Outlet, OutletConfig, OutletRegion};
    pub use granula_integrators::{Gear, GearCoefficients, SymplecticEuler, VelocityVerlet};
    pub use granula_io::{IoError, Scene};
    pub use granula_md::{MdConfig, MdError, MdSolver, MdState};
    pub use granula_nscd::{
        Criterion, NonSmoothLaw, NscdConfig, NscdError, NscdSolver, NscdState, SignoriniCoulomb, SweepOrder,
    };
    pub use granula_polyhedra::{register_all, Polyhedron, PolyhedronBuilder};
    pub use granula_run::Run;
}
