//! The integration tests of `granula-polygons`, one module per topic, in one test binary (one link
//! instead of one per file).

mod contact_dynamics;
mod core_world;
mod lees_edwards;
mod outline;
mod overlap;
mod relaxation;
mod shear_cell;
mod walls;
