//! The integration tests of `granula-laws`, one module per topic, in one test binary (one link
//! instead of one per file).

mod bad_input;
mod batched_kernel;
mod cohesion;
mod composed_equals_kernels;
mod conformance_builtin;
mod damping_cap;
mod head_on;
mod hertz_tsuji_clamped;
mod invariants;
mod planar_cundall;
mod planar_predictor;
mod predictor_elongation;
mod predictor_rotations;
mod volumetric;
