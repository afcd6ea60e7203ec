//! The O(n²) reference backend, the oracle of the others.

use crate::partition::{both_skipped, is_void};
use granula_core::{Aabb, Broadphase};

/// Tests every pair `i < j`: `n (n − 1) / 2` box tests per call, no state, no allocation
/// beyond the output. Exact by construction; use it as the oracle and for a few hundred
/// bodies at most (≈ 1 ns per box test: 50 ms per call at n = 10⁴).
#[derive(Clone, Copy, Debug, Default)]
pub struct BruteForce;

impl Broadphase for BruteForce {
    fn name(&self) -> &'static str {
        "brute_force"
    }

    fn find_pairs(&mut self, boxes: &[Aabb], skip: &[bool], pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        for (i, a) in boxes.iter().enumerate() {
            if is_void(a) {
                continue;
            }
            for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                if a.overlaps(b) && !is_void(b) && !both_skipped(skip, i, j) {
                    pairs.push((i as u32, j as u32));
                }
            }
        }
    }
}
