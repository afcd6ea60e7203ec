//! The incline of VALIDATION M7 (003 §6), shared by the MD and NSCD tests; it lives in
//! `granula-validation` so the `incline_block` example builds the same scene.

pub use granula_validation::incline::{ALPHA, G, V0};

use granula_core::{Material, World};

/// The incline world with the block of `material`, lowered by `sink(volume)` (m); the
/// world and the block's dense index.
pub fn incline(material: Material, sink: impl Fn(f64) -> f64) -> (World, usize) {
    granula_validation::incline::incline(material, sink).expect("the M7 scene builds")
}
