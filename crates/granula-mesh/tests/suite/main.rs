//! The integration tests of `granula-mesh`, one module per topic, in one test binary (one
//! link instead of one per file).

mod common;
mod edges;
mod energy;
mod files;
mod flat;
mod polyhedra;
mod polyhedra_folds;
mod polyhedra_md;
mod scale;
mod walls;
