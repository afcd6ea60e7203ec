//! The force pass: narrowphase and contact law per candidate pair, block by block in
//! parallel, with the loads summed per body by [`Accumulation`] (deterministic for any
//! thread count; see there).
//!
//! Per-block summaries use the same fixed blocks and are reduced sequentially in block
//! order, so the step report does not depend on the thread count either.

use crate::accumulation::{Accumulation, LoadSink, PairLoad, Recording};
use crate::pairs::{Candidate, PairKind, PairList};
use crate::points::PointState;
use granula_core::narrowphase::{sphere_cylinder, sphere_plane, Narrowphase, NarrowphaseError, PairMemory};
use granula_core::point_relative_velocity;
use granula_core::{
    parallel, BodyHandle, BodySet, ContactBatch, ContactForce, ContactGeometry, ContactKey, ContactKinematics,
    ContactLaw, ContactRecord, ContactStatusCounts, DVec3, Dissipation, MotionKind, PairMaterial, Shape, BATCH_LANES,
};
use rayon::prelude::*;
use std::cell::RefCell;

/// Reduction of one block of pairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BlockSummary {
    /// Contact points committed.
    pub contacts: usize,
    /// Pairs with at least one committed point.
    pub pairs: usize,
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
            pairs: 0,
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
        self.pairs += o.pairs;
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
    /// Per candidate, the translation of body 2's periodic image nearest to body 1
    /// ([`PairList::shifts`](crate::pairs::PairList)); empty without periodic axes.
    pub shifts: &'a [DVec3],
    /// Per candidate, the memory its contact generator keeps between steps
    /// ([`PairList::memory`](crate::pairs::PairList)).
    pub memory: &'a [PairMemory],
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
    /// Per body, whether another process owns it ([`MdSolver::set_foreign_bodies`](crate::MdSolver::set_foreign_bodies));
    /// empty: every body is this process's.
    pub foreign: &'a [bool],
}

impl<L: ContactLaw> PassInput<'_, L> {
    /// Whether this process books the energies of the pair of bodies `i` and `j` (dense
    /// indices, `i < j`): always without foreign bodies; otherwise when the pair's first
    /// dynamic body is not foreign, so that a pair computed by several processes is booked
    /// by one of them only.
    #[inline(always)]
    fn books(&self, i: usize, j: usize) -> bool {
        self.foreign.is_empty() || self.books_shared_pair(i, j)
    }

    #[inline(never)]
    fn books_shared_pair(&self, i: usize, j: usize) -> bool {
        let first = if self.bodies.motion[i] == MotionKind::Dynamic { i } else { j };
        !self.foreign.get(first).copied().unwrap_or(false)
    }

    /// The position of the image of body 2 of candidate `p` (its own without periodic axes).
    #[inline]
    fn image_position(&self, p: usize, c: &Candidate) -> DVec3 {
        let x = self.bodies.position[c.body2 as usize];
        if self.shifts.is_empty() {
            x
        } else {
            x + self.shifts[p]
        }
    }

    /// The separation of candidate `p` ([`separation`], the periodic test at run time, for
    /// the paths off the hot loop).
    #[inline]
    fn separation(&self, p: usize, c: &Candidate) -> DVec3 {
        if self.shifts.is_empty() {
            separation::<false>(&self.bodies.position, self.shifts, p, c)
        } else {
            separation::<true>(&self.bodies.position, self.shifts, p, c)
        }
    }
}

/// The separation x₂ − x₁ of candidate `p` (`c`), plus, when `PERIODIC`, the translation
/// `shifts[p]` of body 2's nearest periodic image (the minimum image). A constant of each
/// monomorphised loop: the path without periodic axes reads no shift and adds nothing.
#[inline(always)]
fn separation<const PERIODIC: bool>(position: &[DVec3], shifts: &[DVec3], p: usize, c: &Candidate) -> DVec3 {
    let d = position[c.body2 as usize] - position[c.body1 as usize];
    if PERIODIC {
        d + shifts[p]
    } else {
        d
    }
}

/// Contact geometry of a sphere pair within its margin, `Ok(None)` beyond it, `Err` for
/// concentric spheres, with the typed narrowphase error put in `failure` if it holds none
/// yet (the error stays out of the return value, which keeps the hot loop's code as small
/// as with no error to carry).
///
/// The same formulas as the core's `sphere_sphere` (n = (x₂ − x₁)/|x₂ − x₁|,
/// g = |x₂ − x₁| − r₁ − r₂, contact point at the middle of the overlap) but one reciprocal
/// instead of divisions and R* precomputed per pair. `d` is the pair's separation
/// ([`separation`]: x₂ − x₁, or to the nearest periodic image of body 2).
#[inline(always)]
fn sphere_geometry(
    b: &BodySet,
    c: &Candidate,
    d: DVec3,
    failure: &mut Option<NarrowphaseError>,
) -> Result<Option<ContactGeometry>, ()> {
    let i = c.body1 as usize;
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
        overlap_volume: 0.0,
    }))
}

thread_local! {
    /// The points of a general pair, reused from pair to pair on each thread.
    static SCRATCH: RefCell<Vec<ContactGeometry>> = const { RefCell::new(Vec::new()) };
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
fn record(c: &Candidate, g: &ContactGeometry, relative_velocity: DVec3, cf: &ContactForce) -> ContactRecord {
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
        relative_velocity,
        force: cf.force,
        couple: cf.torque,
        status: cf.status,
    }
}

impl BlockSummary {
    /// Books a committed contact of candidate `c` (pair `p`) of gap `gap`: count by the
    /// law's status, energies (when `energies`, see [`PassInput::books`]), largest overlap
    /// and overlap ratio.
    #[inline(always)]
    fn book(&mut self, b: &BodySet, p: usize, c: &Candidate, gap: f64, cf: &ContactForce, energies: bool) {
        self.contacts += 1;
        if energies {
            self.dissipated += cf.dissipated;
            self.stored += cf.stored;
        }
        self.status.count(cf.status);
        let overlap = -gap;
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

/// The slices of one block's pairs: the sphere pairs' histories and stored energies, the
/// other pairs' point lists.
pub(crate) type BlockState<'s, H> = (&'s mut [H], &'s mut [f64], &'s mut [Vec<PointState<H>>]);

/// Narrowphase and law for the pairs `base..base + histories.len()`, loads into `sink`;
/// `PERIODIC`: the pairs' separations include their image shifts.
pub(crate) fn block_pass<L: ContactLaw, S: LoadSink, const PERIODIC: bool>(
    input: &PassInput<'_, L>,
    base: usize,
    (histories, stored, points): BlockState<'_, L::History>,
    sink: &mut S,
) -> BlockSummary {
    if input.commit && input.law.batches() {
        return block_pass_batched::<L, S, PERIODIC>(input, base, (histories, stored, points), sink);
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
            other_pair(input, p, c, list, sink, &mut summary, &mut failure);
            continue;
        }
        let (i, j) = (c.body1 as usize, c.body2 as usize);
        let d = separation::<PERIODIC>(&b.position, input.shifts, p, c);
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
        let kin = kinematics(input, c, &g, rotations);
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
        if S::RECORDS {
            sink.record(p, record(c, &g, kin.relative_velocity, &cf));
        }
        *last_stored = cf.stored;
        summary.book(b, p, c, g.gap, &cf, input.books(i, j));
        summary.pairs += 1;
    }
    summary.failed = failure;
    summary
}

/// A batch of sphere contacts with what the pass needs besides the law's inputs: per lane,
/// the pair's bodies, its branch vectors and its smaller radius, and for a sphere on a wall
/// its point's feature.
struct LaneBatch {
    batch: ContactBatch,
    /// The feature of a wall contact's point, [`SPHERE_LANE`] for two spheres.
    feature: [u32; BATCH_LANES],
    /// Dense index of body 1.
    body1: [u32; BATCH_LANES],
    /// Dense index of body 2.
    body2: [u32; BATCH_LANES],
    /// Branch vector of body 1 (x, y, z rows).
    branch1: [[f64; BATCH_LANES]; 3],
    /// Branch vector of body 2 (x, y, z rows).
    branch2: [[f64; BATCH_LANES]; 3],
    /// The smaller radius of the pair (for the largest overlap ratio).
    r_min: [f64; BATCH_LANES],
}

impl LaneBatch {
    /// Appends the contact of sphere pair `k` of the block (candidate `c`) with its normal,
    /// gap (< 0), branch vectors, relative velocity and the candidate's pair constants.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn push(&mut self, c: &Candidate, k: usize, normal: DVec3, gap: f64, b1: DVec3, b2: DVec3, velocity: DVec3) {
        let l = self.batch.push(normal, -gap, velocity, c.effective_radius, c.effective_mass, c.material, k as u32);
        self.body1[l] = c.body1;
        self.body2[l] = c.body2;
        self.branch1[0][l] = b1.x;
        self.branch1[1][l] = b1.y;
        self.branch1[2][l] = b1.z;
        self.branch2[0][l] = b2.x;
        self.branch2[1][l] = b2.y;
        self.branch2[2][l] = b2.z;
        self.r_min[l] = c.radius1.min(c.radius2);
        self.feature[l] = SPHERE_LANE;
    }

    /// Appends the contact of wall pair `k` of the block, of geometry `g` and kinematics
    /// `kin`, with its smaller radius `r_min` (its history is in the block's history slot
    /// `k` while the batch waits).
    #[inline(always)]
    fn push_wall<P>(
        &mut self,
        c: &Candidate,
        k: usize,
        g: &ContactGeometry,
        kin: &ContactKinematics<'_, P>,
        r_min: f64,
    ) {
        let l = self.batch.push(
            kin.normal,
            kin.overlap,
            kin.relative_velocity,
            kin.effective_radius,
            kin.effective_mass,
            c.material,
            k as u32,
        );
        self.body1[l] = c.body1;
        self.body2[l] = c.body2;
        self.branch1[0][l] = g.branch1.x;
        self.branch1[1][l] = g.branch1.y;
        self.branch1[2][l] = g.branch1.z;
        self.branch2[0][l] = g.branch2.x;
        self.branch2[1][l] = g.branch2.y;
        self.branch2[2][l] = g.branch2.z;
        self.r_min[l] = r_min;
        self.feature[l] = g.feature;
    }
}

/// The feature mark of a lane between two spheres.
const SPHERE_LANE: u32 = u32::MAX;

thread_local! {
    /// The lane batch of [`block_pass_batched`], reused from block to block on each thread.
    static LANE_BATCH: RefCell<Option<Box<LaneBatch>>> = const { RefCell::new(None) };
}

/// [`block_pass`] for a law with a batched form ([`ContactLaw::batches`]): the overlapping
/// sphere pairs and the one-point sphere-wall contacts ([`wall_lane`]) fill the lanes of a
/// batch directly from the candidate list (geometry, branch vectors and relative velocity
/// computed as they are pushed), the law runs on the full batch
/// ([`ContactLaw::force_batch`]) and the loads and bookings are handed out from the lanes
/// in lane order, which is the pair order of the contacts. Everything else is done at
/// once, except what must keep its place in the order of the sums (a general pair, a wall
/// pair that is not a lane, a pair within its margin without overlap, a pair that opens
/// with stored energy): the lanes are run before it. So every body's loads and every summary field are
/// summed in the scalar path's order, and with a batched form that equals the scalar law
/// to the bit (the built-in ones) the two paths give the same bits.
fn block_pass_batched<L: ContactLaw, S: LoadSink, const PERIODIC: bool>(
    input: &PassInput<'_, L>,
    base: usize,
    (histories, stored, points): BlockState<'_, L::History>,
    sink: &mut S,
) -> BlockSummary {
    let b = input.bodies;
    let mut summary = BlockSummary::default();
    let candidates = &input.candidates[base..base + histories.len()];
    let mut failure = None;
    // The thread's batch, taken out for the block (nothing to clear per block).
    let mut lb = LANE_BATCH.with(|s| s.borrow_mut().take()).unwrap_or_else(|| {
        Box::new(LaneBatch {
            batch: ContactBatch::default(),
            feature: [SPHERE_LANE; BATCH_LANES],
            body1: [0; BATCH_LANES],
            body2: [0; BATCH_LANES],
            branch1: [[0.0; BATCH_LANES]; 3],
            branch2: [[0.0; BATCH_LANES]; 3],
            r_min: [0.0; BATCH_LANES],
        })
    });
    lb.batch.dt = input.dt;
    lb.batch.len = 0;
    let (position, velocity, spin) = (&b.position[..], &b.velocity[..], &b.angular_velocity[..]);
    for (k, c) in candidates.iter().enumerate() {
        if c.kind != PairKind::Spheres {
            if c.kind == PairKind::Wall && !S::RECORDS {
                wall_lane(
                    input,
                    base,
                    k,
                    c,
                    &mut lb,
                    (&mut *histories, &mut *stored, &mut *points),
                    sink,
                    &mut summary,
                    &mut failure,
                );
            } else {
                run_lanes(input, base, &mut lb, (&mut *histories, &mut *stored, &mut *points), sink, &mut summary);
                other_pair(input, base + k, c, &mut points[k], sink, &mut summary, &mut failure);
            }
            continue;
        }
        let (i, j) = (c.body1 as usize, c.body2 as usize);
        let d = separation::<PERIODIC>(position, input.shifts, base + k, c);
        let dist2 = d.length_squared();
        if dist2 > c.reach2 {
            // Beyond the margin: no load, history reset.
            sink.none(base + k);
            if stored[k] != 0.0 {
                // As on the scalar path: a loaded spring that opens is booked as sliding,
                // after the contacts before it.
                run_lanes(input, base, &mut lb, (&mut *histories, &mut *stored, &mut *points), sink, &mut summary);
                if input.books(i, j) {
                    summary.dissipated.sliding += stored[k];
                }
                stored[k] = 0.0;
            }
            histories[k] = Default::default();
            continue;
        }
        let (r1, r2) = (c.radius1, c.radius2);
        let dist = dist2.sqrt();
        if dist <= 1e-12 * (r1 + r2) {
            failure.get_or_insert_with(|| concentric(b, c));
            sink.none(base + k);
            continue;
        }
        // `sphere_geometry`'s formulas.
        let normal = d * (1.0 / dist);
        let gap = dist - r1 - r2;
        if gap >= 0.0 {
            // Within the margin without overlap: the scalar law, in its place.
            run_lanes(input, base, &mut lb, (&mut *histories, &mut *stored, &mut *points), sink, &mut summary);
            scalar_sphere_pair(input, base + k, c, &mut histories[k], &mut stored[k], sink, &mut summary);
            continue;
        }
        let b1 = normal * (r1 + 0.5 * gap);
        let b2 = b1 - d;
        // `kinematics`' relative velocity (000 eq. 3) with the normal rate at the force's
        // time level.
        let mut v = point_relative_velocity(velocity[i], spin[i], b1, velocity[j], spin[j], b2);
        if let Some((dv, _)) = input.velocity_offsets {
            v += normal * (dv[j] - dv[i]).dot(normal);
        }
        lb.push(c, k, normal, gap, b1, b2, v);
        if lb.batch.is_full() {
            run_lanes(input, base, &mut lb, (&mut *histories, &mut *stored, &mut *points), sink, &mut summary);
        }
    }
    run_lanes(input, base, &mut lb, (&mut *histories, &mut *stored, &mut *points), sink, &mut summary);
    LANE_BATCH.with(|s| *s.borrow_mut() = Some(lb));
    summary.failed = failure;
    summary
}

/// A sphere on a wall in the batched pass: a contact with one point continuing the pair's
/// only point (or a new one) joins the lanes, its history moved into the block's history
/// slot `k` (unused by pairs that are not two spheres) until the batch has run; everything
/// else takes the general wall path ([`wall_pair`]'s merge) in its place, after the lanes
/// before it. The same geometry, kinematics and bookings as [`wall_pair`], so the same bits.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn wall_lane<L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    base: usize,
    k: usize,
    c: &Candidate,
    lb: &mut LaneBatch,
    (histories, stored, points): BlockState<'_, L::History>,
    sink: &mut S,
    summary: &mut BlockSummary,
    failure: &mut Option<NarrowphaseError>,
) {
    let b = input.bodies;
    let (i, j) = (c.body1 as usize, c.body2 as usize);
    let p = base + k;
    match wall_geometry(b, i, j, input.image_position(p, c), c.margin) {
        Err(e) => {
            failure.get_or_insert(e);
            sink.none(p);
        }
        Ok(None) if points[k].is_empty() => sink.none(p),
        Ok(Some(g))
            if g.gap < 0.0
                && g.feature != SPHERE_LANE
                && points[k].len() <= 1
                && points[k].first().is_none_or(|s| s.feature == g.feature) =>
        {
            histories[k] = points[k].first().map_or_else(Default::default, |s| s.history);
            let kin = kinematics(input, c, &g, false);
            lb.push_wall(c, k, &g, &kin, b.radius[i].min(b.radius[j]));
            if lb.batch.is_full() {
                run_lanes(input, base, lb, (&mut *histories, &mut *stored, &mut *points), sink, summary);
            }
        }
        Ok(found) => {
            run_lanes(input, base, lb, (&mut *histories, &mut *stored, &mut *points), sink, summary);
            match merge_points(input, p, c, &mut points[k], found.as_slice(), sink, summary) {
                Some(load) => sink.add(p, i, j, load),
                None => sink.none(p),
            }
        }
    }
}

/// The scalar law for sphere pair `p` of candidate `c`, inside its margin (committed pass).
#[inline(never)]
fn scalar_sphere_pair<L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    p: usize,
    c: &Candidate,
    history: &mut L::History,
    last_stored: &mut f64,
    sink: &mut S,
    summary: &mut BlockSummary,
) {
    let mut unused = None;
    let d = input.separation(p, c);
    let Ok(Some(g)) = sphere_geometry(input.bodies, c, d, &mut unused) else { unreachable!("checked by the caller") };
    let kin = kinematics(input, c, &g, false);
    let cf = input.law.force(&kin, history);
    sink.add(p, c.body1 as usize, c.body2 as usize, pair_load(&g, &cf));
    if S::RECORDS {
        sink.record(p, record(c, &g, kin.relative_velocity, &cf));
    }
    *last_stored = cf.stored;
    summary.book(input.bodies, p, c, g.gap, &cf, input.books(c.body1 as usize, c.body2 as usize));
    summary.pairs += 1;
}

/// Runs the batch of `lb` through the law, then adds its loads to `sink` and books its
/// contacts in `summary`, lane by lane (the order of the pairs), and empties it.
#[allow(clippy::too_many_arguments)]
fn run_lanes<L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    base: usize,
    lb: &mut LaneBatch,
    (histories, stored, points): BlockState<'_, L::History>,
    sink: &mut S,
    summary: &mut BlockSummary,
) {
    let n = lb.batch.len;
    if n == 0 {
        return;
    }
    input.law.force_batch(&mut lb.batch, input.materials, input.pair_parameters, histories);
    let bt = &lb.batch;
    summary.contacts += n;
    summary.pairs += n;
    for l in 0..n {
        let k = bt.slot[l] as usize;
        let force = bt.force_of(l);
        let b1 = DVec3::new(lb.branch1[0][l], lb.branch1[1][l], lb.branch1[2][l]);
        let b2 = DVec3::new(lb.branch2[0][l], lb.branch2[1][l], lb.branch2[2][l]);
        // `branch_load` with no pure couple (the batched laws have none).
        let mut load =
            PairLoad { force, torque1: -b1.cross(force) - DVec3::ZERO, torque2: b2.cross(force) + DVec3::ZERO };
        let (i, j) = (lb.body1[l] as usize, lb.body2[l] as usize);
        if lb.feature[l] == SPHERE_LANE {
            stored[k] = bt.stored[l];
        } else {
            // A wall contact: its one point takes the new history (the slot is left at the
            // default, as for every pair that is not two spheres), and its load is the sum
            // of its points' loads from zero, as in `merge_points`.
            let history = std::mem::take(&mut histories[k]);
            let list = &mut points[k];
            list.clear();
            list.push(PointState { feature: lb.feature[l], history, stored: bt.stored[l] });
            load = PairLoad {
                force: DVec3::ZERO + load.force,
                torque1: DVec3::ZERO + load.torque1,
                torque2: DVec3::ZERO + load.torque2,
            };
        }
        sink.add(base + k, i, j, load);
        if S::RECORDS {
            let c = &input.candidates[base + k];
            let mut unused = None;
            let d = input.separation(base + k, c);
            let Ok(Some(g)) = sphere_geometry(input.bodies, c, d, &mut unused) else { unreachable!("a contact") };
            let cf = ContactForce {
                force,
                torque: DVec3::ZERO,
                dissipated: Dissipation {
                    normal: bt.dissipated_normal[l],
                    sliding: bt.dissipated_sliding[l],
                    ..Default::default()
                },
                stored: bt.stored[l],
                status: bt.status[l],
            };
            sink.record(base + k, record(c, &g, bt.velocity_of(l), &cf));
        }
        // `BlockSummary::book` (the other mechanisms add zeros).
        if input.books(i, j) {
            summary.dissipated.normal += bt.dissipated_normal[l];
            summary.dissipated.sliding += bt.dissipated_sliding[l];
            summary.stored += bt.stored[l];
        }
        summary.status.count(bt.status[l]);
        let overlap = bt.overlap[l];
        summary.max_overlap = summary.max_overlap.max(overlap);
        let r_min = lb.r_min[l];
        if overlap > summary.max_ratio * r_min {
            let ratio = overlap / r_min;
            if ratio > summary.max_ratio {
                summary.max_ratio = ratio;
                summary.max_pair = (base + k) as u32;
            }
        }
    }
    lb.batch.len = 0;
}

/// The loads of a contact of geometry `g` and force `cf`.
#[inline(always)]
fn pair_load(g: &ContactGeometry, cf: &ContactForce) -> PairLoad {
    branch_load(g.branch1, g.branch2, cf)
}

/// The loads of a contact of branch vectors `branch1`, `branch2` and force `cf`.
#[inline(always)]
fn branch_load(branch1: DVec3, branch2: DVec3, cf: &ContactForce) -> PairLoad {
    PairLoad {
        force: cf.force,
        torque1: -branch1.cross(cf.force) - cf.torque,
        torque2: branch2.cross(cf.force) + cf.torque,
    }
}

/// Narrowphase and law for a pair that is not two spheres: [`wall_pair`] or
/// [`general_pair`] by its kind.
#[inline(always)]
fn other_pair<L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    p: usize,
    c: &Candidate,
    list: &mut Vec<PointState<L::History>>,
    sink: &mut S,
    summary: &mut BlockSummary,
    failure: &mut Option<NarrowphaseError>,
) {
    if c.kind == PairKind::Wall {
        wall_pair(input, p, c, list, sink, summary, failure);
    } else {
        general_pair(input, p, c, list, sink, summary, failure);
    }
}

/// The geometry of a sphere against a built-in wall, as the core's narrowphase gives it
/// (the same calls of `sphere_plane` and `sphere_cylinder`, with the same orientation
/// products and swaps), without its dispatch and point buffer. Body `j` is at `xj` (its
/// position, or its nearest periodic image).
#[inline(always)]
fn wall_geometry(
    b: &BodySet,
    i: usize,
    j: usize,
    xj: DVec3,
    margin: f64,
) -> Result<Option<ContactGeometry>, NarrowphaseError> {
    let xi = b.position[i];
    let degenerate = |reason| NarrowphaseError::Degenerate { body1: b.handle[i], body2: b.handle[j], reason };
    match (&b.shape[i], &b.shape[j]) {
        (Shape::Plane { normal }, Shape::Sphere { radius }) => {
            Ok(sphere_plane(xi, b.orientation[i] * *normal, xj, *radius, margin))
        }
        (Shape::Sphere { radius }, Shape::Plane { normal }) => {
            Ok(sphere_plane(xj, b.orientation[j] * *normal, xi, *radius, margin).map(ContactGeometry::swapped))
        }
        (Shape::Cylinder(w), Shape::Sphere { radius }) => {
            sphere_cylinder(xi, b.orientation[i], w, xj, *radius, margin).map_err(degenerate)
        }
        (Shape::Sphere { radius }, Shape::Cylinder(w)) => sphere_cylinder(xj, b.orientation[j], w, xi, *radius, margin)
            .map(|g| g.map(ContactGeometry::swapped))
            .map_err(degenerate),
        // Not built as a wall pair; kept total rather than panicking.
        (s1, s2) => Err(NarrowphaseError::UnsupportedPair {
            body1: b.handle[i],
            shape1: s1.name(),
            body2: b.handle[j],
            shape2: s2.name(),
        }),
    }
}

/// Narrowphase and law for a sphere against a plane or a cylinder (lean wall contacts): the
/// wall's geometry directly ([`wall_geometry`]), then the same point merge as
/// [`general_pair`] with its one point, so the results are those of the general path to
/// the bit.
#[inline(never)]
fn wall_pair<L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    p: usize,
    c: &Candidate,
    list: &mut Vec<PointState<L::History>>,
    sink: &mut S,
    summary: &mut BlockSummary,
    failure: &mut Option<NarrowphaseError>,
) {
    let (i, j) = (c.body1 as usize, c.body2 as usize);
    match wall_geometry(input.bodies, i, j, input.image_position(p, c), c.margin) {
        Err(e) => {
            failure.get_or_insert(e);
            sink.none(p);
        }
        Ok(found) => match merge_points(input, p, c, list, found.as_slice(), sink, summary) {
            Some(load) => sink.add(p, i, j, load),
            None => sink.none(p),
        },
    }
}

/// Narrowphase and law for the pair `p` of candidate `c` that is not two spheres: one call
/// of the world's narrowphase for all its points, sorted by feature and merged with the
/// pair's point list `list` (see the `points` module), their loads summed in feature order
/// into one load of the pair. Kept out of line (and the point buffer out of the loop's
/// frame) so that the sphere pairs' loop stays as it was.
#[inline(never)]
fn general_pair<L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    p: usize,
    c: &Candidate,
    list: &mut Vec<PointState<L::History>>,
    sink: &mut S,
    summary: &mut BlockSummary,
    failure: &mut Option<NarrowphaseError>,
) {
    let (i, j) = (c.body1 as usize, c.body2 as usize);
    // The thread's buffer, taken out for the call (the law may run arbitrary code).
    let mut found = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    found.clear();
    // Body 2 at its own position or at its image nearest to body 1 (a shifted pose).
    let xj = input.image_position(p, c);
    let (bodies, memory) = (input.bodies, &input.memory[p]);
    let collided = match c.route {
        Some(route) => input.narrowphase.collide_routed(route, bodies, i, j, xj, c.margin, memory, &mut found),
        None => input.narrowphase.collide_remembering(bodies, i, j, xj, c.margin, memory, &mut found),
    };
    match collided {
        Err(e) => {
            // The list stays as it was: the step fails with this error.
            failure.get_or_insert(e);
            sink.none(p);
        }
        Ok(()) => {
            // A fixed order whatever the generator's: by feature (distinct within a call).
            found.sort_unstable_by_key(|g| g.feature);
            match merge_points(input, p, c, list, &found, sink, summary) {
                Some(load) => sink.add(p, i, j, load),
                None => sink.none(p),
            }
        }
    }
    SCRATCH.with(|s| *s.borrow_mut() = found);
}

/// The law at each point of `found` (sorted by feature) with the history of the same
/// feature in `list` (sorted by feature) or a fresh one; on a committed pass, `list` becomes
/// the new points with their histories and the stored energy of the dropped ones is booked
/// as sliding dissipation. Returns the summed loads, `None` without points.
fn merge_points<L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    p: usize,
    c: &Candidate,
    list: &mut Vec<PointState<L::History>>,
    found: &[ContactGeometry],
    sink: &mut S,
    summary: &mut BlockSummary,
) -> Option<PairLoad> {
    let rotations = input.law.uses_rotations();
    let old = list.len();
    // The first old entry not merged yet; the new list is written behind the old one.
    let mut next = 0;
    let mut dropped = 0.0;
    let mut load = PairLoad::default();
    for g in found {
        while next < old && list[next].feature < g.feature {
            dropped += list[next].stored;
            next += 1;
        }
        let mut state = PointState { feature: g.feature, history: L::History::default(), stored: 0.0 };
        if next < old && list[next].feature == g.feature {
            state = list[next];
            next += 1;
        }
        let kin = kinematics(input, c, g, rotations);
        // On a priming pass `state` is a copy that is not kept.
        let cf = input.law.force(&kin, &mut state.history);
        let l = pair_load(g, &cf);
        load.force += l.force;
        load.torque1 += l.torque1;
        load.torque2 += l.torque2;
        if input.commit {
            if S::RECORDS {
                sink.record(p, record(c, g, kin.relative_velocity, &cf));
            }
            state.stored = cf.stored;
            summary.book(input.bodies, p, c, g.gap, &cf, input.books(c.body1 as usize, c.body2 as usize));
            list.push(state);
        }
    }
    if input.commit {
        summary.pairs += usize::from(!found.is_empty());
        dropped += list[next..old].iter().map(|s| s.stored).sum::<f64>();
        // The energy still stored by a point that opened is lost with its history.
        if input.books(c.body1 as usize, c.body2 as usize) {
            summary.dissipated.sliding += dropped;
        }
        list.drain(..old);
    }
    (!found.is_empty()).then_some(load)
}

/// Runs the pass over all candidates and leaves the contact loads of every body in `force`
/// and `torque` (overwritten), with one summary per block of `accumulation` in `summaries`.
/// `stored` holds, per pair, the elastic energy stored at its last evaluation, and `points`
/// the point lists of the pairs that are not two spheres; `record`,
/// if given (the keys of the candidates and one list per block), receives the contacts of
/// each block in pair order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pair_pass<L: ContactLaw>(
    input: &PassInput<'_, L>,
    pairs: &PairList,
    accumulation: &mut Accumulation,
    histories: &mut [L::History],
    stored: &mut [f64],
    points: &mut [Vec<PointState<L::History>>],
    summaries: &mut [BlockSummary],
    record: Option<(&[ContactKey], &mut [Vec<ContactRecord>])>,
    force: &mut [DVec3],
    torque: &mut [DVec3],
) {
    debug_assert_eq!(histories.len(), input.candidates.len());
    debug_assert_eq!(summaries.len(), accumulation.blocks());
    let block = accumulation.block();
    let blocks = (histories, stored, points);
    // Four monomorphised loops (window or buffer sink, recording or not), so the hot loop
    // carries no test of either choice.
    // Periodic or not: twice as many, so that the loop without periodic axes reads no shift.
    let periodic = !input.shifts.is_empty();
    match (accumulation.uses_windows(), record, periodic) {
        (true, None, false) => each_block::<_, _, false>(input, block, blocks, summaries, accumulation.window_sinks()),
        (true, None, true) => each_block::<_, _, true>(input, block, blocks, summaries, accumulation.window_sinks()),
        (true, Some(out), false) => each_block::<_, _, false>(
            input,
            block,
            blocks,
            summaries,
            recording(accumulation.window_sinks(), out, block),
        ),
        (true, Some(out), true) => each_block::<_, _, true>(
            input,
            block,
            blocks,
            summaries,
            recording(accumulation.window_sinks(), out, block),
        ),
        (false, None, false) => each_block::<_, _, false>(input, block, blocks, summaries, accumulation.buffer_sinks()),
        (false, None, true) => each_block::<_, _, true>(input, block, blocks, summaries, accumulation.buffer_sinks()),
        (false, Some(out), false) => each_block::<_, _, false>(
            input,
            block,
            blocks,
            summaries,
            recording(accumulation.buffer_sinks(), out, block),
        ),
        (false, Some(out), true) => each_block::<_, _, true>(
            input,
            block,
            blocks,
            summaries,
            recording(accumulation.buffer_sinks(), out, block),
        ),
    }
    if accumulation.uses_windows() {
        accumulation.merge(force, torque);
    } else {
        accumulation.gather(pairs, force, torque);
    }
}

/// Runs [`block_pass`] for every block of `block` pairs in parallel, block k into the k-th
/// sink of `sinks`, its summary into the k-th of `summaries`.
fn each_block<L: ContactLaw, S: LoadSink + Send, const PERIODIC: bool>(
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
            *s = block_pass::<L, S, PERIODIC>(input, k * block, (h, e, l), &mut sink);
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
