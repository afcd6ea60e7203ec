//! The force pass: narrowphase and contact law per candidate pair, block by block in
//! parallel, with the loads summed per body by [`Accumulation`] (deterministic for any
//! thread count; see there).
//!
//! Per-block summaries use the same fixed blocks and are reduced sequentially in block
//! order, so the step report does not depend on the thread count either.

use crate::accumulation::{Accumulation, LoadSink, PairLoad, Recording};
use crate::pairs::{Candidate, PairKind, PairList};
use granula_core::narrowphase::{Narrowphase, NarrowphaseError};
use granula_core::{
    parallel, BodyHandle, BodySet, ContactForce, ContactGeometry, ContactKey, ContactKinematics, ContactLaw,
    ContactRecord, ContactStatusCounts, DVec3, Dissipation, PairMaterial,
};
use rayon::prelude::*;
use std::cell::RefCell;

/// Reduction of one block of pairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BlockSummary {
    pub contacts: usize,
    pub status: ContactStatusCounts,
    pub dissipated: Dissipation,
    pub stored: f64,
    pub max_overlap: f64,
    pub max_ratio: f64,
    /// Pair of the largest overlap ratio (`u32::MAX` if no overlap).
    pub max_pair: u32,
    /// The first narrowphase failure of the block, in pair order.
    pub failed: Option<NarrowphaseError>,
}

impl Default for BlockSummary {
    fn default() -> Self {
        BlockSummary {
            contacts: 0,
            status: ContactStatusCounts::default(),
            dissipated: Dissipation::default(),
            stored: 0.0,
            max_overlap: 0.0,
            max_ratio: 0.0,
            max_pair: u32::MAX,
            failed: None,
        }
    }
}

impl BlockSummary {
    /// Folds `o` (a later block) into `self`; ties keep the earlier pair.
    pub fn merge(&mut self, o: &BlockSummary) {
        self.contacts += o.contacts;
        self.status.add(&o.status);
        self.dissipated += o.dissipated;
        self.stored += o.stored;
        if o.max_ratio > self.max_ratio {
            self.max_ratio = o.max_ratio;
            self.max_pair = o.max_pair;
        }
        self.max_overlap = self.max_overlap.max(o.max_overlap);
        if self.failed.is_none() {
            self.failed = o.failed;
        }
    }
}

/// Read-only inputs of the pass.
pub(crate) struct PassInput<'a, L: ContactLaw> {
    pub law: &'a L,
    pub bodies: &'a BodySet,
    /// The world's narrowphase, for the pairs that are not two spheres.
    pub narrowphase: &'a Narrowphase,
    /// The material table's pair values ([`MaterialTable::pairs`](granula_core::MaterialTable::pairs)).
    pub materials: &'a [PairMaterial],
    /// The law's own pair parameters, aligned with `materials`.
    pub pair_parameters: &'a [L::Pair],
    pub candidates: &'a [Candidate],
    pub dt: f64,
    /// Per body, the rotation vector since the previous force evaluation (002 eq. 15; zero
    /// in the priming pass).
    pub rotation: &'a [DVec3],
    /// Per body, the offsets from the body set's velocities to those at the force's time
    /// level ([`Integrator::force_velocity_offsets`](granula_core::Integrator::force_velocity_offsets)),
    /// applied to the normal part of each contact's relative velocity; `None`: none.
    pub velocity_offsets: Option<(&'a [DVec3], &'a [DVec3])>,
    /// `false` for the priming pass at the initial state: histories are not updated and
    /// the summaries are not used.
    pub commit: bool,
}

/// Contact geometry of one candidate within its margin, `Ok(None)` beyond it, `Err` when
/// undefined or unsupported, with the typed narrowphase error put in `failure` if it holds
/// none yet (the error stays out of the return value, which keeps the hot loop's code as
/// small as with no error to carry).
///
/// Sphere pairs take an inlined path with the same formulas as the core's `sphere_sphere`
/// (n = (x₂ − x₁)/|x₂ − x₁|, g = |x₂ − x₁| − r₁ − r₂, contact point at the middle of the
/// overlap) but one reciprocal instead of divisions and R* precomputed per pair; other pairs
/// go through the world's narrowphase, which returns the point of the candidate's feature.
#[inline(always)]
fn geometry(
    b: &BodySet,
    narrowphase: &Narrowphase,
    c: &Candidate,
    failure: &mut Option<NarrowphaseError>,
) -> Result<Option<ContactGeometry>, ()> {
    let (i, j) = (c.body1 as usize, c.body2 as usize);
    match c.kind {
        PairKind::Spheres => {
            let d = b.position[j] - b.position[i];
            let dist2 = d.length_squared();
            if dist2 > c.reach2 {
                return Ok(None);
            }
            let (r1, r2) = (c.radius1, c.radius2);
            let dist = dist2.sqrt();
            if dist <= 1e-12 * (r1 + r2) {
                failure.get_or_insert_with(|| concentric(b, c));
                return Err(());
            }
            let normal = d * (1.0 / dist);
            let gap = dist - r1 - r2;
            let branch1 = normal * (r1 + 0.5 * gap);
            Ok(Some(ContactGeometry {
                // Only read when the contacts are published.
                point: b.position[i] + branch1,
                normal,
                gap,
                branch1,
                branch2: branch1 - d,
                effective_radius: c.effective_radius,
                feature: 0,
            }))
        }
        PairKind::General => general_geometry(b, narrowphase, c).map_err(|e| {
            failure.get_or_insert(e);
        }),
    }
}

thread_local! {
    /// The points of a host pair, reused from pair to pair on each thread.
    static SCRATCH: RefCell<Vec<ContactGeometry>> = const { RefCell::new(Vec::new()) };
}

/// The narrowphase path of [`geometry`], kept out of line (and its point buffer out of the
/// loop's frame) so that the sphere pairs' loop stays as it was before the dispatch existed.
#[inline(never)]
fn general_geometry(
    b: &BodySet,
    narrowphase: &Narrowphase,
    c: &Candidate,
) -> Result<Option<ContactGeometry>, NarrowphaseError> {
    let (i, j) = (c.body1 as usize, c.body2 as usize);
    SCRATCH.with(|scratch| narrowphase.collide_feature(b, i, j, c.margin, c.feature as u32, &mut scratch.borrow_mut()))
}

/// The error of two concentric spheres, with the core's wording.
#[cold]
fn concentric(b: &BodySet, c: &Candidate) -> NarrowphaseError {
    let (body1, body2) = (b.handle[c.body1 as usize], b.handle[c.body2 as usize]);
    NarrowphaseError::Degenerate { body1, body2, reason: "concentric spheres" }
}

/// The kinematics of candidate `c` of geometry `g` (the core's constructor), with the
/// normal rate moved to the force's time level and the rotation increments if the law
/// reads them.
#[inline(always)]
fn kinematics<'a, L: ContactLaw>(
    input: &PassInput<'a, L>,
    c: &Candidate,
    g: &ContactGeometry,
    rotations: bool,
) -> ContactKinematics<'a, L::Pair> {
    let (i, j) = (c.body1 as usize, c.body2 as usize);
    let (material, pair) = (&input.materials[c.material as usize], &input.pair_parameters[c.material as usize]);
    let mut kin = ContactKinematics::new(input.bodies, i, j, g, c.effective_mass, material, input.dt).with_pair(pair);
    if let Some((dv, dw)) = input.velocity_offsets {
        // The normal rate at the force's time level (dashpots); the tangential part stays
        // the body set's (Verlet: half-step, so that a spring increment 𝒱_t Δt is the
        // step's displacement). For two spheres the branch vectors lie along the normal,
        // so spins add nothing to the normal rate and their offsets are not read.
        let mut lead = dv[j] - dv[i];
        if c.kind != PairKind::Spheres {
            lead += dw[j].cross(g.branch2) - dw[i].cross(g.branch1);
        }
        kin.relative_velocity += g.normal * lead.dot(g.normal);
    }
    if rotations {
        kin.rotation1 = input.rotation[i];
        kin.rotation2 = input.rotation[j];
    }
    kin
}

/// The published record of a contact (its key is filled in by the recording sink).
#[inline(always)]
fn record<P>(c: &Candidate, g: &ContactGeometry, kin: &ContactKinematics<'_, P>, cf: &ContactForce) -> ContactRecord {
    ContactRecord {
        key: ContactKey { body1: BodyHandle(u32::MAX), body2: BodyHandle(u32::MAX), feature: g.feature },
        body1: c.body1,
        body2: c.body2,
        point: g.point,
        normal: g.normal,
        tangent: g.tangents().0,
        gap: g.gap,
        branch1: g.branch1,
        branch2: g.branch2,
        relative_velocity: kin.relative_velocity,
        force: cf.force,
        couple: cf.torque,
        status: cf.status,
    }
}

impl BlockSummary {
    /// Books a committed contact of candidate `c` (pair `p`) of geometry `g`: count by the
    /// law's status, energies, largest overlap and overlap ratio.
    #[inline(always)]
    fn book(&mut self, b: &BodySet, p: usize, c: &Candidate, g: &ContactGeometry, cf: &ContactForce) {
        self.contacts += 1;
        self.dissipated += cf.dissipated;
        self.stored += cf.stored;
        self.status.count(cf.status);
        let overlap = -g.gap;
        if overlap > 0.0 {
            self.max_overlap = self.max_overlap.max(overlap);
            // The division only for a candidate record (overlap > ratio·r_min first).
            let (i, j) = (c.body1 as usize, c.body2 as usize);
            let r_min =
                if c.kind == PairKind::Spheres { c.radius1.min(c.radius2) } else { b.radius[i].min(b.radius[j]) };
            if overlap > self.max_ratio * r_min {
                let ratio = overlap / r_min;
                if ratio > self.max_ratio {
                    self.max_ratio = ratio;
                    self.max_pair = p as u32;
                }
            }
        }
    }
}

/// Narrowphase and law for the pairs `base..base + histories.len()`, loads into `sink`.
fn block_pass<L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    base: usize,
    histories: &mut [L::History],
    stored: &mut [f64],
    sink: &mut S,
) -> BlockSummary {
    let b = input.bodies;
    // Kept in locals (registers) for the whole loop, written once by the caller.
    let mut summary = BlockSummary::default();
    let candidates = &input.candidates[base..base + histories.len()];
    // A constant of the law's type once inlined: laws that ignore rotations load none.
    let rotations = input.law.uses_rotations();
    let mut failure = None;
    for (k, ((c, hist), last_stored)) in candidates.iter().zip(histories.iter_mut()).zip(stored.iter_mut()).enumerate()
    {
        let p = base + k;
        let (i, j) = (c.body1 as usize, c.body2 as usize);
        let g = match geometry(b, input.narrowphase, c, &mut failure) {
            Ok(Some(g)) => g,
            Ok(None) => {
                sink.none(p);
                if input.commit && *last_stored != 0.0 {
                    // The energy a contact still stored when it opened (a loaded tangential
                    // spring) is lost with its history: count it as dissipated by sliding.
                    summary.dissipated.sliding += *last_stored;
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
        let kin = kinematics(input, c, &g, rotations);
        let cf: ContactForce = if input.commit {
            input.law.force(&kin, hist)
        } else {
            let mut scratch = *hist;
            input.law.force(&kin, &mut scratch)
        };
        sink.add(
            p,
            i,
            j,
            PairLoad {
                force: cf.force,
                torque1: -g.branch1.cross(cf.force) - cf.torque,
                torque2: g.branch2.cross(cf.force) + cf.torque,
            },
        );
        if !input.commit {
            continue;
        }
        if S::RECORDS {
            sink.record(p, record(c, &g, &kin, &cf));
        }
        *last_stored = cf.stored;
        summary.book(b, p, c, &g, &cf);
    }
    summary.failed = failure;
    summary
}

/// Runs the pass over all candidates and leaves the contact loads of every body in `force`
/// and `torque` (overwritten), with one summary per block of `accumulation` in `summaries`.
/// `stored` holds, per pair, the elastic energy stored at its last evaluation; `record`,
/// if given (the keys of the candidates and one list per block), receives the contacts of
/// each block in pair order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pair_pass<L: ContactLaw>(
    input: &PassInput<'_, L>,
    pairs: &PairList,
    accumulation: &mut Accumulation,
    histories: &mut [L::History],
    stored: &mut [f64],
    summaries: &mut [BlockSummary],
    record: Option<(&[ContactKey], &mut [Vec<ContactRecord>])>,
    force: &mut [DVec3],
    torque: &mut [DVec3],
) {
    debug_assert_eq!(histories.len(), input.candidates.len());
    debug_assert_eq!(summaries.len(), accumulation.blocks());
    let block = accumulation.block();
    let blocks = (histories, stored, summaries);
    // Four monomorphised loops (window or buffer sink, recording or not), so the hot loop
    // carries no test of either choice.
    match (accumulation.uses_windows(), record) {
        (true, None) => each_block(input, block, blocks, accumulation.window_sinks()),
        (true, Some(out)) => each_block(input, block, blocks, recording(accumulation.window_sinks(), out, block)),
        (false, None) => each_block(input, block, blocks, accumulation.buffer_sinks()),
        (false, Some(out)) => each_block(input, block, blocks, recording(accumulation.buffer_sinks(), out, block)),
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
    (histories, stored, summaries): (&mut [L::History], &mut [f64], &mut [BlockSummary]),
    sinks: impl IndexedParallelIterator<Item = S>,
) {
    histories
        .par_chunks_mut(block)
        .zip(stored.par_chunks_mut(block))
        .zip(summaries.par_iter_mut())
        .zip(sinks)
        .with_min_len(parallel::min_len(1))
        .enumerate()
        .for_each(|(k, (((h, e), s), mut sink))| {
            *s = block_pass(input, k * block, h, e, &mut sink);
        });
}

/// `sinks` (one per block of `block` pairs) wrapped so that they also keep each block's
/// contacts, with the keys `keys` of the pairs, in the k-th list of `out`.
fn recording<'a, S: LoadSink + Send>(
    sinks: impl IndexedParallelIterator<Item = S>,
    (keys, out): (&'a [ContactKey], &'a mut [Vec<ContactRecord>]),
    block: usize,
) -> impl IndexedParallelIterator<Item = Recording<'a, S>> {
    sinks.zip(out.par_iter_mut()).enumerate().map(move |(k, (inner, contacts))| {
        contacts.clear();
        let base = k * block;
        Recording { inner, base, keys: &keys[base..(base + block).min(keys.len())], contacts }
    })
}
