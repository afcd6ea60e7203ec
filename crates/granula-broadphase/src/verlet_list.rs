//! A Verlet (skin) layer over any backend: candidate pairs computed on inflated boxes and
//! reused until some body has moved far enough to make the list unsafe.

use crate::error::{non_negative, BroadphaseError, Result};
use crate::periodic_images::PeriodicImages;
use granula_core::{Aabb, BodySet, Broadphase, DVec3, MotionKind, PeriodicDomain};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// What a [`VerletPairs`] carries from one update to the next, for checkpoints: with it a
/// fresh skin layer over the same backend, skin and margin takes the same rebuild decisions
/// and returns the same pairs as the one that saved it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerletState {
    /// Reference box of each body: its box at the last rebuild, inflated by half the skin.
    pub reference: Vec<Aabb>,
    /// Skip flag of each body at the last rebuild.
    pub reference_skip: Vec<bool>,
    /// The candidate pairs of the last rebuild, sorted ascending.
    pub pairs: Vec<(u32, u32)>,
    /// A rebuild is due at the next update ([`VerletPairs::invalidate`], or never built).
    pub stale: bool,
    /// Rebuilds so far.
    pub rebuilds: u64,
    /// Updates so far.
    pub updates: u64,
}

/// Candidate pairs with a skin, rebuilt only when needed.
///
/// At a rebuild, every box is inflated by `(margin + skin) / 2` on each side and the backend
/// finds the pairs of the inflated boxes; the list thus holds every pair whose boxes are
/// within `margin + skin` of each other on every axis. The reference box of each body, its
/// box at the rebuild inflated by `skin / 2`, is stored. At later calls the list is reused as
/// long as every current box stays inside its reference box, i.e. no face of any box has
/// moved by more than half the skin. That is the displacement criterion of Verlet lists
/// applied to the box faces: a body that translates by `Δx` and turns by an angle `θ`
/// moves every point of its box by at most `|Δx| + θ ρ` (`ρ` the distance from its
/// position to its farthest box point), so the criterion is met whenever
/// `|Δx| + θ ρ ≤ skin / 2`, and it is exact for walls: a drum spinning about its axis or a
/// plane sliding in its own plane keeps its box and never forces a rebuild.
///
/// Guarantee: after every [`VerletPairs::update`], [`VerletPairs::pairs`] contains every pair
/// whose current boxes, inflated by `margin / 2` each, overlap (every pair closer than
/// `margin`), sorted ascending, without two skipped bodies; at a rebuild it equals the
/// backend's (exact) pair set of the inflated boxes. The list is also rebuilt when the
/// number of bodies or a skip flag changes.
///
/// Cost of a call without rebuild: `O(n)` (one box and one containment test per body), no
/// allocation once warm.
#[derive(Clone, Debug)]
pub struct VerletPairs<B: Broadphase> {
    backend: B,
    skin: f64,
    margin: f64,
    boxes: Vec<Aabb>,
    skip: Vec<bool>,
    reference: Vec<Aabb>,
    reference_skip: Vec<bool>,
    inflated: Vec<Aabb>,
    pairs: Vec<(u32, u32)>,
    stale: bool,
    rebuilds: u64,
    updates: u64,
    /// The periodic images (empty work when no axis is periodic).
    images: PeriodicImages,
}

impl<B: Broadphase> VerletPairs<B> {
    /// A skin layer over `backend` with `skin` (m, finite, ≥ 0) and a zero contact margin.
    pub fn new(backend: B, skin: f64) -> Result<Self> {
        Ok(VerletPairs {
            backend,
            skin: non_negative("skin", skin)?,
            margin: 0.0,
            boxes: Vec::new(),
            skip: Vec::new(),
            reference: Vec::new(),
            reference_skip: Vec::new(),
            inflated: Vec::new(),
            pairs: Vec::new(),
            stale: true,
            rebuilds: 0,
            updates: 0,
            images: PeriodicImages::default(),
        })
    }

    /// Sets the periodic axes of the bodies' space (default none): from the next rebuild
    /// on, the list also holds the pairs whose boxes overlap across a periodic boundary
    /// (one box and the image of the other one or more periods away), each pair once, in
    /// the same sorted `(i, j)` list. Positions may be unwrapped (anywhere along a periodic
    /// axis): boxes are wrapped into the range before the search. Which image of `j` a pair
    /// means is the one nearest to `i`
    /// ([`PeriodicDomain::minimum_image_shift`](granula_core::PeriodicDomain::minimum_image_shift)),
    /// unique as long as every bounded box (inflated by the margin and the skin) is shorter
    /// than half the period; the caller checks that (the MD solver does). Walls unbounded
    /// along a periodic axis are not imaged along it (they repeat themselves). See
    /// `docs/periodic.md`.
    pub fn set_periodic(&mut self, domain: PeriodicDomain) {
        if self.images.domain() != &domain {
            self.images = PeriodicImages::new(domain);
            self.stale = true;
        }
    }

    /// Sets the Lees-Edwards offset (m) of the sheared images and their slack (m) along the
    /// flow axis for the next rebuilds ([`PeriodicImages::set_shear_offset`]); marks
    /// nothing stale: the caller rebuilds before the offset has moved by the slack.
    pub fn set_shear_offset(&mut self, offset: f64, slack: f64) {
        self.images.set_shear_offset(offset, slack);
    }

    /// The periodic axes ([`VerletPairs::set_periodic`]).
    pub fn periodic(&self) -> &PeriodicDomain {
        self.images.domain()
    }

    /// Sets the contact margin (m, finite, ≥ 0): pairs closer than `margin` are always listed,
    /// e.g. the detection distance of incipient contacts in NSCD.
    pub fn with_margin(mut self, margin: f64) -> Result<Self> {
        self.margin = non_negative("margin", margin)?;
        self.stale = true;
        Ok(self)
    }

    /// The skin (m).
    pub fn skin(&self) -> f64 {
        self.skin
    }

    /// The contact margin (m).
    pub fn margin(&self) -> f64 {
        self.margin
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The candidate pairs of the last update, sorted ascending.
    pub fn pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// Number of rebuilds so far.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    /// Number of updates so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Forces a rebuild at the next update (e.g. after teleporting bodies by hand).
    pub fn invalidate(&mut self) {
        self.stale = true;
    }

    /// The state for a checkpoint (see [`VerletState`]).
    pub fn save_state(&self) -> VerletState {
        VerletState {
            reference: self.reference.clone(),
            reference_skip: self.reference_skip.clone(),
            pairs: self.pairs.clone(),
            stale: self.stale,
            rebuilds: self.rebuilds,
            updates: self.updates,
        }
    }

    /// Restores a state from [`VerletPairs::save_state`]. Checks that it is consistent (one
    /// skip flag per reference box, pairs `i < j` of existing bodies, sorted without
    /// duplicates, no pair of two skipped bodies); a state that is not is refused and `self`
    /// is left as it was.
    pub fn restore_state(&mut self, state: &VerletState) -> Result<()> {
        let bad = |problem: String| Err(BroadphaseError::InvalidState { problem });
        let n = state.reference.len();
        if state.reference_skip.len() != n {
            return bad(format!("{n} reference boxes but {} skip flags", state.reference_skip.len()));
        }
        if let Some(p) = state.pairs.iter().find(|&&(i, j)| i >= j || j as usize >= n) {
            return bad(format!("pair {p:?} among {n} bodies (expected i < j < {n})"));
        }
        if let Some(w) = state.pairs.windows(2).find(|w| w[0] >= w[1]) {
            return bad(format!("pairs {:?} and {:?} out of order", w[0], w[1]));
        }
        if let Some(p) =
            state.pairs.iter().find(|&&(i, j)| state.reference_skip[i as usize] && state.reference_skip[j as usize])
        {
            return bad(format!("pair {p:?} of two skipped bodies"));
        }
        // Bounds may be infinite (walls), never NaN: a step with a non-finite body fails.
        if state.reference.iter().any(|b| b.min.is_nan() || b.max.is_nan()) {
            return bad("a reference box with a NaN bound".into());
        }
        self.reference.clone_from(&state.reference);
        self.reference_skip.clone_from(&state.reference_skip);
        self.pairs.clone_from(&state.pairs);
        self.stale = state.stale;
        self.rebuilds = state.rebuilds;
        self.updates = state.updates;
        Ok(())
    }

    /// Updates from a body set: boxes from [`BodySet::aabb`], and bodies that are not
    /// dynamic (fixed and kinematic) never paired with each other. Returns `true` when the
    /// list was rebuilt.
    pub fn update(&mut self, bodies: &BodySet) -> bool {
        self.update_with(
            bodies.len(),
            |i| {
                let r = bodies.radius[i];
                if r.is_finite() {
                    Aabb::around(bodies.position[i], DVec3::splat(r))
                } else {
                    bodies.aabb(i)
                }
            },
            |i| bodies.motion[i] != MotionKind::Dynamic,
        )
    }

    /// Updates from boxes and skip flags (the [`Broadphase`] contract; a missing skip flag
    /// counts as `false`). Returns `true` when the list was rebuilt.
    pub fn update_boxes(&mut self, boxes: &[Aabb], skip: &[bool]) -> bool {
        self.update_with(boxes.len(), |i| boxes[i], |i| skip.get(i).copied().unwrap_or(false))
    }

    /// Updates from `n` bodies whose box and skip flag are given by `box_of(i)` and
    /// `skip_of(i)`. Returns `true` when the list was rebuilt.
    ///
    /// The validity test runs on the fly, one box at a time, and stops at the first box that
    /// left its reference; boxes are stored only when the list is rebuilt. Between rebuilds
    /// a call thus reads each body once and writes nothing.
    pub fn update_with(&mut self, n: usize, box_of: impl Fn(usize) -> Aabb, skip_of: impl Fn(usize) -> bool) -> bool {
        self.updates += 1;
        let valid = !self.stale
            && self.reference.len() == n
            && (0..n).all(|i| skip_of(i) == self.reference_skip[i] && self.reference[i].contains(&box_of(i)));
        if valid {
            return false;
        }
        self.rebuild_from(n, box_of, skip_of);
        true
    }

    /// [`VerletPairs::update_with`] for a caller that has already made sure that the box of
    /// every body not listed in `others` (dense indices) is still inside its reference box
    /// (for a sphere, by the Euclidean criterion: a centre that has moved by at most half the
    /// skin since the last rebuild, with an unchanged radius): only the boxes of `others`
    /// are tested, and every body's skip flag. The same decisions as `update_with` whenever
    /// the caller's guarantee holds, at a fraction of the cost when `others` is short (the
    /// walls of a packing). Returns `true` when the list was rebuilt.
    pub fn update_with_checked(
        &mut self,
        n: usize,
        others: &[u32],
        box_of: impl Fn(usize) -> Aabb,
        skip_of: impl Fn(usize) -> bool,
    ) -> bool {
        self.updates += 1;
        let valid = !self.stale
            && self.reference.len() == n
            && (0..n).all(|i| skip_of(i) == self.reference_skip[i])
            && others.iter().all(|&i| (i as usize) < n && self.reference[i as usize].contains(&box_of(i as usize)));
        if valid {
            return false;
        }
        self.rebuild_from(n, box_of, skip_of);
        true
    }

    /// [`VerletPairs::update_with_checked`] with its per-body tests handed to `all`, which may
    /// run them on several threads: the same decisions and the same list.
    ///
    /// `all(len, test)` is called at most once. `test(r)` runs the tests of the indices `r`
    /// and returns whether they all hold; `all` must return whether they hold for
    /// every index of `0..len`, by calling `test` on ranges that cover it, in any order, from
    /// any thread, and may stop at the first `false` (a rayon `all` over chunks of the
    /// range, say). Test `k` compares the skip flag of body `k` and tests the box of body
    /// `others[k]`, each where it exists, so `len` is the larger of `n` and `others.len()`.
    /// Returns `true` when the list was rebuilt (the rebuild runs on the calling thread).
    pub fn update_with_checked_by(
        &mut self,
        n: usize,
        others: &[u32],
        box_of: impl Fn(usize) -> Aabb + Sync,
        skip_of: impl Fn(usize) -> bool + Sync,
        all: impl FnOnce(usize, &(dyn Fn(Range<usize>) -> bool + Sync)) -> bool,
    ) -> bool {
        self.updates += 1;
        let valid = !self.stale && self.reference.len() == n && {
            let (reference, reference_skip) = (&self.reference, &self.reference_skip);
            let test = |r: Range<usize>| {
                let within = |len: usize| r.start.min(len)..r.end.min(len);
                within(n).all(|k| skip_of(k) == reference_skip[k])
                    && others[within(others.len())]
                        .iter()
                        .all(|&i| (i as usize) < n && reference[i as usize].contains(&box_of(i as usize)))
            };
            all(n.max(others.len()), &test)
        };
        if valid {
            return false;
        }
        self.rebuild_from(n, box_of, skip_of);
        true
    }

    /// Stores the boxes and skip flags of `n` bodies and rebuilds the list from them.
    fn rebuild_from(&mut self, n: usize, box_of: impl Fn(usize) -> Aabb, skip_of: impl Fn(usize) -> bool) {
        self.boxes.clear();
        self.boxes.extend((0..n).map(&box_of));
        self.skip.clear();
        self.skip.extend((0..n).map(&skip_of));
        self.rebuild();
    }

    /// Rebuilds the list from the stored boxes and skip flags.
    fn rebuild(&mut self) {
        let half_skin = 0.5 * self.skin;
        let grow = 0.5 * (self.skin + self.margin);
        self.reference.clear();
        self.reference.extend(self.boxes.iter().map(|b| b.inflated(half_skin)));
        self.inflated.clear();
        self.inflated.extend(self.boxes.iter().map(|b| b.inflated(grow)));
        self.reference_skip.clear();
        self.reference_skip.extend_from_slice(&self.skip);
        if self.images.domain().is_periodic() {
            self.images.find_pairs(&mut self.backend, &self.inflated, &self.skip, &mut self.pairs);
        } else {
            self.backend.find_pairs(&self.inflated, &self.skip, &mut self.pairs);
        }
        self.rebuilds += 1;
        self.stale = false;
    }
}
