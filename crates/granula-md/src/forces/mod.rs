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

use crate::accumulation::{Accumulation, LoadSink, RecordOut, Recording};
use crate::pairs::{PairKind, PairList};
use crate::points::PairPoints;
use batched::block_pass_batched;
use granula_core::{parallel, ContactForce, ContactKey, ContactLaw, ContactRecord, DVec3};
use other_pairs::{other_pair, PairSlots};
use per_pair::{kinematics, pair_load, record, separation, sphere_geometry};
use rayon::iter::Either;
use rayon::prelude::*;

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
    let blocks = (histories, stored, points);
    // Two compiled loops, one per accumulation strategy. Publishing the contacts and
    // periodic images are tests in the loop that take the same branch for every pair of a
    // step: compiling a loop for each (eight in all) made the force pass most of the code
    // of every law's solver, for no measurable gain in speed.
    if accumulation.uses_windows() {
        each_block(input, block, blocks, summaries, recording(accumulation.window_sinks(), record, block));
    } else {
        each_block(input, block, blocks, summaries, recording(accumulation.buffer_sinks(), record, block));
    }
    if accumulation.uses_windows() {
        accumulation.merge(force, torque);
    } else {
        accumulation.gather(pairs, force, torque);
    }
}

/// Runs [`block_pass`] for every block of `block` pairs in parallel, block k into the k-th
/// sink of `sinks`, its summary into the k-th of `summaries`.
fn each_block<L: ContactLaw, S: LoadSink + Send>(
    input: &PassInput<'_, L>,
    block: usize,
    (histories, stored, points): BlockState<'_, L::History>,
    summaries: &mut [BlockSummary],
    sinks: impl IndexedParallelIterator<Item = S>,
) {
    histories
        .par_chunks_mut(block)
        .zip(stored.par_chunks_mut(block))
        .zip(points.par_chunks_mut(block))
        .zip(summaries.par_iter_mut())
        .zip(sinks)
        .with_min_len(parallel::min_len(1))
        .enumerate()
        .for_each(|(k, ((((h, e), l), s), mut sink))| {
            *s = block_pass(input, k * block, (h, e, l), &mut sink);
        });
}

/// `sinks` (one per block of `block` pairs) wrapped so that, with `out` (the keys of the
/// pairs and one list per block), they also keep each block's contacts in the k-th list.
fn recording<'a, S: LoadSink + Send>(
    sinks: impl IndexedParallelIterator<Item = S>,
    out: Option<(&'a [ContactKey], &'a mut [Vec<ContactRecord>])>,
    block: usize,
) -> impl IndexedParallelIterator<Item = Recording<'a, S>> {
    let (keys, lists) = match out {
        Some((keys, lists)) => (keys, Some(lists)),
        None => (&[][..], None),
    };
    // One optional list per block: the lists, or as many `None`s.
    let blocks = sinks.len();
    let lists = match lists {
        Some(lists) => Either::Left(lists.par_iter_mut().map(Some)),
        None => Either::Right((0..blocks).into_par_iter().map(|_| None)),
    };
    sinks.zip(lists).enumerate().map(move |(k, (inner, contacts))| {
        let out = contacts.map(|contacts: &mut Vec<ContactRecord>| {
            contacts.clear();
            let base = k * block;
            RecordOut { base, keys: &keys[base..(base + block).min(keys.len())], contacts }
        });
        Recording { inner, out }
    })
}
