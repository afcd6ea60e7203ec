//! The integration tests of `granula-planar`, one module per topic, in one test binary (one link
//! instead of one per file).

mod contact_dynamics;
mod core_world;
mod errors;
mod gear_and_collisions;
mod lees_edwards;
mod moving_wall;
mod periodic;
mod rest_on_floor;
mod restart;
mod shear_cell;
mod sheared_stress;
mod two_polygon_relaxation;
