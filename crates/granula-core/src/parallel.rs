//! Confining granula's parallel loops to the calling thread.
//!
//! The solvers run their loops with rayon. Asked for one thread, a solver could run its
//! step inside a one-thread pool, but handing every step to that pool's thread and back
//! costs a thread wake-up each way (about 20 µs on a virtual machine, as much as the
//! whole step of a thousand particles). Instead the step runs inside [`sequential`], and
//! every parallel loop of granula asks [`min_len`] for its smallest task: unlimited there,
//! so rayon never splits the loop and runs it in place on the calling thread. Results do not
//! change: granula's loops never let the split decide an order of summation.

use std::cell::Cell;

thread_local! {
    static SEQUENTIAL: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with granula's parallel loops kept on the calling thread (see the module doc).
/// Nests, and restores the previous mode when `f` returns or unwinds.
pub fn sequential<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SEQUENTIAL.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SEQUENTIAL.with(|s| s.replace(true)));
    f()
}

/// `true` inside [`sequential`] on this thread.
pub fn is_sequential() -> bool {
    SEQUENTIAL.with(Cell::get)
}

/// The smallest task of a parallel loop that would like tasks of at least `preferred`
/// items: `preferred` normally, unlimited inside [`sequential`] (for rayon's `with_min_len`).
#[inline]
pub fn min_len(preferred: usize) -> usize {
    if is_sequential() {
        usize::MAX
    } else {
        preferred
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn loops_stay_on_the_calling_thread_inside_sequential() {
        let mut v = vec![0usize; 10_000];
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        // Outside any pool, inside `sequential`: no chunk runs on a pool thread.
        sequential(|| {
            v.par_chunks_mut(100).with_min_len(min_len(1)).enumerate().for_each(|(k, c)| {
                assert!(rayon::current_thread_index().is_none());
                c[0] = k;
            });
        });
        assert_eq!(v[9_900], 99);
        // The mode ends with the closure, also after a panic inside it.
        assert!(!is_sequential());
        let caught = std::panic::catch_unwind(|| sequential(|| panic!("inside")));
        assert!(caught.is_err());
        assert!(!is_sequential());
        // Normally the preferred size is kept, and a pool splits the loop.
        assert_eq!(pool.install(|| min_len(7)), 7);
    }
}
