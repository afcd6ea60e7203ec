//! The force pass: narrowphase and contact law per candidate pair, block by block in
//! parallel, with the loads summed per body by [`Accumulation`] (deterministic for any
//! thread count; see there).
//!
//! Per-block summaries use the same fixed blocks and are reduced sequentially in block
//! order, so the step report does not depend on the thread count either.

mod batched;
mod other_pairs;
mod per_pair;

pub(crate) use per_pair::{BlockState, BlockSummary, PassInput};

use crate::accumulation::{Accumulation, BlockSink, LoadSink, RecordOut, Recording, SinkBlocks};
use crate::pairs::{PairKind, PairList};
use crate::points::PairPoints;
use batched::block_pass_batched;
use granula_core::{parallel, ContactForce, ContactKey, ContactLaw, ContactRecord, DVec3};
use other_pairs::{other_pair, PairSlots};
use per_pair::{kinematics, pair_load, record, separation, sphere_geometry};

/// Narrowphase and law for the pairs `base..base + histories.len()`, loads into `sink`.
pub(crate) fn block_pass<L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    base: usize,
    (histories, stored, points): BlockState<'_, L::History>,
    sink: &mut S,
) -> BlockSummary {
    if input.commit && input.law.batches() {
        return block_pass_batched(input, base, (histories, stored, points), sink);
    }
    let b = input.bodies;
    // Kept in locals (registers) for the whole loop, written once by the caller.
    let mut summary = BlockSummary::default();
    let candidates = &input.candidates[base..base + histories.len()];
    // A constant of the law's type once inlined: laws that ignore rotations load none.
    let rotations = input.law.uses_rotations();
    let mut failure = None;
    let pairs = candidates.iter().zip(histories.iter_mut()).zip(stored.iter_mut()).zip(points.iter_mut());
    for (k, (((c, hist), last_stored), list)) in pairs.enumerate() {
        let p = base + k;
        if c.kind != PairKind::Spheres {
            let slots = PairSlots { history: hist, stored: last_stored, points: list };
            other_pair(input, p, c, slots, sink, &mut summary, &mut failure);
            continue;
        }
        let (i, j) = (c.body1 as usize, c.body2 as usize);
        let d = separation(&b.position, input.shifts, p, c);
        let g = match sphere_geometry(b, c, d, &mut failure) {
            Ok(Some(g)) => g,
            Ok(None) => {
                sink.none(p);
                if input.commit && *last_stored != 0.0 {
                    // The energy a contact still stored when it opened (a loaded tangential
                    // spring) is lost with its history: count it as dissipated by sliding.
                    if input.books(i, j) {
                        summary.dissipated.sliding += *last_stored;
                    }
                    *last_stored = 0.0;
                }
                if input.commit {
                    *hist = Default::default();
                }
                continue;
            }
            Err(()) => {
                sink.none(p);
                continue;
            }
        };
        let kin = kinematics(input, p, c, &g, rotations);
        let cf: ContactForce = if input.commit {
            input.law.force(&kin, hist)
        } else {
            let mut scratch = *hist;
            input.law.force(&kin, &mut scratch)
        };
        sink.add(p, i, j, pair_load(&g, &cf));
        if !input.commit {
            continue;
        }
        if sink.records() {
            sink.record(p, record(c, &g, kin.relative_velocity, &cf));
        }
        *last_stored = cf.stored;
        summary.book(b, p, c, &g, &cf, input.books(i, j));
        summary.pairs += 1;
    }
    summary.failed = failure;
    summary
}

/// Runs the pass over all candidates and leaves the contact loads of every body in `force`
/// and `torque` (overwritten), with one summary per block of `accumulation` in `summaries`.
/// `histories` and `stored` hold, per pair, the history and the elastic energy stored at
/// its last evaluation (of a sphere pair, or of the first point of another pair), and
/// `points` the points of the pairs that are not two spheres; `record`,
/// if given (the keys of the candidates and one list per block), receives the contacts of
/// each block in pair order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pair_pass<L: ContactLaw>(
    input: &PassInput<'_, L>,
    pairs: &PairList,
    accumulation: &mut Accumulation,
    histories: &mut [L::History],
    stored: &mut [f64],
    points: &mut [PairPoints<L::History>],
    summaries: &mut [BlockSummary],
    record: Option<(&[ContactKey], &mut [Vec<ContactRecord>])>,
    force: &mut [DVec3],
    torque: &mut [DVec3],
) {
    debug_assert_eq!(histories.len(), input.candidates.len());
    debug_assert_eq!(summaries.len(), accumulation.blocks());
    let block = accumulation.block();
    let (keys, records) = match record {
        Some((keys, lists)) => (keys, Some(lists)),
        None => (&[][..], None),
    };
    // One compiled loop per accumulation strategy. Publishing the contacts and periodic
    // images are tests in the loop that take the same branch for every pair of a step:
    // compiling a loop for each (eight in all) made the force pass most of the code of
    // every law's solver, for no measurable gain in speed.
    let run = BlockRun { first: 0, histories, stored, points, summaries, sinks: accumulation.sinks(), records };
    run_blocks(input, block, keys, run);
    if accumulation.uses_windows() {
        accumulation.merge(force, torque);
    } else {
        accumulation.gather(pairs, force, torque);
    }
}

/// The state of a run of consecutive blocks of the pass (pairs of `block` per block, the
/// run's first block is block `first`): the pairs' histories, stored energies and points,
/// and per block its summary, its sink and (on a publishing step) its contact list.
struct BlockRun<'a, H> {
    first: usize,
    histories: &'a mut [H],
    stored: &'a mut [f64],
    points: &'a mut [PairPoints<H>],
    summaries: &'a mut [BlockSummary],
    sinks: SinkBlocks<'a>,
    records: Option<&'a mut [Vec<ContactRecord>]>,
}

impl<H> BlockRun<'_, H> {
    /// The run's first `k` blocks, and the others.
    fn split_at(self, k: usize, block: usize) -> (Self, Self) {
        let p = (k * block).min(self.histories.len());
        let (histories1, histories2) = self.histories.split_at_mut(p);
        let (stored1, stored2) = self.stored.split_at_mut(p);
        let (points1, points2) = self.points.split_at_mut(p);
        let (summaries1, summaries2) = self.summaries.split_at_mut(k.min(self.summaries.len()));
        let (sinks1, sinks2) = self.sinks.split_at(k);
        let (records1, records2) = match self.records {
            Some(lists) => {
                let (a, b) = lists.split_at_mut(k.min(lists.len()));
                (Some(a), Some(b))
            }
            None => (None, None),
        };
        let left = BlockRun {
            first: self.first,
            histories: histories1,
            stored: stored1,
            points: points1,
            summaries: summaries1,
            sinks: sinks1,
            records: records1,
        };
        let right = BlockRun {
            first: self.first + k,
            histories: histories2,
            stored: stored2,
            points: points2,
            summaries: summaries2,
            sinks: sinks2,
            records: records2,
        };
        (left, right)
    }
}

/// Runs [`block_pass`] for every block of `run`, block k into its own sink and summary
/// (and, with `records`, its contact list, the keys of all the pairs in `keys`): halves of
/// the run side by side on the pool, down to single blocks, or all of them in order on the
/// calling thread inside [`parallel::sequential`]. Each block's results are its own, so
/// the split changes no bit. The halves go to [`parallel::join`] as trait objects: this
/// recursion is all the parallel code a law's pass compiles.
fn run_blocks<L: ContactLaw>(
    input: &PassInput<'_, L>,
    block: usize,
    keys: &[ContactKey],
    run: BlockRun<'_, L::History>,
) {
    let blocks = run.histories.len().div_ceil(block);
    if blocks > 1 && !parallel::is_sequential() {
        let (left, right) = run.split_at(blocks / 2, block);
        let (mut left, mut right) = (Some(left), Some(right));
        parallel::join(
            &mut || {
                if let Some(run) = left.take() {
                    run_blocks(input, block, keys, run);
                }
            },
            &mut || {
                if let Some(run) = right.take() {
                    run_blocks(input, block, keys, run);
                }
            },
        );
        return;
    }
    let BlockRun { first, histories, stored, points, summaries, mut sinks, mut records } = run;
    for i in 0..blocks {
        let pairs = i * block..((i + 1) * block).min(histories.len());
        let state = (&mut histories[pairs.clone()], &mut stored[pairs.clone()], &mut points[pairs]);
        let base = (first + i) * block;
        let out = records.as_deref_mut().map(|lists| {
            let contacts = &mut lists[i];
            contacts.clear();
            RecordOut { base, keys: &keys[base..(base + block).min(keys.len())], contacts }
        });
        summaries[i] = match sinks.sink(i) {
            BlockSink::Window(inner) => block_pass(input, base, state, &mut Recording { inner, out }),
            BlockSink::Buffer(inner) => block_pass(input, base, state, &mut Recording { inner, out }),
        };
    }
}
