//! Software prefetch, audited here (the crate's other `unsafe` is the shared velocity array of
//! the coloured sweep, `coloured.rs`).
//!
//! A random sweep (000 §2.5) visits contacts in an order known one sweep ahead, so the
//! records and the body velocities of the contacts a few updates ahead can be requested from
//! memory while the current one is computed. A prefetch is a hint: it never faults, changes
//! no value and has no effect on results; on other architectures it compiles to nothing.

/// Hints the processor to bring the cache line holding `*p` (and the next `lines − 1`
/// lines) into the cache.
#[inline(always)]
pub fn prefetch<T>(p: &T, lines: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let base = p as *const T as *const i8;
        for k in 0..lines {
            // SAFETY: `_mm_prefetch` only hints the cache; it performs no memory access
            // that can fault or be observed, even for an address past the object (the
            // pointer arithmetic uses `wrapping_add`, which is defined for any offset).
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(base.wrapping_add(64 * k)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (p, lines);
    }
}
