//! The batched path of the force pass: sphere pairs and one-point sphere-wall contacts fill
//! the lanes of a [`ContactBatch`] and the law runs on whole batches
//! ([`ContactLaw::force_batch`]), with loads and bookings in the scalar path's order.

use super::other_pairs::{general_pair_settling, merge_points, other_pair, wall_geometry, PairSlots};
use super::per_pair::{
    concentric, kinematics, pair_load, record, separation, sphere_geometry, BlockState, BlockSummary, PassInput,
};
use crate::accumulation::{LoadSink, PairLoad};
use crate::pairs::{Candidate, PairKind};
use granula_core::narrowphase::NarrowphaseError;
use granula_core::{
    point_relative_velocity, ContactBatch, ContactForce, ContactGeometry, ContactKinematics, ContactLaw, DVec3,
    Dissipation, BATCH_LANES,
};
use std::cell::RefCell;

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
pub(super) fn block_pass_batched<L: ContactLaw, S: LoadSink>(
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
            if c.kind == PairKind::Wall && !sink.records() {
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
            } else if c.kind == PairKind::General {
                // The lanes are settled only if this pair has a load or books energy.
                let quiet = points[k].is_empty();
                let (lanes, state) = (&mut *lb, (&mut *histories, &mut *stored, &mut *points));
                let settle = |sink: &mut S, summary: &mut BlockSummary| {
                    let (histories, stored, points) = state;
                    run_lanes(input, base, lanes, (&mut *histories, &mut *stored, &mut *points), sink, summary);
                    PairSlots { history: &mut histories[k], stored: &mut stored[k], points: &mut points[k] }
                };
                general_pair_settling(input, base + k, c, quiet, sink, &mut summary, &mut failure, settle);
            } else {
                run_lanes(input, base, &mut lb, (&mut *histories, &mut *stored, &mut *points), sink, &mut summary);
                let slots = PairSlots { history: &mut histories[k], stored: &mut stored[k], points: &mut points[k] };
                other_pair(input, base + k, c, slots, sink, &mut summary, &mut failure);
            }
            continue;
        }
        let (i, j) = (c.body1 as usize, c.body2 as usize);
        let d = separation(position, input.shifts, base + k, c);
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
        if !input.velocity_shifts.is_empty() {
            // Lees-Edwards: the velocity of body 2's image across the sheared faces.
            v += input.velocity_shifts[base + k];
        }
        if let Some(offsets) = input.velocity_offsets {
            v += normal * (offsets.linear(j) - offsets.linear(i)).dot(normal);
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
/// only point (or a new one) joins the lanes, with its history in the pair's slot `k`;
/// everything
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
                && points[k].more.is_empty()
                && points[k].first.is_none_or(|f| f == g.feature) =>
        {
            // The point's history is in the pair's slot (the default without a point).
            let kin = kinematics(input, p, c, &g, false);
            lb.push_wall(c, k, &g, &kin, b.radius[i].min(b.radius[j]));
            if lb.batch.is_full() {
                run_lanes(input, base, lb, (&mut *histories, &mut *stored, &mut *points), sink, summary);
            }
        }
        Ok(found) => {
            run_lanes(input, base, lb, (&mut *histories, &mut *stored, &mut *points), sink, summary);
            let slots = PairSlots { history: &mut histories[k], stored: &mut stored[k], points: &mut points[k] };
            match merge_points(input, p, c, slots, found.as_slice(), sink, summary) {
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
    let kin = kinematics(input, p, c, &g, false);
    let cf = input.law.force(&kin, history);
    sink.add(p, c.body1 as usize, c.body2 as usize, pair_load(&g, &cf));
    if sink.records() {
        sink.record(p, record(c, &g, kin.relative_velocity, &cf));
    }
    *last_stored = cf.stored;
    summary.book(input.bodies, p, c, &g, &cf, input.books(c.body1 as usize, c.body2 as usize));
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
        stored[k] = bt.stored[l];
        if lb.feature[l] != SPHERE_LANE {
            // A wall contact: its one point, whose new history the batch left in the slot;
            // its load is the sum of its points' loads from zero, as in `merge_points`.
            points[k].first = Some(lb.feature[l]);
            load = PairLoad {
                force: DVec3::ZERO + load.force,
                torque1: DVec3::ZERO + load.torque1,
                torque2: DVec3::ZERO + load.torque2,
            };
        }
        sink.add(base + k, i, j, load);
        if sink.records() {
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
