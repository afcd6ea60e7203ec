//! Two-level aggregation correction of the Gauss-Seidel iterate: the bodies are grouped
//! into aggregates (cells of a coarse grid), each aggregate is treated as one rigid body,
//! and a small frictional contact problem between the aggregates is solved for the
//! force corrections on their interfaces, which are then spread over the fine contacts of
//! each interface.
//!
//! Why: Gauss-Seidel relaxes a force disturbance diffusively (000 eqs. 42-48): the slow
//! modes of a bed L deep need of the order of (L/d)² sweeps (000 eq. 45). A slow mode is
//! a smooth velocity field: whole regions of the packing move together because the
//! forces across them do not balance their weight yet. Inside an aggregate of a few
//! diameters the sweeps repair the forces in a few sweeps; what they cannot do fast is
//! to move the force between aggregates. On the aggregates the slow mode is a rigid
//! motion, so the coarse space is that of rigid aggregates (the "near null space" of
//! smoothed aggregation multigrid, Vaněk, Mandel and Brezina, *Computing* 56, 1996,
//! taken for contact impulses).
//!
//! The coarse problem, per correction (a two-level cycle: pre-smoothing sweeps, this
//! correction, post-smoothing sweeps):
//!
//! - Restriction: each aggregate's rigid velocity ξ_A = (V_A, Ω_A) is the momentum
//!   projection of its bodies' velocities, ξ_A = K_A Σ_b (m_b v_b, m_b d_b × v_b + I_b ω_b),
//!   K_A = M_A⁻¹ the inverse of the aggregate's 6×6 rigid mass matrix about its centre of
//!   mass (d_b the body's offset). Internal contact impulses cancel in this sum (equal and
//!   opposite at one point), so ξ_A depends only on the impulses at the aggregate's
//!   interfaces and on the free velocities: it is the aggregate's velocity under the
//!   present interface forces. By virtual work, this is the Galerkin restriction Pᵀ u of
//!   the velocity residual for a prolongation P that adds to an interface force the
//!   internal forces keeping the aggregates rigid.
//! - Coarse unknowns: one force correction ΔF_I (3 components) per interface I between two
//!   aggregates (or an aggregate and a fixed or kinematic body), acting at the interface
//!   point x_I = Σ w_α x_α, w_α = P_n,α / Σ P_n the share of the interface's present
//!   normal impulse carried by fine contact α (so the correction scales the force chains
//!   that exist; an interface without force yet spreads evenly). The coarse Delassus
//!   blocks are W_IJ = G_Iᵀ K_A G_J summed over the aggregates the two interfaces share,
//!   G = (1; l×) (force at lever l to generalized force): a rigid-body contact problem
//!   with multi-body aggregates, swept in the same exchange-local-global form as the fine
//!   one (004 §2.3.3.4): each coarse update reads the two aggregates' velocities and
//!   writes their changes back, nothing is assembled.
//! - Coarse law: the interface wants zero relative velocity beyond the target of its fine
//!   contacts (the force-weighted mean of their u_min n). Unilaterality and friction at
//!   the coarse level: the total interface force F_I + ΔF_I stays in the cone of
//!   half-angle atan μ around the present total F_I (μ the largest of the interface's
//!   contacts; around the contacts' mean normal for an unloaded interface). It never
//!   pulls (an interface can only unload to zero) and never turns the resultant beyond
//!   what friction could carry; the exact cone conditions are the fine contacts'
//!   business: the prolonged impulses are projected onto each contact's cone and the
//!   post-smoothing sweeps repair the rest.
//! - Prolongation: P_α ← proj_{K_μ}(P_α + s_α w_α R_αᵀ ΔF_I) (s_α = ±1 as contact α's
//!   body 2 is on the side the interface force acts on), exchanged with the bodies; then
//!   [`CoarseCorrection::internal_sweeps`] Gauss-Seidel sweeps over the contacts inside
//!   the aggregates, the interfaces held. An interface correction alone kicks the boundary
//!   bodies only; the next ordinary sweep would split the repair between the interface
//!   and the inside and so undo half of it. The internal sweeps build the internal forces
//!   that make the aggregate follow as a rigid body (the rigidifying part of P). On the
//!   40-sphere chain of 000 §3.3.1 they make the difference between 3234 and 410 sweeps.
//!
//! The coarse problem is solved by projected Gauss-Seidel sweeps in interface order until
//! a sweep changes no correction by more than [`CoarseCorrection::coarse_tolerance`] of the
//! largest one, with a cap. Aggregates are the connected parts (through contacts)
//! of the bodies inside one cell of a grid `cell` mean diameters wide, or of one vertical
//! column of cells ([`Aggregates::Columns`]). Bodies with locked degrees of freedom make
//! their aggregate translate only along the axes free for all its bodies, without
//! rotation: the coarse space is then smaller, still a subspace, so the correction stays
//! valid. Everything runs in list order on one thread: the same bits on any thread count.

use crate::bodies::{BodyMobility, BodyVelocity};
use crate::contacts::{ColdContact, HotContact};
use crate::local::NonSmoothLaw;
use crate::moreau_jean::{apply, update};
use crate::residual::project_on_cone;
use granula_core::{DMat3, DVec3};
use nalgebra::{Matrix6, Vector6};

/// How bodies are grouped into aggregates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Aggregates {
    /// Cubic cells of a grid aligned with the world axes.
    #[default]
    Cubes,
    /// Vertical columns: square cells in the plane normal to gravity, unbounded along it
    /// (the axis of the world closest to gravity).
    Columns,
}

/// Settings of the two-level aggregation correction
/// ([`NscdConfig::coarse`](crate::NscdConfig::coarse)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoarseCorrection {
    /// Shape of the aggregates.
    pub aggregates: Aggregates,
    /// Edge of an aggregation cell in mean particle diameters (> 0); the mean diameter is
    /// twice the mean of the smaller radius of each contact's pair.
    pub cell: f64,
    /// Gauss-Seidel sweeps between two corrections (≥ 1): the post-smoothing sweeps of one
    /// cycle are the pre-smoothing sweeps of the next.
    pub sweeps_between: u32,
    /// Largest number of projected Gauss-Seidel sweeps over the interfaces per correction
    /// (≥ 1).
    pub coarse_sweeps: u32,
    /// The coarse sweeps stop when the largest change of an interface force in a sweep is
    /// below this fraction of the largest interface force (in (0, 1)).
    pub coarse_tolerance: f64,
    /// Gauss-Seidel sweeps over the contacts inside the aggregates after each correction,
    /// the interfaces held: they carry the interface corrections into the aggregates
    /// (the internal forces of the rigidifying prolongation), so that the next ordinary
    /// sweeps do not undo them at the interfaces. 0 turns them off.
    pub internal_sweeps: u32,
}

impl Default for CoarseCorrection {
    fn default() -> Self {
        CoarseCorrection {
            aggregates: Aggregates::Cubes,
            cell: 3.0,
            sweeps_between: 10,
            coarse_sweeps: 200,
            coarse_tolerance: 1e-3,
            internal_sweeps: 5,
        }
    }
}

const NONE: u32 = u32::MAX;

/// Work arrays of the correction, kept from step to step (no allocation once warm).
#[derive(Clone, Debug, Default)]
pub(crate) struct CoarseWork {
    /// Whether the aggregates of this step are built.
    ready: bool,
    /// Per body: its position at q_m (from its contacts), and whether it is in a contact.
    position: Vec<DVec3>,
    seen: Vec<bool>,
    /// Per body: grid cell (dynamic bodies), union-find parent, aggregate.
    cell: Vec<(i64, i64, i64)>,
    parent: Vec<u32>,
    aggregate: Vec<u32>,
    /// Per aggregate: centre, 6×6 mobility K (zero for supports), support body or NONE.
    centre: Vec<DVec3>,
    mobility: Vec<Matrix6<f64>>,
    mass: Vec<Matrix6<f64>>,
    support: Vec<u32>,
    /// Per aggregate: rigid velocity (V, Ω).
    xi: Vec<Vector6<f64>>,
    /// Interfaces: the aggregate pair (force acts on `.1`), the start of its contacts.
    pair: Vec<(u32, u32)>,
    start: Vec<u32>,
    /// Contacts inside an aggregate (list order).
    internal: Vec<u32>,
    /// Interface contacts: (contact, sign, weight).
    members: Vec<(u32, f64, f64)>,
    /// Sort scratch: (lo, hi, contact, sign).
    keys: Vec<(u32, u32, u32, i8)>,
    /// Per interface: point, frame (n, t, s columns), local W, its inverse, target
    /// velocity (local), present force magnitude, μ, correction, active.
    point: Vec<DVec3>,
    frame: Vec<DMat3>,
    w: Vec<DMat3>,
    w_inv: Vec<DMat3>,
    target: Vec<DVec3>,
    force: Vec<f64>,
    mu: Vec<f64>,
    delta: Vec<DVec3>,
    active: Vec<bool>,
    /// Per aggregate: momentum (restriction), mass (build), free degrees of freedom.
    momentum: Vec<Vector6<f64>>,
    total: Vec<f64>,
    free: Vec<[bool; 6]>,
}

fn skew(l: DVec3) -> nalgebra::Matrix3<f64> {
    nalgebra::Matrix3::new(0.0, -l.z, l.y, l.z, 0.0, -l.x, -l.y, l.x, 0.0)
}

fn to_na(m: DMat3) -> nalgebra::Matrix3<f64> {
    let c = m.to_cols_array_2d();
    nalgebra::Matrix3::new(c[0][0], c[1][0], c[2][0], c[0][1], c[1][1], c[2][1], c[0][2], c[1][2], c[2][2])
}

/// Generalized force (F, l × F) of force `f` at lever `l`.
#[inline]
fn generalized(f: DVec3, l: DVec3) -> Vector6<f64> {
    let t = l.cross(f);
    Vector6::new(f.x, f.y, f.z, t.x, t.y, t.z)
}

/// Velocity V + Ω × l at lever `l` of rigid velocity `xi`.
#[inline]
fn velocity_at(xi: &Vector6<f64>, l: DVec3) -> DVec3 {
    DVec3::new(xi[0], xi[1], xi[2]) + DVec3::new(xi[3], xi[4], xi[5]).cross(l)
}

impl CoarseWork {
    /// Forgets the aggregates (a new step).
    pub(crate) fn reset(&mut self) {
        self.ready = false;
    }

    /// Builds the aggregates and interfaces of this step; returns `false` when there is
    /// nothing to correct.
    // Several parallel per-body and per-aggregate arrays are read and written by index.
    #[allow(clippy::needless_range_loop)]
    fn build<P>(
        &mut self,
        settings: &CoarseCorrection,
        up: DVec3,
        hot: &[HotContact<P>],
        cold: &[ColdContact],
        mob: &[BodyMobility],
    ) -> bool {
        let nb = mob.len();
        self.ready = true;
        self.pair.clear();
        if hot.is_empty() {
            return false;
        }
        self.position.clear();
        self.position.resize(nb, DVec3::ZERO);
        self.seen.clear();
        self.seen.resize(nb, false);
        let mut diameter = 0.0;
        for (c, k) in hot.iter().zip(cold) {
            self.position[c.body1 as usize] = k.point - c.l1;
            self.position[c.body2 as usize] = k.point - c.l2;
            self.seen[c.body1 as usize] = true;
            self.seen[c.body2 as usize] = true;
            diameter += 2.0 * k.min_radius;
        }
        let h = settings.cell * diameter / hot.len() as f64;
        if !(h.is_finite() && h > 0.0) {
            return false;
        }
        let dynamic = |b: usize| mob[b].lin != DVec3::ZERO || mob[b].ang != DMat3::ZERO;
        // The world axis closest to gravity is the columns' axis.
        let vertical = if up.x.abs() >= up.y.abs() && up.x.abs() >= up.z.abs() {
            0
        } else if up.y.abs() >= up.z.abs() {
            1
        } else {
            2
        };
        self.cell.clear();
        self.parent.clear();
        for b in 0..nb {
            let x = self.position[b] / h;
            let mut c = [x.x.floor() as i64, x.y.floor() as i64, x.z.floor() as i64];
            if settings.aggregates == Aggregates::Columns && up != DVec3::ZERO {
                c[vertical] = 0;
            }
            self.cell.push((c[0], c[1], c[2]));
            self.parent.push(b as u32);
        }
        // Union-find over the contacts inside one cell (deterministic: list order).
        fn root(parent: &mut [u32], mut i: u32) -> u32 {
            while parent[i as usize] != i {
                let p = parent[parent[i as usize] as usize];
                parent[i as usize] = p;
                i = p;
            }
            i
        }
        for c in hot {
            let (i, j) = (c.body1 as usize, c.body2 as usize);
            if dynamic(i) && dynamic(j) && self.cell[i] == self.cell[j] {
                let (a, b) = (root(&mut self.parent, i as u32), root(&mut self.parent, j as u32));
                if a != b {
                    let (lo, hi) = (a.min(b), a.max(b));
                    self.parent[hi as usize] = lo;
                }
            }
        }
        // Aggregates numbered by their smallest body; supports get one each.
        self.aggregate.clear();
        self.aggregate.resize(nb, NONE);
        self.centre.clear();
        self.mass.clear();
        self.support.clear();
        for b in 0..nb {
            if !self.seen[b] {
                continue;
            }
            if !dynamic(b) {
                self.aggregate[b] = self.centre.len() as u32;
                self.centre.push(self.position[b]);
                self.mass.push(Matrix6::zeros());
                self.support.push(b as u32);
                continue;
            }
            let r = root(&mut self.parent, b as u32) as usize;
            if self.aggregate[r] == NONE {
                self.aggregate[r] = self.centre.len() as u32;
                self.centre.push(DVec3::ZERO);
                self.mass.push(Matrix6::zeros());
                self.support.push(NONE);
            }
            self.aggregate[b] = self.aggregate[r];
        }
        // Centres of mass, then rigid mass matrices about them.
        let na = self.centre.len();
        let total = &mut self.total;
        total.clear();
        total.resize(na, 0.0);
        let mass_of = |b: usize| {
            let l = mob[b].lin.max_element();
            if l > 0.0 {
                1.0 / l
            } else {
                0.0
            }
        };
        for b in 0..nb {
            let a = self.aggregate[b];
            if a == NONE || self.support[a as usize] != NONE {
                continue;
            }
            let m = mass_of(b);
            total[a as usize] += m;
            self.centre[a as usize] += self.position[b] * m;
        }
        // Free degrees of freedom of each aggregate: translations free for all its bodies;
        // rotations only if every body is entirely free.
        let free = &mut self.free;
        free.clear();
        free.resize(na, [true; 6]);
        for b in 0..nb {
            let a = self.aggregate[b];
            if a == NONE || self.support[a as usize] != NONE {
                continue;
            }
            let f = &mut free[a as usize];
            let lin = mob[b].lin;
            for (k, v) in [lin.x, lin.y, lin.z].into_iter().enumerate() {
                f[k] &= v > 0.0;
            }
            let whole = lin.min_element() > 0.0 && mob[b].ang.determinant() > 0.0;
            for fk in f.iter_mut().skip(3) {
                *fk &= whole;
            }
        }
        for a in 0..na {
            if self.support[a] == NONE && total[a] > 0.0 {
                self.centre[a] /= total[a];
            }
        }
        for b in 0..nb {
            let a = self.aggregate[b];
            if a == NONE || self.support[a as usize] != NONE {
                continue;
            }
            let a = a as usize;
            let m = mass_of(b);
            let d = skew(self.position[b] - self.centre[a]);
            let inertia = if free[a][3] { to_na(mob[b].ang.inverse()) } else { nalgebra::Matrix3::zeros() };
            let e = nalgebra::Matrix3::identity() * m;
            let mm = &mut self.mass[a];
            let top_right = -d * m;
            let bottom = inertia - d * d * m;
            for i in 0..3 {
                for j in 0..3 {
                    mm[(i, j)] += e[(i, j)];
                    mm[(i, j + 3)] += top_right[(i, j)];
                    mm[(i + 3, j)] -= top_right[(i, j)];
                    mm[(i + 3, j + 3)] += bottom[(i, j)];
                }
            }
        }
        self.mobility.clear();
        for a in 0..na {
            let mut k = Matrix6::zeros();
            if self.support[a] == NONE {
                let mut m = self.mass[a];
                for (i, &f) in free[a].iter().enumerate() {
                    if !f {
                        m.row_mut(i).fill(0.0);
                        m.column_mut(i).fill(0.0);
                        m[(i, i)] = 1.0;
                    }
                }
                if let Some(inv) = m.try_inverse() {
                    k = inv;
                    for (i, &f) in free[a].iter().enumerate() {
                        if !f {
                            k.row_mut(i).fill(0.0);
                            k.column_mut(i).fill(0.0);
                        }
                    }
                }
            }
            self.mobility.push(k);
        }
        // Interfaces: contacts between two aggregates, grouped by pair (sorted, so the
        // order is a function of the contact list alone).
        self.keys.clear();
        self.internal.clear();
        for (k, c) in hot.iter().enumerate() {
            let (a, b) = (self.aggregate[c.body1 as usize], self.aggregate[c.body2 as usize]);
            if a == b {
                self.internal.push(k as u32);
                continue;
            }
            if self.support[a as usize] != NONE && self.support[b as usize] != NONE {
                continue;
            }
            let (lo, hi) = (a.min(b), a.max(b));
            self.keys.push((lo, hi, k as u32, if b == hi { 1 } else { -1 }));
        }
        self.keys.sort_unstable();
        self.start.clear();
        self.members.clear();
        for &(lo, hi, k, s) in &self.keys {
            if self.pair.last() != Some(&(lo, hi)) {
                self.pair.push((lo, hi));
                self.start.push(self.members.len() as u32);
            }
            self.members.push((k, s as f64, 0.0));
        }
        self.start.push(self.members.len() as u32);
        let ni = self.pair.len();
        for v in [&mut self.point, &mut self.target, &mut self.delta] {
            v.clear();
            v.resize(ni, DVec3::ZERO);
        }
        for v in [&mut self.frame, &mut self.w, &mut self.w_inv] {
            v.clear();
            v.resize(ni, DMat3::ZERO);
        }
        for v in [&mut self.force, &mut self.mu] {
            v.clear();
            v.resize(ni, 0.0);
        }
        self.active.clear();
        self.active.resize(ni, false);
        ni > 0
    }

    /// Velocity change of aggregate `a` per unit force `f` at `x`: the velocity at `x`.
    fn response(&self, a: usize, x: DVec3, f: DVec3) -> DVec3 {
        let l = x - self.centre[a];
        velocity_at(&(self.mobility[a] * generalized(f, l)), l)
    }

    /// Relative velocity at `x` of aggregate `hi` with respect to `lo`.
    fn relative(&self, lo: usize, hi: usize, x: DVec3) -> DVec3 {
        velocity_at(&self.xi[hi], x - self.centre[hi]) - velocity_at(&self.xi[lo], x - self.centre[lo])
    }

    /// One correction (module documentation). Returns the coarse interface updates done,
    /// or `None` when the law has no Signorini-Coulomb form or no projection, or there is
    /// no interface (nothing is changed then).
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    pub(crate) fn correct<L: NonSmoothLaw>(
        &mut self,
        law: &L,
        settings: &CoarseCorrection,
        up: DVec3,
        hot: &mut [HotContact<L::Params>],
        cold: &[ColdContact],
        coupled: &[DMat3],
        vel: &mut [BodyVelocity],
        mob: &[BodyMobility],
    ) -> Option<u64> {
        law.project(&hot.first()?.params, DVec3::ZERO)?;
        law.shock_params(&hot.first()?.params)?;
        if !self.ready && !self.build(settings, up, hot, cold, mob) {
            return None;
        }
        if self.pair.is_empty() {
            return None;
        }
        // Restriction: rigid velocities of the aggregates (momentum projection), the
        // supports' own motion.
        let na = self.centre.len();
        self.xi.clear();
        self.xi.resize(na, Vector6::zeros());
        let momentum = &mut self.momentum;
        momentum.clear();
        momentum.resize(na, Vector6::zeros());
        for (b, (v, m)) in vel.iter().zip(mob).enumerate() {
            let a = self.aggregate[b];
            if a == NONE {
                continue;
            }
            let a = a as usize;
            if self.support[a] != NONE {
                self.xi[a] = Vector6::new(v.v.x, v.v.y, v.v.z, v.w.x, v.w.y, v.w.z);
                continue;
            }
            let l = m.lin.max_element();
            if l <= 0.0 {
                continue;
            }
            let mass = 1.0 / l;
            let d = self.position[b] - self.centre[a];
            let p = v.v * mass;
            let ang = if m.ang.determinant() > 0.0 { m.ang.inverse() * v.w } else { DVec3::ZERO };
            let lm = d.cross(p) + ang;
            momentum[a] += Vector6::new(p.x, p.y, p.z, lm.x, lm.y, lm.z);
        }
        for a in 0..na {
            if self.support[a] == NONE {
                self.xi[a] = self.mobility[a] * momentum[a];
            }
        }
        // Interface data from the present impulses.
        let mut largest: f64 = 0.0;
        for i in 0..self.pair.len() {
            let (s, e) = (self.start[i] as usize, self.start[i + 1] as usize);
            let (mut sum, mut mu, mut f) = (0.0, 0.0_f64, DVec3::ZERO);
            for m in &self.members[s..e] {
                let c = &hot[m.0 as usize];
                sum += c.p.x.max(0.0);
                f += c.to_world(c.p) * m.1;
                mu = mu.max(law.shock_params(&c.params)?.mu);
            }
            self.active[i] = false;
            self.delta[i] = DVec3::ZERO;
            let magnitude = f.length();
            // An interface without force yet (cold start, a new contact) spreads its
            // correction evenly and pushes along its contacts' mean normal.
            let loaded = sum > 0.0 && magnitude > 0.0;
            let count = (e - s) as f64;
            let (mut x, mut target, mut normal) = (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
            for m in &mut self.members[s..e] {
                let c = &hot[m.0 as usize];
                m.2 = if loaded { c.p.x.max(0.0) / sum } else { 1.0 / count };
                normal += c.n * m.1;
                x += cold[m.0 as usize].point * m.2;
                let u_min = law.shock_params(&c.params)?.min_normal_velocity;
                target += c.n * (u_min * m.1 * m.2);
            }
            let n = if loaded { f / magnitude } else { normal.normalize_or_zero() };
            if n == DVec3::ZERO {
                continue;
            }
            let t = n.any_orthonormal_vector();
            let frame = DMat3::from_cols(n, t, n.cross(t));
            let (lo, hi) = (self.pair[i].0 as usize, self.pair[i].1 as usize);
            let mut w = DMat3::ZERO;
            for (k, axis) in [frame.x_axis, frame.y_axis, frame.z_axis].into_iter().enumerate() {
                let col = self.response(hi, x, axis) + self.response(lo, x, axis);
                *w.col_mut(k) = frame.transpose() * col;
            }
            // Symmetrized, and shifted by 1e-12 of its trace so that a rank-deficient block
            // (an aggregate with locked degrees of freedom) stays invertible.
            let w = (w + w.transpose()) * 0.5;
            let trace = w.x_axis.x + w.y_axis.y + w.z_axis.z;
            let shifted = w + DMat3::from_diagonal(DVec3::splat(1e-12 * trace));
            let det = shifted.determinant();
            if !(trace > 0.0 && det.is_finite() && det > 0.0) {
                continue;
            }
            self.point[i] = x;
            self.frame[i] = frame;
            self.w[i] = w;
            self.w_inv[i] = shifted.inverse();
            self.target[i] = frame.transpose() * target;
            self.force[i] = magnitude;
            self.mu[i] = mu;
            self.active[i] = true;
            largest = largest.max(magnitude);
        }
        // Coarse projected Gauss-Seidel in interface order.
        let mut updates = 0u64;
        for _ in 0..settings.coarse_sweeps {
            let mut change: f64 = 0.0;
            for i in 0..self.pair.len() {
                if !self.active[i] {
                    continue;
                }
                updates += 1;
                let (lo, hi) = (self.pair[i].0 as usize, self.pair[i].1 as usize);
                let (x, frame) = (self.point[i], self.frame[i]);
                let u = frame.transpose() * self.relative(lo, hi, x) - self.target[i];
                let b = u - self.w[i] * self.delta[i];
                let base = DVec3::new(self.force[i], 0.0, 0.0);
                let total = project_on_cone(base - self.w_inv[i] * b, self.mu[i]);
                let step = total - base - self.delta[i];
                if step == DVec3::ZERO {
                    continue;
                }
                self.delta[i] += step;
                change = change.max(step.length());
                let world = frame * step;
                let (lh, ll) = (x - self.centre[hi], x - self.centre[lo]);
                self.xi[hi] += self.mobility[hi] * generalized(world, lh);
                self.xi[lo] -= self.mobility[lo] * generalized(world, ll);
            }
            // Converged when the last sweep changed no correction by more than the
            // tolerance times the largest correction (or interface force, early on).
            let scale = self.delta.iter().map(|d| d.length()).fold(0.0, f64::max).max(1e-3 * largest);
            if change <= settings.coarse_tolerance * scale {
                break;
            }
        }
        // Prolongation onto the fine contacts, projected onto their cones.
        for i in 0..self.pair.len() {
            if !self.active[i] || self.delta[i] == DVec3::ZERO {
                continue;
            }
            let world = self.frame[i] * self.delta[i];
            let (s, e) = (self.start[i] as usize, self.start[i + 1] as usize);
            for m in &self.members[s..e] {
                if m.2 == 0.0 {
                    continue;
                }
                let c = &mut hot[m.0 as usize];
                let p = law.project(&c.params, c.p + c.to_local(world * (m.1 * m.2)))?;
                let dp = p - c.p;
                if dp != DVec3::ZERO {
                    apply(c, c.to_world(dp), vel, mob);
                    c.p = p;
                }
            }
        }
        // The rigidifying part of the prolongation: sweeps inside the aggregates.
        for _ in 0..settings.internal_sweeps {
            for &k in &self.internal {
                update(law, &mut hot[k as usize], coupled, vel, mob, 1.0);
            }
        }
        Some(updates)
    }

    /// Contacts inside aggregates (the cost of one internal sweep), 0 before the first
    /// correction of a step.
    pub(crate) fn internal_contacts(&self) -> usize {
        self.internal.len()
    }
}
