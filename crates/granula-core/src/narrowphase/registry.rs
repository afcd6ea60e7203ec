//! Contact generation as a plug-in: the [`ContactGenerator`] trait a host implements for a
//! pair of shape kinds, and the [`Narrowphase`] that dispatches a pair of bodies to the
//! built-in geometry or to a registered generator.
//!
//! The built-in pairs (sphere–sphere, plane–sphere, cylinder–sphere) are matched first,
//! without a virtual call; only the pairs a host registered go through a trait object.

use super::{collide_builtin, collide_builtin_at, PairMemory};
use crate::body_set::BodySet;
use crate::contact::ContactGeometry;
use crate::error::CoreError;
use crate::handle::BodyHandle;
use crate::math::{DQuat, DVec3};
use crate::shape::{Aabb, Shape};
use std::fmt;
use std::sync::Arc;

/// The kind of a shape, the key under which contact generators are registered. Custom
/// shapes are told apart by their [`CustomShape::name`](crate::CustomShape::name), so two
/// host shape types must not share a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKind {
    /// [`Shape::Sphere`].
    Sphere,
    /// [`Shape::Plane`].
    Plane,
    /// [`Shape::Cylinder`].
    Cylinder,
    /// [`Shape::Custom`] of this name.
    Custom(&'static str),
}

impl ShapeKind {
    /// The kind of `shape`.
    #[inline]
    pub fn of(shape: &Shape) -> ShapeKind {
        match shape {
            Shape::Sphere { .. } => ShapeKind::Sphere,
            Shape::Plane { .. } => ShapeKind::Plane,
            Shape::Cylinder(_) => ShapeKind::Cylinder,
            Shape::Custom(c) => ShapeKind::Custom(c.name()),
        }
    }

    /// `true` for the built-in kinds, whose pairs the library defines itself.
    #[inline]
    pub fn is_builtin(self) -> bool {
        !matches!(self, ShapeKind::Custom(_))
    }
}

/// One body as a contact generator sees it: its shape and its pose, and its index in the
/// body set when it is a body of one.
#[derive(Clone, Copy, Debug)]
pub struct PosedShape<'a> {
    /// The shape.
    pub shape: &'a Shape,
    /// Position of the body (world frame, m).
    pub position: DVec3,
    /// Orientation of the body.
    pub orientation: DQuat,
    /// The body's index in the [`BodySet`] the narrowphase dispatches from (`None` for a
    /// shape posed by hand): a generator that prepared per-body data in
    /// [`ContactGenerator::prepare`] finds it there. Such data may be stale (the body set
    /// changed since, or the generator serves several worlds), so a generator checks it
    /// against the shape and the pose before use.
    pub index: Option<usize>,
}

impl<'a> PosedShape<'a> {
    /// Body `i` of `bodies`.
    #[inline]
    pub fn of(bodies: &'a BodySet, i: usize) -> Self {
        PosedShape {
            shape: &bodies.shape[i],
            position: bodies.position[i],
            orientation: bodies.orientation[i],
            index: Some(i),
        }
    }

    /// A shape posed by hand, not a body of a body set (`index` is `None`).
    #[inline]
    pub fn new(shape: &'a Shape, position: DVec3, orientation: DQuat) -> Self {
        PosedShape { shape, position, orientation, index: None }
    }

    /// The host shape of type `T`, if this is a [`Shape::Custom`] holding one.
    pub fn custom<T: 'static>(&self) -> Option<&'a T> {
        match self.shape {
            Shape::Custom(c) => c.as_any().downcast_ref::<T>(),
            _ => None,
        }
    }
}

/// Why a generator could not define the contact geometry of a pair (a sphere centred on a
/// segment it overlaps, concentric spheres...): the dispatcher adds the bodies' handles
/// and reports it as [`NarrowphaseError::Degenerate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DegenerateGeometry {
    /// Why, for the message.
    pub reason: &'static str,
}

/// What a host implements to add the contact geometry of a pair of shape kinds.
///
/// A generator is registered for an ordered pair of kinds `(a, b)` with
/// [`Narrowphase::register`]; the dispatcher calls it with the body of kind `a` first and
/// turns the points around (normal and branch vectors) when the bodies came the other way.
///
/// # Example
/// ```
/// use granula_core::narrowphase::{ContactGenerator, DegenerateGeometry, Narrowphase, PosedShape, ShapeKind};
/// use granula_core::{ContactGeometry, DVec3};
///
/// /// A custom wall "floor" against spheres: the plane z = position.z, free side up.
/// struct FloorSphere;
///
/// impl ContactGenerator for FloorSphere {
///     fn generate(
///         &self,
///         floor: PosedShape<'_>,
///         sphere: PosedShape<'_>,
///         margin: f64,
///         out: &mut Vec<ContactGeometry>,
///     ) -> Result<(), DegenerateGeometry> {
///         let r = sphere.shape.sphere_radius().unwrap_or(0.0);
///         let gap = sphere.position.z - floor.position.z - r;
///         if gap <= margin {
///             let point = sphere.position - DVec3::Z * (r + 0.5 * gap);
///             out.push(ContactGeometry {
///                 point,
///                 normal: DVec3::Z,
///                 gap,
///                 branch1: point - floor.position,
///                 branch2: point - sphere.position,
///                 effective_radius: r,
///                 feature: 0,
///                 overlap_volume: 0.0,
///                 twist_arm: 0.0,
///             });
///         }
///         Ok(())
///     }
/// }
///
/// let mut narrowphase = Narrowphase::new();
/// narrowphase.register(ShapeKind::Custom("floor"), ShapeKind::Sphere, FloorSphere).unwrap();
/// ```
pub trait ContactGenerator: Send + Sync {
    /// A hint: the number of contact points this generator usually reports for one pair
    /// at most (default 1). No solver relies on it: the MD and NSCD solvers call a
    /// generator once per pair and step and match its points to their histories by
    /// [`ContactGeometry::feature`], which may be any `u32` (a vertex or edge id of a mesh,
    /// say). Two points of one call must have different features.
    fn max_contacts(&self) -> u16 {
        1
    }

    /// Appends to `out` the contact points of `a` (body 1) and `b` (body 2) whose gap is at
    /// most `margin`: none, one or several, each with its own feature key (distinct within
    /// the call, stable from step to step for the same geometric feature). Normals point
    /// from `a` to `b`; `branch1` is from `a`'s position to the point, `branch2` from `b`'s.
    /// `out` may hold points of earlier calls: append only.
    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry>;

    /// [`ContactGenerator::generate`] for a pair the solver keeps a [`PairMemory`] for
    /// (one per candidate pair, empty when the pair enters its list): the generator may read
    /// what it left there at the pair's last call and write what it found, to be faster at
    /// the next one. The points must be those `generate` gives, to the bit, whatever the
    /// memory holds (see [`PairMemory`]). Default: `generate`, the memory untouched.
    fn generate_remembering(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        memory: &PairMemory,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let _ = memory;
        self.generate(a, b, margin, out)
    }

    /// Called by the solvers once per step, after the bodies moved and before the pair
    /// pass ([`Narrowphase::prepare`]): a generator may compute per-body data once (the
    /// vertices of a mesh turned into the world frame, say) instead of once per candidate
    /// pair, and find it again through [`PosedShape::index`]. Default: nothing.
    ///
    /// Several generators may share such data: each is called. Pair passes run in
    /// parallel after it, so the data is kept behind `&self` (atomics, locks); the call
    /// itself is never concurrent with `generate` within a solver.
    fn prepare(&self, bodies: &BodySet) {
        let _ = bodies;
    }

    /// The world box of body `i` of `bodies` from the data of the last
    /// [`ContactGenerator::prepare`], if the generator has it for that body in its current
    /// pose; it must then equal the shape's own [`Shape::aabb`] bit for bit. Default `None`.
    fn prepared_aabb(&self, bodies: &BodySet, i: usize) -> Option<Aabb> {
        let _ = (bodies, i);
        None
    }
}

/// A failure of the narrowphase for one pair of bodies, small and `Copy` so that a solver
/// can carry it out of its hot loop to where it reports it; converts into the matching
/// [`CoreError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NarrowphaseError {
    /// The geometry is undefined ([`CoreError::DegenerateContact`]).
    Degenerate {
        /// First body.
        body1: BodyHandle,
        /// Second body.
        body2: BodyHandle,
        /// Why.
        reason: &'static str,
    },
    /// No generator is registered for the pair's shapes ([`CoreError::UnsupportedPair`]).
    UnsupportedPair {
        /// First body.
        body1: BodyHandle,
        /// Its shape's name.
        shape1: &'static str,
        /// Second body.
        body2: BodyHandle,
        /// Its shape's name.
        shape2: &'static str,
    },
}

impl fmt::Display for NarrowphaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        CoreError::from(*self).fmt(f)
    }
}

impl std::error::Error for NarrowphaseError {}

impl From<NarrowphaseError> for CoreError {
    fn from(e: NarrowphaseError) -> Self {
        match e {
            NarrowphaseError::Degenerate { body1, body2, reason } => {
                CoreError::DegenerateContact { body1, body2, reason }
            }
            NarrowphaseError::UnsupportedPair { body1, shape1, body2, shape2 } => {
                CoreError::UnsupportedPair { body1, shape1, body2, shape2 }
            }
        }
    }
}

/// `a == b`, with the names of custom kinds compared by address first (the same `&'static
/// str` of one shape type, the usual case) and by content only when the addresses differ.
#[inline]
fn same_kind(a: ShapeKind, b: ShapeKind) -> bool {
    match (a, b) {
        (ShapeKind::Custom(x), ShapeKind::Custom(y)) => std::ptr::eq(x, y) || x == y,
        _ => a == b,
    }
}

/// A registered generator and the ordered pair of kinds it handles.
#[derive(Clone)]
struct Entry {
    first: ShapeKind,
    second: ShapeKind,
    generator: Arc<dyn ContactGenerator>,
}

/// Which registered generator serves a pair of shapes, and which way round: found once by
/// [`Narrowphase::route`] (say, when a solver lists its candidate pairs) and handed to
/// [`Narrowphase::collide_routed`] at every step, which then skips the lookup by shape
/// kind (two calls of [`CustomShape::name`](crate::CustomShape::name) and a search of the
/// registered pairs per call). Valid for the narrowphase that gave it, while the two
/// bodies keep their shapes' kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// The [`Narrowphase::registry`] it was found in.
    registry: u32,
    entry: u32,
    turned: bool,
}

/// A number not given to any registry before in this process.
fn fresh_registry() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The narrowphase of a world: the built-in pairs plus the generators a host registered,
/// by pair of shape kinds. Built by [`WorldBuilder::narrowphase`](crate::WorldBuilder::narrowphase),
/// read through [`World::narrowphase`](crate::World::narrowphase).
#[derive(Clone)]
pub struct Narrowphase {
    entries: Vec<Entry>,
    /// Names this list of entries: a new number at creation and at each registration, kept
    /// by a clone (the same entries), so that a [`Route`] is used only with the entries it
    /// was found in.
    registry: u32,
}

impl Default for Narrowphase {
    fn default() -> Self {
        Narrowphase { entries: Vec::new(), registry: fresh_registry() }
    }
}

impl fmt::Debug for Narrowphase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.entries.iter().map(|e| (e.first, e.second))).finish()
    }
}

impl Narrowphase {
    /// The built-in pairs only.
    pub fn new() -> Self {
        Narrowphase::default()
    }

    /// Registers `generator` for bodies of kinds `(first, second)` (and, turned around, for
    /// `(second, first)`). At least one kind must be custom: the built-in pairs are the
    /// library's. Errors with [`CoreError::InvalidWorld`] for a built-in pair or a pair
    /// already registered.
    pub fn register(
        &mut self,
        first: ShapeKind,
        second: ShapeKind,
        generator: impl ContactGenerator + 'static,
    ) -> Result<(), CoreError> {
        let invalid = |expected| CoreError::InvalidWorld {
            field: "contact generator",
            value: format!("{first:?} against {second:?}"),
            expected,
        };
        if first.is_builtin() && second.is_builtin() {
            return Err(invalid("a pair with at least one custom shape (built-in pairs are the library's)"));
        }
        if self.find(first, second).is_some() {
            return Err(invalid("one generator per pair of shape kinds"));
        }
        self.entries.push(Entry { first, second, generator: Arc::new(generator) });
        self.registry = fresh_registry();
        Ok(())
    }

    /// The route of a pair of bodies of shapes `a` and `b` (as body 1 and body 2) through a
    /// registered generator; `None` for a built-in pair, and for an unsupported one (whose
    /// [`Narrowphase::collide`] is an error).
    pub fn route(&self, a: &Shape, b: &Shape) -> Option<Route> {
        let (ka, kb) = (ShapeKind::of(a), ShapeKind::of(b));
        if ka.is_builtin() && kb.is_builtin() {
            return None;
        }
        self.entries.iter().enumerate().find_map(|(k, e)| {
            if same_kind(e.first, ka) && same_kind(e.second, kb) {
                Some(Route { registry: self.registry, entry: k as u32, turned: false })
            } else if same_kind(e.first, kb) && same_kind(e.second, ka) {
                Some(Route { registry: self.registry, entry: k as u32, turned: true })
            } else {
                None
            }
        })
    }

    /// The generator for kinds `(a, b)` and whether it was registered the other way round.
    fn find(&self, a: ShapeKind, b: ShapeKind) -> Option<(&dyn ContactGenerator, bool)> {
        self.entries.iter().find_map(|e| {
            if same_kind(e.first, a) && same_kind(e.second, b) {
                Some((&*e.generator, false))
            } else if same_kind(e.first, b) && same_kind(e.second, a) {
                Some((&*e.generator, true))
            } else {
                None
            }
        })
    }

    /// Lets every registered generator prepare its per-body data for the bodies' current
    /// poses ([`ContactGenerator::prepare`]); the solvers call it once per step after the
    /// bodies moved, before the pair pass. Nothing is done for the built-in pairs: a world
    /// without registered generators pays one test of an empty list.
    pub fn prepare(&self, bodies: &BodySet) {
        for e in &self.entries {
            e.generator.prepare(bodies);
        }
    }

    /// The world box of body `i` of `bodies`: the one a registered generator prepared for
    /// its current pose ([`ContactGenerator::prepared_aabb`]), equal bit for bit to
    /// [`BodySet::aabb`], which is computed for the other bodies.
    #[inline]
    pub fn aabb(&self, bodies: &BodySet, i: usize) -> Aabb {
        if matches!(bodies.shape[i], Shape::Custom(_)) {
            if let Some(b) = self.entries.iter().find_map(|e| e.generator.prepared_aabb(bodies, i)) {
                return b;
            }
        }
        bodies.aabb(i)
    }

    /// `true` when a contact between these shapes has a geometry: a built-in pair or a
    /// registered one.
    pub fn supports(&self, a: &Shape, b: &Shape) -> bool {
        let (ka, kb) = (ShapeKind::of(a), ShapeKind::of(b));
        if ka.is_builtin() && kb.is_builtin() {
            ka == ShapeKind::Sphere || kb == ShapeKind::Sphere
        } else {
            self.find(ka, kb).is_some()
        }
    }

    /// The usual most contact points of a pair of these shapes (a hint, see
    /// [`ContactGenerator::max_contacts`]): 1 for the built-in pairs (and for unsupported
    /// ones), the generator's hint for a registered pair.
    pub fn max_contacts(&self, a: &Shape, b: &Shape) -> u16 {
        let (ka, kb) = (ShapeKind::of(a), ShapeKind::of(b));
        if ka.is_builtin() && kb.is_builtin() {
            return 1;
        }
        self.find(ka, kb).map_or(1, |(g, _)| g.max_contacts().max(1))
    }

    /// Appends to `out` the contact points of bodies `i` (body 1) and `j` of `bodies` whose
    /// gap is at most `margin`, normals from `i` to `j`. The built-in pairs are computed
    /// inline; a host pair goes through its generator.
    pub fn collide(
        &self,
        bodies: &BodySet,
        i: usize,
        j: usize,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), NarrowphaseError> {
        self.collide_at(bodies, i, j, bodies.position[j], margin, out)
    }

    /// [`Narrowphase::collide`] with body `j` posed at `xj` instead of its own position (its
    /// orientation unchanged): the periodic image of `j` nearest to `i`
    /// ([`PeriodicDomain::minimum_image_shift`](crate::periodic::PeriodicDomain::minimum_image_shift)).
    /// Branch vectors are measured from `i`'s position and from `xj`.
    pub fn collide_at(
        &self,
        bodies: &BodySet,
        i: usize,
        j: usize,
        xj: DVec3,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), NarrowphaseError> {
        self.collide_with(bodies, i, j, xj, margin, None, out)
    }

    /// [`Narrowphase::collide_at`] with the pair's memory, if the caller keeps one.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn collide_with(
        &self,
        bodies: &BodySet,
        i: usize,
        j: usize,
        xj: DVec3,
        margin: f64,
        memory: Option<&PairMemory>,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), NarrowphaseError> {
        let (a, b) = (&bodies.shape[i], &bodies.shape[j]);
        if !matches!(a, Shape::Custom(_)) && !matches!(b, Shape::Custom(_)) {
            if let Some(g) = collide_builtin_at(bodies, i, j, xj, margin)? {
                out.push(g);
            }
            return Ok(());
        }
        let unsupported = || NarrowphaseError::UnsupportedPair {
            body1: bodies.handle[i],
            shape1: a.name(),
            body2: bodies.handle[j],
            shape2: b.name(),
        };
        let (generator, turned) = self.find(ShapeKind::of(a), ShapeKind::of(b)).ok_or_else(unsupported)?;
        Self::generate_with(generator, turned, bodies, i, j, xj, margin, memory, out)
    }

    /// The call of `generator` for bodies `i` and `j` (`j` posed at `xj`), body `j` first
    /// when `turned`, the points then turned around.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn generate_with(
        generator: &dyn ContactGenerator,
        turned: bool,
        bodies: &BodySet,
        i: usize,
        j: usize,
        xj: DVec3,
        margin: f64,
        memory: Option<&PairMemory>,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), NarrowphaseError> {
        let degenerate = |e: DegenerateGeometry| NarrowphaseError::Degenerate {
            body1: bodies.handle[i],
            body2: bodies.handle[j],
            reason: e.reason,
        };
        let (pi, pj) = (PosedShape::of(bodies, i), PosedShape { position: xj, ..PosedShape::of(bodies, j) });
        let from = out.len();
        let generate = |a, b, out: &mut Vec<ContactGeometry>| match memory {
            Some(m) => generator.generate_remembering(a, b, margin, m, out),
            None => generator.generate(a, b, margin, out),
        };
        if turned {
            generate(pj, pi, out).map_err(degenerate)?;
            out[from..].iter_mut().for_each(|g| *g = g.swapped());
        } else {
            generate(pi, pj, out).map_err(degenerate)?;
        }
        Ok(())
    }

    /// [`Narrowphase::collide_at`] for a pair the caller keeps a [`PairMemory`] for (see
    /// [`ContactGenerator::generate_remembering`]): the same points, found faster when the
    /// pair's generator uses the memory. Built-in pairs do not use it.
    #[allow(clippy::too_many_arguments)]
    pub fn collide_remembering(
        &self,
        bodies: &BodySet,
        i: usize,
        j: usize,
        xj: DVec3,
        margin: f64,
        memory: &PairMemory,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), NarrowphaseError> {
        self.collide_with(bodies, i, j, xj, margin, Some(memory), out)
    }

    /// [`Narrowphase::collide_remembering`] through a route found before
    /// ([`Narrowphase::route`] of the two bodies' shapes): the same points, without the
    /// lookup by shape kind. A route this narrowphase (or a clone of it) did not give, or
    /// gave before a later registration, is looked up again as `collide_remembering` does.
    /// A route found for other shapes than the bodies have now calls the generator of those
    /// shapes, so a caller finds its routes again whenever the bodies' shapes may have
    /// changed (the MD solver does at each rebuild of its candidate list, and its
    /// `invalidate` asks for a rebuild after shapes are edited by hand).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn collide_routed(
        &self,
        route: Route,
        bodies: &BodySet,
        i: usize,
        j: usize,
        xj: DVec3,
        margin: f64,
        memory: &PairMemory,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), NarrowphaseError> {
        match self.entries.get(route.entry as usize) {
            Some(e) if route.registry == self.registry => {
                Self::generate_with(&*e.generator, route.turned, bodies, i, j, xj, margin, Some(memory), out)
            }
            _ => self.collide_with(bodies, i, j, xj, margin, Some(memory), out),
        }
    }

    /// The contact point of feature `feature` of bodies `i` and `j` (as in
    /// [`Narrowphase::collide`]), or `None` when that feature is not within `margin`.
    /// `scratch` is a reusable buffer (cleared here). For a built-in pair, feature 0 is its
    /// only point, computed without the buffer.
    #[inline]
    pub fn collide_feature(
        &self,
        bodies: &BodySet,
        i: usize,
        j: usize,
        margin: f64,
        feature: u32,
        scratch: &mut Vec<ContactGeometry>,
    ) -> Result<Option<ContactGeometry>, NarrowphaseError> {
        if !matches!(bodies.shape[i], Shape::Custom(_)) && !matches!(bodies.shape[j], Shape::Custom(_)) {
            return Ok(collide_builtin(bodies, i, j, margin)?.filter(|g| g.feature == feature));
        }
        scratch.clear();
        self.collide(bodies, i, j, margin, scratch)?;
        Ok(scratch.iter().find(|g| g.feature == feature).copied())
    }
}
