//! Temporal coherence of the polyhedron pair generators: the per-step preparation of the
//! bodies and the screening of a candidate pair before its full search.
//!
//! Most candidate pairs of a packing are apart, and stay apart from one step to the next.
//! A [`Coherence`] prepares every polyhedral body once per step (its vertices turned into
//! the world axes, its world box: [`crate::contact::prepared`]) and records how far it
//! turned since the previous step ([`crate::contact::motion`]). A pair is then screened
//! ([`Coherence::screen`]) by proofs that it is apart, each far cheaper than the search;
//! with a pair memory from the solver ([`PairMemory`]) the proof found at one step is kept
//! as a certificate ([`crate::contact::certificate`]) and, at the next step, carried by the
//! bodies' turns without reading a vertex.
//!
//! **Same results with or without the memory.** The searches report nothing for a pair
//! whose convex hulls are apart by more than the slack s = [`PROOF_SLACK`]·(R₁ + R₂) (R
//! the bounding radii): at a margin ≤ 0 the point search reports a vertex only inside the
//! other body (every face plane's distance ≤ 0, or ray parity inside with a surface
//! tolerance of 1e-9 of the radius) and an edge crossing only inside both, and the overlap
//! volume of two hulls that far apart is empty. Every proof used with a memory asks for
//! a gap above s, so the memory only ends pairs the search would have given nothing for;
//! and whatever a memory holds (a stale certificate, another pair's, random words) proves
//! nothing unless it is this pair's and bounds the pair as it is now. At a positive margin
//! the convex vertex test reports a vertex outside the other body whose largest face-plane
//! distance is within the margin (a lower bound of its distance), which a separation along
//! another direction does not exclude: there the memory is not used.

use crate::contact::apart_on_centre_line;
use crate::contact::certificate::{mark_touching, recall, storable, tag, Certificate, Remembered};
use crate::contact::motion::BodyTurns;
use crate::contact::prepared::PreparedBodies;
use crate::gjk;
use crate::polyhedron::Pose;
use granula_core::math::DVec3;
use granula_core::narrowphase::{PairMemory, PosedShape};
use granula_core::Aabb;
use granula_core::BodySet;
use std::sync::Arc;

/// Relative slack (times the sum of the bounding radii) by which a remembered or searched
/// direction must prove a pair apart: ten times the on-surface tolerance of the ray-parity
/// test of non-convex bodies ([`crate::inside::SURFACE_TOLERANCE`], 1e-9 of the bounding
/// radius) and far above the round-off of the support functions, of the plane distances of
/// the convex tests and of the clipping of the overlap volume (about 1e-16 of the radii,
/// tie-breaks at 1e-14), so that no vertex of a pair it proves apart can be found on or
/// inside the other body and no volume between them; still a hundred-millionth of the
/// bodies' size, below any physical gap that matters.
pub(crate) const PROOF_SLACK: f64 = 1e-8;

/// The prepared bodies and their turns, shared by a generator's clones.
#[derive(Clone, Debug, Default)]
pub(crate) struct Coherence {
    prepared: Arc<PreparedBodies>,
    turns: Arc<BodyTurns>,
}

/// What the screening of a pair decided.
pub(crate) enum Screen<'m> {
    /// A body is not prepared in its pose: the caller computes from the shapes.
    Unprepared,
    /// Proven apart: no point, no volume.
    Apart,
    /// Not proven apart: the caller searches, and tells the outcome to the memory if any.
    Search(Option<Recall<'m>>),
}

/// A pair's memory with the pair's tag, waiting for the outcome of its search.
pub(crate) struct Recall<'m> {
    memory: &'m PairMemory,
    tag: u32,
}

impl Recall<'_> {
    /// After the search: a pair with contacts is marked so ([`Remembered::Touching`]), so
    /// that its next screening skips the proofs it is unlikely to find; otherwise the
    /// memory is emptied.
    pub fn searched(&self, found: bool) {
        if found {
            mark_touching(self.memory, self.tag);
        } else {
            self.memory.clear();
        }
    }
}

impl Coherence {
    /// Prepares every polyhedral body for the bodies' current poses and records their turns
    /// since the last call (O(total vertices)).
    pub fn prepare(&self, bodies: &BodySet) {
        self.prepared.prepare(bodies);
        self.turns.record(bodies);
    }

    /// The prepared world box of body `i`, if it is prepared in its current pose.
    pub fn prepared_aabb(&self, bodies: &BodySet, i: usize) -> Option<Aabb> {
        self.prepared.get(&PosedShape::of(bodies, i)).map(|e| e.aabb(bodies.position[i]))
    }

    /// Screens the pair `a` (body 1), `b` at detection margin `margin`. Proofs, in order:
    ///
    /// 1. the world boxes apart by more than the margin (with `centre_line`, the point
    ///    search's own first test) or, without `centre_line` (the overlap volume), by more
    ///    than the margin and the slack s;
    /// 2. at a margin ≤ 0 with a memory holding a [`Certificate`] for this pair: its
    ///    direction u with d·u (d = x₂ − x₁) minus its bound on h₁(u) + h₂(−u), carried from
    ///    the last step by the bodies' turns, above s; failing that, the same with
    ///    h₁(u) + h₂(−u) computed from the prepared vertices (O(V₁ + V₂));
    /// 3. with `centre_line`, the bounding spheres and the plane normal to the centre line
    ///    ([`apart_on_centre_line`]), the point search's own first test;
    /// 4. at a margin ≤ 0 with a memory, a Gilbert–Johnson–Keerthi search
    ///    ([`gjk::separating_direction`]) for a direction with a gap above s.
    ///
    /// A proof by 2, 3 (with a gap above s) or 4 is kept in the memory as a certificate. A
    /// pair marked in contact at its last search skips 3 and 4 and goes to the search.
    pub fn screen<'m>(
        &self,
        a: &PosedShape<'_>,
        b: &PosedShape<'_>,
        margin: f64,
        memory: Option<&'m PairMemory>,
        centre_line: bool,
    ) -> Screen<'m> {
        let (Some(ea), Some(eb)) = (self.prepared.get(a), self.prepared.get(b)) else {
            return Screen::Unprepared;
        };
        let (ra, rb) = (ea.radius(), eb.radius());
        let slack = PROOF_SLACK * (ra + rb);
        // Indices are known: `get` found the bodies' entries by them.
        let remember = match (memory, a.index, b.index) {
            (Some(memory), Some(i), Some(j)) if margin <= 0.0 => Some((memory, tag(i, j), i, j)),
            _ => None,
        };
        // Apart along an axis of the world by more than the margin: no point of one body is
        // within the margin of the other (a proof of separation, as the centre line's).
        let (box_a, box_b) = (ea.aabb(a.position), eb.aabb(b.position));
        // The point search's own test at the margin; for the volume, by more than the slack.
        let m = if centre_line { margin.max(0.0) } else { margin.max(slack) };
        if (box_b.min - box_a.max).max_element() > m || (box_a.min - box_b.max).max_element() > m {
            return Screen::Apart;
        }
        let d = b.position - a.position;
        let epoch = self.turns.epoch();
        let keep = |memory: &PairMemory, tag: u32, u: DVec3, reach: f64| {
            Certificate { u, reach, epoch }.write(memory, tag);
        };
        let extents = |u: DVec3| ea.extent(u) + eb.extent(-u);
        // Proof 3, the point search's own first test (only with `centre_line`).
        let apart_on_centre = || {
            centre_line && {
                let (pose_a, pose_b) = (Pose::new(a.position, a.orientation), Pose::new(b.position, b.orientation));
                apart_on_centre_line(&pose_a, &pose_b, ra + rb, margin, extents)
            }
        };
        let Some((memory, tag, i, j)) = remember else {
            return if apart_on_centre() { Screen::Apart } else { Screen::Search(None) };
        };
        match recall(memory, tag) {
            Remembered::Apart(c) => {
                let du = d.dot(c.u);
                let reach = c.reach_now(&self.turns, (i, ra), (j, rb));
                if du - reach > slack {
                    if c.epoch != epoch {
                        keep(memory, tag, c.u, reach);
                    }
                    return Screen::Apart;
                }
                let reach = extents(c.u);
                if du - reach > slack {
                    keep(memory, tag, c.u, reach);
                    return Screen::Apart;
                }
            }
            // In contact at its last search: straight to the search again (a proof is
            // optional); the mark stays while the search finds contacts.
            Remembered::Touching => return Screen::Search(Some(Recall { memory, tag })),
            Remembered::Nothing => {}
        }
        let apart = apart_on_centre();
        // The centre line's proof or a searched one, kept with a rounded direction when it
        // leaves a gap above the slack.
        let found = if apart {
            Ok(d.normalize_or_zero())
        } else {
            gjk::separating_direction(|u| ea.support(u), |u| d + eb.support(u), slack, -d)
        };
        if let Ok(u) = found {
            let u = storable(u);
            let reach = extents(u);
            if u != DVec3::ZERO && d.dot(u) - reach > slack {
                keep(memory, tag, u, reach);
                return Screen::Apart;
            }
        }
        if apart {
            memory.clear();
            return Screen::Apart;
        }
        Screen::Search(Some(Recall { memory, tag }))
    }
}
