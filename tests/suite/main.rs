//! The integration tests of `granula`, one module per topic, in one test binary (one link
//! instead of one per file). Some modules include examples as they are (`#[path]`), so that
//! the examples the README shows are tested; each such example brings its own copy of the
//! small `plot_font` module.
#![allow(clippy::duplicate_mod)]

mod cli_common;
#[allow(dead_code)]
#[path = "../../examples/custom_law.rs"]
mod custom_law;

mod first_hour;
mod lean_library;
mod low_restitution;
mod md_examples;
mod md_incline;
mod md_ledger;
mod nscd_examples;
mod pair_parameters;
mod published_contacts;
#[cfg(feature = "cli")]
mod runner_cli;
mod runner_restart;
mod world_checkpoint;
