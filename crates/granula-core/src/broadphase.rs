//! The broadphase trait: candidate pairs from bounding boxes.

use crate::shape::Aabb;

/// Finds every pair of bodies whose bounding boxes overlap.
///
/// Contract (all backends return the same set, the brute-force backend being the oracle):
/// - `pairs` is overwritten with every `(i, j)`, `i < j`, such that `boxes[i]` and
///   `boxes[j]` overlap (closed boxes: touching counts), including boxes with infinite
///   bounds (walls); no false negatives, no false positives, no duplicates;
/// - `pairs` is sorted ascending, so that results are deterministic and contact histories
///   can be matched in linear time;
/// - pairs whose `skip` flags are both `true` (e.g. two walls) are left out.
pub trait Broadphase: Send {
    /// A stable name, e.g. `"sweep_and_prune"`.
    fn name(&self) -> &'static str;

    /// Fills `pairs` (see the trait's contract).
    fn find_pairs(&mut self, boxes: &[Aabb], skip: &[bool], pairs: &mut Vec<(u32, u32)>);
}
