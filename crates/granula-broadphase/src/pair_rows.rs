//! A persistent pair set stored as sorted rows: row `i` holds every `j > i` paired with `i`.
//! Insertion and removal cost `O(log d + d)` for a row of `d` entries (a handful in a
//! packing); reading all pairs in ascending order costs `O(n + P)` with no sort.

use crate::partition::both_skipped;

/// A change of a pair set: the boxes `a` and `b` start to overlap, or separate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PairChange {
    /// Add the pair `{a, b}` unless present.
    Overlap(u32, u32),
    /// Remove the pair `{a, b}` if present.
    Separate(u32, u32),
}

impl PairChange {
    /// The pair as (row, partner): the smaller body first.
    #[inline]
    fn ends(self) -> (u32, u32) {
        match self {
            PairChange::Overlap(a, b) | PairChange::Separate(a, b) => (a.min(b), a.max(b)),
        }
    }
}

/// Fewest changes for which [`PairRows::apply`] splits the rows between two threads.
const PARALLEL_CHANGES: usize = 2048;

/// Sorted neighbour rows (see the module doc).
#[derive(Clone, Debug, Default)]
pub(crate) struct PairRows {
    rows: Vec<Vec<u32>>,
}

impl PairRows {
    /// Empties every row and makes room for `n` bodies (row buffers are kept).
    pub fn reset(&mut self, n: usize) {
        self.rows.truncate(n);
        for r in &mut self.rows {
            r.clear();
        }
        self.rows.resize_with(n, Vec::new);
    }

    /// Applies the lists of changes one after another, each in its order. Changes to
    /// different rows commute, so with `parallel` (and enough changes) the two halves of
    /// the rows are updated side by side, each half reading every list in order and keeping
    /// the changes of its rows: the rows come out the same.
    pub fn apply(&mut self, lists: &[Vec<PairChange>], parallel: bool) {
        let total: usize = lists.iter().map(Vec::len).sum();
        let mid = self.rows.len() / 2;
        if !parallel || total < PARALLEL_CHANGES || mid == 0 {
            apply_rows(&mut self.rows, 0, lists);
            return;
        }
        let (low, high) = self.rows.split_at_mut(mid);
        rayon::join(|| apply_rows(low, 0, lists), || apply_rows(high, mid as u32, lists));
    }

    /// Appends the pair `(i, j)`, `i < j`; pairs must arrive in ascending order (as a
    /// backend's output does) for the rows to stay sorted.
    #[inline]
    pub fn push_ascending(&mut self, i: u32, j: u32) {
        self.rows[i as usize].push(j);
    }

    /// Appends every pair in ascending order, leaving out the pairs whose two skip flags are set.
    pub fn emit(&self, skip: &[bool], out: &mut Vec<(u32, u32)>) {
        for (i, row) in self.rows.iter().enumerate() {
            for &j in row {
                if !both_skipped(skip, i, j as usize) {
                    out.push((i as u32, j));
                }
            }
        }
    }
}

/// Applies to `rows` (the rows `first..first + rows.len()`) the changes of `lists` that
/// fall in them, in list order.
fn apply_rows(rows: &mut [Vec<u32>], first: u32, lists: &[Vec<PairChange>]) {
    let mine = first as usize..first as usize + rows.len();
    for &change in lists.iter().flatten() {
        let (i, j) = change.ends();
        if !mine.contains(&(i as usize)) {
            continue;
        }
        let row = &mut rows[(i - first) as usize];
        match (change, row.binary_search(&j)) {
            (PairChange::Overlap(..), Err(p)) => row.insert(p, j),
            (PairChange::Separate(..), Ok(p)) => {
                row.remove(p);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use PairChange::{Overlap, Separate};

    #[test]
    fn rows_stay_sorted_and_unique() {
        let mut r = PairRows::default();
        r.reset(4);
        let changes = vec![Overlap(3, 0), Overlap(0, 2), Overlap(2, 0), Overlap(1, 3), Separate(3, 1), Separate(1, 2)];
        r.apply(&[changes], false);
        let mut out = Vec::new();
        r.emit(&[], &mut out);
        assert_eq!(out, vec![(0, 2), (0, 3)]);
        out.clear();
        r.emit(&[true, false, false, true], &mut out);
        assert_eq!(out, vec![(0, 2)]);
    }

    /// Three lists of random changes among 300 bodies, many on the same pairs (so that the
    /// order within a row matters): the rows split between two threads come out as the rows
    /// updated in order on one.
    #[test]
    fn split_application_equals_the_ordered_one() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let lists: Vec<Vec<PairChange>> = (0..3)
            .map(|_| {
                (0..3000)
                    .map(|_| {
                        let (a, b) = (rng.random_range(0..300), rng.random_range(0..300));
                        if rng.random_bool(0.6) {
                            Overlap(a, b)
                        } else {
                            Separate(a, b)
                        }
                    })
                    .collect()
            })
            .collect();
        let mut ordered = PairRows::default();
        ordered.reset(300);
        ordered.apply(&lists, false);
        // An independent reference: the same changes on an ordered set of pairs.
        let mut reference = std::collections::BTreeSet::new();
        for &c in lists.iter().flatten() {
            match c {
                Overlap(a, b) => reference.insert((a.min(b), a.max(b))),
                Separate(a, b) => reference.remove(&(a.min(b), a.max(b))),
            };
        }
        let mut split = PairRows::default();
        split.reset(300);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        pool.install(|| split.apply(&lists, true));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        ordered.emit(&[], &mut a);
        split.emit(&[], &mut b);
        assert!(a.len() > 1000, "only {} pairs: the changes did not build a real set", a.len());
        assert_eq!(a, b);
        assert_eq!(a, reference.into_iter().collect::<Vec<_>>());
    }
}
