//! The polyhedral bodies of a world prepared once per step: each body's vertices turned
//! into the world axes (R·v, not moved to its position), its world box about its centre
//! and its bounding radius, in body order in one contiguous store.
//!
//! A pair test that reads these instead of the shapes finds both bodies' data next to the
//! other bodies' (the store) rather than behind three pointers per body (the body's shape,
//! the polyhedron, its vertex array), and turns no vertex for the world box: the box of a
//! body is computed once per step in [`PreparedBodies::prepare`] instead of once per
//! step in the broadphase's pass and again per candidate pair.
//!
//! **Validity.** A body's entry is keyed by the address of its shape and the bits of the
//! orientation it was turned with, and is used only when both match the body asked for
//! (`PosedShape`'s shape and orientation). The position is not part of the key (the
//! vertices are not moved to it), so a periodic image of a body uses its entry too. A
//! stale entry (a body inserted, removed or reordered since, a restart, a generator serving
//! several worlds, a pose set by hand) fails the check and the caller computes from the
//! shape. The store keeps a clone of every shape whose address is a key, so that an address
//! cannot be reused by another shape while it is one.
//!
//! **Storage.** The entries are atomics read and written with relaxed ordering (plain loads
//! and stores on common hardware): the solvers call `prepare` between pair passes, whose
//! threads they synchronise, and a misuse (a `prepare` racing a pair test) gives stale
//! entries that fail their check or values of either step, never undefined behaviour.
//! Within `prepare` each entry is written by one task of its turning pass, which may run
//! on the threads of the current rayon pool; no entry is written by two.
//! Stores come in capacity classes of 2ᵏ bodies and 16·2ᵏ vertices, allocated once
//! (`OnceLock`) and never moved: nothing is allocated per step once the class fits the
//! world, and a world that grows moves to a larger class (the smaller one stays allocated
//! until the generator is dropped, at most as large as all the later ones together).

use crate::core_shape::PolyhedronShape;
use crate::polyhedron::Polyhedron;
use granula_core::math::{DMat3, DQuat, DVec3};
use granula_core::narrowphase::PosedShape;
use granula_core::parallel;
use granula_core::BodySet;
use granula_core::{Aabb, CustomShape, Shape};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Number of capacity classes: class k holds 2ᵏ bodies (2⁴⁷ at most, beyond any memory).
const CLASSES: usize = 48;

/// Vertices per body the store of a class has room for on average.
const VERTICES_PER_BODY: usize = 16;

/// One body's entry. `shape == 0`: no entry (not a polyhedron).
#[derive(Default)]
struct Slot {
    /// Address of the body's shape (the data of its `Arc<dyn CustomShape>`).
    shape: AtomicUsize,
    /// Bits of the orientation (x, y, z, w) the vertices were turned with.
    orientation: [AtomicU64; 4],
    /// First vertex in the store's vertex array and number of vertices.
    first: AtomicUsize,
    count: AtomicUsize,
    /// The world box about the body's centre: min and max of R·v per axis.
    lo: [AtomicU64; 3],
    hi: [AtomicU64; 3],
    /// The bounding radius.
    radius: AtomicU64,
}

/// The entries of one capacity class.
struct Store {
    slots: Box<[Slot]>,
    /// x, y, z of each turned vertex.
    vertices: Box<[AtomicU64]>,
    /// x, y, z of each vertex in its body's frame, copied from the shape when the body's
    /// entry is laid out, so that a step reads no shape whose layout has not changed.
    local: Box<[AtomicU64]>,
}

impl Store {
    fn of_class(k: usize) -> Self {
        let bodies = 1usize << k;
        Store {
            slots: (0..bodies).map(|_| Slot::default()).collect(),
            vertices: (0..3 * VERTICES_PER_BODY * bodies).map(|_| AtomicU64::new(0)).collect(),
            local: (0..3 * VERTICES_PER_BODY * bodies).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

/// The prepared bodies of a world (module documentation).
pub(crate) struct PreparedBodies {
    stores: [OnceLock<Store>; CLASSES],
    /// The class in use plus one (0: nothing prepared yet).
    current: AtomicUsize,
    /// A clone of each body's shape whose address is a key, by body index.
    kept: Mutex<Vec<Option<Arc<dyn CustomShape>>>>,
}

impl Default for PreparedBodies {
    fn default() -> Self {
        PreparedBodies {
            stores: std::array::from_fn(|_| OnceLock::new()),
            current: AtomicUsize::new(0),
            kept: Mutex::default(),
        }
    }
}

impl std::fmt::Debug for PreparedBodies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedBodies").field("class", &self.current.load(Relaxed).checked_sub(1)).finish()
    }
}

/// The polyhedron of a body's shape and the shape's address, if it is a [`PolyhedronShape`].
fn polyhedron_of(shape: &Shape) -> Option<(&Arc<dyn CustomShape>, &Polyhedron, usize)> {
    match shape {
        Shape::Custom(c) => {
            let p = c.as_any().downcast_ref::<PolyhedronShape>()?;
            Some((c, p.polyhedron(), address(c)))
        }
        _ => None,
    }
}

#[inline]
fn address(c: &Arc<dyn CustomShape>) -> usize {
    Arc::as_ptr(c) as *const () as usize
}

#[inline]
fn bits(q: DQuat) -> [u64; 4] {
    [q.x.to_bits(), q.y.to_bits(), q.z.to_bits(), q.w.to_bits()]
}

#[inline]
fn load3(a: &[AtomicU64; 3]) -> DVec3 {
    DVec3::new(
        f64::from_bits(a[0].load(Relaxed)),
        f64::from_bits(a[1].load(Relaxed)),
        f64::from_bits(a[2].load(Relaxed)),
    )
}

#[inline]
fn store3(a: &[AtomicU64; 3], v: DVec3) {
    a[0].store(v.x.to_bits(), Relaxed);
    a[1].store(v.y.to_bits(), Relaxed);
    a[2].store(v.z.to_bits(), Relaxed);
}

/// One body's prepared entry, valid for the pose it was looked up with.
#[derive(Clone, Copy)]
pub(crate) struct PreparedBody<'a> {
    /// x, y, z of each vertex turned into the world axes.
    vertices: &'a [AtomicU64],
    slot: &'a Slot,
}

impl PreparedBody<'_> {
    /// The bounding radius of the body.
    #[inline]
    pub fn radius(&self) -> f64 {
        f64::from_bits(self.slot.radius.load(Relaxed))
    }

    /// The largest u·(R v) over the vertices: the body's support function at the world
    /// direction `u`, measured from its centre.
    #[inline]
    pub fn extent(&self, u: DVec3) -> f64 {
        self.vertices.chunks_exact(3).fold(f64::NEG_INFINITY, |m, c| {
            let w = DVec3::new(
                f64::from_bits(c[0].load(Relaxed)),
                f64::from_bits(c[1].load(Relaxed)),
                f64::from_bits(c[2].load(Relaxed)),
            );
            super::larger(m, w.dot(u))
        })
    }

    /// The turned vertex R·v farthest along the world direction `u` (the body's support
    /// point, measured from its centre; the first one on a tie).
    #[inline]
    pub fn support(&self, u: DVec3) -> DVec3 {
        let (mut best, mut best_dot) = (DVec3::ZERO, f64::NEG_INFINITY);
        for c in self.vertices.chunks_exact(3) {
            let w = DVec3::new(
                f64::from_bits(c[0].load(Relaxed)),
                f64::from_bits(c[1].load(Relaxed)),
                f64::from_bits(c[2].load(Relaxed)),
            );
            let d = w.dot(u);
            if d > best_dot {
                (best, best_dot) = (w, d);
            }
        }
        best
    }

    /// The world box of the body at `position`.
    #[inline]
    pub fn aabb(&self, position: DVec3) -> Aabb {
        Aabb { min: position + load3(&self.slot.lo), max: position + load3(&self.slot.hi) }
    }
}

impl PreparedBodies {
    /// Turns the vertices of every polyhedral body of `bodies` into the world axes and
    /// computes its world box about its centre, exactly as
    /// [`Polyhedron::world_aabb`](crate::Polyhedron::world_aabb) does (the same operations
    /// in the same order, so the boxes are the same bits). O(total vertices); allocates only
    /// when the world outgrows its capacity class. The bodies are laid out in body order,
    /// then turned in parallel in the current rayon pool for a world of at least 512 bodies
    /// (on the calling thread inside [`granula_core::parallel::sequential`]): the same
    /// entries on any number of threads.
    pub(crate) fn prepare(&self, bodies: &BodySet) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let n = bodies.len();
        let class_of = |bodies: usize, vertices: usize| {
            let need = bodies.max(vertices.div_ceil(VERTICES_PER_BODY)).max(1);
            need.next_power_of_two().trailing_zeros() as usize
        };
        let old = self.current.load(Relaxed).checked_sub(1);
        let mut class = old.map_or(class_of(n, 0), |k| k.max(class_of(n, 0)));
        loop {
            if class >= CLASSES {
                // A world beyond every class: nothing prepared, every pair computed.
                self.current.store(0, Relaxed);
                return;
            }
            let store = self.stores[class].get_or_init(|| Store::of_class(class));
            if self.current.load(Relaxed) != class + 1 {
                // A new store: every body's local vertices are copied again.
                kept.clear();
                self.current.store(class + 1, Relaxed);
            }
            kept.resize(n, None);
            if fill(store, &mut kept, bodies).is_ok() {
                return;
            }
            // Out of room: the class that holds every body's vertices.
            let total: usize = bodies.shape.iter().filter_map(polyhedron_of).map(|(_, p, _)| p.vertices().len()).sum();
            class = (class + 1).max(class_of(n, total));
        }
    }

    /// The entry of `body` if one was prepared for its shape and its orientation.
    #[inline]
    pub(crate) fn get(&self, body: &PosedShape<'_>) -> Option<PreparedBody<'_>> {
        let i = body.index?;
        let Shape::Custom(c) = body.shape else { return None };
        let class = self.current.load(Relaxed).checked_sub(1)?;
        let store = self.stores[class].get()?;
        let slot = store.slots.get(i)?;
        if slot.shape.load(Relaxed) != address(c) {
            return None;
        }
        if slot.orientation.iter().zip(bits(body.orientation)).any(|(a, b)| a.load(Relaxed) != b) {
            return None;
        }
        let (first, count) = (slot.first.load(Relaxed), slot.count.load(Relaxed));
        let vertices = store.vertices.get(3 * first..3 * (first + count))?;
        Some(PreparedBody { vertices, slot })
    }
}

/// The smallest task, in bodies, of the turning pass of [`fill`] when it runs in parallel:
/// some 250 bodies of about twelve vertices take ten microseconds to turn, several times
/// what handing a task to another thread costs, so a world below twice this size is
/// turned in one task on the calling thread.
const TURN_TASK: usize = 256;

/// Lays out and turns every body of `bodies` in `store` (see [`PreparedBodies::prepare`]);
/// `Err` when the store has no room for them.
///
/// Two passes. The layout, in body order, gives each polyhedral body its first vertex (the
/// vertex counts of the bodies before it, summed) and copies its local vertices when its
/// shape or that offset changed; a body without an entry gets the empty key. The turning
/// then computes each polyhedral body's world vertices, box and key from its own slot and
/// local vertices only, so its tasks may run on the threads of the current rayon pool
/// ([`granula_core::parallel::min_len`]): every entry is the same bits whichever thread
/// writes it.
fn fill(store: &Store, kept: &mut [Option<Arc<dyn CustomShape>>], bodies: &BodySet) -> Result<(), ()> {
    let n = bodies.len();
    let slots = store.slots.get(..n).ok_or(())?;
    let mut next = 0usize;
    for (i, slot) in slots.iter().enumerate() {
        let Shape::Custom(c) = &bodies.shape[i] else {
            slot.shape.store(0, Relaxed);
            kept[i] = None;
            continue;
        };
        // The body's local vertices are in the store at `next` if its shape and every
        // earlier body's vertex count are unchanged since they were copied there: then
        // the shape itself is not read.
        let laid_out = kept[i].as_ref().map(address) == Some(address(c)) && slot.first.load(Relaxed) == next;
        if !laid_out {
            let Some((c, p, _)) = polyhedron_of(&bodies.shape[i]) else {
                slot.shape.store(0, Relaxed);
                kept[i] = None;
                continue;
            };
            let count = p.vertices().len();
            let local = store.local.get(3 * next..3 * (next + count)).ok_or(())?;
            // Invalid until written whole.
            slot.shape.store(0, Relaxed);
            kept[i] = Some(Arc::clone(c));
            for (v, out) in p.vertices().iter().zip(local.chunks_exact(3)) {
                out[0].store(v.x.to_bits(), Relaxed);
                out[1].store(v.y.to_bits(), Relaxed);
                out[2].store(v.z.to_bits(), Relaxed);
            }
            slot.first.store(next, Relaxed);
            slot.count.store(count, Relaxed);
            slot.radius.store(p.bounding_radius().to_bits(), Relaxed);
        }
        next += slot.count.load(Relaxed);
    }
    // Every polyhedral body now has its shape kept and its local vertices at `first`, all
    // within the store (checked above, where they were copied).
    let kept: &[Option<Arc<dyn CustomShape>>] = kept;
    slots.par_iter().zip(kept).zip(&bodies.orientation).with_min_len(parallel::min_len(TURN_TASK)).for_each(
        |((slot, kept), &q)| {
            if let Some(c) = kept {
                turn(store, slot, address(c), q);
            }
        },
    );
    // Slots past the body count keep old entries: their index is not asked for while the
    // world has n bodies, and a later world checks their keys.
    Ok(())
}

/// Turns the local vertices of `slot`'s body by `q` into the store's world vertices, and
/// writes the body's box and its key (`shape`, the bits of `q`) last.
fn turn(store: &Store, slot: &Slot, shape: usize, q: DQuat) {
    let (first, count) = (slot.first.load(Relaxed), slot.count.load(Relaxed));
    // As `Polyhedron::world_aabb`: the same operations in the same order.
    let m = DMat3::from_quat(q);
    let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
    let range = 3 * first..3 * (first + count);
    for (v, out) in store.local[range.clone()].chunks_exact(3).zip(store.vertices[range].chunks_exact(3)) {
        let v = DVec3::new(
            f64::from_bits(v[0].load(Relaxed)),
            f64::from_bits(v[1].load(Relaxed)),
            f64::from_bits(v[2].load(Relaxed)),
        );
        let w = m * v;
        (lo, hi) = (lo.min(w), hi.max(w));
        out[0].store(w.x.to_bits(), Relaxed);
        out[1].store(w.y.to_bits(), Relaxed);
        out[2].store(w.z.to_bits(), Relaxed);
    }
    slot.shape.store(shape, Relaxed);
    for (a, b) in slot.orientation.iter().zip(bits(q)) {
        a.store(b, Relaxed);
    }
    store3(&slot.lo, lo);
    store3(&slot.hi, hi);
}
