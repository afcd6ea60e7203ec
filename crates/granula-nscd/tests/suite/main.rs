//! The integration tests of `granula-nscd`, one module per topic, in one test binary (one link
//! instead of one per file).

mod common;

mod chain;
mod chain_modes;
mod chain_parallel;
mod checkpoint;
mod cohesion;
mod criteria;
mod deep_bed;
mod impact_laws;
mod misuse;
mod multi_point;
mod periodic;
mod policies;
mod restitution;
mod rolling;
mod shock_law;
mod statics;
