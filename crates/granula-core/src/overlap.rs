//! The insertion overlap check: bodies inserted through the library may not overlap, as
//! scene files already enforce. [`World::step`] runs it before the first step after an
//! insertion, on the newly inserted bodies only, with a sorted sweep along x (no
//! broadphase): O(N log N) per check, so inserting N bodies one by one and then stepping
//! costs one check, not O(N²).

use crate::body_set::MotionKind;
use crate::error::{CoreError, Result};
use crate::handle::BodyHandle;
use crate::narrowphase::{can_touch, NarrowphaseError};
use crate::world::World;

/// Overlap tolerated at insertion, as a fraction of the smaller radius of the pair. A body
/// placed into another by more than 1 % of the smaller radius is a placement error (a
/// lattice spacing below the diameter, a sphere inside a wall), the kind that blows up at
/// the first steps; states prepared in contact overlap far less (a bead resting under
/// gravity, or a packing compressed by contact dynamics, by 1e-4 to 1e-3 of its radius)
/// and pass. Scene files are stricter (1e-9): their initial bodies must not touch.
pub const INSERTION_OVERLAP_TOLERANCE: f64 = 1e-2;

/// The deepest overlap found so far: dense indices, overlap (m), ratio.
type Deepest = Option<(usize, usize, f64, f64)>;

impl World {
    /// Checks that no two bodies overlap by more than [`INSERTION_OVERLAP_TOLERANCE`] of the
    /// smaller radius, and fails with [`CoreError::InsertedOverlap`] naming the deepest
    /// overlapping pair and its depth. Pairs of two non-dynamic bodies (fixed walls and
    /// obstacles) are not checked: they never move into each other.
    ///
    /// [`World::step`] runs this check by itself before the first step after an insertion,
    /// restricted to the pairs with a newly inserted body; call it directly to check a state
    /// set by hand.
    ///
    /// ```
    /// use granula_core::prelude::*;
    ///
    /// # fn main() -> Result<(), CoreError> {
    /// let mut world = World::builder().build()?;
    /// world.insert(SphereBuilder::new(0.01, DVec3::ZERO).build()?)?;
    /// world.insert(SphereBuilder::new(0.01, DVec3::new(0.015, 0.0, 0.0)).build()?)?;
    /// let err = world.check_overlaps().unwrap_err();
    /// assert!(matches!(err, CoreError::InsertedOverlap { .. }));
    /// assert!(err.to_string().contains("overlap by 5.000e-3 m"), "{err}");
    /// # Ok(())
    /// # }
    /// ```
    pub fn check_overlaps(&self) -> Result<()> {
        self.overlaps_among(BodyHandle(0))
    }

    /// Accepts the overlaps of the current bodies: the next step does not check them. For a
    /// state restored from a run (soft contacts overlap by design) or a packing imported
    /// from another code; bodies inserted later are checked as usual.
    pub fn accept_overlaps(&mut self) {
        self.overlaps_checked_below = self.bodies.next_handle();
    }

    /// Runs the check on the bodies inserted since the last one, then marks them checked
    /// (by [`World::step`]).
    pub(crate) fn check_inserted_overlaps(&mut self) -> Result<()> {
        let next = self.bodies.next_handle();
        if next == self.overlaps_checked_below {
            return Ok(());
        }
        self.overlaps_among(self.overlaps_checked_below)?;
        self.overlaps_checked_below = next;
        Ok(())
    }

    /// The check over the pairs with at least one body of handle ≥ `first_new`.
    fn overlaps_among(&self, first_new: BodyHandle) -> Result<()> {
        let b = &self.bodies;
        let is_new = |i: usize| b.handle[i] >= first_new;
        let dynamic = |i: usize| b.motion[i] == MotionKind::Dynamic;
        let mut deepest: Deepest = None;
        let test = |i: usize, j: usize, deepest: &mut Deepest| -> Result<()> {
            if !(is_new(i) || is_new(j))
                || !(dynamic(i) || dynamic(j))
                || !can_touch(&b.shape[i], &b.shape[j])
                || !self.narrowphase().supports(&b.shape[i], &b.shape[j])
            {
                return Ok(());
            }
            // The deepest of the pair's points (a host pair may have several).
            let mut points = Vec::new();
            let overlap = match self.narrowphase().collide(b, i, j, 0.0, &mut points) {
                Ok(()) if points.is_empty() => return Ok(()),
                Ok(()) => points.iter().map(|g| -g.gap).fold(f64::NEG_INFINITY, f64::max),
                // Concentric spheres, or a sphere centred on a cylinder's axis: the deepest
                // overlap there is; for two spheres it is the sum of the radii.
                Err(NarrowphaseError::Degenerate { .. }) => {
                    let (ri, rj) = (b.radius[i], b.radius[j]);
                    if ri.is_finite() && rj.is_finite() {
                        ri + rj - (b.position[i] - b.position[j]).length()
                    } else {
                        ri.min(rj)
                    }
                }
                Err(e) => return Err(e.into()),
            };
            {
                let ratio = overlap / b.radius[i].min(b.radius[j]);
                if ratio > INSERTION_OVERLAP_TOLERANCE && deepest.is_none_or(|d| ratio > d.3) {
                    *deepest = Some((i.min(j), i.max(j), overlap, ratio));
                }
            }
            Ok(())
        };
        // Bounded bodies (spheres, custom shapes) by the lower x of their boxes; walls
        // (unbounded boxes) against every bounded body.
        let boxes: Vec<_> = (0..b.len()).map(|i| b.aabb(i)).collect();
        let bounded = |i: &usize| boxes[*i].min.is_finite() && boxes[*i].max.is_finite();
        let mut sorted: Vec<usize> = (0..b.len()).filter(bounded).collect();
        sorted.sort_by(|&i, &j| boxes[i].min.x.total_cmp(&boxes[j].min.x).then(i.cmp(&j)));
        for (k, &i) in sorted.iter().enumerate() {
            for &j in &sorted[k + 1..] {
                if boxes[j].min.x > boxes[i].max.x {
                    break;
                }
                let (a, c) = (&boxes[i], &boxes[j]);
                if a.min.y <= c.max.y && c.min.y <= a.max.y && a.min.z <= c.max.z && c.min.z <= a.max.z {
                    test(i, j, &mut deepest)?;
                }
            }
        }
        for w in (0..b.len()).filter(|i| !bounded(i)) {
            for &i in &sorted {
                test(w, i, &mut deepest)?;
            }
        }
        match deepest {
            None => Ok(()),
            Some((i, j, overlap, ratio)) => {
                let (body1, body2) = (b.handle[i], b.handle[j]);
                let inserted = if body2 >= first_new { body2 } else { body1 };
                Err(CoreError::InsertedOverlap { body1, body2, inserted, overlap, ratio, step: self.step_count() + 1 })
            }
        }
    }
}
