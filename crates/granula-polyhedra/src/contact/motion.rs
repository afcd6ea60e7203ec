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
//! shape (by address, kept alive by a clone so that no other shape can take its address)
//! at the same index; any other body gets an infinite turn, which no bound survives. The translation is not tracked: a user of the turns measures the
//! centres' positions at each call.
//!
//! **Storage.** As the prepared bodies' store: relaxed atomics in capacity classes of 2ᵏ
//! bodies, allocated once and never moved, written only by `record` (which the solvers call
//! between pair passes) and read by the pair tests.

use granula_core::math::DQuat;
use granula_core::BodySet;
use granula_core::{CustomShape, Shape};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Number of capacity classes (2⁴⁷ bodies at most, beyond any memory).
const CLASSES: usize = 48;

/// One body's record of its last preparation.
#[derive(Default)]
struct Slot {
    /// Address of the body's shape at the last preparation (0: not a custom shape).
    shape: AtomicUsize,
    /// Bits of its orientation (x, y, z, w) at the last preparation.
    orientation: [AtomicU64; 4],
}

/// The records and turns of a capacity class of 2ᵏ bodies.
struct Class {
    slots: Box<[Slot]>,
    /// 2|q′ − q| per body between the last two preparations, or infinity: a dense column
    /// (8 bytes a body), the only part the pair tests read.
    turns: Box<[AtomicU64]>,
}

/// The turns of the bodies of a world (module documentation).
pub(crate) struct BodyTurns {
    classes: [OnceLock<Class>; CLASSES],
    /// The class in use.
    current: AtomicUsize,
    /// Bodies recorded at the last preparation.
    count: AtomicUsize,
    /// Preparations so far.
    epoch: AtomicU32,
    /// A clone of each recorded shape by body index, so that no other shape can take the
    /// address of one while it is a record's key (a freed shape's address may be reused).
    kept: Mutex<Vec<Option<Arc<dyn CustomShape>>>>,
}

impl Default for BodyTurns {
    fn default() -> Self {
        BodyTurns {
            classes: std::array::from_fn(|_| OnceLock::new()),
            current: AtomicUsize::new(0),
            count: AtomicUsize::new(0),
            epoch: AtomicU32::new(0),
            kept: Mutex::default(),
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
    /// previous one (a body's first record, or one whose shape at its index changed, gets
    /// an infinite turn). O(bodies); allocates only when the world outgrows its class.
    pub fn record(&self, bodies: &BodySet) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let n = bodies.len();
        let need = n.max(1).next_power_of_two().trailing_zeros() as usize;
        let old = self.current.load(Relaxed);
        let class = need.max(old);
        // A new epoch whatever happens below; until the new records are written, none:
        // every turn infinite.
        self.epoch.store(self.epoch.load(Relaxed).wrapping_add(1), Relaxed);
        let recorded = self.count.swap(0, Relaxed);
        if class >= CLASSES {
            return;
        }
        // Records of the previous epoch exist only in the class in use and for the bodies
        // then recorded.
        let previous = if class == old { recorded.min(n) } else { 0 };
        let c = self.classes[class].get_or_init(|| Class {
            slots: (0..1usize << class).map(|_| Slot::default()).collect(),
            turns: (0..1usize << class).map(|_| AtomicU64::new(f64::INFINITY.to_bits())).collect(),
        });
        self.current.store(class, Relaxed);
        kept.resize(n, None);
        for (i, (slot, t)) in c.slots[..n].iter().zip(&c.turns[..n]).enumerate() {
            let Shape::Custom(custom) = &bodies.shape[i] else {
                slot.shape.store(0, Relaxed);
                t.store(f64::INFINITY.to_bits(), Relaxed);
                kept[i] = None;
                continue;
            };
            let address = Arc::as_ptr(custom) as *const () as usize;
            if kept[i].as_ref().is_none_or(|k| !Arc::ptr_eq(k, custom)) {
                kept[i] = Some(Arc::clone(custom));
            }
            let q = bodies.orientation[i];
            let known = i < previous && slot.shape.load(Relaxed) == address;
            let turned = if known { turn(from_bits(&slot.orientation), q) } else { f64::INFINITY };
            t.store(turned.to_bits(), Relaxed);
            slot.shape.store(address, Relaxed);
            for (a, b) in slot.orientation.iter().zip([q.x, q.y, q.z, q.w]) {
                a.store(b.to_bits(), Relaxed);
            }
        }
        self.count.store(n, Relaxed);
    }

    /// The turn 2|q′ − q| of body `i` between the last two epochs, infinity if it has none.
    /// The caller asks only for a body whose pose now is the one recorded at the last
    /// epoch: one whose prepared entry, written by the same preparation, matched its pose.
    #[inline]
    pub fn turn(&self, i: usize) -> f64 {
        if i >= self.count.load(Relaxed) {
            return f64::INFINITY;
        }
        let Some(c) = self.classes[self.current.load(Relaxed)].get() else { return f64::INFINITY };
        c.turns.get(i).map_or(f64::INFINITY, |t| f64::from_bits(t.load(Relaxed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{shapes, PolyhedronBuilder};
    use granula_core::math::DVec3;
    use granula_core::World;

    #[test]
    fn turns_are_recorded_between_consecutive_preparations_only() {
        let mut narrowphase = granula_core::Narrowphase::new();
        crate::register_all(&mut narrowphase).unwrap();
        let mut w = World::builder().narrowphase(narrowphase).build().unwrap();
        for k in 0..3 {
            let cube = std::sync::Arc::new(shapes::cube(1.0).unwrap());
            w.insert(PolyhedronBuilder::new(cube, DVec3::new(3.0 * k as f64, 0.0, 0.0)).build().unwrap()).unwrap();
        }
        let turns = BodyTurns::default();
        // Before any record, and at the first one: no previous orientation, infinite turns.
        assert_eq!(turns.turn(0), f64::INFINITY);
        turns.record(&w.bodies);
        assert_eq!((turns.epoch(), turns.turn(1)), (1, f64::INFINITY));
        // Body 1 turned by 0.2 rad, the others not: 2|q' − q| = 4 sin(0.05), exactly 0.
        w.bodies.orientation[1] = DQuat::from_rotation_z(0.2);
        turns.record(&w.bodies);
        // 4 sin(θ/4) from the quaternion difference, to its round-off (1e-15).
        assert!((turns.turn(1) - 4.0 * 0.05f64.sin()).abs() < 1e-15, "{}", turns.turn(1));
        assert_eq!((turns.epoch(), turns.turn(0), turns.turn(2)), (2, 0.0, 0.0));
        // A body replaced by another shape at its index: no turn for it; out of range: none.
        let other = std::sync::Arc::new(shapes::cube(0.5).unwrap());
        let h = w.bodies.handle[2];
        w.remove(h).unwrap();
        w.insert(PolyhedronBuilder::new(other, DVec3::new(6.0, 0.0, 0.0)).build().unwrap()).unwrap();
        turns.record(&w.bodies);
        assert_eq!(
            (turns.turn(0), turns.turn(1), turns.turn(2), turns.turn(3)),
            (0.0, 0.0, f64::INFINITY, f64::INFINITY)
        );
    }

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
