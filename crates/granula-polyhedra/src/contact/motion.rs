//! How far each polyhedral body has turned since the solver's previous preparation, so
//! that a separation proven at one step can be carried to the next without reading a
//! vertex (see `certificate`).
//!
//! A body turned from orientation q to q' moves each of its vertices v (about its centre)
//! by |R(q′)v − R(q)v| ≤ 2 sin(θ/2)|v|, with θ the angle of the turn q′q⁻¹. With the sign of
//! q chosen so that q·q′ ≥ 0, |q′ − q| = 2 sin(θ/4) and 2 sin(θ/2) ≤ 4 sin(θ/4), so every
//! vertex moves by at most 2|q′ − q| R, R the body's bounding radius. [`BodyTurns`] keeps,
//! per body, `2|q′ − q|` between the last two preparations (its *turn*), and a counter of
//! preparations (the *epoch*) that says which two those are.
//!
//! **Validity.** A body's turn is recorded only when the previous preparation saw the same
//! shape (by address) at the same index; any other body gets an infinite turn, which no
//! bound survives. The translation is not tracked: a user of the turns measures the
//! centres' positions at each call.
//!
//! **Storage.** As the prepared bodies' store: relaxed atomics in capacity classes of 2ᵏ
//! bodies, allocated once and never moved, written only by `record` (which the solvers call
//! between pair passes) and read by the pair tests.

use granula_core::math::DQuat;
use granula_core::shape::Shape;
use granula_core::BodySet;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

/// Number of capacity classes (2⁴⁷ bodies at most, beyond any memory).
const CLASSES: usize = 48;

/// One body's record.
#[derive(Default)]
struct Slot {
    /// Address of the body's shape at the last preparation (0: not a custom shape).
    shape: AtomicUsize,
    /// Bits of its orientation (x, y, z, w) at the last preparation.
    orientation: [AtomicU64; 4],
    /// The epoch of the last preparation that wrote this slot.
    epoch: AtomicU32,
    /// 2|q′ − q| between the last two preparations, or infinity.
    turn: AtomicU64,
}

/// The turns of the bodies of a world (module documentation).
pub(crate) struct BodyTurns {
    classes: [OnceLock<Box<[Slot]>>; CLASSES],
    /// The class in use.
    current: AtomicUsize,
    /// Preparations so far.
    epoch: AtomicU32,
}

impl Default for BodyTurns {
    fn default() -> Self {
        BodyTurns {
            classes: std::array::from_fn(|_| OnceLock::new()),
            current: AtomicUsize::new(0),
            epoch: AtomicU32::new(0),
        }
    }
}

impl std::fmt::Debug for BodyTurns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BodyTurns").field("epoch", &self.epoch.load(Relaxed)).finish()
    }
}

/// The quaternion of `bits` (x, y, z, w).
fn from_bits(b: &[AtomicU64; 4]) -> DQuat {
    let f = |k: usize| f64::from_bits(b[k].load(Relaxed));
    DQuat::from_xyzw(f(0), f(1), f(2), f(3))
}

/// 2|q′ − q| with the sign of q that makes it smallest (module documentation).
fn turn(q: DQuat, q_new: DQuat) -> f64 {
    let (a, b) = (q_new - q, q_new + q);
    2.0 * a.length().min(b.length())
}

impl BodyTurns {
    /// The epoch of the last [`BodyTurns::record`].
    #[inline]
    pub fn epoch(&self) -> u32 {
        self.epoch.load(Relaxed)
    }

    /// Records the bodies' orientations as a new epoch and each body's turn since the
    /// previous one. O(bodies); allocates only when the world outgrows its class.
    pub fn record(&self, bodies: &BodySet) {
        let n = bodies.len();
        let need = n.max(1).next_power_of_two().trailing_zeros() as usize;
        let old = self.current.load(Relaxed);
        let class = need.max(old);
        if class >= CLASSES {
            return;
        }
        let moved = class != old || self.classes[class].get().is_none();
        let slots = self.classes[class].get_or_init(|| (0..1usize << class).map(|_| Slot::default()).collect());
        self.current.store(class, Relaxed);
        let previous = self.epoch.load(Relaxed);
        let epoch = previous.wrapping_add(1);
        for (i, slot) in slots[..n].iter().enumerate() {
            let Shape::Custom(c) = &bodies.shape[i] else {
                slot.shape.store(0, Relaxed);
                continue;
            };
            let address = std::sync::Arc::as_ptr(c) as *const () as usize;
            let q = bodies.orientation[i];
            let known = !moved && slot.shape.load(Relaxed) == address && slot.epoch.load(Relaxed) == previous;
            let t = if known { turn(from_bits(&slot.orientation), q) } else { f64::INFINITY };
            slot.turn.store(t.to_bits(), Relaxed);
            slot.shape.store(address, Relaxed);
            for (a, b) in slot.orientation.iter().zip([q.x, q.y, q.z, q.w]) {
                a.store(b.to_bits(), Relaxed);
            }
            slot.epoch.store(epoch, Relaxed);
        }
        self.epoch.store(epoch, Relaxed);
    }

    /// The turn 2|q′ − q| of body `i` between the last two epochs, if it was recorded at the
    /// last one with orientation `q` (the body's pose now); infinity otherwise.
    #[inline]
    pub fn turn(&self, i: usize, q: DQuat) -> f64 {
        let Some(slots) = self.classes[self.current.load(Relaxed)].get() else { return f64::INFINITY };
        let Some(slot) = slots.get(i) else { return f64::INFINITY };
        let same = slot.epoch.load(Relaxed) == self.epoch.load(Relaxed)
            && slot.orientation.iter().zip([q.x, q.y, q.z, q.w]).all(|(a, b)| a.load(Relaxed) == b.to_bits());
        if same {
            f64::from_bits(slot.turn.load(Relaxed))
        } else {
            f64::INFINITY
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_bounds_every_vertex_move() {
        // Random unit vectors v and turns: |R(q′)v − R(q)v| ≤ turn(q, q′)·|v|, with either
        // sign of q′ (a quaternion and its negative are the same rotation).
        let mut s = 7u64;
        let mut u = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for k in 0..2000 {
            let q = DQuat::from_xyzw(u(), u(), u(), u()).normalize();
            let angle = [1e-9, 1e-4, 0.1, 3.0][k % 4] * u();
            let axis = granula_core::math::DVec3::new(u(), u(), u()).normalize();
            let q2 = (DQuat::from_axis_angle(axis, angle) * q).normalize();
            let q2 = if k % 2 == 0 { q2 } else { -q2 };
            let v = granula_core::math::DVec3::new(u(), u(), u());
            let moved = (q2 * v - q * v).length();
            // Round-off of the two products: a few 1e-16 of |v|.
            assert!(moved <= turn(q, q2) * v.length() + 1e-15 * v.length(), "case {k}");
        }
    }
}
