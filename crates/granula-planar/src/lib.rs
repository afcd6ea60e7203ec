//! # granula-planar
//!
//! The two-dimensional MD mode of granula (seed 002): discs and convex polygons with three
//! degrees of freedom (x, y, θ), mass and moment of inertia from the shape (002 eqs.
//! 1a-1b), integrated by the Gear predictor-corrector of 002 Appendix A with the
//! coefficients of [`granula_integrators::GearCoefficients`].
//!
//! - [`ContactLaw`]: the elastic normal force k_n A / l_c on the overlap area (002 eq. 5),
//!   viscous damping with the reduced mass (002 eqs. 2-3) and a tangential spring, either
//!   Cundall's (002 eqs. 6-7) or the predictor-based elongation of 002 §4
//!   ([`Tangential`]).
//! - [`Domain`]: open, periodic and Lees-Edwards axes; bodies keep unwrapped coordinates,
//!   the broadphase bins their wrapped images and every pair uses the minimum image.
//! - [`Simulation`]: the solver — a cell-list broadphase, the overlaps of
//!   `granula-polygons`, the law per pair (in parallel, reduced in a fixed order so that
//!   the result does not depend on the number of threads), rough walls of prescribed
//!   particles ([`BodyBuilder::prescribed`]) and straight walls ([`HalfPlane`]), the
//!   Love-Weber stress ([`Simulation::stress`]).
//! - [`ContactDynamics`]: the same bodies as rigid bodies under non-smooth contact
//!   dynamics (Moreau-Jean θ-method, nonlinear Gauss-Seidel with the 2D coupled local
//!   solver of 004 §2.3.3.4; [`ContactDynamics`]).
//!
//! ```
//! use granula_planar::prelude::*;
//! use granula_polygons::shapes;
//!
//! # fn main() -> Result<(), PlanarError> {
//! // A square of side 0.1 m and 1 kg dropped on a floor, Cundall's spring, μ = 0.5.
//! let law = ContactLaw::builder(1e5).restitution(0.5, 1.0).tangential_ratio(1.0 / 3.0).friction(0.5).build()?;
//! let square = shapes::rectangle(0.1, 0.1).map_err(|source| PlanarError::BadPolygon { body: 0, source })?;
//! let mut sim = Simulation::builder(law)
//!     .gravity(DVec2::new(0.0, -9.81))
//!     .dt(1e-5)
//!     .wall(HalfPlane::new(DVec2::ZERO, DVec2::Y))
//!     .body(BodyBuilder::polygon(square.into()).position(DVec2::new(0.0, 0.06)).mass(1.0))
//!     .build()?;
//! sim.run(20_000)?;
//! // At rest on the floor: the centre sits below 0.05 by the overlap that carries the weight.
//! assert!(sim.bodies.velocity[0].length() < 1e-3 && sim.bodies.position[0].y < 0.05);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod bodies;
mod contact_dynamics;
mod domain;
mod error;
mod law;
mod narrowphase;
pub mod relaxation;
mod shape;
mod shear_cell;
mod simulation;
mod state;

pub use bodies::{Bodies, BodyBuilder, Motion};
pub use contact_dynamics::{
    CdConfig, ContactDynamics, ContactDynamicsBuilder, ImpulseContact, LocalStatus, SolveReport,
};
pub use domain::{Axis, Domain, Image};
pub use error::{PlanarError, Result};
pub use law::{
    contact_time, damping_from_restitution, ContactLaw, ContactLawBuilder, ContactState, PairForce, Tangential,
};
pub use shape::Shape2;
pub use shear_cell::{Cell, Particles, ShearCell};
pub use simulation::{Config, Contact, HalfPlane, Simulation, SimulationBuilder};

/// Runs `f` on a rayon pool of `threads` threads (the pair evaluation's parallelism);
/// results are the same bits for any `threads`. `Err` if the pool cannot be built.
pub fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> Result<R> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|_| PlanarError::BadParameter {
        name: "threads",
        value: threads as f64,
        expected: "a thread count the system can start",
    })?;
    Ok(pool.install(f))
}

/// The types a planar program needs most.
pub mod prelude {
    pub use crate::with_threads;
    pub use crate::{
        contact_time, damping_from_restitution, Axis, BodyBuilder, CdConfig, Cell, ContactDynamics, ContactLaw, Domain,
        HalfPlane, Motion, Particles, PlanarError, Shape2, ShearCell, Simulation, SolveReport, Tangential,
    };
    pub use glam::DVec2;
    pub use granula_integrators::GearCoefficients;
    pub use granula_polygons::ConvexPolygon;
}
