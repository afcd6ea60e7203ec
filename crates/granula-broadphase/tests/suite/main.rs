//! The integration tests of `granula-broadphase`, one module per topic, in one test binary (one link
//! instead of one per file).

mod common;

mod dense_packing;
mod edge_cases;
mod equivalence;
mod periodic;
mod verlet;
