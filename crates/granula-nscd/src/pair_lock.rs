//! The block solve of a hyperstatic contact pair: all the contacts one rigid body has
//! with one support (a fixed or kinematic body), solved together as one unknown of the
//! Gauss-Seidel loop, in the body's six coordinates.
//!
//! A rigid face on a plane touches it at k ≥ 3 corners: 3k impulse components act on 6
//! degrees of freedom, so the pair's Delassus block W (3k × 3k) has rank 6 and the
//! reactions are not unique (004 §2.3.3.4 on hyperstatic sets). The point-by-point
//! Gauss-Seidel update (000 eq. 34) then has to find, one corner at a time, a distribution
//! whose every impulse lies in its Coulomb cone. When the friction margin is thin (the M7
//! block at μ = 0.58, 0.45 % above tan α) the admissible distributions form a thin set that
//! neither the sweeps nor the nonsmooth Newton method reach; and the corner's local law
//! with a coupled W_αα (001 eqs. 1.27-1.29) can take another of its solutions than the
//! pair's, so that a sweep moves away even from the pair's exact solution (measured on the
//! M7 block at the step it stops: 1000 sweeps, the block left rocking at 1e-4 m/s).
//!
//! The block solve, with z = (v, L ω) the body's scaled velocity, C_α the map from z to the
//! local relative velocity U_α = C_α z − sign R_α k_α (k_α the support's velocity at the
//! contact) and z_b the body's velocity without the pair's impulses:
//!
//! 1. the pair's frictional contact problem (000 eq. 34 with De Saxcé's modified velocity
//!    Û = U + μ |U_t| e_n): for fixed s_α, the cone program
//!    min ½ (z − z_b)ᵀ M (z − z_b) subject to V_α = U_α − (u_min − s_α) e_n ∈ K*_μ, whose
//!    multipliers are the impulses P_α ∈ K_μ; solved by the augmented Lagrangian method
//!    (z minimizes L(z) = ½ (z − z_b)ᵀ M (z − z_b) + Σ |proj_K(P_α − ρ V_α(z))|² / (2ρ) by a
//!    semismooth Newton method with Armijo's rule, then P_α ← proj_K(P_α − ρ V_α(z))), inside
//!    a fixed point on s_α = μ |U_t,α| (at the fixed point the program's conditions are
//!    Signorini-Coulomb's with De Saxcé's term: sliding contacts have U_n = u_min and
//!    P_t = −μ P_n U_t/|U_t|, sticking ones U = (u_min, 0, 0));
//! 2. when every loaded contact sticks, the locked state is refined: the locked velocity z*
//!    is the least-squares solution of V_α(z) = 0 over the contacts found sticking at their
//!    bound (exact when they restrain all six degrees of freedom), checked against the law
//!    (the others must have U_n ≥ u_min), and Π = M (z* − z_b) the impulse that takes the
//!    body there;
//! 3. the impulses of the locked state: P_α ∈ K_μ on the sticking contacts, zero on the
//!    others, with Σ C_αᵀ P_α = Π, of least norm ½ Σ |P_α|²: a convex program whose dual in
//!    y ∈ ℝ⁶ is the smooth concave maximization of D(y) = y · Π − ½ Σ |proj_K(C_α y)|² (the
//!    primal solution is P_α = proj_K(C_α y); Moreau's decomposition gives
//!    ∇D = Π − Σ C_αᵀ P_α), solved by a semismooth Newton method with Armijo's rule. The
//!    least-norm impulses lie inside the cones (shrunk by 1e-9), where no sweep's sticking
//!    test doubts them.
//!
//! A locked pair gets the impulses of step 3; a sliding one those of step 1. Either solves
//! the pair's local problem given the rest of the system, and the sweeps then leave the
//! pair's contacts alone (block Gauss-Seidel): before each sweep the block solve runs
//! again, and returns at once when the body's velocity without the pair has not changed
//! beyond the tolerance of step 1 (nothing else touches it), so a pair alone converges in
//! one sweep. If step 1 does not converge (a pair that must tip or bounce: u_min > 0 is not
//! taken), the pair is left to the point sweeps for the rest of the step. This is the
//! block idea of LMGC90's and Siconos' solvers (a pair's contacts solved together inside
//! the Gauss-Seidel loop over pairs); the code is granula's own.
//!
//! Everything runs in a fixed order on one thread: the same bits on any thread count. The
//! block solve keeps nothing from one step to the next (the multipliers start from the
//! contacts' warm-started impulses, the dual variables from zero), so the solver's
//! checkpoint ([`crate::NscdState`]) needs nothing new and restarts stay bit-identical.

use crate::bodies::{BodyMobility, BodyVelocity};
use crate::contacts::HotContact;
use crate::local::NonSmoothLaw;
use crate::moreau_jean::apply;
use crate::residual::project_on_cone;
use granula_core::{DMat3, DVec3};
use nalgebra::{Matrix3x6, Matrix6, Vector3, Vector6};

/// Largest number of Newton iterations of one lock attempt. A feasible lock is found in
/// a few iterations from the warm start; an infeasible one (the dual is unbounded) uses
/// them all and the pair goes back to the sweeps.
const MAX_ITERATIONS: u32 = 40;
/// Relative tolerance on the velocity the body keeps after the lock, |M⁻¹ (Π − Σ Gᵀ P)|
/// over |z* − z_b| (the velocity the lock removes).
const TOLERANCE: f64 = 1e-12;
/// Relative tolerance of step 1 on the velocities (stationarity of the augmented
/// Lagrangian, the multipliers' update over ρ, the change of De Saxcé's term), over the
/// velocity scale of the attempt: about a hundred times the round-off the penalty ρ leaves
/// in them (measured 1e-12 on the M7 block).
const PROGRAM_TOLERANCE: f64 = 1e-10;
/// Relative shrink of the Coulomb cones in the lock: its impulses lie strictly inside the
/// cones, where the point-by-point sweep's sticking test accepts them whatever the
/// round-off (on the cone's surface with U_t = 0 the sliding branch would take its direction
/// from the round-off of U_t). A friction capacity lower by 1e-9 is far below any margin a
/// test resolves (M7's is 4.5e-3).
const CONE_SHRINK: f64 = 1e-9;
/// Relative velocity error accepted when the Newton method stalls on round-off (no
/// ascent left, or the cap reached) before [`TOLERANCE`] is met.
const ACCEPT: f64 = 1e-9;
/// Outer iterations of the augmented Lagrangian method of step 1 (each one Newton
/// minimization of at most [`MAX_ITERATIONS`] iterations). The multipliers of the sticking
/// members converge by a factor of about 1/(1 + ρ σ/m) per iteration (σ the smallest
/// nonzero eigenvalue of Σ C_αᵀ C_α): a few iterations with [`PENALTY`].
const MAX_OUTER: u32 = 30;
/// The penalty ρ of the augmented Lagrangian, relative to the mean diagonal of the scaled
/// mass matrix.
const PENALTY: f64 = 1e4;
/// |V_α| below which a member counts as sticking at its bound after step 1, relative to the
/// velocity scale of the attempt (the members' converge to 1e-12 of it, the released ones
/// keep velocities of the order of the scale).
const ACTIVE: f64 = 1e-8;
/// Largest number of fixed-point iterations on De Saxcé's term in step 1. A face that
/// sticks needs one or two (s = 0), one that slides two or three (the slip changes only
/// the normal targets).
const MAX_SHIFTS: u32 = 20;
/// Stationarity accepted when a minimization of the augmented Lagrangian stalls on
/// round-off, relative to its tolerance.
const ACCEPT_STATIONARY: f64 = 1e3;
/// Smallest eigenvalue of the scaled normal matrix Σ G_αᵀ G_α (relative to the number of
/// contacts) for the contacts to restrain all six degrees of freedom.
const RANK_TOLERANCE: f64 = 1e-8;

/// One group: the contacts of one pair with one movable body, in the solver's list.
#[derive(Clone, Copy, Debug)]
struct Group {
    /// Range into [`PairLock::members`].
    start: u32,
    end: u32,
    /// Whether the movable body is body 2 of the contacts (else body 1).
    movable_is_second: bool,
    /// Whether the lock has not failed yet in this step.
    open_to_lock: bool,
    /// The dual variable of the last lock (scaled coordinates), the warm start.
    y: Vector6<f64>,
    /// Whether a block solve of the group has succeeded in this step.
    solved: bool,
    /// The body's velocity without the pair's impulses (scaled) and the support's velocity
    /// at the last successful solve.
    last_base: Vector6<f64>,
    last_support: BodyVelocity,
    /// The pair's generalized impulse Σ C_αᵀ P_α the last successful solve set.
    last_own: Vector6<f64>,
}

/// Work arrays of the pair lock, reused from step to step.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairLock {
    /// (body 1, body 2, contact index), sorted: the scratch of the grouping.
    keys: Vec<(u32, u32, u32)>,
    /// Contact indices of the groups, group after group.
    members: Vec<u32>,
    groups: Vec<Group>,
    /// Locks done in the current step.
    pub(crate) locks: u32,
    /// Block solves done in the current step in which the body slides.
    pub(crate) slides: u32,
    /// Per contact: whether it belongs to a group whose last block solve succeeded (the
    /// sweeps leave it alone); empty when no group has succeeded in the step.
    pub(crate) solved: Vec<bool>,
    /// Work arrays of one attempt.
    scratch: Scratch,
}

/// Whether a body cannot move (fixed or kinematic: zero mobility).
fn immobile(m: &BodyMobility) -> bool {
    m.lin == DVec3::ZERO && m.ang == DMat3::ZERO
}

/// Whether a body has full mobility (no locked degree of freedom).
fn fully_mobile(m: &BodyMobility) -> bool {
    m.lin.min_element() > 0.0 && m.ang.determinant() > 0.0
}

/// The Jacobian of the projection onto the Coulomb cone K_μ = {|r_t| ≤ μ r_n} at `y`
/// (normal first): I inside, 0 in the polar cone, and on the lateral part, with
/// s = |y_t|, t̂ = y_t/s and n' = (μ s + y_n)/(1 + μ²) the projected normal,
/// ∂n'/∂y = (1, μ t̂)/(1 + μ²), ∂(μ n' t̂)/∂y_n = μ t̂/(1 + μ²) and
/// ∂(μ n' t̂)/∂y_t = μ² t̂ t̂ᵀ/(1 + μ²) + (μ n'/s)(I − t̂ t̂ᵀ). On the kinks the branch of the
/// inequalities taken is returned (an element of the generalized Jacobian).
pub fn cone_projection_jacobian(y: DVec3, mu: f64) -> DMat3 {
    let s = (y.y * y.y + y.z * y.z).sqrt();
    if s <= mu * y.x {
        return DMat3::IDENTITY;
    }
    if mu * s <= -y.x || s == 0.0 {
        return DMat3::ZERO;
    }
    let k = 1.0 / (1.0 + mu * mu);
    let (a, b) = (y.y / s, y.z / s);
    let n = (mu * s + y.x) * k;
    let f = mu * n / s;
    let m2 = mu * mu * k;
    // Columns: ∂/∂y_n, ∂/∂y_t, ∂/∂y_s.
    DMat3::from_cols(
        DVec3::new(k, mu * k * a, mu * k * b),
        DVec3::new(mu * k * a, m2 * a * a + f * (1.0 - a * a), m2 * a * b - f * a * b),
        DVec3::new(mu * k * b, m2 * a * b - f * a * b, m2 * b * b + f * (1.0 - b * b)),
    )
}

/// The scaled map G_α of a contact: the velocity v + ω × l of the body point at branch `l`,
/// from the scaled coordinates z = (v, L ω): [I | −[l]× / L].
fn point_map(l: DVec3, scale: f64) -> Matrix3x6<f64> {
    let m = l / scale;
    #[rustfmt::skip]
    let g = Matrix3x6::new(
        1.0, 0.0, 0.0, 0.0, m.z, -m.y,
        0.0, 1.0, 0.0, -m.z, 0.0, m.x,
        0.0, 0.0, 1.0, m.y, -m.x, 0.0,
    );
    g
}

/// The local frame of a contact as rows (n, t, s): world → local.
fn frame_rows<P>(c: &HotContact<P>) -> nalgebra::Matrix3<f64> {
    let s = c.s();
    nalgebra::Matrix3::new(c.n.x, c.n.y, c.n.z, c.t.x, c.t.y, c.t.z, s.x, s.y, s.z)
}

fn v3(v: DVec3) -> Vector3<f64> {
    Vector3::new(v.x, v.y, v.z)
}

impl PairLock {
    /// Groups the contacts of `hot` by body pair and keeps the pairs with at least three
    /// contacts between a fully mobile body and an immobile one.
    pub(crate) fn setup<P>(&mut self, hot: &[HotContact<P>], mob: &[BodyMobility]) {
        self.keys.clear();
        self.members.clear();
        self.groups.clear();
        self.locks = 0;
        self.slides = 0;
        self.solved.clear();
        self.keys.extend(hot.iter().enumerate().map(|(k, c)| (c.body1, c.body2, k as u32)));
        self.keys.sort_unstable();
        let mut i = 0;
        while i < self.keys.len() {
            let (b1, b2, _) = self.keys[i];
            let mut j = i + 1;
            while j < self.keys.len() && self.keys[j].0 == b1 && self.keys[j].1 == b2 {
                j += 1;
            }
            let (m1, m2) = (&mob[b1 as usize], &mob[b2 as usize]);
            let movable_is_second = if fully_mobile(m2) && immobile(m1) {
                Some(true)
            } else if fully_mobile(m1) && immobile(m2) {
                Some(false)
            } else {
                None
            };
            if let (true, Some(movable_is_second)) = (j - i >= 3, movable_is_second) {
                let start = self.members.len() as u32;
                self.members.extend(self.keys[i..j].iter().map(|k| k.2));
                self.groups.push(Group {
                    start,
                    end: self.members.len() as u32,
                    movable_is_second,
                    open_to_lock: true,
                    y: Vector6::zeros(),
                    solved: false,
                    last_base: Vector6::zeros(),
                    last_support: BodyVelocity::default(),
                    last_own: Vector6::zeros(),
                });
            }
            i = j;
        }
    }

    /// Whether the step has groups that may still lock.
    pub(crate) fn active(&self) -> bool {
        self.groups.iter().any(|g| g.open_to_lock)
    }

    /// The block solve of every group that has not failed yet in this step; a group whose
    /// solve fails is left to the sweeps until the step ends, a group whose solve succeeds
    /// is marked in [`PairLock::solved`]. `record` gets each member's new impulse and its
    /// change. Returns the number locked.
    pub(crate) fn lock_all<L: NonSmoothLaw>(
        &mut self,
        law: &L,
        hot: &mut [HotContact<L::Params>],
        vel: &mut [BodyVelocity],
        mob: &[BodyMobility],
        mut record: impl FnMut(DVec3, DVec3),
    ) -> u32 {
        let mut locked = 0;
        for g in 0..self.groups.len() {
            if !self.groups[g].open_to_lock {
                continue;
            }
            let mut group = self.groups[g];
            let members = &self.members[group.start as usize..group.end as usize];
            let outcome = lock_group(law, members, &mut group, hot, vel, mob, &mut self.scratch, &mut record);
            match outcome {
                Some(Outcome::Locked(y)) => {
                    group.y = y;
                    locked += 1;
                }
                Some(Outcome::Solved) => self.slides += 1,
                Some(Outcome::Unchanged) => {}
                None => group.open_to_lock = false,
            }
            self.groups[g] = group;
            if outcome.is_some() && self.solved.is_empty() {
                self.solved.resize(hot.len(), false);
            }
            if !self.solved.is_empty() {
                for &a in members {
                    self.solved[a as usize] = outcome.is_some();
                }
            }
        }
        self.locks += locked;
        locked
    }
}

/// One member of a group in the body's scaled coordinates z: its contact map C_α (the
/// local relative velocity is U_α = C_α z − sign R_α k_α), the target e_α = sign R_α k_α +
/// u_min e_n (V_α = C_α z − e_α vanishes when the contact sticks and meets its Signorini
/// bound within the step) and its friction coefficient.
#[derive(Clone, Copy, Debug)]
struct Member {
    map: Matrix3x6<f64>,
    /// e_α without De Saxcé's term.
    base: Vector3<f64>,
    /// De Saxcé's term s_α = μ |U_t,α| of the last solution.
    shift: f64,
    /// e_α = base − s_α e_n, the target of the current cone program.
    target: Vector3<f64>,
    mu: f64,
}

/// Work arrays of one lock attempt, reused.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    members: Vec<Member>,
    /// The multipliers of the augmented Lagrangian (local impulses, N s).
    multipliers: Vec<Vector3<f64>>,
    /// Whether a member sticks at its bound in the locked state (V_α = 0).
    active: Vec<bool>,
}

/// The velocity the augmented Lagrangian of the pair's cone program takes the body to:
/// the minimizer over z of
/// L(z) = ½ (z − z_b)ᵀ M (z − z_b) + Σ |proj_{K_μ}(P_α − ρ V_α(z))|² / (2ρ),
/// a smooth strictly convex function (module documentation, step 1), by a semismooth
/// Newton method with Armijo's rule, from `z`.
fn minimize_augmented(
    work: &Scratch,
    mass: &Matrix6<f64>,
    mass_inv: &Matrix6<f64>,
    z_base: &Vector6<f64>,
    rho: f64,
    tolerance: f64,
    z: &mut Vector6<f64>,
) -> bool {
    let evaluate = |z: &Vector6<f64>| {
        let dz = z - z_base;
        let mut gradient = mass * dz;
        let mut value = 0.5 * dz.dot(&gradient);
        for (m, p) in work.members.iter().zip(&work.multipliers) {
            let x = p - (m.map * z - m.target) * rho;
            let r = v3(project_on_cone(DVec3::new(x[0], x[1], x[2]), m.mu));
            gradient -= m.map.transpose() * r;
            value += r.norm_squared() / (2.0 * rho);
        }
        (value, gradient)
    };
    let (mut value, mut gradient) = evaluate(z);
    for _ in 0..MAX_ITERATIONS {
        if (mass_inv * gradient).norm() <= tolerance {
            return true;
        }
        let mut hessian = *mass;
        for (m, p) in work.members.iter().zip(&work.multipliers) {
            let x = p - (m.map * *z - m.target) * rho;
            let j = cone_projection_jacobian(DVec3::new(x[0], x[1], x[2]), m.mu);
            let jm = nalgebra::Matrix3::from_column_slice(&j.to_cols_array());
            hessian += m.map.transpose() * jm * m.map * rho;
        }
        let Some(direction) = hessian.cholesky().map(|c| -c.solve(&gradient)) else {
            return false;
        };
        let slope = gradient.dot(&direction);
        if slope >= 0.0 {
            // No descent left: round-off at the minimum.
            return (mass_inv * gradient).norm() <= ACCEPT_STATIONARY * tolerance;
        }
        let mut t = 1.0;
        loop {
            let trial = *z + direction * t;
            let (v, g) = evaluate(&trial);
            // Armijo's rule, or, where the decrease of L is below its round-off near the
            // minimum, a halved stationarity error.
            if v <= value + 1e-4 * t * slope || (mass_inv * g).norm() <= 0.5 * (mass_inv * gradient).norm() {
                (*z, value, gradient) = (trial, v, g);
                break;
            }
            t *= 0.5;
            if t < 1e-10 {
                return (mass_inv * gradient).norm() <= ACCEPT_STATIONARY * tolerance;
            }
        }
    }
    (mass_inv * gradient).norm() <= ACCEPT_STATIONARY * tolerance
}

/// The augmented Lagrangian method on the pair's cone program with the members' current
/// targets (module documentation, step 1): minimizations of L in z alternating with the
/// multiplier update P_α ← proj_{K_μ}(P_α − ρ V_α(z)), until the update moves no
/// multiplier by more than ρ `tolerance`. Returns whether it converged.
fn solve_cone_program(
    work: &mut Scratch,
    mass: &Matrix6<f64>,
    mass_inv: &Matrix6<f64>,
    z_base: &Vector6<f64>,
    rho: f64,
    tolerance: f64,
    z: &mut Vector6<f64>,
) -> bool {
    let mut last = f64::INFINITY;
    for _ in 0..MAX_OUTER {
        if !minimize_augmented(work, mass, mass_inv, z_base, rho, tolerance, z) {
            return false;
        }
        let mut change: f64 = 0.0;
        for (mb, p) in work.members.iter().zip(work.multipliers.iter_mut()) {
            let x = *p - (mb.map * *z - mb.target) * rho;
            let next = v3(project_on_cone(DVec3::new(x[0], x[1], x[2]), mb.mu));
            change = change.max((next - *p).norm() / rho);
            *p = next;
        }
        if change <= tolerance {
            return true;
        }
        last = change;
    }
    // The targets of overlapping members can be inconsistent by the round-off of their
    // gaps over Δt (1e-13 m/s on the M7 block): the multipliers then drift along the
    // hyperstatic null space by a constant step, accepted within the round-off bound.
    last <= ACCEPT * tolerance / PROGRAM_TOLERANCE
}

/// What a successful block solve of a group did.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    /// The body sticks to its support: the least-norm locked impulses, with the dual
    /// variable of step 3.
    Locked(Vector6<f64>),
    /// The body slides (some loaded member slips): the impulses of step 1.
    Solved,
    /// The pair's problem is the one the last successful solve of the step answered (to
    /// the tolerance of step 1): its impulses stand.
    Unchanged,
}

/// The block solve of one group, steps 1-3); on success the impulses and
/// the velocities are updated. `None` when the solve does not converge: the group is left
/// to the sweeps.
fn lock_group<L: NonSmoothLaw>(
    law: &L,
    members: &[u32],
    group: &mut Group,
    hot: &mut [HotContact<L::Params>],
    vel: &mut [BodyVelocity],
    mob: &[BodyMobility],
    work: &mut Scratch,
    record: &mut impl FnMut(DVec3, DVec3),
) -> Option<Outcome> {
    let first = &hot[members[0] as usize];
    let (body, support) = if group.movable_is_second {
        (first.body2 as usize, first.body1 as usize)
    } else {
        (first.body1 as usize, first.body2 as usize)
    };
    let sign = if group.movable_is_second { 1.0 } else { -1.0 };
    let branch = |c: &HotContact<L::Params>| if group.movable_is_second { (c.l2, c.l1) } else { (c.l1, c.l2) };
    // Length scale of the rotations, so that both halves of z are velocities.
    let mut scale: f64 = 0.0;
    for &a in members {
        let c = &hot[a as usize];
        let s = law.shock_params(&c.params)?;
        // A contact that must separate (a bounce or a correcting gap) cannot be locked.
        if s.min_normal_velocity > 0.0 || s.mu.is_nan() || s.mu < 0.0 {
            return None;
        }
        scale = scale.max(branch(c).0.length());
    }
    if !(scale > 0.0 && scale.is_finite()) {
        return None;
    }
    let m = &mob[body];
    let ang_inv = m.ang.inverse();
    // Scaled mass: Π = M (Δv, L Δω) with Π = (F, τ/L).
    let to_impulse = |dz: &Vector6<f64>| {
        let dv = DVec3::new(dz[0], dz[1], dz[2]);
        let dw = DVec3::new(dz[3], dz[4], dz[5]) / scale;
        let f = dv / m.lin;
        let t = ang_inv * dw / scale;
        Vector6::new(f.x, f.y, f.z, t.x, t.y, t.z)
    };
    let to_velocity = |p: &Vector6<f64>| {
        let f = DVec3::new(p[0], p[1], p[2]);
        let t = DVec3::new(p[3], p[4], p[5]) * scale;
        let dv = m.lin * f;
        let dw = m.ang * t * scale;
        Vector6::new(dv.x, dv.y, dv.z, dw.x, dw.y, dw.z)
    };
    let (mut mass, mut mass_inv) = (Matrix6::zeros(), Matrix6::zeros());
    for i in 0..6 {
        let e = Vector6::from_fn(|r, _| if r == i { 1.0 } else { 0.0 });
        mass.set_column(i, &to_impulse(&e));
        mass_inv.set_column(i, &to_velocity(&e));
    }
    // The members' maps and targets, and the body's velocity without the pair's impulses.
    let sup = vel[support];
    work.members.clear();
    work.multipliers.clear();
    let mut own = Vector6::zeros();
    for &a in members {
        let c = &hot[a as usize];
        let u_min = law.shock_params(&c.params).map_or(0.0, |s| s.min_normal_velocity);
        let mu = law.shock_params(&c.params).map_or(0.0, |s| s.mu);
        let (l, l_support) = branch(c);
        let rows = frame_rows(c);
        let k = sup.v + sup.w.cross(l_support);
        let map = rows * point_map(l, scale) * sign;
        let target = rows * v3(k) * sign + Vector3::new(u_min, 0.0, 0.0);
        own += map.transpose() * v3(c.p);
        work.members.push(Member { map, base: target, shift: 0.0, target, mu });
        work.multipliers.push(v3(c.p));
    }
    let now = vel[body];
    let z_now = Vector6::new(now.v.x, now.v.y, now.v.z, now.w.x * scale, now.w.y * scale, now.w.z * scale);
    let z_base = z_now - to_velocity(&own);
    // The velocity scale of the attempt: the largest |V_α| the body has without the pair.
    let v_scale = work.members.iter().map(|mb| (mb.map * z_base - mb.target).norm()).fold(0.0, f64::max);
    let v_scale = v_scale.max(f64::MIN_POSITIVE);
    if group.solved && sup == group.last_support && (z_base - group.last_base).norm() <= PROGRAM_TOLERANCE * v_scale {
        for &a in members {
            record(hot[a as usize].p, DVec3::ZERO);
        }
        return Some(Outcome::Unchanged);
    }
    // Step 1: the pair's frictional contact problem, solved as a sequence of cone programs
    // whose normal targets carry De Saxcé's term s_α = μ |U_t,α| of the previous solution
    // (a fixed point on s), each by the augmented Lagrangian method.
    let rho = PENALTY * mass.trace() / 6.0;
    let mut z = z_base;
    let mut settled = false;
    for k in 0..MAX_SHIFTS {
        if !solve_cone_program(work, &mass, &mass_inv, &z_base, rho, PROGRAM_TOLERANCE * v_scale, &mut z) {
            return None;
        }
        let mut change: f64 = 0.0;
        for mb in work.members.iter_mut() {
            let u = mb.map * z - mb.base;
            let shift = mb.mu * (u[1] * u[1] + u[2] * u[2]).sqrt();
            change = change.max((shift - mb.shift).abs());
            mb.shift = shift;
            mb.target = mb.base - Vector3::new(shift, 0.0, 0.0);
        }
        // De Saxcé's term settles to the round-off bound when the slip is tiny.
        if change <= PROGRAM_TOLERANCE * v_scale || (k + 1 == MAX_SHIFTS && change <= ACCEPT * v_scale) {
            settled = true;
            break;
        }
    }
    if !settled {
        return None;
    }
    // Whether every loaded member sticks: then the locked state (steps 1'-3).
    let sticks = work
        .members
        .iter()
        .zip(&work.multipliers)
        .all(|(mb, p)| *p == Vector3::zeros() || mb.shift <= ACTIVE * mb.mu * v_scale);
    let locked = 'lock: {
        if !sticks {
            break 'lock None;
        }
        work.active.clear();
        work.active.extend(work.members.iter().map(|mb| (mb.map * z - mb.base).norm() <= ACTIVE * v_scale));
        // Step 1': the locked velocity, exact on the members found sticking at their bound.
        let (mut normal, mut rhs, mut count) = (Matrix6::zeros(), Vector6::zeros(), 0usize);
        for (mb, _) in work.members.iter().zip(&work.active).filter(|(_, &on)| on) {
            normal += mb.map.transpose() * mb.map;
            rhs += mb.map.transpose() * mb.base;
            count += 1;
        }
        if count == 0 || normal.symmetric_eigen().eigenvalues.min() < RANK_TOLERANCE * count as f64 {
            break 'lock None;
        }
        let Some(z_lock) = normal.cholesky().map(|c| c.solve(&rhs)) else {
            break 'lock None;
        };
        // The locked state must satisfy the law: the sticking members exactly, the others
        // with U_n ≥ u_min (released, P = 0).
        for (mb, &on) in work.members.iter().zip(&work.active) {
            let v = mb.map * z_lock - mb.base;
            if (on && v.norm() > ACCEPT * v_scale) || (!on && v[0] < -ACCEPT * v_scale) {
                break 'lock None;
            }
        }
        // Step 2: the impulse to the lock.
        let target = to_impulse(&(z_lock - z_base));
        let demand = (z_lock - z_base).norm();
        // Step 3: the dual Newton method over the sticking members.
        let cones = || {
            work.members
                .iter()
                .zip(&work.active)
                .filter(|(_, &on)| on)
                .map(|(mb, _)| (mb.mu * (1.0 - CONE_SHRINK), mb.map))
        };
        let evaluate = |y: &Vector6<f64>| {
            let (mut sum, mut half_norm) = (Vector6::zeros(), 0.0);
            for (mu, gm) in cones() {
                let x = gm * y;
                let p = project_on_cone(DVec3::new(x[0], x[1], x[2]), mu);
                sum += gm.transpose() * v3(p);
                half_norm += 0.5 * p.length_squared();
            }
            (target - sum, y.dot(&target) - half_norm)
        };
        let tolerance = TOLERANCE * demand.max(f64::MIN_POSITIVE);
        let mut y = group.y;
        let (mut gradient, mut value) = evaluate(&y);
        let mut converged = false;
        for _ in 0..MAX_ITERATIONS {
            if to_velocity(&gradient).norm() <= tolerance {
                converged = true;
                break;
            }
            let mut hessian = Matrix6::zeros();
            for (mu, gm) in cones() {
                let x = gm * y;
                let j = cone_projection_jacobian(DVec3::new(x[0], x[1], x[2]), mu);
                let jm = nalgebra::Matrix3::from_column_slice(&j.to_cols_array());
                hessian += gm.transpose() * jm * gm;
            }
            let shift = 1e-12 * hessian.trace().max(f64::MIN_POSITIVE);
            let direction = (hessian + Matrix6::identity() * shift).cholesky().map(|c| c.solve(&gradient));
            let slope = direction.map_or(0.0, |d| gradient.dot(&d));
            let mut step = None;
            if let (Some(d), true) = (direction, slope > 0.0) {
                let mut t = 1.0;
                while t >= 1e-10 {
                    let trial = y + d * t;
                    let (g_new, v_new) = evaluate(&trial);
                    if v_new >= value + 1e-4 * t * slope {
                        step = Some((trial, g_new, v_new));
                        break;
                    }
                    t *= 0.5;
                }
            }
            match step {
                Some((trial, g_new, v_new)) => (y, gradient, value) = (trial, g_new, v_new),
                None => {
                    // No ascent left: round-off near the solution, or an infeasible lock.
                    converged = to_velocity(&gradient).norm() <= ACCEPT * demand;
                    break;
                }
            }
        }
        // After the cap, a lock within the round-off bound is still a lock.
        if !converged && to_velocity(&gradient).norm() > ACCEPT * demand {
            break 'lock None;
        }
        Some(y)
    };
    // The new impulses, exchanged with the bodies: the least-norm locked impulses, or the
    // solution of step 1 when the body slides (or the lock's refinement failed).
    for (k, &a) in members.iter().enumerate() {
        let c = &mut hot[a as usize];
        let mb = &work.members[k];
        let p = match locked {
            Some(y) if work.active[k] => {
                let x = mb.map * y;
                project_on_cone(DVec3::new(x[0], x[1], x[2]), mb.mu * (1.0 - CONE_SHRINK))
            }
            Some(_) => DVec3::ZERO,
            None => {
                let p = work.multipliers[k];
                DVec3::new(p[0], p[1], p[2])
            }
        };
        let dp = p - c.p;
        if dp != DVec3::ZERO {
            apply(c, c.to_world(dp), vel, mob);
            c.p = p;
        }
        record(p, dp);
    }
    let own_now = members
        .iter()
        .zip(&work.members)
        .fold(Vector6::zeros(), |acc, (&a, mb)| acc + mb.map.transpose() * v3(hot[a as usize].p));
    (group.solved, group.last_base, group.last_support, group.last_own) = (true, z_base, sup, own_now);
    Some(match locked {
        Some(y) => Outcome::Locked(y),
        None => Outcome::Solved,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generalized Jacobian of the cone projection against central differences on
    /// each of the three branches (step 1e-7: differences exact to ~1e-8 away from kinks).
    #[test]
    fn cone_projection_jacobian_matches_finite_differences() {
        let mu = 0.58;
        for y in [DVec3::new(1.0, 0.2, -0.1), DVec3::new(0.3, 0.9, -0.4), DVec3::new(-2.0, 0.1, 0.3)] {
            let j = cone_projection_jacobian(y, mu);
            let h = 1e-7;
            for (k, e) in [DVec3::X, DVec3::Y, DVec3::Z].into_iter().enumerate() {
                let d = (project_on_cone(y + e * h, mu) - project_on_cone(y - e * h, mu)) / (2.0 * h);
                assert!((d - j.col(k)).length() < 1e-7, "y {y}, column {k}: {d} vs {}", j.col(k));
            }
        }
    }

    use crate::local::{ShockParams, SignoriniCoulomb};

    const DT: f64 = 1e-4;
    const G: f64 = 9.81;
    /// Half edge (m) and mass (kg) of the box.
    const A: f64 = 0.05;
    const MASS: f64 = 2.7;

    /// A box of edge 2A on the fixed plane z = 0 (body 0), touching it at its four bottom
    /// corners, under gravity turned by `alpha` about y, with free velocity `v`; the corner
    /// at +x, +y has the Signorini bound `u_open` (a gap of −u_open Δt), the others 0.
    fn box_on_plane(
        mu: f64,
        alpha: f64,
        v: DVec3,
        u_open: f64,
    ) -> (Vec<HotContact<ShockParams>>, Vec<BodyVelocity>, Vec<BodyMobility>) {
        let inertia = MASS * (2.0 * A) * (2.0 * A) / 6.0;
        let mob = vec![
            BodyMobility::default(),
            BodyMobility { lin: DVec3::splat(1.0 / MASS), ang: DMat3::from_diagonal(DVec3::splat(1.0 / inertia)) },
        ];
        let gravity = G * DVec3::new(-alpha.sin(), 0.0, -alpha.cos());
        let vel = vec![BodyVelocity::default(), BodyVelocity { v: v + gravity * DT, w: DVec3::ZERO }];
        let hot = [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)]
            .iter()
            .map(|&(x, y)| {
                let l2 = DVec3::new(x * A, y * A, -A);
                let u_min = if x > 0.0 && y > 0.0 { u_open } else { 0.0 };
                HotContact {
                    body1: 0,
                    body2: 1,
                    n: DVec3::Z,
                    t: DVec3::X,
                    l1: DVec3::new(x * A, y * A, 0.0),
                    l2,
                    w_diag: DVec3::ONE,
                    p: DVec3::ZERO,
                    coupled: u32::MAX,
                    params: ShockParams { mu, min_normal_velocity: u_min },
                }
            })
            .collect();
        (hot, vel, mob)
    }

    /// Checks Signorini-Coulomb (000 eq. 34, De Saxcé's form) at every contact after a
    /// block solve, to `tol` (m/s) on the velocities and 1e-12 relative on the impulses;
    /// returns the largest slip |U_t| of a loaded contact.
    fn check_law(hot: &[HotContact<ShockParams>], vel: &[BodyVelocity], tol: f64) -> f64 {
        let mut slip: f64 = 0.0;
        for c in hot {
            let b = vel[1];
            let u = c.to_local(b.v + b.w.cross(c.l2));
            let (mu, u_min) = (c.params.mu, c.params.min_normal_velocity);
            let pt = (c.p.y * c.p.y + c.p.z * c.p.z).sqrt();
            let ut = (u.y * u.y + u.z * u.z).sqrt();
            // The cone, to the round-off of the projection.
            assert!(c.p.x >= 0.0 && pt <= mu * c.p.x * (1.0 + 1e-12), "P {} outside its cone", c.p);
            assert!(u.x >= u_min - tol, "U_n {} below the bound {u_min}", u.x);
            if c.p.x > 0.0 {
                assert!((u.x - u_min).abs() <= tol, "loaded with U_n {} != {u_min}", u.x);
                if ut > tol {
                    // Sliding: P_t on the cone's edge, opposite the slip.
                    let dir = DVec3::new(0.0, c.p.y, c.p.z) / pt + DVec3::new(0.0, u.y, u.z) / ut;
                    assert!(dir.length() < 1e-9 && pt >= mu * c.p.x * (1.0 - 1e-9), "P {} not opposite U {u}", c.p);
                }
                slip = slip.max(ut);
            }
        }
        slip
    }

    fn lock_once(
        hot: &mut [HotContact<ShockParams>],
        vel: &mut [BodyVelocity],
        mob: &[BodyMobility],
    ) -> (PairLock, Vec<DVec3>) {
        let mut lock = PairLock::default();
        lock.setup(hot, mob);
        let mut changes = Vec::new();
        lock.lock_all(&SignoriniCoulomb::default(), hot, vel, mob, |_, dp| changes.push(dp));
        (lock, changes)
    }

    /// A box on a 30° incline with μ = 0.58 (0.45 % above tan α, M7's margin), coming to
    /// rest in the step, with one corner open by 1e-8 m (u_min = −1e-4 m/s): the pair
    /// locks, every contact satisfies the law, the loaded ones stick, and the body ends at
    /// rest up to the closing of the gap.
    #[test]
    fn a_box_with_an_open_corner_locks_and_obeys_the_law() {
        let alpha = 30f64.to_radians();
        let (mut hot, mut vel, mob) = box_on_plane(0.58, alpha, DVec3::new(1e-4, 0.0, 0.0), -1e-4);
        let (lock, changes) = lock_once(&mut hot, &mut vel, &mob);
        assert_eq!((lock.locks, lock.slides), (1, 0), "the pair locks");
        assert_eq!(changes.len(), 4, "each member's change is recorded");
        // The velocities of the lock are exact to ~1e-16 m/s; 1e-14 m/s is the round-off of
        // sums of impulses of 1e-3 N s over masses of 2.7 kg, with room.
        let slip = check_law(&hot, &vel, 1e-14);
        assert!(slip <= 1e-14, "a loaded contact slips at {slip} m/s");
        let solved = lock.solved.iter().filter(|&&s| s).count();
        assert_eq!(solved, 4, "the sweeps leave the solved pair alone");
    }

    /// The same box with μ = 0.5 < tan 30°: no locked state; the block solve returns the
    /// sliding solution, whose tangential velocity is the free one reduced by μ g cos α Δt
    /// (Coulomb's sliding friction over the step, implicit Euler).
    #[test]
    fn a_box_below_the_friction_angle_is_solved_sliding() {
        let (alpha, mu) = (30f64.to_radians(), 0.5);
        let v0 = DVec3::new(-0.01, 0.0, 0.0);
        let (mut hot, mut vel, mob) = box_on_plane(mu, alpha, v0, 0.0);
        let (lock, _) = lock_once(&mut hot, &mut vel, &mob);
        assert_eq!((lock.locks, lock.slides), (0, 1), "solved, sliding");
        // The fixed point on De Saxcé's term stops at 1e-10 of the velocity scale
        // (1e-2 m/s), so U_n meets its bound to 1e-12 m/s (measured 6e-13); 1e-11 m/s.
        check_law(&hot, &vel, 1e-11);
        let expected = v0.x - G * (alpha.sin() - mu * alpha.cos()) * DT;
        // The augmented Lagrangian stops at 1e-10 of the velocity scale (1e-2 m/s): 1e-12
        // m/s bounds its error.
        assert!((vel[1].v.x - expected).abs() < 1e-12, "v {} vs {expected}", vel[1].v.x);
        assert!(vel[1].v.z.abs() < 1e-12 && vel[1].w.length() < 1e-10, "no lift, no rocking: {:?}", vel[1]);
    }

    /// A second pass over an unchanged pair (nothing else moved the body) keeps the
    /// impulses and the velocities bit for bit and records zero changes: the block solve is
    /// a fixed point of the sweep loop, so the local criterion sees it converged.
    #[test]
    fn a_second_pass_over_an_unchanged_pair_changes_nothing() {
        let alpha = 30f64.to_radians();
        let (mut hot, mut vel, mob) = box_on_plane(0.58, alpha, DVec3::new(1e-4, 0.0, 0.0), -1e-4);
        let (mut lock, _) = lock_once(&mut hot, &mut vel, &mob);
        let (p, v) = (hot.iter().map(|c| c.p).collect::<Vec<_>>(), vel.clone());
        let mut changes = Vec::new();
        lock.lock_all(&SignoriniCoulomb::default(), &mut hot, &mut vel, &mob, |_, dp| changes.push(dp));
        assert!(changes.iter().all(|&d| d == DVec3::ZERO));
        assert_eq!(hot.iter().map(|c| c.p).collect::<Vec<_>>(), p);
        assert_eq!(vel, v);
    }
}
