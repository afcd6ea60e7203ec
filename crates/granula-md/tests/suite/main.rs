//! The integration tests of `granula-md`, one module per topic, in one test binary (one link
//! instead of one per file).

mod common;

mod bad_input;
mod batched_path;
mod blow_ups;
mod checkpoint;
mod foreign_bodies;
mod lees_edwards;
mod load_order;
mod multi_point;
mod passive_bodies;
mod periodic;
mod reorder;
mod restitution_order;
mod rotation_increments;
mod solver_physics;
