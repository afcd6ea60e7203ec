//! # granula-validation
//!
//! What granula's own tests, examples and benchmarks share to check the physics, kept out of
//! the library crates so that their public API is only what a host uses:
//! - [`scenes`]: small contact-dynamics scenes with a known answer (a chain of beads, a
//!   stack);
//! - [`fit`]: a Nelder-Mead fit of a damped sine, to measure the frequency and damping of a
//!   chain's oscillation;
//! - [`incline`]: the L-block on a 30° incline of VALIDATION M7 (003 §6);
//! - [`rod`]: a host shape whose pairs with a plane have two contact points;
//! - [`chain_run`]: runs the chain of 001 and compares it with the theory;
//! - [`relaxation`]: the stress-controlled two-disc and two-polygon relaxation of 002 §§3-4
//!   (002 Figs. 4-10) on the core's planar world;
//! - [`shear_cell`]: the slow-shear cell of 002 §3 on the planar world;
//! - [`two_disc`]: the stress-controlled two-disc test of 002 §3 with its parameters open
//!   (discs as spheres held in a plane), for the relaxation-time studies.
#![deny(missing_docs)]

pub mod chain_run;
pub mod fit;
pub mod incline;
pub mod relaxation;
pub mod rod;
pub mod scenes;
pub mod shear_cell;
pub mod two_disc;
