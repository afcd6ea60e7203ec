//! The integration tests of `granula-mpi`, one module per topic, in one test binary (one link
//! instead of one per file).

mod common;

mod gathered_outputs;
mod mpirun;
mod mpirun_identity;
mod mpirun_periodic;
mod single_process;
