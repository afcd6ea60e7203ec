//! The vector width of the kernels compiled for several instruction sets and chosen at
//! run time.
//!
//! Written with `std::arch`'s `is_x86_feature_detected!` and `#[target_feature]` rather
//! than a crate such as `multiversion` or `pulp`: a kernel is one function body compiled
//! for AVX-512, AVX2 and the x86-64 baseline and chosen once per process, which the
//! standard library does in a few lines without a new dependency. Every width gives the
//! same bits: the compiler's vectoriser keeps each lane's operations those of the scalar
//! code (additions, products, divisions and square roots, each correctly rounded, and no
//! fused multiply-add, which Rust never forms on its own).

use std::sync::OnceLock;

/// The widest vectors the kernels that choose their instruction set at run time use: the
/// batched contact laws and the integrators' orientation update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorWidth {
    /// AVX-512 (8 lanes of f64).
    Avx512,
    /// AVX2 (4 lanes).
    Avx2,
    /// The target's baseline (SSE2, 2 lanes, on x86-64; whatever the target has elsewhere).
    Portable,
}

/// The widest vectors this CPU offers, capped by the environment variable
/// `GRANULA_VECTOR_WIDTH` (`avx2` or `portable`, to measure the narrower paths); chosen
/// once per process. Every width gives the same bits (see the module's introduction).
pub fn vector_width() -> VectorWidth {
    static WIDTH: OnceLock<VectorWidth> = OnceLock::new();
    *WIDTH.get_or_init(|| {
        let cap = match std::env::var("GRANULA_VECTOR_WIDTH").as_deref() {
            Ok("portable") => VectorWidth::Portable,
            Ok("avx2") => VectorWidth::Avx2,
            _ => VectorWidth::Avx512,
        };
        let detected = detected_vector_width();
        match (cap, detected) {
            (VectorWidth::Portable, _) | (_, VectorWidth::Portable) => VectorWidth::Portable,
            (VectorWidth::Avx2, _) | (_, VectorWidth::Avx2) => VectorWidth::Avx2,
            _ => VectorWidth::Avx512,
        }
    })
}

/// What the CPU supports, whatever `GRANULA_VECTOR_WIDTH` says (the check a kernel makes
/// before it runs code compiled for a width).
pub fn detected_vector_width() -> VectorWidth {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512dq") {
            return VectorWidth::Avx512;
        }
        if is_x86_feature_detected!("avx2") {
            return VectorWidth::Avx2;
        }
    }
    VectorWidth::Portable
}
