//! The batched kernel compiled for each vector width ([`VectorWidth`], chosen at run time
//! by the core's `vector_width`): one function body compiled three times (AVX-512, AVX2, the
//! x86-64 baseline), the compiler's own vectoriser keeping every lane's operations those of
//! the scalar law (no intrinsics to keep in step with the scalar code).

use super::kernel::{run_lanes, Lanes};
use granula_core::{detected_vector_width, ContactBatch, VectorWidth};

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
        VectorWidth::Avx512 if detected_vector_width() == VectorWidth::Avx512 => {
            // SAFETY: the CPU has AVX-512F and DQ (checked just above).
            unsafe { variants!(lanes_avx512) }
        }
        #[cfg(target_arch = "x86_64")]
        VectorWidth::Avx512 | VectorWidth::Avx2 if detected_vector_width() != VectorWidth::Portable => {
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
