//! The pairs that are not two spheres: a sphere on a wall, and any pair through the
//! narrowphase with its list of contact points, each point keeping its history by feature.

use super::per_pair::{kinematics, pair_load, record, BlockSummary, PassInput};
use crate::accumulation::{LoadSink, PairLoad};
use crate::pairs::{Candidate, PairKind};
use crate::points::PointState;
use granula_core::narrowphase::{sphere_cylinder, sphere_plane, NarrowphaseError};
use granula_core::{BodySet, ContactGeometry, ContactLaw, DVec3, Shape};
use std::cell::RefCell;

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
pub(super) fn merge_points<L: ContactLaw, S: LoadSink>(
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
        let kin = kinematics(input, p, c, g, rotations);
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
            summary.book(input.bodies, p, c, g, &cf, input.books(c.body1 as usize, c.body2 as usize));
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
