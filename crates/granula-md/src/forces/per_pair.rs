//! What every path of the force pass shares for one pair: the pass's inputs, the block
//! summary, the sphere geometry and kinematics, the published record and the loads of a
//! contact.

use crate::accumulation::PairLoad;
use crate::pairs::{Candidate, PairKind};
use crate::points::PairPoints;
use granula_core::narrowphase::{Narrowphase, NarrowphaseError, PairMemory};
use granula_core::{
    BodyHandle, BodySet, ContactForce, ContactGeometry, ContactKey, ContactKinematics, ContactLaw, ContactRecord,
    ContactStatusCounts, DVec3, Dissipation, MotionKind, PairMaterial, VelocityOffsets,
};

/// Reduction of one block of pairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BlockSummary {
    /// Contact points committed.
    pub contacts: usize,
    /// Pairs with at least one committed point.
    pub pairs: usize,
    pub status: ContactStatusCounts,
    pub dissipated: Dissipation,
    pub stored: f64,
    pub max_overlap: f64,
    pub max_ratio: f64,
    /// Pair of the largest overlap ratio (`u32::MAX` if no overlap).
    pub max_pair: u32,
    /// The first narrowphase failure of the block, in pair order.
    pub failed: Option<NarrowphaseError>,
}

impl Default for BlockSummary {
    fn default() -> Self {
        BlockSummary {
            contacts: 0,
            pairs: 0,
            status: ContactStatusCounts::default(),
            dissipated: Dissipation::default(),
            stored: 0.0,
            max_overlap: 0.0,
            max_ratio: 0.0,
            max_pair: u32::MAX,
            failed: None,
        }
    }
}

impl BlockSummary {
    /// Folds `o` (a later block) into `self`; ties keep the earlier pair.
    pub fn merge(&mut self, o: &BlockSummary) {
        self.contacts += o.contacts;
        self.pairs += o.pairs;
        self.status.add(&o.status);
        self.dissipated += o.dissipated;
        self.stored += o.stored;
        if o.max_ratio > self.max_ratio {
            self.max_ratio = o.max_ratio;
            self.max_pair = o.max_pair;
        }
        self.max_overlap = self.max_overlap.max(o.max_overlap);
        if self.failed.is_none() {
            self.failed = o.failed;
        }
    }
}

/// Read-only inputs of the pass.
pub(crate) struct PassInput<'a, L: ContactLaw> {
    pub law: &'a L,
    pub bodies: &'a BodySet,
    /// The world's narrowphase, for the pairs that are not two spheres.
    pub narrowphase: &'a Narrowphase,
    /// The material table's pair values ([`MaterialTable::pairs`](granula_core::MaterialTable::pairs)).
    pub materials: &'a [PairMaterial],
    /// The law's own pair parameters, aligned with `materials`.
    pub pair_parameters: &'a [L::Pair],
    pub candidates: &'a [Candidate],
    /// Per candidate, the translation of body 2's periodic image nearest to body 1
    /// ([`PairList::shifts`](crate::pairs::PairList)); empty without periodic axes.
    pub shifts: &'a [DVec3],
    /// Per candidate, the velocity of body 2's image minus body 2's (Lees-Edwards shear,
    /// [`PairList::velocity_shifts`](crate::pairs::PairList)); empty without shear.
    pub velocity_shifts: &'a [DVec3],
    /// Per candidate, the memory its contact generator keeps between steps
    /// ([`PairList::memory`](crate::pairs::PairList)).
    pub memory: &'a [PairMemory],
    pub dt: f64,
    /// Per body, the rotation vector since the previous force evaluation (002 eq. 15; zero
    /// in the priming pass).
    pub rotation: &'a [DVec3],
    /// Per body, the offsets from the body set's velocities to those at the force's time
    /// level ([`Integrator::force_velocity_offsets`](granula_core::Integrator::force_velocity_offsets)),
    /// applied to the normal part of each contact's relative velocity; `None`: none.
    pub velocity_offsets: Option<VelocityOffsets<'a>>,
    /// `false` for the priming pass at the initial state: histories are not updated and
    /// the summaries are not used.
    pub commit: bool,
    /// Per body, whether another process owns it ([`MdSolver::set_foreign_bodies`](crate::MdSolver::set_foreign_bodies));
    /// empty: every body is this process's.
    pub foreign: &'a [bool],
}

impl<L: ContactLaw> PassInput<'_, L> {
    /// Whether this process books the energies of the pair of bodies `i` and `j` (dense
    /// indices, `i < j`): always without foreign bodies; otherwise when the pair's first
    /// dynamic body is not foreign, so that a pair computed by several processes is booked
    /// by one of them only.
    #[inline(always)]
    pub(super) fn books(&self, i: usize, j: usize) -> bool {
        self.foreign.is_empty() || self.books_shared_pair(i, j)
    }

    #[inline(never)]
    fn books_shared_pair(&self, i: usize, j: usize) -> bool {
        let first = if self.bodies.motion[i] == MotionKind::Dynamic { i } else { j };
        !self.foreign.get(first).copied().unwrap_or(false)
    }

    /// The position of the image of body 2 of candidate `p` (its own without periodic axes).
    #[inline]
    pub(super) fn image_position(&self, p: usize, c: &Candidate) -> DVec3 {
        let x = self.bodies.position[c.body2 as usize];
        if self.shifts.is_empty() {
            x
        } else {
            x + self.shifts[p]
        }
    }

    /// The separation of candidate `p` ([`separation`]).
    #[inline]
    pub(super) fn separation(&self, p: usize, c: &Candidate) -> DVec3 {
        separation(&self.bodies.position, self.shifts, p, c)
    }
}

/// The separation x₂ − x₁ of candidate `p` (`c`), plus, with periodic axes (`shifts` not
/// empty), the translation `shifts[p]` of body 2's nearest periodic image (the minimum
/// image). Without periodic axes no shift is read and nothing is added; the test takes the
/// same branch for every pair of a run.
#[inline(always)]
pub(super) fn separation(position: &[DVec3], shifts: &[DVec3], p: usize, c: &Candidate) -> DVec3 {
    let d = position[c.body2 as usize] - position[c.body1 as usize];
    if shifts.is_empty() {
        d
    } else {
        d + shifts[p]
    }
}

/// Contact geometry of a sphere pair within its margin, `Ok(None)` beyond it, `Err` for
/// concentric spheres, with the typed narrowphase error put in `failure` if it holds none
/// yet (the error stays out of the return value, which keeps the hot loop's code as small
/// as with no error to carry).
///
/// The same formulas as the core's `sphere_sphere` (n = (x₂ − x₁)/|x₂ − x₁|,
/// g = |x₂ − x₁| − r₁ − r₂, contact point at the middle of the overlap) but one reciprocal
/// instead of divisions and R* precomputed per pair. `d` is the pair's separation
/// ([`separation`]: x₂ − x₁, or to the nearest periodic image of body 2).
#[inline(always)]
pub(super) fn sphere_geometry(
    b: &BodySet,
    c: &Candidate,
    d: DVec3,
    failure: &mut Option<NarrowphaseError>,
) -> Result<Option<ContactGeometry>, ()> {
    let i = c.body1 as usize;
    let dist2 = d.length_squared();
    if dist2 > c.reach2 {
        return Ok(None);
    }
    let (r1, r2) = (c.radius1, c.radius2);
    let dist = dist2.sqrt();
    if dist <= 1e-12 * (r1 + r2) {
        failure.get_or_insert_with(|| concentric(b, c));
        return Err(());
    }
    let normal = d * (1.0 / dist);
    let gap = dist - r1 - r2;
    let branch1 = normal * (r1 + 0.5 * gap);
    Ok(Some(ContactGeometry {
        // Only read when the contacts are published.
        point: b.position[i] + branch1,
        normal,
        gap,
        branch1,
        branch2: branch1 - d,
        effective_radius: c.effective_radius,
        feature: 0,
        overlap_volume: 0.0,
        twist_arm: 0.0,
    }))
}

/// The error of two concentric spheres, with the core's wording.
#[cold]
pub(super) fn concentric(b: &BodySet, c: &Candidate) -> NarrowphaseError {
    let (body1, body2) = (b.handle[c.body1 as usize], b.handle[c.body2 as usize]);
    NarrowphaseError::Degenerate { body1, body2, reason: "concentric spheres" }
}

/// The kinematics of candidate `c` (pair `p`) of geometry `g` (the core's constructor),
/// with body 2's image velocity under Lees-Edwards shear, the normal rate moved to the
/// force's time level and the rotation increments if the law reads them.
#[inline(always)]
pub(super) fn kinematics<'a, L: ContactLaw>(
    input: &PassInput<'a, L>,
    p: usize,
    c: &Candidate,
    g: &ContactGeometry,
    rotations: bool,
) -> ContactKinematics<'a, L::Pair> {
    let (i, j) = (c.body1 as usize, c.body2 as usize);
    let (material, pair) = (&input.materials[c.material as usize], &input.pair_parameters[c.material as usize]);
    let mut kin = ContactKinematics::new(input.bodies, i, j, g, c.effective_mass, material, input.dt).with_pair(pair);
    if !input.velocity_shifts.is_empty() {
        // The image of body 2 across the sheared faces moves faster by ±γ̇ L_g.
        kin.relative_velocity += input.velocity_shifts[p];
    }
    if let Some(offsets) = input.velocity_offsets {
        // The normal rate at the force's time level (dashpots); the tangential part stays
        // the body set's (Verlet: half-step, so that a spring increment 𝒱_t Δt is the
        // step's displacement). For two spheres the branch vectors lie along the normal,
        // so spins add nothing to the normal rate and their offsets are not read.
        let mut lead = offsets.linear(j) - offsets.linear(i);
        if c.kind != PairKind::Spheres {
            lead += offsets.angular(j).cross(g.branch2) - offsets.angular(i).cross(g.branch1);
        }
        kin.relative_velocity += g.normal * lead.dot(g.normal);
    }
    if rotations {
        kin.rotation1 = input.rotation[i];
        kin.rotation2 = input.rotation[j];
    }
    kin
}

/// The published record of a contact (its key is filled in by the recording sink).
#[inline(always)]
pub(super) fn record(c: &Candidate, g: &ContactGeometry, relative_velocity: DVec3, cf: &ContactForce) -> ContactRecord {
    ContactRecord {
        key: ContactKey { body1: BodyHandle(u32::MAX), body2: BodyHandle(u32::MAX), feature: g.feature },
        body1: c.body1,
        body2: c.body2,
        point: g.point,
        normal: g.normal,
        tangent: g.tangents().0,
        gap: g.gap,
        branch1: g.branch1,
        branch2: g.branch2,
        relative_velocity,
        force: cf.force,
        couple: cf.torque,
        status: cf.status,
    }
}

impl BlockSummary {
    /// Books a committed contact of candidate `c` (pair `p`) of geometry `g`: count by the
    /// law's status, energies (when `energies`, see [`PassInput::books`]), largest overlap
    /// and overlap ratio. The ratio is the overlap over the smaller sphere radius of the
    /// pair; a pair without a sphere radius (two custom shapes) whose contact carries an
    /// overlap region (a polygon pair's area, a polyhedron pair's volume: the gap is then
    /// the region's mean depth and the effective radius the bodies' size, 002 eq. 5's l_c/2
    /// for polygons) is measured against its effective radius, so the overlap guard sees
    /// those too. Point contacts of custom shapes carry a local curvature radius, not a
    /// size, and are not measured.
    #[inline(always)]
    pub(super) fn book(
        &mut self,
        b: &BodySet,
        p: usize,
        c: &Candidate,
        g: &ContactGeometry,
        cf: &ContactForce,
        energies: bool,
    ) {
        let gap = g.gap;
        self.contacts += 1;
        if energies {
            self.dissipated += cf.dissipated;
            self.stored += cf.stored;
        }
        self.status.count(cf.status);
        let overlap = -gap;
        if overlap > 0.0 {
            self.max_overlap = self.max_overlap.max(overlap);
            // The division only for a candidate record (overlap > ratio·r_min first).
            let (i, j) = (c.body1 as usize, c.body2 as usize);
            let r_min = if c.kind == PairKind::Spheres {
                c.radius1.min(c.radius2)
            } else {
                let r = b.radius[i].min(b.radius[j]);
                if r.is_finite() || g.overlap_volume <= 0.0 {
                    r
                } else {
                    g.effective_radius
                }
            };
            if overlap > self.max_ratio * r_min {
                let ratio = overlap / r_min;
                if ratio > self.max_ratio {
                    self.max_ratio = ratio;
                    self.max_pair = p as u32;
                }
            }
        }
    }
}

/// The slices of one block's pairs: the history and stored-energy slots (a sphere pair's,
/// or another pair's first point's) and the other pairs' points.
pub(crate) type BlockState<'s, H> = (&'s mut [H], &'s mut [f64], &'s mut [PairPoints<H>]);

/// The loads of a contact of geometry `g` and force `cf`.
#[inline(always)]
pub(super) fn pair_load(g: &ContactGeometry, cf: &ContactForce) -> PairLoad {
    branch_load(g.branch1, g.branch2, cf)
}

/// The loads of a contact of branch vectors `branch1`, `branch2` and force `cf`.
#[inline(always)]
pub(super) fn branch_load(branch1: DVec3, branch2: DVec3, cf: &ContactForce) -> PairLoad {
    PairLoad {
        force: cf.force,
        torque1: -branch1.cross(cf.force) - cf.torque,
        torque2: branch2.cross(cf.force) + cf.torque,
    }
}
