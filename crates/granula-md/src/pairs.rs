//! The candidate pair list of the Verlet skin and its per-body incidence (CSR).

use granula_core::narrowphase::Route;
use granula_core::parallel;
use granula_core::{
    BodySet, ContactKey, ContactStore, DVec3, MaterialTable, Narrowphase, PairMemory, PeriodicDomain, Shape,
};
use rayon::prelude::*;

/// How the narrowphase treats a candidate pair, decided once per rebuild.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PairKind {
    /// Two spheres: inlined sphere-sphere geometry, no shape dispatch.
    Spheres,
    /// A sphere against a built-in wall (plane or cylinder): the wall's geometry called
    /// directly, no narrowphase dispatch, one point (body 1 is the one with the smaller handle,
    /// either of the two).
    Wall,
    /// Anything else: the world's [`Narrowphase`](granula_core::narrowphase::Narrowphase),
    /// called once per step for all the pair's points, each point with its own history
    /// (see the `points` module).
    General,
}

/// One candidate pair, oriented so that body 1 has the smaller handle (contact keys and the
/// normal's direction then survive swap-removals that reorder dense indices), with what the
/// hot loop needs about the pair resolved once per rebuild (shapes and materials do not
/// change between rebuilds; see [`MdSolver::invalidate`](crate::MdSolver::invalidate)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Candidate {
    /// Dense index of body 1.
    pub body1: u32,
    /// Dense index of body 2.
    pub body2: u32,
    /// Position of the pair's material values in the material table
    /// ([`MaterialTable::pair_index`](granula_core::MaterialTable::pair_index)).
    pub material: u32,
    /// Narrowphase path.
    pub kind: PairKind,
    /// For a [`PairKind::General`] pair through a registered generator, that generator
    /// ([`Narrowphase::route`]), found at the rebuild; `None` for the others, which the
    /// narrowphase looks up at each call.
    pub route: Option<Route>,
    /// Radius of body 1 (sphere pairs) (m).
    pub radius1: f64,
    /// Radius of body 2 (sphere pairs) (m).
    pub radius2: f64,
    /// Squared centre distance below which a sphere pair is within the margin,
    /// (r₁ + r₂ + margin)² (m²).
    pub reach2: f64,
    /// Detection margin: the law's range for the pair's materials (m).
    pub margin: f64,
    /// Effective mass m* = (1/m₁ + 1/m₂)⁻¹ with 1/m = 0 for non-dynamic bodies (kg).
    pub effective_mass: f64,
    /// Effective radius R* = r₁r₂/(r₁ + r₂) of a sphere pair (unused otherwise) (m).
    pub effective_radius: f64,
}

/// The candidate of the broadphase pair `(i, j)` (dense indices, `i < j`) with detection
/// margin `margin`.
fn candidate(bodies: &BodySet, materials: &MaterialTable, i: usize, j: usize, margin: f64) -> Candidate {
    let (body1, body2) = if bodies.handle[i] < bodies.handle[j] { (i, j) } else { (j, i) };
    let spheres = bodies.radius[i].is_finite() && bodies.radius[j].is_finite();
    let wall = |s: &Shape| matches!(s, Shape::Plane { .. } | Shape::Cylinder(_));
    let sphere = |s: &Shape| matches!(s, Shape::Sphere { .. });
    let (s1, s2) = (&bodies.shape[body1], &bodies.shape[body2]);
    let kind = if spheres {
        PairKind::Spheres
    } else if (wall(s1) && sphere(s2)) || (sphere(s1) && wall(s2)) {
        PairKind::Wall
    } else {
        PairKind::General
    };
    let (r1, r2) = (bodies.radius[body1], bodies.radius[body2]);
    let material = materials.pair_index(bodies.material[body1], bodies.material[body2]);
    Candidate {
        body1: body1 as u32,
        body2: body2 as u32,
        material: material as u32,
        kind,
        route: None,
        radius1: r1,
        radius2: r2,
        reach2: (r1 + r2 + margin) * (r1 + r2 + margin),
        margin,
        effective_mass: 1.0 / (bodies.inv_mass[i] + bodies.inv_mass[j]),
        effective_radius: if spheres { r1 * r2 / (r1 + r2) } else { f64::NAN },
    }
}

/// The minimum-image translation of candidate `c` at the bodies' current positions.
fn image_shift(bodies: &BodySet, domain: &PeriodicDomain, c: &Candidate) -> DVec3 {
    domain.minimum_image_shift(bodies.position[c.body1 as usize], bodies.position[c.body2 as usize])
}

/// The candidate pairs between two rebuilds, with a compressed-sparse-row incidence list:
/// the entries of body i are `incidence[offsets[i]..offsets[i + 1]]`, each `(pair << 1) | role`
/// with role 0 for body 1 and 1 for body 2, in increasing pair order. Gathering forces over it
/// in that fixed order makes the sums independent of the thread count.
///
/// In a periodic world, `shifts` holds per candidate the translation `t` of body 2's image
/// nearest to body 1 at the rebuild ([`PeriodicDomain::minimum_image_shift`]), so that the
/// pair's separation is `(x₂ − x₁) + t` until the next rebuild (bodies move by less than
/// half the skin in between, so that image stays the nearest); empty otherwise, and the
/// force pass then takes a path without it.
///
/// Under Lees-Edwards shear the image of a pair across the sliding faces moves with the
/// offset s(t): such pairs (`sheared`, the candidates whose shift at the rebuild crosses
/// the gradient axis) get their shift and the velocity of their image
/// (`velocity_shifts`, zero for the other pairs, empty without shear) anew at every force
/// evaluation from the bodies' positions and the time
/// ([`PeriodicDomain::minimum_image_at`], [`PairList::follow_shear`]). The list itself
/// stays valid because the broadphase grows the sheared images by a slack along the flow
/// axis and the solver rebuilds before the offset has moved by it.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairList {
    pub candidates: Vec<Candidate>,
    pub shifts: Vec<DVec3>,
    /// Per candidate, the velocity of body 2's image minus body 2's (Lees-Edwards); empty
    /// without shear.
    pub velocity_shifts: Vec<DVec3>,
    /// The candidates across the sheared faces, in list order.
    pub sheared: Vec<u32>,
    /// Per candidate, the memory of its contact generator
    /// ([`ContactGenerator::generate_remembering`](granula_core::ContactGenerator::generate_remembering)):
    /// a hint that changes no point, carried through rebuilds by pair key (a pair that
    /// stays in the list keeps it), empty for a new pair and after a restore (it is not
    /// saved).
    pub memory: Vec<PairMemory>,
    /// The memories' words keyed by pair, aligned with the candidates: the carrier of
    /// `memory` through a rebuild.
    carried: ContactStore<[u64; 3]>,
    pub offsets: Vec<u32>,
    pub incidence: Vec<u32>,
    cursor: Vec<u32>,
    /// The candidate build's per-task buffers ([`PairList::rebuild`]).
    runs: Vec<Run>,
}

impl PairList {
    /// Rebuilds from the broadphase's sorted `(i, j)` list. Pairs of two non-dynamic bodies
    /// are dropped (no force on them can move anything); the skin layer does not report
    /// pairs of two bodies that are each non-dynamic or passive
    /// ([`MdSolver::set_passive_bodies`]) in the first place. Sphere pairs whose gap
    /// exceeds `reach` = margin + skin: the solver rebuilds before any sphere centre moves by
    /// half the skin, so such a pair cannot come within the margin before the next rebuild.
    /// Allocation-free once warm.
    /// `margin(i, j)` is the law's range for the pair. Every pair has one candidate, however
    /// many contact points its shapes can have.
    #[allow(clippy::too_many_arguments)]
    pub fn rebuild(
        &mut self,
        bodies: &BodySet,
        materials: &MaterialTable,
        narrowphase: &Narrowphase,
        raw: &[(u32, u32)],
        reach: f64,
        domain: &PeriodicDomain,
        margin: &(dyn Fn(usize, usize) -> f64 + Sync),
    ) {
        // The memories' words under the old keys, before the list changes.
        let carry = self.carried.len() == self.memory.len();
        if carry {
            for (w, m) in self.carried.states_mut().iter_mut().zip(&self.memory) {
                *w = m.load();
            }
        }
        // The candidates of each run of `BUILD_CHUNK` broadphase pairs, in parallel, each run
        // into its own buffer, then copied out in run order: the same list on any number of
        // threads (and the route of every general candidate found on the way).
        let runs = raw.len().div_ceil(BUILD_CHUNK);
        if self.runs.len() < runs {
            self.runs.resize_with(runs, Run::default);
        }
        let input = BuildInput { bodies, materials, narrowphase, reach, domain, margin };
        let build = |(pairs, run): (&[(u32, u32)], &mut Run)| run.fill(&input, pairs);
        raw.par_chunks(BUILD_CHUNK)
            .zip(self.runs[..runs].par_iter_mut())
            .with_min_len(parallel::min_len(BUILD_TASK / BUILD_CHUNK))
            .for_each(build);
        let runs = &self.runs[..runs];
        let total: usize = runs.iter().map(|r| r.candidates.len()).sum();
        // Copy only what grows: the list's length changes little between rebuilds, and every
        // element below `total` is overwritten by the copy.
        self.candidates.resize(total, FILLER);
        copy_runs(&mut self.candidates, runs, |r| &r.candidates);
        if domain.is_periodic() {
            self.shifts.resize(total, DVec3::ZERO);
            copy_runs(&mut self.shifts, runs, |r| &r.shifts);
        } else {
            self.shifts.clear();
        }
        self.index_shear(domain);
        if !carry {
            self.carried = ContactStore::new();
        }
        self.memory.resize_with(self.candidates.len(), PairMemory::new);
        // The incidence and the memories' carry read the new list and write disjoint parts.
        let n = bodies.len();
        let Self { candidates, memory, carried, offsets, incidence, cursor, .. } = self;
        let candidates = &candidates[..];
        let mut index = || index_into(candidates, n, offsets, incidence, cursor);
        let mut carry = || carry_memory(candidates, memory, carried, bodies);
        if parallel::is_sequential() || candidates.len() < INDEX_JOIN_PAIRS {
            index();
            carry();
        } else {
            parallel::join(&mut index, &mut carry);
        }
    }

    /// Restores a saved list: `pairs` are the candidates' dense index pairs `(i, j)`, `i < j`,
    /// in list order (as [`PairList::rebuild`] left them, which the caller checked: sorted,
    /// in range, not two non-dynamic bodies). The per-pair data that depends on shapes,
    /// materials and masses only is recomputed, and so are the periodic shifts, from the
    /// positions at the last rebuild `rebuild_position` (saved with the skin state), so the
    /// list equals the saved one.
    #[allow(clippy::too_many_arguments)]
    pub fn restore(
        &mut self,
        bodies: &BodySet,
        materials: &MaterialTable,
        narrowphase: &Narrowphase,
        pairs: impl IntoIterator<Item = (usize, usize)>,
        domain: &PeriodicDomain,
        rebuild_position: &[DVec3],
        margin: &dyn Fn(usize, usize) -> f64,
    ) {
        self.candidates.clear();
        self.shifts.clear();
        for (i, j) in pairs {
            let c = candidate(bodies, materials, i, j, margin(i, j));
            if domain.is_periodic() {
                let (a, b) = (c.body1 as usize, c.body2 as usize);
                self.shifts.push(domain.minimum_image_shift(rebuild_position[a], rebuild_position[b]));
            }
            self.candidates.push(c);
        }
        for c in &mut self.candidates {
            route(c, bodies, narrowphase);
        }
        self.index_shear(domain);
        // Nothing remembered: the memories are not saved.
        self.carried = ContactStore::new();
        self.memory.resize_with(self.candidates.len(), PairMemory::new);
        index_into(&self.candidates, bodies.len(), &mut self.offsets, &mut self.incidence, &mut self.cursor);
        carry_memory(&self.candidates, &self.memory, &mut self.carried, bodies);
    }

    /// Lists the candidates across the sheared faces (their shift at the rebuild has a
    /// gradient component) and sizes the velocity shifts (zero until
    /// [`PairList::follow_shear`]); clears both without shear.
    fn index_shear(&mut self, domain: &PeriodicDomain) {
        self.sheared.clear();
        self.velocity_shifts.clear();
        let Some(shear) = domain.shear() else { return };
        let g = shear.gradient.index();
        self.velocity_shifts.resize(self.candidates.len(), DVec3::ZERO);
        self.sheared.extend((0..self.shifts.len()).filter(|&p| self.shifts[p][g] != 0.0).map(|p| p as u32));
    }

    /// Moves the images of the sheared pairs to time `time` (the time of the bodies'
    /// positions): shift and image velocity from
    /// [`PeriodicDomain::minimum_image_at`] at the current positions. A function of the
    /// positions and the time only, so a restored run gets the same bits.
    pub fn follow_shear(&mut self, bodies: &BodySet, domain: &PeriodicDomain, time: f64) {
        for &p in &self.sheared {
            let (p, c) = (p as usize, &self.candidates[p as usize]);
            let (x1, x2) = (bodies.position[c.body1 as usize], bodies.position[c.body2 as usize]);
            let image = domain.minimum_image_at(x1, x2, time);
            self.shifts[p] = image.position;
            self.velocity_shifts[p] = image.velocity;
        }
    }

    /// Builds the CSR incidence of the current candidates among `n` bodies (and gives every
    /// candidate a memory).
    #[cfg(test)]
    pub fn index(&mut self, n: usize) {
        self.memory.resize_with(self.candidates.len(), PairMemory::new);
        index_into(&self.candidates, n, &mut self.offsets, &mut self.incidence, &mut self.cursor);
    }

    /// The keys of the candidates (feature 0: the pair), in list order.
    pub fn keys<'a>(&'a self, bodies: &'a BodySet) -> impl ExactSizeIterator<Item = ContactKey> + 'a {
        self.candidates.iter().map(|c| ContactKey {
            body1: bodies.handle[c.body1 as usize],
            body2: bodies.handle[c.body2 as usize],
            feature: 0,
        })
    }

    /// The memories' carrier, rebuilt with the candidates' keys at every rebuild: the other
    /// per-candidate stores repeat its rebuild ([`ContactStore::rebuild_as`]) instead of
    /// searching the keys again.
    pub fn key_carrier(&self) -> &ContactStore<[u64; 3]> {
        &self.carried
    }

    /// Incidence entries of body `i`.
    #[inline]
    pub fn incident(&self, i: usize) -> &[u32] {
        &self.incidence[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// Broadphase pairs turned into candidates by one task of [`PairList::rebuild`]: small
/// enough for a thousand polyhedra's 5000 pairs to make several tasks.
const BUILD_CHUNK: usize = 512;

/// The smallest task, in broadphase pairs, of the candidate build when it runs in parallel:
/// a candidate of two polyhedra takes some 50 ns to build and route, so 1024 of them take
/// about fifty microseconds, well above what handing a task to another thread costs.
const BUILD_TASK: usize = 1024;

/// The fewest candidates for which [`PairList::rebuild`] builds the incidence beside the
/// memories' carry, on two threads (each takes some 10-20 ns per candidate).
const INDEX_JOIN_PAIRS: usize = 1024;

/// Placeholder of the slots the copy of the runs overwrites.
const FILLER: Candidate = Candidate {
    body1: 0,
    body2: 0,
    material: 0,
    kind: PairKind::General,
    route: None,
    radius1: 0.0,
    radius2: 0.0,
    reach2: 0.0,
    margin: 0.0,
    effective_mass: 0.0,
    effective_radius: 0.0,
};

/// The candidates (and periodic shifts) of one run of broadphase pairs.
#[derive(Clone, Debug, Default)]
struct Run {
    candidates: Vec<Candidate>,
    shifts: Vec<DVec3>,
}

/// What every run of [`PairList::rebuild`] reads (the arguments of the same names there).
struct BuildInput<'a> {
    bodies: &'a BodySet,
    materials: &'a MaterialTable,
    narrowphase: &'a Narrowphase,
    reach: f64,
    domain: &'a PeriodicDomain,
    margin: &'a (dyn Fn(usize, usize) -> f64 + Sync),
}

impl Run {
    /// The candidates of `raw` (see [`PairList::rebuild`] for which pairs are kept), with the
    /// route of each general one.
    fn fill(&mut self, input: &BuildInput<'_>, raw: &[(u32, u32)]) {
        let BuildInput { bodies, materials, narrowphase, reach, domain, margin } = *input;
        self.candidates.clear();
        self.shifts.clear();
        let periodic = domain.is_periodic();
        for &(i, j) in raw {
            let (iu, ju) = (i as usize, j as usize);
            if bodies.inv_mass[iu] == 0.0 && bodies.inv_mass[ju] == 0.0 {
                continue;
            }
            let mut c = candidate(bodies, materials, iu, ju, margin(iu, ju));
            let shift = if periodic { image_shift(bodies, domain, &c) } else { DVec3::ZERO };
            // A pair across the sheared faces keeps its candidate: its image moves with the
            // offset until the next rebuild (the broadphase's slack bounds how far).
            let across = domain.shear().is_some_and(|s| shift[s.gradient.index()] != 0.0);
            if !across && bodies.radius[iu].is_finite() && bodies.radius[ju].is_finite() {
                let limit = bodies.radius[iu] + bodies.radius[ju] + reach;
                let d = if periodic {
                    (bodies.position[c.body2 as usize] - bodies.position[c.body1 as usize]) + shift
                } else {
                    bodies.position[iu] - bodies.position[ju]
                };
                if d.length_squared() > limit * limit {
                    continue;
                }
            }
            route(&mut c, bodies, narrowphase);
            self.candidates.push(c);
            if periodic {
                self.shifts.push(shift);
            }
        }
    }
}

/// Copies the runs' columns (`column(run)`) one after the other into `out`, whose length is
/// their total, halving the runs between two tasks while there are several.
fn copy_runs<T: Copy + Send + Sync>(out: &mut [T], runs: &[Run], column: impl Fn(&Run) -> &[T] + Sync + Copy) {
    fn split<T: Copy + Send + Sync>(out: &mut [T], runs: &[Run], column: impl Fn(&Run) -> &[T] + Sync + Copy) {
        if runs.len() <= 2 || parallel::is_sequential() {
            let mut at = 0;
            for r in runs {
                let c = column(r);
                out[at..at + c.len()].copy_from_slice(c);
                at += c.len();
            }
            return;
        }
        let (left, right) = runs.split_at(runs.len() / 2);
        let (a, b) = out.split_at_mut(left.iter().map(|r| column(r).len()).sum());
        rayon::join(|| split(a, left, column), || split(b, right, column));
    }
    split(out, runs, column);
}

/// Finds the generator of candidate `c` if it is a general one ([`Candidate::route`]).
fn route(c: &mut Candidate, bodies: &BodySet, narrowphase: &Narrowphase) {
    if c.kind == PairKind::General {
        c.route = narrowphase.route(&bodies.shape[c.body1 as usize], &bodies.shape[c.body2 as usize]);
    }
}

/// Realigns the memories' words with `candidates` by pair key (a pair that was in the list
/// before keeps its words, a new one starts empty) and writes them into `memory` (one per
/// candidate).
fn carry_memory(
    candidates: &[Candidate],
    memory: &[PairMemory],
    carried: &mut ContactStore<[u64; 3]>,
    bodies: &BodySet,
) {
    let key = |c: &Candidate| ContactKey {
        body1: bodies.handle[c.body1 as usize],
        body2: bodies.handle[c.body2 as usize],
        feature: 0,
    };
    carried.rebuild(candidates.iter().map(key));
    for (m, w) in memory.iter().zip(carried.states()) {
        m.store(*w);
    }
}

/// The CSR incidence of `candidates` among `n` bodies ([`PairList`]).
fn index_into(
    candidates: &[Candidate],
    n: usize,
    offsets: &mut Vec<u32>,
    incidence: &mut Vec<u32>,
    cursor: &mut Vec<u32>,
) {
    offsets.clear();
    offsets.resize(n + 1, 0);
    for c in candidates {
        offsets[c.body1 as usize + 1] += 1;
        offsets[c.body2 as usize + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    cursor.clear();
    cursor.extend_from_slice(&offsets[..n]);
    incidence.clear();
    incidence.resize(offsets[n] as usize, 0);
    for (p, c) in candidates.iter().enumerate() {
        let p = p as u32;
        let slot = &mut cursor[c.body1 as usize];
        incidence[*slot as usize] = p << 1;
        *slot += 1;
        let slot = &mut cursor[c.body2 as usize];
        incidence[*slot as usize] = (p << 1) | 1;
        *slot += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use granula_core::{Axis, CylinderBuilder, PlaneBuilder, SphereBuilder, World};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// 3000 spheres of random radii in a cylinder on a floor, some fixed, and every pair
    /// among the first bodies as the broadphase list: far pairs, two fixed bodies, walls.
    fn scene() -> (World, Vec<(u32, u32)>) {
        let mut world = World::builder().build().unwrap();
        world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
        world.insert(CylinderBuilder::new(DVec3::ZERO, DVec3::Z, 1.0).build().unwrap()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for k in 0..3000usize {
            let x = DVec3::new(rng.random_range(-0.7..0.7), rng.random_range(-0.7..0.7), rng.random_range(0.1..1.0));
            let mut b = SphereBuilder::new(rng.random_range(0.01..0.05), x);
            if k.is_multiple_of(97) {
                b = b.fixed();
            }
            world.insert(b.build().unwrap()).unwrap();
        }
        let n = world.bodies.len() as u32;
        let mut raw = Vec::new();
        for i in 0..n {
            // Every body with the walls, and each sphere with the next 12 (near and far).
            for j in i + 1..n {
                if i < 2 || j <= i + 12 {
                    raw.push((i, j));
                }
            }
        }
        (world, raw)
    }

    fn build(world: &World, raw: &[(u32, u32)], domain: &PeriodicDomain, threads: usize) -> PairList {
        let (bodies, materials) = (&world.bodies, &world.materials);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut list = PairList::default();
        let narrowphase = Narrowphase::new();
        let margin = |i: usize, _: usize| if i.is_multiple_of(5) { 1e-3 } else { 0.0 };
        pool.install(|| {
            // Twice, so the second build starts from warm buffers of the first.
            for _ in 0..2 {
                list.rebuild(bodies, materials, &narrowphase, raw, 0.02, domain, &margin);
            }
        });
        list
    }

    /// The list built on two threads (runs built as tasks, copied out in halves, the
    /// incidence beside the memories' carry) is the one built in place, bit for bit, with and
    /// without periodic shifts; and it keeps exactly the pairs the rule says.
    #[test]
    fn parallel_build_equals_the_sequential_one() {
        let (world, raw) = scene();
        let b = &world.bodies;
        for domain in [PeriodicDomain::default(), PeriodicDomain::default().with_axis(Axis::X, -0.7, 0.7).unwrap()] {
            let one = parallel::sequential(|| build(&world, &raw, &domain, 1));
            let two = build(&world, &raw, &domain, 2);
            assert!(one.candidates.len() > INDEX_JOIN_PAIRS, "the scene must be large enough to split");
            // Debug prints every f64 to the digits that round-trip it (and NaN, which the
            // sphere-less pairs' effective radius is, equal to itself).
            let same = |a: &[Candidate], b: &[Candidate]| a.len() == b.len() && format!("{a:?}") == format!("{b:?}");
            assert!(same(&one.candidates, &two.candidates), "candidates differ between 1 and 2 threads");
            assert_eq!(one.shifts.len(), if domain.is_periodic() { one.candidates.len() } else { 0 });
            let bits = |l: &PairList| l.shifts.iter().map(|s| s.to_array().map(f64::to_bits)).collect::<Vec<_>>();
            assert_eq!(bits(&one), bits(&two));
            assert_eq!((&one.offsets, &one.incidence), (&two.offsets, &two.incidence));
            // The rule: no pair of two fixed bodies; a sphere pair only within r1 + r2 + reach.
            let kept: Vec<(usize, usize)> =
                one.candidates.iter().map(|c| (c.body1.min(c.body2) as usize, c.body1.max(c.body2) as usize)).collect();
            let expected: Vec<(usize, usize)> = raw
                .iter()
                .map(|&(i, j)| (i as usize, j as usize))
                .filter(|&(i, j)| b.inv_mass[i] != 0.0 || b.inv_mass[j] != 0.0)
                .filter(|&(i, j)| {
                    let (r1, r2) = (b.radius[i], b.radius[j]);
                    if !(r1.is_finite() && r2.is_finite()) {
                        return true;
                    }
                    let (lo, hi) = if b.handle[i] < b.handle[j] { (i, j) } else { (j, i) };
                    let d =
                        (b.position[hi] - b.position[lo]) + domain.minimum_image_shift(b.position[lo], b.position[hi]);
                    d.length() <= r1 + r2 + 0.02 + 1e-12
                })
                .collect();
            // Up to the rounding of the squared distance at the limit (1e-12 m of slack): the
            // same pairs in the same order.
            assert_eq!(kept, expected);
        }
    }
}
