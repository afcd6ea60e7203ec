//! Splitting boxes into the *bulk* (finite boxes of moderate size, handled by the sort lists
//! or the grid), the *large* list (unbounded boxes of walls, or boxes much larger than the
//! typical one) and the *void* (degenerate boxes), and the pairs of the large list.
//!
//! Large boxes are tested against every other box (cost `O(L n)` for `L` large boxes), so
//! that an infinite plane never floods a grid nor spans a whole sort list.

use granula_core::Aabb;

/// Default ratio between the largest edge of a bulk box and the mean box edge: boxes with a
/// longer edge go to the large list. 16 keeps polydisperse packings of size ratio up to
/// 1:10 entirely in the bulk, while a drum or silo wall enclosing the packing is "large".
pub(crate) const DEFAULT_LARGE_RATIO: f64 = 16.0;

/// Where a box is handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Finite and of moderate size: sort lists or grid.
    Bulk,
    /// Unbounded or very large: tested against all others.
    Large,
    /// Degenerate (a NaN bound or `min > max` on some axis): pairs with nothing.
    Void,
}

/// `true` when a box is degenerate: a NaN bound or `min > max` on some axis. Such a box is
/// empty and pairs with nothing, in every backend.
#[inline]
pub fn is_void(b: &Aabb) -> bool {
    !(b.min.x <= b.max.x && b.min.y <= b.max.y && b.min.z <= b.max.z)
}

/// `true` when both bodies are flagged to be skipped (e.g. two walls).
#[inline]
pub(crate) fn both_skipped(skip: &[bool], i: usize, j: usize) -> bool {
    skip.get(i).copied().unwrap_or(false) && skip.get(j).copied().unwrap_or(false)
}

/// The longest edge of a box.
#[inline]
pub(crate) fn max_edge(b: &Aabb) -> f64 {
    let s = b.size();
    s.x.max(s.y).max(s.z)
}

/// `ratio` times the mean longest edge of the bounded, non-degenerate boxes; infinite when
/// there is none.
pub(crate) fn large_threshold(boxes: &[Aabb], ratio: f64) -> f64 {
    let (mut sum, mut count) = (0.0, 0usize);
    for b in boxes {
        if !is_void(b) && b.is_bounded() {
            let e = max_edge(b);
            if e.is_finite() {
                sum += e;
                count += 1;
            }
        }
    }
    if count == 0 {
        f64::INFINITY
    } else {
        ratio * sum / count as f64
    }
}

/// The class of one box for a given large-box threshold.
#[inline]
pub(crate) fn classify(b: &Aabb, threshold: f64) -> Class {
    if is_void(b) {
        Class::Void
    } else if !b.is_bounded() || max_edge(b) > threshold {
        Class::Large
    } else {
        Class::Bulk
    }
}

/// The split of the boxes of one call, and the buffers of the large-list pairs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Partition {
    /// Class of each box.
    pub class: Vec<Class>,
    /// Indices of bulk boxes, ascending.
    pub bulk: Vec<u32>,
    /// Indices of large boxes, ascending.
    pub large: Vec<u32>,
    large_pairs: Vec<(u32, u32)>,
    merged: Vec<(u32, u32)>,
}

impl Partition {
    /// Classifies every box; returns `true` when some class (or the count) changed since
    /// the previous call.
    pub fn split(&mut self, boxes: &[Aabb], threshold: f64) -> bool {
        let mut changed = self.class.len() != boxes.len();
        self.class.resize(boxes.len(), Class::Void);
        self.bulk.clear();
        self.large.clear();
        for (i, b) in boxes.iter().enumerate() {
            let c = classify(b, threshold);
            changed |= self.class[i] != c;
            self.class[i] = c;
            match c {
                Class::Bulk => self.bulk.push(i as u32),
                Class::Large => self.large.push(i as u32),
                Class::Void => {}
            }
        }
        changed
    }

    /// Merges into the sorted `pairs` (bulk–bulk pairs) every pair that involves a large box:
    /// each large box is tested against every bulk box and every later large box. Cost
    /// `O(L n + P_L log P_L)`; nothing happens without large boxes.
    pub fn merge_large_pairs(&mut self, boxes: &[Aabb], skip: &[bool], pairs: &mut Vec<(u32, u32)>) {
        if self.large.is_empty() {
            return;
        }
        self.large_pairs.clear();
        for &l in &self.large {
            let bl = &boxes[l as usize];
            for (j, b) in boxes.iter().enumerate() {
                let eligible = match self.class[j] {
                    Class::Bulk => true,
                    Class::Large => j as u32 > l,
                    Class::Void => false,
                };
                if eligible && !both_skipped(skip, l as usize, j) && bl.overlaps(b) {
                    let j = j as u32;
                    self.large_pairs.push((l.min(j), l.max(j)));
                }
            }
        }
        if self.large_pairs.is_empty() {
            return;
        }
        self.large_pairs.sort_unstable();
        std::mem::swap(pairs, &mut self.merged);
        pairs.clear();
        merge_sorted(&self.merged, &self.large_pairs, pairs);
    }
}

/// Merges two sorted, disjoint pair lists into `out`.
fn merge_sorted(a: &[(u32, u32)], b: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] < b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use granula_core::DVec3;

    #[test]
    fn degenerate_boxes_are_void_and_walls_are_large() {
        let unit = Aabb::around(DVec3::ZERO, DVec3::splat(0.5));
        let nan = Aabb { min: DVec3::new(f64::NAN, 0.0, 0.0), max: DVec3::ONE };
        let inverted = Aabb { min: DVec3::new(0.0, 2.0, 0.0), max: DVec3::ONE };
        let plane = Aabb { min: DVec3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0), max: DVec3::INFINITY };
        // Threshold 16 × mean edge of the bounded boxes (only `unit`, edge 1): 16.
        let t = large_threshold(&[unit, nan, inverted, plane], 16.0);
        assert_eq!(t, 16.0);
        assert_eq!(classify(&unit, t), Class::Bulk);
        assert_eq!(classify(&nan, t), Class::Void);
        assert_eq!(classify(&inverted, t), Class::Void);
        assert_eq!(classify(&plane, t), Class::Large);
        let big = Aabb::around(DVec3::ZERO, DVec3::splat(8.5));
        assert_eq!(classify(&big, t), Class::Large);
    }

    #[test]
    fn merge_keeps_order() {
        let mut out = Vec::new();
        merge_sorted(&[(0, 1), (2, 5), (4, 6)], &[(0, 9), (3, 4)], &mut out);
        assert_eq!(out, vec![(0, 1), (0, 9), (2, 5), (3, 4), (4, 6)]);
    }
}
