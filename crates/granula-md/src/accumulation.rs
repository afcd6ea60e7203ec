//! How the loads of the pairs reach the bodies, deterministically for any thread count.
//!
//! The candidate pairs are cut into fixed blocks (the block size depends on the number of
//! pairs only, never on the thread count). Two strategies, chosen from the data alone:
//!
//! - **Windows** (the usual case): the dynamic bodies of a block's pairs span a range of
//!   dense indices, its window. Each block adds its loads into a private copy of its
//!   window, in pair order; loads on bodies outside it (walls and other non-dynamic bodies,
//!   which pair with everything) go to the block's overflow list. A merge then sums, for each
//!   body, the windows that contain it in block order, and finally the overflow lists in
//!   block order. Blocks run in parallel without a per-pair buffer, and the merge is
//!   parallel over bodies. Bodies numbered in space (a packing written layer by layer, a
//!   generated lattice) keep windows short.
//! - **Gather** (fallback, when the windows would be much larger than the body set, e.g.
//!   bodies numbered at random): every pair writes its loads to its own slot of a buffer and
//!   each body sums its incident pairs in the fixed order of the CSR incidence list.
//!
//! Either way every floating-point sum has an order fixed by the pair list, so 1 and n
//! threads give bit-identical forces.
//!
//! Under [`LoadOrder::Partner`] the gather is always used, over a copy of the incidence
//! lists with each body's entries sorted by the partner's dense index: each body's sum then
//! has an order fixed by its partners alone, whatever the blocks, the length or the order
//! of the candidate list (a pair without load adds exact zeros, which change no sum: the
//! running sum starts at +0 and never becomes −0, and x + 0 = x for every other x).

use crate::config::LoadOrder;
use crate::pairs::PairList;
use granula_core::{parallel, ContactKey, ContactRecord, DVec3};
use rayon::prelude::*;

/// The loads of one pair: the force on body 2 (body 1 gets the opposite) and the torque on
/// each body about its own centre, l × F plus the law's pure couple.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PairLoad {
    pub force: DVec3,
    pub torque1: DVec3,
    pub torque2: DVec3,
}

/// Bodies per task of the parallel merge and gather.
const BODY_CHUNK: usize = 2048;
/// The windows are used while their total length stays below this many times the number
/// of bodies (plus a constant for small sets); beyond it, zeroing and merging them would
/// cost more than the buffer of the gather.
const WINDOW_BUDGET: usize = 4;

/// An incidence entry the gather skips ([`Accumulation::leave_out_foreign_partners`]): no
/// list holds 2³¹ pairs.
const LEFT_OUT: u32 = u32::MAX;

/// Where the loads of the pairs of a block go.
pub(crate) trait LoadSink {
    /// Whether the sink keeps the contacts ([`LoadSink::record`]): the pass builds no
    /// record for a sink that does not (a test that takes the same branch for every pair of
    /// a step).
    #[inline(always)]
    fn records(&self) -> bool {
        false
    }
    /// Pair `p` (global index) carries no load this step.
    fn none(&mut self, p: usize);
    /// Pair `p` between bodies `i` and `j` carries `load` (on body 2; body 1 gets the
    /// opposite force).
    fn add(&mut self, p: usize, i: usize, j: usize, load: PairLoad);
    /// Pair `p` was a contact of this step, published as `contact` (its key is filled in
    /// by the sink). Only called when [`LoadSink::records`].
    fn record(&mut self, _p: usize, _contact: ContactRecord) {}
}

/// A sink that also keeps, on the steps that publish them, the contacts of its block, in
/// pair order, for [`MdSolver::contacts`](granula_core::Solver::contacts). One type for
/// both kinds of step: the force pass is compiled once per accumulation strategy, not
/// once more for publishing (a law's pass is most of the code a solver compiles).
pub(crate) struct Recording<'a, S> {
    pub inner: S,
    /// Where the contacts go on a publishing step, `None` on the others.
    pub out: Option<RecordOut<'a>>,
}

/// The contact list of one block (pairs `base..base + keys.len()`).
pub(crate) struct RecordOut<'a> {
    pub base: usize,
    /// The keys of the block's pairs.
    pub keys: &'a [ContactKey],
    pub contacts: &'a mut Vec<ContactRecord>,
}

impl<S: LoadSink> LoadSink for Recording<'_, S> {
    #[inline(always)]
    fn records(&self) -> bool {
        self.out.is_some()
    }
    #[inline(always)]
    fn none(&mut self, p: usize) {
        self.inner.none(p);
    }
    #[inline(always)]
    fn add(&mut self, p: usize, i: usize, j: usize, load: PairLoad) {
        self.inner.add(p, i, j, load);
    }
    #[inline(always)]
    fn record(&mut self, p: usize, contact: ContactRecord) {
        if let Some(out) = &mut self.out {
            // The pair's key with the point's feature.
            let key = ContactKey { feature: contact.key.feature, ..out.keys[p - out.base] };
            out.contacts.push(ContactRecord { key, ..contact });
        }
    }
}

/// The per-pair buffer of a block (pairs `base..base + loads.len()`), for the gather.
pub(crate) struct PairBuffer<'a> {
    pub base: usize,
    pub loads: &'a mut [PairLoad],
}

impl LoadSink for PairBuffer<'_> {
    #[inline(always)]
    fn none(&mut self, p: usize) {
        self.loads[p - self.base] = PairLoad::default();
    }
    #[inline(always)]
    fn add(&mut self, p: usize, _: usize, _: usize, load: PairLoad) {
        self.loads[p - self.base] = load;
    }
}

/// A block's window (bodies `lo..lo + force.len()`) and overflow list.
pub(crate) struct WindowSink<'a> {
    lo: usize,
    force: &'a mut [DVec3],
    torque: &'a mut [DVec3],
    overflow: &'a mut Vec<(u32, DVec3, DVec3)>,
}

impl WindowSink<'_> {
    #[inline(always)]
    fn push(&mut self, body: usize, force: DVec3, torque: DVec3) {
        // One unsigned comparison: indices below `lo` wrap to large values.
        let k = body.wrapping_sub(self.lo);
        if k < self.force.len() {
            self.force[k] += force;
            self.torque[k] += torque;
        } else {
            self.overflow.push((body as u32, force, torque));
        }
    }
}

impl LoadSink for WindowSink<'_> {
    #[inline(always)]
    fn none(&mut self, _: usize) {}
    #[inline(always)]
    fn add(&mut self, _: usize, i: usize, j: usize, load: PairLoad) {
        self.push(i, -load.force, load.torque1);
        self.push(j, load.force, load.torque2);
    }
}

/// The sinks of a run of consecutive blocks of [`Accumulation`]: the blocks' windows, or
/// their parts of the gather's buffer. Split at block boundaries, each part goes to its own
/// task of the force pass, so that the parallel loop is plain recursion over these slices
/// (`granula_core::parallel::join`), compiled once for all laws instead of rayon's iterator
/// machinery once per law.
pub(crate) struct SinkBlocks<'a> {
    /// Index of the run's first block among all the blocks.
    first: usize,
    /// Pairs per block.
    block: usize,
    kind: SinkKind<'a>,
}

enum SinkKind<'a> {
    /// Per block: its window's first body, its window (`stride` bodies) and its overflow.
    Windows {
        stride: usize,
        lo: &'a [usize],
        force: &'a mut [DVec3],
        torque: &'a mut [DVec3],
        overflow: &'a mut [Vec<(u32, DVec3, DVec3)>],
    },
    /// The buffer slots of the run's pairs.
    Buffers { loads: &'a mut [PairLoad] },
}

/// The sink of one block.
pub(crate) enum BlockSink<'s> {
    Window(WindowSink<'s>),
    Buffer(PairBuffer<'s>),
}

impl SinkBlocks<'_> {
    /// The run's first `k` blocks, and the others.
    pub fn split_at(self, k: usize) -> (Self, Self) {
        let (first, block) = (self.first, self.block);
        let (left, right) = match self.kind {
            SinkKind::Windows { stride, lo, force, torque, overflow } => {
                let k = k.min(lo.len());
                let (lo1, lo2) = lo.split_at(k);
                let (force1, force2) = force.split_at_mut(k * stride);
                let (torque1, torque2) = torque.split_at_mut(k * stride);
                let (overflow1, overflow2) = overflow.split_at_mut(k);
                (
                    SinkKind::Windows { stride, lo: lo1, force: force1, torque: torque1, overflow: overflow1 },
                    SinkKind::Windows { stride, lo: lo2, force: force2, torque: torque2, overflow: overflow2 },
                )
            }
            SinkKind::Buffers { loads } => {
                let (loads1, loads2) = loads.split_at_mut((k * block).min(loads.len()));
                (SinkKind::Buffers { loads: loads1 }, SinkKind::Buffers { loads: loads2 })
            }
        };
        (SinkBlocks { first, block, kind: left }, SinkBlocks { first: first + k, block, kind: right })
    }

    /// The sink of the run's block `i`, its window zeroed and its overflow emptied.
    pub fn sink(&mut self, i: usize) -> BlockSink<'_> {
        match &mut self.kind {
            SinkKind::Windows { stride, lo, force, torque, overflow } => {
                let window = i * *stride..(i + 1) * *stride;
                let (force, torque) = (&mut force[window.clone()], &mut torque[window]);
                force.fill(DVec3::ZERO);
                torque.fill(DVec3::ZERO);
                let overflow = &mut overflow[i];
                overflow.clear();
                BlockSink::Window(WindowSink { lo: lo[i], force, torque, overflow })
            }
            SinkKind::Buffers { loads } => {
                let start = (i * self.block).min(loads.len());
                let end = (start + self.block).min(loads.len());
                BlockSink::Buffer(PairBuffer { base: (self.first + i) * self.block, loads: &mut loads[start..end] })
            }
        }
    }
}

/// The block layout of the current pair list and the storage of both strategies, rebuilt
/// with the list and reused between rebuilds (no allocation per step once warm).
#[derive(Clone, Debug, Default)]
pub(crate) struct Accumulation {
    /// Pairs per block.
    block: usize,
    /// First body of each block's window.
    lo: Vec<usize>,
    /// Length of every window, and its storage per block in `force` / `torque`.
    stride: usize,
    /// Scratch of the layout: body offsets from their window's start.
    offsets: Vec<usize>,
    /// `true`: windows; `false`: gather.
    windows: bool,
    force: Vec<DVec3>,
    torque: Vec<DVec3>,
    overflow: Vec<Vec<(u32, DVec3, DVec3)>>,
    /// The per-pair buffer of the gather.
    loads: Vec<PairLoad>,
    /// The summation order the layout was made for.
    order: LoadOrder,
    /// Under [`LoadOrder::Partner`]: the list's CSR incidence (offsets of the list's) with
    /// each body's entries sorted by partner; empty otherwise.
    partner_incidence: Vec<u32>,
}

impl Accumulation {
    /// Lays out the blocks of `candidates` among `bodies` bodies, of which the dynamic ones
    /// are flagged by `dynamic(i)`.
    ///
    /// A block's window starts at the lowest dynamic body of its pairs between dynamic
    /// bodies (the pair list is sorted, so that is its first such pair's lower index); all
    /// windows have the same length, the 98th percentile of the offsets of the blocks'
    /// dynamic bodies from their window's start, so that a few far-numbered neighbours go
    /// to the overflow lists instead of stretching every window.
    ///
    /// Under [`LoadOrder::Partner`] the gather is chosen, with the incidence of `pairs`
    /// sorted by partner.
    pub fn rebuild(&mut self, pairs: &PairList, bodies: usize, dynamic: impl Fn(usize) -> bool, order: LoadOrder) {
        let candidates = &pairs.candidates;
        let n = candidates.len();
        self.order = order;
        // About 16 blocks for a small list (parallel work for a few threads), at most 4096
        // pairs (windows of a few thousand bodies, which stay in cache) for a large one.
        self.block = n.div_ceil(16).clamp(256, 4096);
        self.lo.clear();
        for block in candidates.chunks(self.block) {
            let both = block.iter().filter(|c| dynamic(c.body1 as usize) && dynamic(c.body2 as usize));
            let lo = both
                .map(|c| c.body1.min(c.body2) as usize)
                .min()
                .or_else(|| {
                    block.iter().flat_map(|c| [c.body1, c.body2]).map(|b| b as usize).filter(|&b| dynamic(b)).min()
                })
                .unwrap_or(0);
            self.lo.push(lo);
        }
        if self.lo.is_empty() {
            self.lo.push(0);
        }
        let blocks = self.lo.len();
        self.offsets.clear();
        for (block, &lo) in candidates.chunks(self.block).zip(&self.lo) {
            for c in block {
                for b in [c.body1 as usize, c.body2 as usize] {
                    if dynamic(b) && b >= lo {
                        self.offsets.push(b - lo);
                    }
                }
            }
        }
        self.stride = if self.offsets.is_empty() {
            1
        } else {
            let k = self.offsets.len() * 98 / 100;
            let k = k.min(self.offsets.len() - 1);
            *self.offsets.select_nth_unstable(k).1 + 1
        };
        self.windows = order == LoadOrder::Blocks && blocks * self.stride <= WINDOW_BUDGET * bodies + 4096;
        self.partner_incidence.clear();
        if order == LoadOrder::Partner {
            self.sort_by_partner(pairs);
        }
        // Cleared here too, not only by the sinks of each step: with no pair at all there is
        // no sink, and the merge must not see the last list's loads.
        self.overflow.resize_with(blocks, Vec::new);
        self.overflow.truncate(blocks);
        self.overflow.iter_mut().for_each(Vec::clear);
        if self.windows {
            self.force.clear();
            self.force.resize(blocks * self.stride, DVec3::ZERO);
            self.torque.clear();
            self.torque.resize(blocks * self.stride, DVec3::ZERO);
            self.loads = Vec::new();
        } else {
            self.loads.resize(n, PairLoad::default());
        }
    }

    /// Copies the incidence of `pairs` with each body's entries sorted by the partner's
    /// dense index (ties, only possible for a list holding a pair twice, by pair index).
    /// The list's own order is already that one when it comes sorted from the
    /// broadphase; sorting makes the gather's order independent of it. Allocation-free
    /// once warm.
    fn sort_by_partner(&mut self, pairs: &PairList) {
        self.partner_incidence.extend_from_slice(&pairs.incidence);
        let candidates = &pairs.candidates;
        let partner = |e: u32| {
            let c = &candidates[(e >> 1) as usize];
            (if e & 1 == 0 { c.body2 } else { c.body1 }, e)
        };
        for w in pairs.offsets.windows(2) {
            let entries = &mut self.partner_incidence[w[0] as usize..w[1] as usize];
            // Checked before sorting: the broadphase's sorted list needs no sort.
            if !entries.is_sorted_by_key(|&e| partner(e)) {
                entries.sort_unstable_by_key(|&e| partner(e));
            }
        }
    }

    /// Under [`LoadOrder::Partner`], leaves out of the gather of each non-dynamic body the
    /// pairs whose partner is marked in `foreign` (bodies beyond the slice are not), so that
    /// a wall's loads are those of this process's own bodies only and their sum over the
    /// processes of a distributed run counts each pair once
    /// ([`MdSolver::set_foreign_bodies`](crate::MdSolver::set_foreign_bodies)). The loads
    /// of dynamic bodies are untouched. Call after [`Accumulation::rebuild`]; nothing to do
    /// under block order or without marks.
    pub fn leave_out_foreign_partners(&mut self, pairs: &PairList, dynamic: impl Fn(usize) -> bool, foreign: &[bool]) {
        if self.order != LoadOrder::Partner || !foreign.contains(&true) {
            return;
        }
        let candidates = &pairs.candidates;
        for (i, w) in pairs.offsets.windows(2).enumerate() {
            if dynamic(i) {
                continue;
            }
            for e in &mut self.partner_incidence[w[0] as usize..w[1] as usize] {
                let c = &candidates[(*e >> 1) as usize];
                let partner = if *e & 1 == 0 { c.body2 } else { c.body1 } as usize;
                if foreign.get(partner).copied().unwrap_or(false) {
                    *e = LEFT_OUT;
                }
            }
        }
    }

    /// The incidence entries of body `i` in the order of the gather.
    #[inline]
    fn incident<'a>(&'a self, pairs: &'a PairList, i: usize) -> &'a [u32] {
        if self.order == LoadOrder::Partner {
            // A list never indexed (no pair) has no offsets: no entries.
            match pairs.offsets.get(i..i + 2) {
                Some(w) => &self.partner_incidence[w[0] as usize..w[1] as usize],
                None => &[],
            }
        } else {
            pairs.incident(i)
        }
    }

    /// The summation order of the layout.
    pub fn order(&self) -> LoadOrder {
        self.order
    }

    /// Pairs per block.
    pub fn block(&self) -> usize {
        self.block
    }

    /// Number of blocks (at least one).
    pub fn blocks(&self) -> usize {
        self.lo.len()
    }

    /// `true` when the windows are used, `false` for the gather.
    pub fn uses_windows(&self) -> bool {
        self.windows
    }

    /// The sinks of every block, in block order, to be split between the tasks of the force
    /// pass ([`SinkBlocks::split_at`]) and taken block by block ([`SinkBlocks::sink`]).
    pub fn sinks(&mut self) -> SinkBlocks<'_> {
        let kind = if self.windows {
            SinkKind::Windows {
                stride: self.stride,
                lo: &self.lo,
                force: &mut self.force,
                torque: &mut self.torque,
                overflow: &mut self.overflow,
            }
        } else {
            SinkKind::Buffers { loads: &mut self.loads }
        };
        SinkBlocks { first: 0, block: self.block, kind }
    }

    /// Windows strategy: the loads of every body into `force` and `torque` (overwritten),
    /// summing for each body its windows in block order, then the overflow lists in block
    /// order. Parallel over bodies.
    pub fn merge(&self, force: &mut [DVec3], torque: &mut [DVec3]) {
        force
            .par_chunks_mut(BODY_CHUNK)
            .zip(torque.par_chunks_mut(BODY_CHUNK))
            .with_min_len(parallel::min_len(1))
            .enumerate()
            .for_each(|(c, (fc, tc))| self.merge_windows(c * BODY_CHUNK, fc, tc));
        for list in &self.overflow {
            for &(body, f, t) in list {
                force[body as usize] += f;
                torque[body as usize] += t;
            }
        }
    }

    /// The windows' part of the loads of the bodies `b0..b0 + fc.len()`, summed in block
    /// order into `fc` and `tc` (overwritten).
    fn merge_windows(&self, b0: usize, fc: &mut [DVec3], tc: &mut [DVec3]) {
        let stride = self.stride;
        fc.fill(DVec3::ZERO);
        tc.fill(DVec3::ZERO);
        let b1 = b0 + fc.len();
        for (k, &lo) in self.lo.iter().enumerate() {
            let (from, to) = (lo.max(b0), (lo + stride).min(b1));
            if from >= to {
                continue;
            }
            let w = k * stride;
            let (wf, wt) = (&self.force[w + from - lo..w + to - lo], &self.torque[w + from - lo..w + to - lo]);
            for ((f, t), (a, b)) in
                fc[from - b0..to - b0].iter_mut().zip(&mut tc[from - b0..to - b0]).zip(wf.iter().zip(wt))
            {
                *f += *a;
                *t += *b;
            }
        }
    }

    /// Gather strategy: the loads of every body into `force` and `torque` (overwritten),
    /// summing its incident pairs in CSR order (list order, or partner order under
    /// [`LoadOrder::Partner`]). Parallel over bodies.
    pub fn gather(&self, pairs: &PairList, force: &mut [DVec3], torque: &mut [DVec3]) {
        force
            .par_chunks_mut(BODY_CHUNK)
            .zip(torque.par_chunks_mut(BODY_CHUNK))
            .with_min_len(parallel::min_len(1))
            .enumerate()
            .for_each(|(k, (fc, tc))| self.gather_range(pairs, k * BODY_CHUNK, fc, tc));
    }

    /// [`Accumulation::gather`] for the bodies `b0..b0 + fc.len()` only.
    pub fn gather_range(&self, pairs: &PairList, b0: usize, fc: &mut [DVec3], tc: &mut [DVec3]) {
        let loads = &self.loads;
        for (m, (f, t)) in fc.iter_mut().zip(tc.iter_mut()).enumerate() {
            let (mut fs, mut ts) = (DVec3::ZERO, DVec3::ZERO);
            for &e in self.incident(pairs, b0 + m) {
                if e == LEFT_OUT {
                    continue;
                }
                let l = &loads[(e >> 1) as usize];
                if e & 1 == 0 {
                    fs -= l.force;
                    ts += l.torque1;
                } else {
                    fs += l.force;
                    ts += l.torque2;
                }
            }
            *f = fs;
            *t = ts;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairs::{Candidate, PairKind};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A sorted list of `pairs` pairs among `n` bodies, each body paired with bodies at
    /// most `reach` indices above it (spatial numbering) or anywhere (`reach = n`); bodies
    /// 0 and 1 are walls (non-dynamic) paired with random bodies.
    fn pair_list(n: usize, pairs: usize, reach: usize, seed: u64) -> PairList {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut raw: Vec<(u32, u32)> = (0..pairs)
            .map(|k| {
                if k % 50 == 0 {
                    (rng.random_range(0..2u32), rng.random_range(2..n as u32))
                } else {
                    let i = rng.random_range(2..n - 1);
                    let j = rng.random_range(i + 1..(i + 1 + reach).min(n));
                    (i as u32, j as u32)
                }
            })
            .collect();
        raw.sort_unstable();
        raw.dedup();
        let candidates = raw
            .into_iter()
            .map(|(body1, body2)| Candidate {
                body1,
                body2,
                material: 0,
                kind: PairKind::Spheres,
                route: None,
                radius1: 1.0,
                radius2: 1.0,
                reach2: 4.0,
                margin: 0.0,
                effective_mass: 1.0,
                effective_radius: 0.5,
            })
            .collect();
        let mut list = PairList::default();
        list.candidates = candidates;
        list.index(n);
        list
    }

    fn loads(count: usize, seed: u64) -> Vec<PairLoad> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Products of two uniform numbers: full 53-bit mantissas (the uniform numbers alone
        // lie on a fixed-point grid, whose short sums are exact in any order).
        let mut x = || rng.random_range(-1.0..1.0) * rng.random_range(0.5..2.0);
        let mut v = || DVec3::new(x(), x(), x());
        (0..count).map(|_| PairLoad { force: v(), torque1: v(), torque2: v() }).collect()
    }

    /// Calls `add(k, sink)` with the sink of every block k, the blocks split in two runs
    /// first, as the force pass splits them between its tasks.
    fn add_all(acc: &mut Accumulation, add: impl Fn(usize, &mut dyn FnMut(usize, usize, usize, PairLoad))) {
        let blocks = acc.blocks();
        let half = blocks / 2;
        let (left, right) = acc.sinks().split_at(half);
        for (first, count, mut run) in [(0, half, left), (half, blocks - half, right)] {
            for i in 0..count {
                match run.sink(i) {
                    BlockSink::Window(mut s) => add(first + i, &mut |p, a, b, l| s.add(p, a, b, l)),
                    BlockSink::Buffer(mut s) => add(first + i, &mut |p, a, b, l| s.add(p, a, b, l)),
                }
            }
        }
    }

    /// The summed loads through `Accumulation` on a pool of `threads` threads.
    fn accumulate(
        list: &PairList,
        n: usize,
        loads: &[PairLoad],
        threads: usize,
        order: LoadOrder,
    ) -> (Vec<DVec3>, Vec<DVec3>, bool) {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut acc = Accumulation::default();
            acc.rebuild(list, n, |i| i >= 2, order);
            let block = acc.block();
            let (mut force, mut torque) = (vec![DVec3::ONE; n], vec![DVec3::ONE; n]);
            let add = |k: usize, sink: &mut dyn FnMut(usize, usize, usize, PairLoad)| {
                let end = ((k + 1) * block).min(loads.len());
                for (p, (c, l)) in list.candidates.iter().zip(loads).enumerate().take(end).skip(k * block) {
                    sink(p, c.body1 as usize, c.body2 as usize, *l);
                }
            };
            let windows = acc.uses_windows();
            add_all(&mut acc, add);
            if windows {
                acc.merge(&mut force, &mut torque);
            } else {
                acc.gather(list, &mut force, &mut torque);
            }
            (force, torque, windows)
        })
    }

    /// The plain sums, for reference.
    fn direct(list: &PairList, n: usize, loads: &[PairLoad]) -> (Vec<DVec3>, Vec<DVec3>) {
        let (mut force, mut torque) = (vec![DVec3::ZERO; n], vec![DVec3::ZERO; n]);
        for (c, l) in list.candidates.iter().zip(loads) {
            force[c.body1 as usize] -= l.force;
            torque[c.body1 as usize] += l.torque1;
            force[c.body2 as usize] += l.force;
            torque[c.body2 as usize] += l.torque2;
        }
        (force, torque)
    }

    fn check(n: usize, pairs: usize, reach: usize, expect_windows: bool) {
        check_in(n, pairs, reach, expect_windows, LoadOrder::Blocks);
        // Partner order: always the gather.
        check_in(n, pairs, reach, false, LoadOrder::Partner);
    }

    fn check_in(n: usize, pairs: usize, reach: usize, expect_windows: bool, order: LoadOrder) {
        let list = pair_list(n, pairs, reach, 7);
        let l = loads(list.candidates.len(), 11);
        let (f1, t1, windows) = accumulate(&list, n, &l, 1, order);
        assert_eq!(windows, expect_windows, "strategy for n = {n}, reach = {reach}");
        let (f2, t2, _) = accumulate(&list, n, &l, 2, order);
        // Bit-identical on 1 and 2 threads: every sum has an order fixed by the list.
        assert_eq!(f1, f2);
        assert_eq!(t1, t2);
        let (fr, tr) = direct(&list, n, &l);
        for i in 0..n {
            // Same terms summed in another grouping: each body has a few dozen terms of
            // size ≤ 2√3, so the difference is a few ulps of 1e1.
            assert!((f1[i] - fr[i]).length() < 1e-13, "force of body {i}");
            assert!((t1[i] - tr[i]).length() < 1e-13, "torque of body {i}");
        }
    }

    #[test]
    fn windows_for_spatially_numbered_bodies() {
        // Neighbours within 300 indices: windows, with the walls' pairs and the few far
        // pairs in the overflow lists.
        check(20_000, 60_000, 300, true);
    }

    #[test]
    fn gather_for_randomly_numbered_bodies() {
        // Neighbours anywhere: the windows would cover the whole set in every block.
        check(20_000, 60_000, 20_000, false);
    }

    #[test]
    fn a_list_that_empties_leaves_no_load_behind() {
        let list = pair_list(50, 100, 10, 3);
        let l = loads(list.candidates.len(), 5);
        let mut acc = Accumulation::default();
        acc.rebuild(&list, 50, |i| i >= 2, LoadOrder::Blocks);
        let block = acc.block();
        assert!(acc.uses_windows());
        add_all(&mut acc, |k, sink| {
            for (p, (c, l)) in list.candidates.iter().zip(&l).enumerate().skip(k * block).take(block) {
                sink(p, c.body1 as usize, c.body2 as usize, *l);
            }
        });
        // Every pair leaves range: the next list is empty and nothing is added any more.
        acc.rebuild(&PairList::default(), 50, |i| i >= 2, LoadOrder::Blocks);
        let (mut force, mut torque) = (vec![DVec3::ONE; 50], vec![DVec3::ONE; 50]);
        acc.merge(&mut force, &mut torque);
        assert!(force.iter().chain(&torque).all(|v| *v == DVec3::ZERO));
    }

    #[test]
    fn small_and_empty_lists() {
        check(50, 100, 10, true);
        let list = PairList::default();
        let (f, t, _) = accumulate(&list, 3, &[], 2, LoadOrder::Partner);
        // No pair: every load is zero (the initial values are overwritten).
        assert!(f.iter().chain(&t).all(|v| *v == DVec3::ZERO));
    }

    /// `list` with its candidates in another order, cut into other blocks by extra pairs
    /// without load (`extra` zero-load pairs between random bodies), and each body's
    /// partners listed in reverse, and the loads to match: the same loads on the same pairs.
    fn shuffled(list: &PairList, n: usize, loads: &[PairLoad], seed: u64) -> (PairList, Vec<PairLoad>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut entries: Vec<(Candidate, PairLoad)> =
            list.candidates.iter().copied().zip(loads.iter().copied()).collect();
        for _ in 0..list.candidates.len() / 3 {
            let i = rng.random_range(2..n as u32 - 1);
            let j = rng.random_range(i + 1..n as u32);
            if !list.candidates.iter().any(|c| (c.body1, c.body2) == (i, j)) {
                let c = Candidate { body1: i, body2: j, ..list.candidates[0] };
                entries.push((c, PairLoad::default()));
            }
        }
        // Descending: every body meets its partners in the reverse of the sorted order.
        entries.sort_by_key(|(c, _)| std::cmp::Reverse((c.body1, c.body2)));
        entries.dedup_by_key(|(c, _)| (c.body1, c.body2));
        let mut other = PairList::default();
        other.candidates = entries.iter().map(|e| e.0).collect();
        other.index(n);
        (other, entries.into_iter().map(|e| e.1).collect())
    }

    #[test]
    fn partner_order_does_not_depend_on_the_list() {
        // The same loads on the same pairs, summed from a list in another order, with a
        // third more candidates that carry no load (other blocks, other windows): the
        // partner order gives every body the same bits, the block order does not.
        let n = 3000;
        let list = pair_list(n, 9000, 40, 17);
        let l = loads(list.candidates.len(), 19);
        let (other, other_loads) = shuffled(&list, n, &l, 23);
        let (f1, t1, _) = accumulate(&list, n, &l, 1, LoadOrder::Partner);
        let (f2, t2, _) = accumulate(&other, n, &other_loads, 2, LoadOrder::Partner);
        assert_eq!(f1, f2);
        assert_eq!(t1, t2);
        let (b1, _, _) = accumulate(&list, n, &l, 1, LoadOrder::Blocks);
        let (b2, _, _) = accumulate(&other, n, &other_loads, 1, LoadOrder::Blocks);
        // So that the equality above is known to depend on the order: with three terms or
        // more per body in random order, some body's sum differs in its last bits (the
        // loads are random numbers of unit size, so a regrouping changes ~ half the sums).
        let differing = b1.iter().zip(&b2).filter(|(a, b)| a != b).count();
        assert!(differing > n / 10, "only {differing} of {n} bodies changed under the block order");
        // And the partner sums are the plain sums to rounding (as in `check`).
        let (fr, _) = direct(&list, n, &l);
        for i in 0..n {
            assert!((f1[i] - fr[i]).length() < 1e-13, "force of body {i}");
        }
    }
}
