//! The integration tests of `granula-core`, one module per topic, in one test binary (one link
//! instead of one per file).

mod clock;
mod guard_accounts;
mod inserted_overlap;
mod narrowphase;
mod narrowphase_plugin;
mod parallel;
mod world;
