//! Parallel Gauss-Seidel sweeps by colours of the contact graph.
//!
//! Two contacts conflict when they share a body that can move (fixed and kinematic bodies
//! have zero mobility, 000 §2.4.2, and are never written). A greedy colouring in list order
//! gives every contact the smallest colour not yet taken by a contact of one of its two
//! movable bodies (Saad, *Iterative Methods for Sparse Linear Systems*, 2nd ed., §12.4.1,
//! multicolour orderings). The contacts of one colour touch disjoint movable bodies, so
//! their updates commute: updating them in any order, or at once on several threads, gives
//! the same bits. The sweep visits the colours in turn, one after the other (a multicolour
//! Gauss-Seidel sweep), and each colour's contacts in parallel.
//!
//! The colouring is a deterministic function of the contact list, so results do not
//! depend on the number of threads, and a restart rebuilds the same colours.

use crate::bodies::{BodyMobility, BodyVelocity};
use crate::contacts::HotContact;
use crate::local::NonSmoothLaw;
use crate::moreau_jean::local_solve;
use granula_core::{DMat3, DVec3};

/// Colours beyond this many go to one last colour swept sequentially (a body with more
/// than 64 contacts; the dense sphere packings need 9 colours).
pub const MAX_PARALLEL_COLOURS: u32 = 64;

/// Greedy colouring of the contacts `bodies` (pairs of dense body indices, list order);
/// `movable[i]` tells whether body i can move. Fills `keys` with `(colour << 32 | k, k)`
/// sorted, to permute the list with (colours grouped, list order within a colour), and
/// `offsets` with the start of each colour in the permuted list followed by the count.
/// Colour [`MAX_PARALLEL_COLOURS`] holds the contacts that found no free colour below it;
/// returns whether it is used (it is then the last colour of `offsets`).
pub fn colour(
    bodies: &[(u32, u32)],
    movable: &[bool],
    masks: &mut Vec<u64>,
    keys: &mut Vec<(u64, u32)>,
    offsets: &mut Vec<u32>,
) -> bool {
    masks.clear();
    masks.resize(movable.len(), 0);
    keys.clear();
    let mut counts = [0u32; MAX_PARALLEL_COLOURS as usize + 1];
    for (k, &(i, j)) in bodies.iter().enumerate() {
        let (i, j) = (i as usize, j as usize);
        let mi = if movable[i] { masks[i] } else { 0 };
        let mj = if movable[j] { masks[j] } else { 0 };
        let free = !(mi | mj);
        let c = if free == 0 { MAX_PARALLEL_COLOURS } else { free.trailing_zeros() };
        if c < MAX_PARALLEL_COLOURS {
            if movable[i] {
                masks[i] |= 1 << c;
            }
            if movable[j] {
                masks[j] |= 1 << c;
            }
        }
        counts[c as usize] += 1;
        keys.push((((c as u64) << 32) | k as u64, k as u32));
    }
    keys.sort_unstable();
    offsets.clear();
    let mut start = 0;
    for &n in counts.iter() {
        if n > 0 {
            offsets.push(start);
            start += n;
        }
    }
    offsets.push(start);
    counts[MAX_PARALLEL_COLOURS as usize] > 0
}

/// Raw access to the body velocities shared by the updates of one colour.
#[derive(Clone, Copy)]
pub(crate) struct SharedVelocities(*mut BodyVelocity);

// SAFETY: the pointer is only used by `update_shared` on the contacts of one colour, which
// write disjoint movable bodies and only read the immovable ones (see `update_shared`).
unsafe impl Send for SharedVelocities {}
// SAFETY: as above.
unsafe impl Sync for SharedVelocities {}

impl SharedVelocities {
    /// Wraps the velocity array for the duration of one colour.
    pub(crate) fn new(vel: &mut [BodyVelocity]) -> Self {
        SharedVelocities(vel.as_mut_ptr())
    }
}

/// One contact update of the ELG Gauss-Seidel (as `moreau_jean::update`) on velocities
/// shared by the contacts of one colour. Returns the new impulse and its change.
///
/// # Safety
///
/// `vel` points to the velocities of at least `max(body1, body2) + 1` bodies, alive and
/// not otherwise accessed during the call; no other contact updated at the same time
/// shares a body with `mob[i] != 0` (a movable body) with `c`: the colouring guarantees it.
/// Immovable bodies are only read.
#[inline(always)]
pub(crate) unsafe fn update_shared<L: NonSmoothLaw>(
    law: &L,
    c: &mut HotContact<L::Params>,
    coupled: &[DMat3],
    vel: SharedVelocities,
    mob: &[BodyMobility],
    movable: &[bool],
    omega: f64,
) -> (DVec3, DVec3) {
    let (i, j) = (c.body1 as usize, c.body2 as usize);
    // SAFETY: in bounds by the caller's contract; body i or j is written below only by this
    // contact among those running now (disjoint movable bodies).
    let (v1, v2) = unsafe { (*vel.0.add(i), *vel.0.add(j)) };
    let p = local_solve(law, c, coupled, v1, v2, omega);
    let s = c.s();
    let dp = p - c.p;
    if dp != DVec3::ZERO {
        let pw = c.n * dp.x + c.t * dp.y + s * dp.z;
        if movable[j] {
            let d = mob[j].response(c.l2, pw);
            // SAFETY: see above.
            unsafe {
                (*vel.0.add(j)).v += d.v;
                (*vel.0.add(j)).w += d.w;
            }
        }
        if movable[i] {
            let d = mob[i].response(c.l1, pw);
            // SAFETY: see above.
            unsafe {
                (*vel.0.add(i)).v -= d.v;
                (*vel.0.add(i)).w -= d.w;
            }
        }
        c.p = p;
    }
    (p, dp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contacts_of_one_colour_share_no_movable_body() {
        // Bodies 0 and 5 are walls; a chain 0-1-2-3-4-5 and a star on body 2.
        let bodies = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (2, 4), (0, 3), (5, 1)];
        let movable = [false, true, true, true, true, false];
        let (mut masks, mut keys, mut offsets) = (Vec::new(), Vec::new(), Vec::new());
        assert!(!colour(&bodies, &movable, &mut masks, &mut keys, &mut offsets));
        assert_eq!(*offsets.last().unwrap() as usize, bodies.len());
        let mut seen: Vec<u32> = keys.iter().map(|k| k.1).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..bodies.len() as u32).collect::<Vec<_>>(), "a permutation");
        for w in offsets.windows(2) {
            let mut used = [false; 6];
            for &(_, k) in &keys[w[0] as usize..w[1] as usize] {
                let (i, j) = bodies[k as usize];
                for b in [i as usize, j as usize] {
                    if movable[b] {
                        assert!(!used[b], "body {b} twice in one colour");
                        used[b] = true;
                    }
                }
            }
        }
        // Walls do not conflict: (0, 1) and (4, 5) and (0, 3) can share colour 0 with
        // (2, ...)? Greedy: (0,1)->0, (1,2)->1, (2,3)->0, (3,4)->1, (4,5)->0, (2,4)->2,
        // (0,3)->2, (5,1)->2.
        assert_eq!(offsets, vec![0, 3, 5, 8]);
    }
}
