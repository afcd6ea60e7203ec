//! What a contact generator may remember about one candidate pair from one step to the
//! next (temporal coherence).
//!
//! Between two steps the bodies of a packing move by a small fraction of their size, so a
//! fact found about a pair at one step (a direction along which the two bodies are apart,
//! say) is usually still true at the next, and checking it there costs far less than
//! finding it again. A solver keeps one [`PairMemory`] per candidate pair and hands it to
//! [`ContactGenerator::generate_remembering`](super::ContactGenerator::generate_remembering)
//! each step; the generator reads what it left there and writes what it found.
//!
//! **The contract.** A generator's points must not depend on what its memory holds: the
//! memory may only make the call faster. A memory is empty (all zero) when its pair
//! enters the candidate list, and solvers neither save it in checkpoints nor carry it
//! through a rebuild of their candidate list, so a restarted run, a run on another number
//! of threads and a run with other rebuild times give the same points to the bit only
//! because of that contract. A generator should treat any content as a hint to verify,
//! never as a fact: a memory may have been written for the same pair at an earlier
//! configuration, or left by a generator of another pass.
//!
//! **Storage.** Three 64-bit words in relaxed atomics (plain loads and stores on common
//! hardware): a solver's pair pass hands each pair to one thread, and a memory shared by
//! mistake gives only a stale hint, never undefined behaviour.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One candidate pair's memory: three 64-bit words a generator may use freely (module
/// documentation). All zero when empty.
#[derive(Debug, Default)]
pub struct PairMemory {
    words: [AtomicU64; 3],
}

impl PairMemory {
    /// An empty memory.
    pub const fn new() -> Self {
        PairMemory { words: [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)] }
    }

    /// The three words (zero when empty).
    #[inline]
    pub fn load(&self) -> [u64; 3] {
        [self.words[0].load(Relaxed), self.words[1].load(Relaxed), self.words[2].load(Relaxed)]
    }

    /// Replaces the three words.
    #[inline]
    pub fn store(&self, words: [u64; 3]) {
        for (w, v) in self.words.iter().zip(words) {
            w.store(v, Relaxed);
        }
    }

    /// Empties the memory (all words zero).
    #[inline]
    pub fn clear(&self) {
        self.store([0; 3]);
    }
}

impl Clone for PairMemory {
    /// A memory holding the same words.
    fn clone(&self) -> Self {
        let m = PairMemory::new();
        m.store(self.load());
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memory_keeps_its_words_and_empties() {
        let m = PairMemory::new();
        assert_eq!(m.load(), [0; 3]);
        let w = [u64::MAX, 1, 0x7ff8_0000_0000_0001];
        m.store(w);
        assert_eq!(m.load(), w);
        assert_eq!(m.clone().load(), w);
        m.clear();
        assert_eq!(m.load(), [0; 3]);
    }
}
