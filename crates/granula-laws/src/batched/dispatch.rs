//! Run-time choice of the vector width for the batched kernel.
//!
//! Written with `std::arch`'s `is_x86_feature_detected!` and `#[target_feature]` rather
//! than a crate such as `multiversion` or `pulp`: the kernel is one function body compiled
//! three times (AVX-512, AVX2, the x86-64 baseline) and chosen once per process, which the
//! standard library does in a few lines without a new dependency, and the compiler's own
//! vectoriser keeps every lane's operations those of the scalar law (no intrinsics to keep
//! in step with the scalar code).

use super::kernel::{run_lanes, Lanes};
use granula_core::ContactBatch;
use std::sync::OnceLock;

/// The instruction set the batched kernel runs with.
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
/// once per process. Every width gives the same bits (see the module `batched`).
pub fn vector_width() -> VectorWidth {
    static WIDTH: OnceLock<VectorWidth> = OnceLock::new();
    *WIDTH.get_or_init(|| {
        let cap = match std::env::var("GRANULA_VECTOR_WIDTH").as_deref() {
            Ok("portable") => VectorWidth::Portable,
            Ok("avx2") => VectorWidth::Avx2,
            _ => VectorWidth::Avx512,
        };
        let detected = detect();
        match (cap, detected) {
            (VectorWidth::Portable, _) | (_, VectorWidth::Portable) => VectorWidth::Portable,
            (VectorWidth::Avx2, _) | (_, VectorWidth::Avx2) => VectorWidth::Avx2,
            _ => VectorWidth::Avx512,
        }
    })
}

/// What the CPU supports.
fn detect() -> VectorWidth {
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

/// Runs the kernel variant of `(hertz, same_ratio, clamp)` at `width`. A width the CPU does
/// not have falls back to the portable code.
pub(super) fn run(width: VectorWidth, hertz: bool, same_ratio: bool, clamp: bool, b: &mut ContactBatch, s: &mut Lanes) {
    macro_rules! variants {
        ($f:ident) => {
            match (hertz, same_ratio, clamp) {
                (true, true, true) => $f::<true, true, true>(b, s),
                (true, true, false) => $f::<true, true, false>(b, s),
                (true, false, true) => $f::<true, false, true>(b, s),
                (true, false, false) => $f::<true, false, false>(b, s),
                (false, true, true) => $f::<false, true, true>(b, s),
                (false, true, false) => $f::<false, true, false>(b, s),
                (false, false, true) => $f::<false, false, true>(b, s),
                (false, false, false) => $f::<false, false, false>(b, s),
            }
        };
    }
    match width {
        #[cfg(target_arch = "x86_64")]
        VectorWidth::Avx512 if detect() == VectorWidth::Avx512 => {
            // SAFETY: the CPU has AVX-512F and DQ (checked just above).
            unsafe { variants!(lanes_avx512) }
        }
        #[cfg(target_arch = "x86_64")]
        VectorWidth::Avx512 | VectorWidth::Avx2 if detect() != VectorWidth::Portable => {
            // SAFETY: the CPU has AVX2 (checked just above).
            unsafe { variants!(lanes_avx2) }
        }
        _ => variants!(lanes_portable),
    }
}

/// The kernel compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn lanes_avx512<const H: bool, const S: bool, const C: bool>(b: &mut ContactBatch, s: &mut Lanes) {
    run_lanes::<H, S, C>(b, s)
}

/// The kernel compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn lanes_avx2<const H: bool, const S: bool, const C: bool>(b: &mut ContactBatch, s: &mut Lanes) {
    run_lanes::<H, S, C>(b, s)
}

/// The kernel for the target's baseline.
fn lanes_portable<const H: bool, const S: bool, const C: bool>(b: &mut ContactBatch, s: &mut Lanes) {
    run_lanes::<H, S, C>(b, s)
}
