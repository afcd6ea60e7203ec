//! The integration tests of `granula-io`, one module per topic, in one test binary (one link
//! instead of one per file).

mod bounded_input;
mod periodic_scene;
mod scene_choices;
mod scene_errors;
mod vtk_roundtrip;
mod vtk_shapes;
