//! Sweep and prune as the Linked Linear List of 003 §3 (after Schinner 1999).
//!
//! Each box is projected on the three axes; per axis, a list of `2 n` endpoints (the
//! beginning and the end of every projection) is kept sorted between calls. Two boxes
//! overlap on an axis exactly when each one's beginning comes before the other's end, and
//! they are neighbours when they overlap on all three axes (003 §3). Since bodies move
//! little from one step to the next, the lists are nearly sorted and an insertion sort
//! restores them in `O(n + s)` for `s` swaps of adjacent endpoints. The overlap status of
//! a pair changes only when a beginning and an end of the two boxes swap, so the pair set
//! is updated at each such swap (003 §3: "if a collision along an axis has to be removed, or
//! if there is a new collision ... the collision information along the other axes is
//! compared"): a beginning passing an end to the left starts an overlap on that axis and
//! the pair is added if the boxes now overlap on all axes; an end passing a beginning to the
//! left ends it and the pair is removed.

use crate::error::{positive, Result};
use crate::linked_cells::LinkedCells;
use crate::pair_rows::{PairChange, PairRows};
use crate::partition::{large_threshold, Class, Partition, DEFAULT_LARGE_RATIO};
use granula_core::{parallel, Aabb, Broadphase};

/// Fewest bulk boxes for which the three axes are sorted side by side: below, the join
/// costs more than the sorts it would share.
const PARALLEL_AXES_BOXES: usize = 512;

/// Most boxes an endpoint tag can index (31 bits).
const MAX_BODIES: usize = (u32::MAX >> 1) as usize;

/// One endpoint of a box projection: its coordinate and `body << 1 | is_end`.
#[derive(Clone, Copy, Debug)]
struct Endpoint {
    value: f64,
    tag: u32,
}

impl Endpoint {
    #[inline]
    fn new(body: u32, is_end: bool, value: f64) -> Self {
        Endpoint { value, tag: (body << 1) | is_end as u32 }
    }
    #[inline]
    fn body(self) -> u32 {
        self.tag >> 1
    }
    #[inline]
    fn is_end(self) -> bool {
        self.tag & 1 == 1
    }
    /// Order of the lists: by coordinate, a beginning before an end at equal coordinates
    /// (closed boxes: touching projections overlap).
    #[inline]
    fn before(self, other: Endpoint) -> bool {
        self.value < other.value || (self.value == other.value && (self.tag & 1) < (other.tag & 1))
    }
}

/// The Linked Linear List broadphase of 003 §3 (see the module doc).
///
/// Cost per call: `O(n)` to refresh the coordinates, `O(n + s)` for the insertion sorts of
/// the three lists with `s` adjacent swaps (a few per body per step in a dense flow),
/// `O(log d + d)` per swap that changes a pair, `O(n + P)` to write the `P` pairs in
/// ascending order (no sort), plus `O(L n)` for `L` walls or other large boxes, kept out of
/// the lists. The first call, and any call where the number of boxes or the split between
/// bulk and large boxes changes, rebuilds the lists in `O(n log n)` (sorts) and the pair
/// set in `O(n)` (with [`crate::LinkedCells`]). Memory: `6 n` endpoints, their slot maps
/// and the pair rows, reused from call to call. Endpoints pack the body index in 31 bits:
/// beyond `2³¹ − 1` boxes the call is answered by linked cells instead.
#[derive(Clone, Debug)]
pub struct SweepAndPrune {
    axes: [Vec<Endpoint>; 3],
    /// Per axis, the position in the list of each endpoint, indexed by its tag.
    slots: [Vec<u32>; 3],
    rows: PairRows,
    /// Per axis, the pair changes found by its last sort (kept for their buffers).
    changes: [Vec<PairChange>; 3],
    partition: Partition,
    /// Finds the initial pair set at a rebuild.
    builder: LinkedCells,
    initial: Vec<(u32, u32)>,
    large_ratio: f64,
    threshold: f64,
    ready: bool,
    rebuilds: u64,
    last_swaps: usize,
}

impl Default for SweepAndPrune {
    fn default() -> Self {
        Self::new()
    }
}

impl SweepAndPrune {
    /// A backend that sends boxes with an edge longer than 16 times the mean edge (and every
    /// unbounded box) to the large list.
    pub fn new() -> Self {
        SweepAndPrune {
            axes: [Vec::new(), Vec::new(), Vec::new()],
            slots: [Vec::new(), Vec::new(), Vec::new()],
            rows: PairRows::default(),
            changes: [Vec::new(), Vec::new(), Vec::new()],
            partition: Partition::default(),
            builder: LinkedCells::new(),
            initial: Vec::new(),
            large_ratio: DEFAULT_LARGE_RATIO,
            threshold: f64::INFINITY,
            ready: false,
            rebuilds: 0,
            last_swaps: 0,
        }
    }

    /// Sets the ratio between the edge of a box and the mean box edge above which the box is
    /// kept out of the sort lists and tested against all others. Error unless finite and > 0.
    pub fn with_large_ratio(mut self, ratio: f64) -> Result<Self> {
        self.large_ratio = positive("large_ratio", ratio)?;
        self.ready = false;
        Ok(self)
    }

    /// How many times the lists were built from scratch.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    /// Adjacent swaps made by the insertion sorts of the last call (zero after a rebuild).
    pub fn last_swaps(&self) -> usize {
        self.last_swaps
    }

    /// Builds the sorted lists and the pair set from scratch.
    fn rebuild(&mut self, boxes: &[Aabb]) {
        self.rebuilds += 1;
        self.last_swaps = 0;
        for (k, (list, slots)) in self.axes.iter_mut().zip(&mut self.slots).enumerate() {
            list.clear();
            for &b in &self.partition.bulk {
                let bx = &boxes[b as usize];
                list.push(Endpoint::new(b, false, bx.min[k]));
                list.push(Endpoint::new(b, true, bx.max[k]));
            }
            list.sort_unstable_by(|a, b| {
                if a.before(*b) {
                    std::cmp::Ordering::Less
                } else if b.before(*a) {
                    std::cmp::Ordering::Greater
                } else {
                    a.tag.cmp(&b.tag)
                }
            });
            slots.clear();
            slots.resize(2 * boxes.len(), u32::MAX);
            for (p, e) in list.iter().enumerate() {
                slots[e.tag as usize] = p as u32;
            }
        }
        // The initial pair set comes from linked cells in O(n): a sweep along one axis would
        // cost O(n^(5/3)) in a 3D packing, where a projection holds ~n^(2/3) others.
        self.builder.find_pairs(boxes, &[], &mut self.initial);
        self.rows.reset(boxes.len());
        let class = &self.partition.class;
        for &(i, j) in &self.initial {
            if class[i as usize] == Class::Bulk && class[j as usize] == Class::Bulk {
                // Ascending input: rows come out sorted.
                self.rows.push_ascending(i, j);
            }
        }
    }

    /// Refreshes the coordinates and restores the order of the three lists, then updates
    /// the pair set with the overlap changes the sorts found, axis after axis and in the
    /// order of the swaps: the same pair set as applying each change at its swap, since a
    /// sort reads only its own list and the final boxes, never the pair set. The three axes
    /// are sorted side by side when the step may use several threads and the lists are
    /// long enough to pay for it ([`PARALLEL_AXES_BOXES`]).
    fn update(&mut self, boxes: &[Aabb]) {
        let threads = !parallel::is_sequential();
        let bulk = &self.partition.bulk;
        let [l0, l1, l2] = &mut self.axes;
        let [s0, s1, s2] = &mut self.slots;
        let [e0, e1, e2] = &mut self.changes;
        let sort = |k: usize, list: &mut Vec<Endpoint>, slots: &mut Vec<u32>, changes: &mut Vec<PairChange>| {
            for &b in bulk {
                let bx = &boxes[b as usize];
                let t = 2 * b as usize;
                list[slots[t] as usize].value = bx.min[k];
                list[slots[t + 1] as usize].value = bx.max[k];
            }
            changes.clear();
            insertion_sort(list, slots, boxes, changes)
        };
        let swaps = if !threads || bulk.len() < PARALLEL_AXES_BOXES {
            sort(0, l0, s0, e0) + sort(1, l1, s1, e1) + sort(2, l2, s2, e2)
        } else {
            let ((w0, w1), w2) =
                rayon::join(|| rayon::join(|| sort(0, l0, s0, e0), || sort(1, l1, s1, e1)), || sort(2, l2, s2, e2));
            w0 + w1 + w2
        };
        self.rows.apply(&self.changes, threads);
        self.last_swaps = swaps;
    }
}

/// Insertion sort of one nearly sorted endpoint list; returns the number of adjacent swaps.
/// `slots` follows every move; `changes` receives, in swap order, each pair whose boxes
/// start to overlap (a beginning passing an end, the final boxes overlapping on all axes)
/// or separate (an end passing a beginning).
fn insertion_sort(list: &mut [Endpoint], slots: &mut [u32], boxes: &[Aabb], changes: &mut Vec<PairChange>) -> usize {
    let mut swaps = 0;
    for i in 1..list.len() {
        let e = list[i];
        let mut j = i;
        while j > 0 && e.before(list[j - 1]) {
            let f = list[j - 1];
            match (e.is_end(), f.is_end()) {
                // The beginning of `e` passes the end of `f`: their projections start to overlap.
                (false, true) => {
                    let (a, b) = (e.body(), f.body());
                    if boxes[a as usize].overlaps(&boxes[b as usize]) {
                        changes.push(PairChange::Overlap(a, b));
                    }
                }
                // The end of `e` passes the beginning of `f`: the projections separate.
                (true, false) => changes.push(PairChange::Separate(e.body(), f.body())),
                _ => {}
            }
            list[j] = f;
            slots[f.tag as usize] = j as u32;
            j -= 1;
            swaps += 1;
        }
        if j != i {
            list[j] = e;
            slots[e.tag as usize] = j as u32;
        }
    }
    swaps
}

impl Broadphase for SweepAndPrune {
    fn name(&self) -> &'static str {
        "sweep_and_prune"
    }

    fn find_pairs(&mut self, boxes: &[Aabb], skip: &[bool], pairs: &mut Vec<(u32, u32)>) {
        if boxes.len() > MAX_BODIES {
            self.ready = false;
            self.builder.find_pairs(boxes, skip, pairs);
            return;
        }
        let changed = self.partition.split(boxes, self.threshold);
        if !self.ready || changed {
            self.threshold = large_threshold(boxes, self.large_ratio);
            self.partition.split(boxes, self.threshold);
            self.rebuild(boxes);
            self.ready = true;
        } else {
            self.update(boxes);
        }
        pairs.clear();
        self.rows.emit(skip, pairs);
        self.partition.merge_large_pairs(boxes, skip, pairs);
    }
}
