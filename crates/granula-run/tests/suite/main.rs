//! The integration tests of `granula-run`, one module per topic, in one test binary (one link
//! instead of one per file).

mod common;

mod accepted_overlaps;
mod checkpoint_integrity;
mod checkpoint_restart;
mod contact_history;
mod feeds;
mod loads;
mod mesh_nscd;
mod mesh_polyhedra_nscd;
mod mesh_scenes;
mod moving_walls;
mod nscd_laws;
mod nscd_restitution;
mod output_folder;
mod periodic_box;
mod planar_checkpoint;
mod planar_hostile;
mod planar_nscd_scenes;
mod planar_scenes;
mod polyhedra_fuzz;
mod polyhedra_refused;
mod polyhedra_scenes;
mod restart_exact;
mod restitution_scenes;
mod run_warnings;
mod scene_fuzz;
mod scene_models;
mod scenes_run;
mod stress_column;
mod time_step;
