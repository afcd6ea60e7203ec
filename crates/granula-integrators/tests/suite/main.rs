//! The integration tests of `granula-integrators`, one module per topic, in one test binary (one link
//! instead of one per file).

mod common;

mod force_velocity;
mod fused_sums;
mod integrators;
mod permute;
mod save_restore;
