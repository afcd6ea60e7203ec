//! The waiting strategy of the hot worker pool: its threads poll for work only when the
//! machine has a core for each of them.

use granula_core::parallel::spin_allowed;

#[test]
fn workers_spin_only_with_a_core_each() {
    // One thread: nothing to poll for.
    assert!(!spin_allowed(1, 1) && !spin_allowed(1, 64));
    // A core for every thread.
    assert!(spin_allowed(2, 2) && spin_allowed(2, 8) && spin_allowed(64, 64));
    // More threads than cores: they sleep between loops instead.
    assert!(!spin_allowed(3, 2) && !spin_allowed(1024, 2) && !spin_allowed(65, 64));
    // A system that does not tell its cores counts as one.
    assert!(!spin_allowed(2, 1));
}
