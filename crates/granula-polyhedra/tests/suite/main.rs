//! The integration tests of `granula-polyhedra`, one module per topic, in one test binary (one link
//! instead of one per file).

mod common;
#[path = "support/temp_file.rs"]
mod temp_file;

mod box_md;
mod contact;
mod creep_md;
mod deep_overlap;
mod dynamics;
mod energy_pile;
mod face_on_face;
mod files;
mod hostile_meshes;
mod impact_laws_nscd;
mod incline_md;
mod incline_nscd;
mod mass;
mod md_restart;
mod mesh_fuzz;
mod overlap;
mod pair_lock_nscd;
mod pair_memory;
mod prepared;
mod stack_md;
mod stack_nscd;
mod tetra_contact;
mod threads_md;
mod volume_contact;
mod volumetric_md;
