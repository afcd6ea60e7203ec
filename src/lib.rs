//! # granula
//!
//! A Discrete Element Method library for granular media. This facade re-exports the
//! workspace crates and a [`prelude`].
#![deny(missing_docs)]

pub use granula_core as core;

/// The types a host program needs most.
pub mod prelude {
    pub use granula_core::prelude::*;
}
