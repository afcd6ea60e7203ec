//! Confining granula's parallel loops to the calling thread.
//!
//! The solvers run their loops with rayon. Asked for one thread, a solver could run its
//! step inside a one-thread pool, but handing every step to that pool's thread and back
//! costs a thread wake-up each way (about 20 µs on a virtual machine, as much as the
//! whole step of a thousand particles). Instead the step runs inside [`sequential`], and
//! every parallel loop of granula asks [`min_len`] for its smallest task: unlimited there,
//! so rayon never splits the loop and runs it in place on the calling thread. Results do not
//! change: granula's loops never let the split decide an order of summation.
//!
//! On several threads a step is a chain of short parallel loops (a thousand bodies are
//! predicted in a few microseconds), with short serial stretches between them. A rayon
//! worker that finds no work soon goes to sleep, and the next loop pays for waking it up
//! (a system call on each side, and on a virtual machine tens of microseconds before the
//! woken thread runs), once per loop. [`with_hot_workers`] runs a step while the pool's
//! other threads poll for its work instead, as OpenMP runtimes keep their threads spinning
//! between parallel regions. It does so only when the machine has a core for every thread
//! of the pool ([`spin_allowed`]): with more threads than cores the pollers would take the
//! cores from the threads doing the work (and a pool of hundreds of threads would drive the
//! machine's load into the hundreds), so the threads then sleep between loops as rayon
//! makes them.

use rayon::Yield;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

thread_local! {
    static SEQUENTIAL: Cell<bool> = const { Cell::new(false) };
    /// `true` on a thread that is polling for the work of a [`with_hot_workers`] call.
    static POLLING: Cell<bool> = const { Cell::new(false) };
}

/// How long a polling thread may go without finding work before it stops polling and
/// leaves the rest of the call to rayon's own sleep and wake-up: longer than the serial
/// stretches of a step (a list rebuild of a few thousand pairs takes about 0.2 ms), short
/// enough that a thread that took a poller's task inside another task (possible on three
/// or more threads, see [`with_hot_workers`]) holds that task up by at most this much.
const IDLE_LIMIT: Duration = Duration::from_micros(500);

/// Runs `f` on a thread of the current rayon pool (the calling thread if it is one of
/// them, else a worker of the global pool) while every other thread of the pool polls for
/// the parallel work `f` hands out (rayon's `yield_now`, which runs a task from any queue
/// of the pool) instead of sleeping between `f`'s loops; returns what `f` returns. Those
/// threads are busy for the whole of `f` (CPU time rises with them, wall time falls),
/// except that a thread stops polling after 0.5 ms without work. In place, with
/// nothing else started, inside [`sequential`] or on a one-thread pool.
///
/// Results do not depend on it: it changes which thread runs a task and when, not what
/// the task computes. The pollers are rayon tasks queued before any of `f`'s, and idle
/// threads steal the oldest task first, so on two threads the other thread always takes
/// the poller before any of `f`'s tasks. On more threads a thread busy in one of `f`'s
/// tasks may take a poller left queued while it waits for a subtask; it then returns to
/// its task when the poller stops, after at most 0.5 ms without work. A poller
/// that lands on `f`'s own thread, or inside another poller, returns at once. If `f`
/// panics, the pollers stop and the panic goes on to the caller.
///
/// When the pool has more threads than the machine has cores (see [`spin_allowed`]), `f`
/// just runs, its threads sleeping between loops as usual: polling would then take cores
/// from the threads doing the work. The results are the same bits either way.
pub fn with_hot_workers<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    once(f, hot_workers)
}

/// [`with_hot_workers`] of a closure called once.
fn hot_workers(f: &mut (dyn FnMut() + Send)) {
    if !spin_allowed(rayon::current_num_threads(), cores()) {
        return f();
    }
    pollers(f)
}

/// Runs `f` on `pool`, as [`rayon::ThreadPool::install`]; returns what `f` returns.
pub fn install<R: Send>(pool: &rayon::ThreadPool, f: impl FnOnce() -> R + Send) -> R {
    once(f, |g| pool.install(g))
}

/// `a` and `b`, possibly side by side on the current pool, as [`rayon::join`] (in place
/// inside [`sequential`], where rayon's join would still hand `b` to another thread of a
/// pool that runs it).
pub fn join(a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
    if is_sequential() {
        a();
        b();
    } else {
        rayon::join(a, b);
    }
}

/// What `f` returns, `f` handed to `run` as a trait object that `run` calls once.
///
/// The helpers of this module take their closures this way: rayon's machinery (jobs,
/// latches, the registry's calls) is generic over the closures it runs, and granula's
/// solvers are generic over their laws, so a closure passed straight to rayon from a
/// solver's step made the compiler generate that machinery again for every law, a large
/// share of the code of every program that composes several laws. Behind the trait object
/// it is compiled once; calling it costs one indirect call per parallel region.
fn once<R: Send>(f: impl FnOnce() -> R + Send, run: impl FnOnce(&mut (dyn FnMut() + Send))) -> R {
    let mut f = Some(f);
    let mut out = None;
    run(&mut || {
        if let Some(f) = f.take() {
            out = Some(f());
        }
    });
    match out {
        Some(out) => out,
        None => unreachable!("the runners of this module call their closure once"),
    }
}

/// Whether a pool of `workers` threads may keep them polling for work
/// ([`with_hot_workers`]) on a machine of `cores` cores: only when there are at least two
/// threads and a core for each. With fewer cores, the polling threads would compete with
/// the working ones for the cores, and the machine's load would grow with the thread count.
pub fn spin_allowed(workers: usize, cores: usize) -> bool {
    workers >= 2 && workers <= cores
}

/// The cores this process may use (`std::thread::available_parallelism`, read once; 1 when
/// the system does not tell).
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}

/// [`with_hot_workers`] with its pollers, whatever the number of cores.
#[cfg(test)]
fn with_pollers<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    once(f, pollers)
}

/// [`hot_workers`] with its pollers, whatever the number of cores.
fn pollers(f: &mut (dyn FnMut() + Send)) {
    if is_sequential() || rayon::current_num_threads() < 2 {
        return f();
    }
    let done = AtomicBool::new(false);
    rayon::scope(|s| {
        let owner = rayon::current_thread_index();
        for _ in 1..rayon::current_num_threads() {
            let done = &done;
            s.spawn(move |_| poll_for_work(done, owner));
        }
        /// Tells the pollers to stop when `f` returns or unwinds.
        struct Finish<'a>(&'a AtomicBool);
        impl Drop for Finish<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Release);
            }
        }
        let _finish = Finish(&done);
        f()
    })
}

/// The poller of [`with_hot_workers`]: runs the pool's tasks as they appear until `done`,
/// or until it has found none for [`IDLE_LIMIT`].
fn poll_for_work(done: &AtomicBool, owner: Option<usize>) {
    if rayon::current_thread_index() == owner || POLLING.with(Cell::get) {
        return;
    }
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            POLLING.with(|p| p.set(false));
        }
    }
    POLLING.with(|p| p.set(true));
    let _restore = Restore;
    let mut idle_polls = 0u32;
    let mut idle_since = None;
    while !done.load(Ordering::Acquire) {
        if rayon::yield_now() == Some(Yield::Executed) {
            (idle_polls, idle_since) = (0, None);
            continue;
        }
        for _ in 0..32 {
            std::hint::spin_loop();
        }
        idle_polls = idle_polls.wrapping_add(1);
        // The clock is read every 64 empty polls (about a microsecond apart).
        if idle_polls.is_multiple_of(64) {
            let now = Instant::now();
            match idle_since {
                None => idle_since = Some(now),
                Some(t) if now.duration_since(t) > IDLE_LIMIT => return,
                Some(_) => {}
            }
        }
    }
}

/// Runs `f` with granula's parallel loops kept on the calling thread (see the module doc).
/// Nests, and restores the previous mode when `f` returns or unwinds.
pub fn sequential<R>(f: impl FnOnce() -> R) -> R {
    let _restore = SequentialMode::enter();
    f()
}

/// The sequential mode of this thread while it lives; the previous one again when dropped.
struct SequentialMode(bool);

impl SequentialMode {
    fn enter() -> Self {
        SequentialMode(SEQUENTIAL.with(|s| s.replace(true)))
    }
}

impl Drop for SequentialMode {
    fn drop(&mut self) {
        SEQUENTIAL.with(|s| s.set(self.0));
    }
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

    /// Runs `f` on a thread of its own and fails if it takes longer than a minute: a
    /// poller that never stops would hang the call, and a test must fail instead. A
    /// minute is some thousand times what these calls take.
    fn within_a_minute<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(Duration::from_secs(60)).expect("the call did not return within a minute")
    }

    /// A sum of squares as a chain of parallel loops, each summed in chunk order (the
    /// same bits whatever thread runs a chunk).
    fn chained_sums(rounds: usize) -> Vec<u64> {
        let data: Vec<f64> = (0..20_000).map(|k| (k as f64).sqrt()).collect();
        (0..rounds)
            .map(|r| {
                let parts: Vec<f64> = data
                    .par_chunks(500)
                    .with_min_len(min_len(1))
                    .map(|c| c.iter().map(|x| x * x + r as f64).sum::<f64>())
                    .collect();
                parts.iter().sum::<f64>().to_bits()
            })
            .collect()
    }

    #[test]
    fn hot_workers_give_the_same_results_and_stop_with_the_call() {
        let expected = sequential(|| chained_sums(50));
        for threads in [2, 3, 4] {
            let got = within_a_minute(move || {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                // Many calls in a row, each a chain of loops with serial work between them;
                // from inside the pool and from outside it (a worker of the global pool).
                let inside: Vec<Vec<u64>> =
                    (0..20).map(|_| pool.install(|| with_pollers(|| chained_sums(50)))).collect();
                let outside = with_pollers(|| chained_sums(50));
                (inside, outside)
            });
            for sums in &got.0 {
                assert_eq!(sums, &expected, "{threads} threads");
            }
            assert_eq!(got.1, expected);
        }
        // Nested calls return too (the inner one's pollers find the outer ones' threads
        // polling, or run in place).
        let nested = within_a_minute(|| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
            pool.install(|| with_pollers(|| rayon::join(|| with_pollers(|| chained_sums(5)), || chained_sums(5))))
        });
        assert_eq!(nested.0, sequential(|| chained_sums(5)));
        assert_eq!(nested.1, nested.0);
    }

    #[test]
    fn without_a_core_per_thread_the_threads_do_not_poll() {
        // A pool of more threads than cores: the call runs as a plain rayon call, with the
        // same results.
        let threads = cores() + 2;
        assert!(!spin_allowed(threads, cores()));
        let expected = sequential(|| chained_sums(10));
        let got = within_a_minute(move || {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| with_hot_workers(|| chained_sums(10)))
        });
        assert_eq!(got, expected);
    }

    #[test]
    fn hot_workers_run_in_place_inside_sequential_and_pass_a_panic_on() {
        // Inside `sequential`, outside any pool: on the calling thread, nothing queued.
        let thread = sequential(|| with_pollers(rayon::current_thread_index));
        assert_eq!(thread, None);
        // A panic inside the call reaches the caller, and the pollers stop (the call
        // returns instead of waiting for them).
        let caught = within_a_minute(|| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| with_pollers(|| -> usize { panic!("inside the step") }))
            }));
            // The pool still works afterwards.
            (r.is_err(), pool.install(|| with_pollers(|| chained_sums(3))))
        });
        assert!(caught.0, "the panic was lost");
        assert_eq!(caught.1, sequential(|| chained_sums(3)));
    }
}
