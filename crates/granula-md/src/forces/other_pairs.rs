//! The pairs that are not two spheres: a sphere on a wall, and any pair through the
//! narrowphase with its list of contact points, each point keeping its history by feature.

use super::per_pair::{kinematics, pair_load, record, BlockSummary, PassInput};
use crate::accumulation::{LoadSink, PairLoad};
use crate::pairs::{Candidate, PairKind};
use crate::points::{PairPoints, PointState};
use granula_core::narrowphase::{sphere_cylinder, sphere_plane, NarrowphaseError};
use granula_core::{BodySet, ContactGeometry, ContactLaw, DVec3, Shape};
use std::cell::RefCell;

/// The state of one pair that is not two spheres: its history slot and stored-energy slot
/// (its first point's) and its points ([`PairPoints`]).
pub(super) struct PairSlots<'a, H> {
    pub history: &'a mut H,
    pub stored: &'a mut f64,
    pub points: &'a mut PairPoints<H>,
}

thread_local! {
    /// The points of a general pair, reused from pair to pair on each thread.
    static SCRATCH: RefCell<Vec<ContactGeometry>> = const { RefCell::new(Vec::new()) };
}

/// Narrowphase and law for a pair that is not two spheres: [`wall_pair`] or
/// [`general_pair`] by its kind.
#[inline(always)]
pub(super) fn other_pair<L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    p: usize,
    c: &Candidate,
    slots: PairSlots<'_, L::History>,
    sink: &mut S,
    summary: &mut BlockSummary,
    failure: &mut Option<NarrowphaseError>,
) {
    if c.kind == PairKind::Wall {
        wall_pair(input, p, c, slots, sink, summary, failure);
    } else {
        general_pair(input, p, c, slots, sink, summary, failure);
    }
}

/// The geometry of a sphere against a built-in wall, as the core's narrowphase gives it
/// (the same calls of `sphere_plane` and `sphere_cylinder`, with the same orientation
/// products and swaps), without its dispatch and point buffer. Body `j` is at `xj` (its
/// position, or its nearest periodic image).
#[inline(always)]
pub(super) fn wall_geometry(
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
    slots: PairSlots<'_, L::History>,
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
        Ok(found) => match merge_points(input, p, c, slots, found.as_slice(), sink, summary) {
            Some(load) => sink.add(p, i, j, load),
            None => sink.none(p),
        },
    }
}

/// Narrowphase and law for a general pair (through the registered generators).
fn general_pair<L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    p: usize,
    c: &Candidate,
    slots: PairSlots<'_, L::History>,
    sink: &mut S,
    summary: &mut BlockSummary,
    failure: &mut Option<NarrowphaseError>,
) {
    general_pair_settling(input, p, c, false, sink, summary, failure, |_, _| slots);
}

/// [`general_pair`] for a pass that holds loads of earlier pairs not yet given to `sink`
/// (the batched pass's lanes): `settle` gives them, and then this pair's slots, before the
/// pair touches `sink` or `summary`. A pair `quiet` before (no point, so nothing stored)
/// that has no point now adds no load and books nothing, and `settle` is not called: a
/// batch of sphere pairs is not cut by a wall out of reach. Sinks that record contacts
/// settle always (their records keep the pair order).
#[allow(clippy::too_many_arguments)]
pub(super) fn general_pair_settling<'s, L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    p: usize,
    c: &Candidate,
    quiet: bool,
    sink: &mut S,
    summary: &mut BlockSummary,
    failure: &mut Option<NarrowphaseError>,
    settle: impl FnOnce(&mut S, &mut BlockSummary) -> PairSlots<'s, L::History>,
) where
    L::History: 's,
{
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
        Ok(()) if quiet && found.is_empty() && !sink.records() => sink.none(p),
        Ok(()) => {
            let slots = settle(sink, summary);
            // A fixed order whatever the generator's: by feature (distinct within a call).
            sort_by_feature(&mut found);
            match merge_points(input, p, c, slots, &found, sink, summary) {
                Some(load) => sink.add(p, i, j, load),
                None => sink.none(p),
            }
        }
    }
    SCRATCH.with(|s| *s.borrow_mut() = found);
}

/// The law at each point of `found` (sorted by feature) with the history of the same
/// feature among the pair's points `slots` (sorted by feature) or a fresh one; on a
/// committed pass, the new points with their histories replace the old ones (the first in
/// the slots, the others in the list behind it) and the stored energy of the dropped ones
/// is booked as sliding dissipation. Returns the summed loads, `None` without points.
pub(super) fn merge_points<L: ContactLaw, S: LoadSink>(
    input: &PassInput<'_, L>,
    p: usize,
    c: &Candidate,
    slots: PairSlots<'_, L::History>,
    found: &[ContactGeometry],
    sink: &mut S,
    summary: &mut BlockSummary,
) -> Option<PairLoad> {
    let rotations = input.law.uses_rotations();
    let PairSlots { history, stored, points } = slots;
    // The old points: the first (a copy, its slots are overwritten first) and the list's.
    let first = points.first.map(|feature| PointState { feature, history: *history, stored: *stored });
    let (skip, more) = (usize::from(first.is_some()), points.more.len());
    let old = skip + more;
    let old_point = |list: &[PointState<L::History>], k: usize| match first {
        Some(s) if k == 0 => s,
        _ => list[k - skip],
    };
    // The first old point not merged yet; new points after the first are written behind
    // the old ones in the list.
    let mut next = 0;
    let mut dropped = 0.0;
    let mut load = PairLoad::default();
    for (n, g) in found.iter().enumerate() {
        while next < old && old_point(&points.more, next).feature < g.feature {
            dropped += old_point(&points.more, next).stored;
            next += 1;
        }
        let mut state = PointState { feature: g.feature, history: L::History::default(), stored: 0.0 };
        if next < old && old_point(&points.more, next).feature == g.feature {
            state = old_point(&points.more, next);
            next += 1;
        }
        let kin = kinematics(input, p, c, g, rotations);
        // On a priming pass `state` is a copy that is not kept.
        let mut cf = input.law.force(&kin, &mut state.history);
        // A contact spread over a surface carries its normal force's twist.
        cf.torque += g.twist_couple(cf.force);
        let l = pair_load(g, &cf);
        load.force += l.force;
        load.torque1 += l.torque1;
        load.torque2 += l.torque2;
        if input.commit {
            if sink.records() {
                sink.record(p, record(c, g, kin.relative_velocity, &cf));
            }
            state.stored = cf.stored;
            summary.book(input.bodies, p, c, g, &cf, input.books(c.body1 as usize, c.body2 as usize));
            if n == 0 {
                (points.first, *history, *stored) = (Some(state.feature), state.history, state.stored);
            } else {
                points.more.push(state);
            }
        }
    }
    if input.commit {
        summary.pairs += usize::from(!found.is_empty());
        dropped += (next..old).map(|k| old_point(&points.more, k).stored).sum::<f64>();
        // The energy still stored by a point that opened is lost with its history.
        if input.books(c.body1 as usize, c.body2 as usize) {
            summary.dissipated.sliding += dropped;
        }
        if found.is_empty() {
            (points.first, *history, *stored) = (None, L::History::default(), 0.0);
        }
        points.more.drain(..more);
    }
    (!found.is_empty()).then_some(load)
}

/// Sorts a generator's points by feature; outside the generic pass, so that every law
/// shares one compiled sort.
fn sort_by_feature(found: &mut [ContactGeometry]) {
    found.sort_unstable_by_key(|g| g.feature);
}
