//! A persistent pair set stored as sorted rows: row `i` holds every `j > i` paired with `i`.
//! Insertion and removal cost `O(log d + d)` for a row of `d` entries (a handful in a
//! packing); reading all pairs in ascending order costs `O(n + P)` with no sort.

use crate::partition::both_skipped;

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

    /// Adds the pair `{a, b}` unless it is present.
    #[inline]
    pub fn insert(&mut self, a: u32, b: u32) {
        let (i, j) = (a.min(b), a.max(b));
        let row = &mut self.rows[i as usize];
        if let Err(p) = row.binary_search(&j) {
            row.insert(p, j);
        }
    }

    /// Removes the pair `{a, b}` if present.
    #[inline]
    pub fn remove(&mut self, a: u32, b: u32) {
        let (i, j) = (a.min(b), a.max(b));
        let row = &mut self.rows[i as usize];
        if let Ok(p) = row.binary_search(&j) {
            row.remove(p);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_stay_sorted_and_unique() {
        let mut r = PairRows::default();
        r.reset(4);
        r.insert(3, 0);
        r.insert(0, 2);
        r.insert(2, 0);
        r.insert(1, 3);
        r.remove(3, 1);
        r.remove(1, 2);
        let mut out = Vec::new();
        r.emit(&[], &mut out);
        assert_eq!(out, vec![(0, 2), (0, 3)]);
        out.clear();
        r.emit(&[true, false, false, true], &mut out);
        assert_eq!(out, vec![(0, 2)]);
    }
}
