//! A proof that a pair of convex hulls is apart, kept in the pair's memory
//! ([`PairMemory`]) from one step to the next (temporal coherence).
//!
//! With u a unit direction, d = x₂ − x₁ the centres' separation and h₁, h₂ the bodies'
//! support functions about their centres, the hulls are apart by at least
//! d·u − (h₁(u) + h₂(−u)) along u. A certificate keeps u and an upper bound `reach` of
//! h₁(u) + h₂(−u) for the bodies' orientations at one epoch of the turns ([`BodyTurns`]).
//! At the next epoch each vertex has moved about its centre by at most turn·R, so
//! reach + turn₁R₁ + turn₂R₂ bounds the sum again, and d·u is measured anew: while the
//! bound leaves a gap, the pair is still apart, proven without reading a vertex.
//!
//! **Words.** u as three `f32` (the direction the extents were computed with is that
//! rounded one), `reach` as an `f32` rounded up (an upper bound stays one), the epoch and
//! a tag of the pair's two body indices, so that a memory handed to another pair proves
//! nothing there:
//! word 0 = u.x | u.y ≪ 32, word 1 = u.z | reach ≪ 32, word 2 = epoch | tag ≪ 32. An empty
//! memory (all zero) has u = 0 and is no certificate. A pair found in contact is marked
//! instead ([`Remembered::Touching`]: words 0, 1 ≪ 32, tag ≪ 32), so that its next call goes
//! straight to the full search rather than searching for a proof it is unlikely to find.

use super::motion::BodyTurns;
use granula_core::math::DVec3;
use granula_core::narrowphase::PairMemory;

/// A decoded certificate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Certificate {
    /// The direction from body 1 toward body 2 (a rounded unit vector).
    pub u: DVec3,
    /// Upper bound of h₁(u) + h₂(−u) at `epoch`.
    pub reach: f64,
    /// The epoch of the turns at which `reach` holds.
    pub epoch: u32,
}

/// The tag of the pair of body indices `(i, j)` (a hash: another pair has another tag
/// but for one chance in 2³²).
#[inline]
pub(crate) fn tag(i: usize, j: usize) -> u32 {
    let h = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (j as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    (h >> 32) as u32 ^ h as u32
}

/// `x` as the smallest `f32` not below it, for a finite positive `x` below `f32::MAX`.
fn round_up(x: f64) -> Option<f32> {
    if !(x > 0.0 && x < f32::MAX as f64) {
        return None;
    }
    let y = x as f32;
    Some(if (y as f64) < x { f32::from_bits(y.to_bits() + 1) } else { y })
}

/// `u` with each component rounded to `f32`: the direction a certificate can keep.
#[inline]
pub(crate) fn storable(u: DVec3) -> DVec3 {
    u.as_vec3().as_dvec3()
}

/// What a pair's memory holds for the pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Remembered {
    /// Nothing (empty, or another pair's).
    Nothing,
    /// A proof that the pair was apart.
    Apart(Certificate),
    /// The pair had contact points at its last call: no proof is worth searching for.
    Touching,
}

/// Word 1 of a memory marked [`Remembered::Touching`]: u.z zero (with word 0 zero, no
/// direction) and a non-zero reach field.
const TOUCHING: u64 = 1 << 32;

/// Reads `memory` for the pair of tag `tag`.
#[inline]
pub(crate) fn recall(memory: &PairMemory, tag: u32) -> Remembered {
    let [w0, w1, w2] = memory.load();
    if (w2 >> 32) as u32 != tag {
        return Remembered::Nothing;
    }
    let f = |w: u64| f32::from_bits(w as u32) as f64;
    let u = DVec3::new(f(w0), f(w0 >> 32), f(w1));
    if u != DVec3::ZERO {
        Remembered::Apart(Certificate { u, reach: f(w1 >> 32), epoch: w2 as u32 })
    } else if w0 == 0 && w1 == TOUCHING {
        Remembered::Touching
    } else {
        Remembered::Nothing
    }
}

/// Marks `memory` [`Remembered::Touching`] for the pair of tag `tag`.
#[inline]
pub(crate) fn mark_touching(memory: &PairMemory, tag: u32) {
    memory.store([0, TOUCHING, (tag as u64) << 32]);
}

impl Certificate {
    /// Writes the certificate (`u` must be [`storable`]) into `memory` for the pair of tag
    /// `tag`; empties the memory instead when `reach` cannot be kept as an upper bound.
    #[inline]
    pub fn write(&self, memory: &PairMemory, tag: u32) {
        let Some(reach) = round_up(self.reach) else {
            memory.clear();
            return;
        };
        let b = |x: f64| (x as f32).to_bits() as u64;
        memory.store([
            b(self.u.x) | b(self.u.y) << 32,
            b(self.u.z) | (reach.to_bits() as u64) << 32,
            self.epoch as u64 | (tag as u64) << 32,
        ]);
    }

    /// The bound of h₁(u) + h₂(−u) at the turns' current epoch: `reach` itself at its own
    /// epoch; at the next one, `reach` plus each body's turn times its bounding radius plus
    /// a round-off allowance; infinity otherwise. `body1`, `body2`: (index, bounding
    /// radius) of bodies whose prepared entries matched their poses.
    #[inline]
    pub fn reach_now(&self, turns: &BodyTurns, body1: (usize, f64), body2: (usize, f64)) -> f64 {
        let epoch = turns.epoch();
        if self.epoch == epoch {
            return self.reach;
        }
        if self.epoch != epoch.wrapping_sub(1) {
            return f64::INFINITY;
        }
        let (t1, t2) = (turns.turn(body1.0), turns.turn(body2.0));
        // The turned vertices are products of a rotation matrix and the body-frame vertices,
        // each off by a few 1e-16 of the radius: 1e-14 of the radii covers both ends.
        self.reach + t1 * body1.1 + t2 * body2.1 + ROUND_OFF * (body1.1 + body2.1)
    }
}

/// Allowance per epoch for the round-off of the turned vertices (times the radii).
const ROUND_OFF: f64 = 1e-14;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_with_the_reach_rounded_up() {
        let m = PairMemory::new();
        let u = storable(DVec3::new(0.3, -0.4, 0.866).normalize());
        let c = Certificate { u, reach: 1.000_000_01, epoch: 7 };
        c.write(&m, tag(3, 9));
        let Remembered::Apart(back) = recall(&m, tag(3, 9)) else { panic!("no certificate") };
        assert_eq!((back.u, back.epoch), (u, 7));
        // Rounded up to the next f32: not below, within one f32 step (1.2e-7 relative).
        assert!(back.reach >= c.reach && back.reach - c.reach < 1.2e-7);
        // Another pair's tag, or an empty memory: no certificate.
        assert_eq!(recall(&m, tag(9, 3)), Remembered::Nothing);
        assert_eq!(recall(&PairMemory::new(), tag(0, 0)), Remembered::Nothing);
        mark_touching(&m, tag(3, 9));
        assert_eq!((recall(&m, tag(3, 9)), recall(&m, tag(4, 9))), (Remembered::Touching, Remembered::Nothing));
        // A reach that cannot be bounded empties the memory.
        Certificate { reach: f64::NAN, ..c }.write(&m, tag(3, 9));
        assert_eq!(m.load(), [0; 3]);
    }
}
