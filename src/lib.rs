//! # granula
//!
//! A Discrete Element Method library for granular media. This facade re-exports the
//! workspace crates and a [`prelude`].
#![deny(missing_docs)]

pub use granula_broadphase as broadphase;
pub use granula_core as core;
pub use granula_gear as gear;
pub use granula_io as io;
pub use granula_md as md;
pub use granula_nscd as nscd;
pub use granula_smooth as smooth;

/// The types a host program needs most.
pub mod prelude {
    pub use granula_broadphase::prelude::*;
    pub use granula_core::prelude::*;
    pub use granula_gear::{Gear, GearCoefficients, SymplecticEuler, VelocityVerlet};
    pub use granula_io::run::Run;
    pub use granula_io::{IoError, Scene};
    pub use granula_nscd::{NonSmoothLaw, NscdConfig, NscdError, NscdSolver, SignoriniCoulomb, SweepOrder};
    pub use granula_smooth::{MdConfig, MdSolver, SmoothError};
}
