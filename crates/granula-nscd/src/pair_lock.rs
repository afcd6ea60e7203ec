//! The block solve of a hyperstatic contact pair: all the contacts two bodies share, solved
//! together as one unknown of the Gauss-Seidel loop, in the bodies' coordinates: the six of
//! a rigid body on a support (a fixed or kinematic body), or the twelve of two movable
//! bodies (a block on a block).
//!
//! A rigid face on a plane touches it at k ≥ 3 corners: 3k impulse components act on 6
//! degrees of freedom, so the pair's Delassus block W (3k × 3k) has rank 6 and the
//! reactions are not unique (004 §2.3.3.4 on hyperstatic sets); a face on the face of a
//! second movable body acts on the 6 degrees of freedom of their relative motion, the same
//! rank. The point-by-point Gauss-Seidel update (000 eq. 34) then has to find, one corner
//! at a time, a distribution whose every impulse lies in its Coulomb cone. When the
//! friction margin is thin (the M7 block at μ = 0.58, 0.45 % above tan α) the admissible
//! distributions form a thin set that neither the sweeps nor the nonsmooth Newton method
//! reach; and the corner's local law with a coupled W_αα (001 eqs. 1.27-1.29) can take
//! another of its solutions than the pair's, so that a sweep moves away even from the
//! pair's exact solution (measured on the M7 block at the step it stops: 1000 sweeps, the
//! block left rocking at 1e-4 m/s). Between two movable bodies the loose default criterion
//! stops the sweeps on a creeping state: a cube on a cube on a 25° incline at μ = 1.2 tan α
//! slid at a steady 0.9 mm/s, one sweep per step.
//!
//! The block solve, with z the scaled velocity (z = (v, L ω) for a body on a support,
//! z = (v₁, L ω₁, v₂, L ω₂) for two movable bodies), C_α the map from z to the local
//! relative velocity U_α = C_α z − k_α (k_α the support's velocity at the contact in the
//! local frame, zero between two movable bodies) and z_b the velocity without the pair's
//! impulses:
//!
//! 1. the pair's frictional contact problem (000 eq. 34 with De Saxcé's modified velocity
//!    Û = U + μ |U_t| e_n): for fixed s_α, the cone program
//!    min ½ (z − z_b)ᵀ M (z − z_b) subject to V_α = U_α − (u_min − s_α) e_n ∈ K*_μ, whose
//!    multipliers are the impulses P_α ∈ K_μ; solved by the augmented Lagrangian method
//!    (z minimizes L(z) = ½ (z − z_b)ᵀ M (z − z_b) + Σ |proj_K(P_α − ρ V_α(z))|² / (2ρ) by a
//!    semismooth Newton method with Armijo's rule, then P_α ← proj_K(P_α − ρ V_α(z))), inside
//!    a fixed point on s_α = μ |U_t,α| (at the fixed point the program's conditions are
//!    Signorini-Coulomb's with De Saxcé's term: sliding contacts have U_n = u_min and
//!    P_t = −μ P_n U_t/|U_t|, sticking ones U = (u_min, 0, 0)); it starts from the velocity
//!    with the pair's present impulses and De Saxcé's term from the slip there;
//! 2. when every loaded contact sticks, the locked state is refined: the locked velocity z*
//!    solves V_α(z) = 0 over the contacts found sticking at their bound in the least-squares
//!    sense (exact when they restrain the six relative degrees of freedom), nearest to z_b
//!    in the mass norm (between two movable bodies their common motion is left as it is),
//!    checked against the law (the others must have U_n ≥ u_min), and Π = M (z* − z_b) is the
//!    impulse that takes the bodies there;
//! 3. the impulses of the locked state: P_α ∈ K_μ on the sticking contacts, zero on the
//!    others, with Σ C_αᵀ P_α = Π, of least norm ½ Σ |P_α|²: a convex program whose dual in
//!    y ∈ ℝᴰ is the smooth concave maximization of D(y) = y · Π − ½ Σ |proj_K(C_α y)|² (the
//!    primal solution is P_α = proj_K(C_α y); Moreau's decomposition gives
//!    ∇D = Π − Σ C_αᵀ P_α), solved by a semismooth Newton method with Armijo's rule. The
//!    least-norm impulses lie inside the cones (shrunk by 1e-9), where no sweep's sticking
//!    test doubts them.
//!
//! A locked pair gets the impulses of step 3; a sliding one those of step 1. Either solves
//! the pair's local problem given the rest of the system, and the sweeps then leave the
//! pair's contacts alone (block Gauss-Seidel): before each sweep the block solve runs
//! again, and returns at once when the velocity without the pair has not changed beyond
//! the tolerance of step 1 (nothing else touches it), so a pair alone converges in one
//! sweep. If step 1 does not converge (a pair that must tip or bounce: u_min > 0 is not
//! taken), the pair is left to the point sweeps for the rest of the step. This is the
//! block idea of LMGC90's and Siconos' solvers (a pair's contacts solved together inside
//! the Gauss-Seidel loop over pairs); the code is granula's own.
//!
//! Everything runs in a fixed order on one thread: the same bits on any thread count. The
//! block solve keeps nothing from one step to the next (the multipliers start from the
//! contacts' warm-started impulses, the dual variables from zero), so the solver's
//! checkpoint ([`crate::NscdState`]) needs nothing new and restarts stay bit-identical.

mod block;

use crate::bodies::{BodyMobility, BodyVelocity};
use crate::contacts::{HotContact, NO_PROCESS};
use crate::kernels::apply;
use crate::local::NonSmoothLaw;
use block::{Map, Member, Problem, Scratch, Solution, Square, SymmetricEigen, Vector, PROGRAM_TOLERANCE};
use granula_core::{DMat3, DVec3};
use nalgebra::{Matrix3, Matrix3x6, Matrix6, Vector3};

/// Who a group's contacts move.
#[derive(Clone, Copy, Debug)]
enum Bodies {
    /// One fully mobile body on a fixed or kinematic support; `movable_is_second` says
    /// whether the movable body is body 2 of the contacts (else body 1).
    OnSupport { movable_is_second: bool },
    /// Two fully mobile bodies, body 1 and body 2 of the contacts.
    Free,
}

/// What a group remembers within a step, in its scaled coordinates.
#[derive(Clone, Copy, Debug)]
struct Memory<const D: usize> {
    /// The dual variable of the last lock, the warm start.
    y: Vector<D>,
    /// Whether a block solve of the group has succeeded in this step.
    solved: bool,
    /// The velocity without the pair's impulses and the support's velocity (zero between
    /// two movable bodies) at the last successful solve.
    last_base: Vector<D>,
    last_support: BodyVelocity,
}

impl<const D: usize> Default for Memory<D> {
    fn default() -> Self {
        Memory { y: Vector::zeros(), solved: false, last_base: Vector::zeros(), last_support: BodyVelocity::default() }
    }
}

/// The step's memory of a group, by the kind of its bodies.
#[derive(Clone, Copy, Debug)]
enum GroupMemory {
    OnSupport(Memory<6>),
    Free(Memory<12>),
}

/// One group: the contacts of one pair, in the solver's list.
#[derive(Clone, Copy, Debug)]
struct Group {
    /// Range into [`PairLock::members`].
    start: u32,
    end: u32,
    bodies: Bodies,
    /// Whether the lock has not failed yet in this step.
    open_to_lock: bool,
    memory: GroupMemory,
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
    /// Work arrays of one attempt, for a body on a support and for two movable bodies.
    on_support: Scratch<6>,
    free: Scratch<12>,
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
fn frame_rows<P>(c: &HotContact<P>) -> Matrix3<f64> {
    let s = c.s();
    Matrix3::new(c.n.x, c.n.y, c.n.z, c.t.x, c.t.y, c.t.z, s.x, s.y, s.z)
}

fn v3(v: DVec3) -> Vector3<f64> {
    Vector3::new(v.x, v.y, v.z)
}

/// A body's scaled mass and its inverse in z = (v, L ω): Π = M Δz with Π = (F, τ/L), so
/// M = diag(m, I/L²) in world axes.
fn scaled_mass(m: &BodyMobility, scale: f64) -> (Matrix6<f64>, Matrix6<f64>) {
    let (mut mass, mut mass_inv) = (Matrix6::zeros(), Matrix6::zeros());
    let ang = Matrix3::from_column_slice(&m.ang.to_cols_array());
    let ang_inv = Matrix3::from_column_slice(&m.ang.inverse().to_cols_array());
    for i in 0..3 {
        mass[(i, i)] = 1.0 / m.lin[i];
        mass_inv[(i, i)] = m.lin[i];
    }
    mass.fixed_view_mut::<3, 3>(3, 3).copy_from(&(ang_inv / (scale * scale)));
    mass_inv.fixed_view_mut::<3, 3>(3, 3).copy_from(&(ang * (scale * scale)));
    (mass, mass_inv)
}

/// A body's scaled velocity (v, L ω).
fn scaled_velocity(b: &BodyVelocity, scale: f64) -> [f64; 6] {
    [b.v.x, b.v.y, b.v.z, b.w.x * scale, b.w.y * scale, b.w.z * scale]
}

/// A group member's friction coefficient and Signorini bound, or `None` when the group
/// cannot be solved as a block (no Signorini-Coulomb form, a contact that must separate:
/// a bounce or a correcting gap). Contacts with an impact process never reach here
/// ([`PairLock::setup`]).
fn member_law<L: NonSmoothLaw>(law: &L, c: &HotContact<L::Params>) -> Option<(f64, f64)> {
    let s = law.shock_params(&c.params)?;
    if s.min_normal_velocity > 0.0 || s.mu.is_nan() || s.mu < 0.0 {
        return None;
    }
    Some((s.mu, s.min_normal_velocity))
}

/// The problem of a body on a support in z = (v, L ω): the members' maps C_α = ± R_α G_α
/// and targets, the scaled mass and the body's velocity without the pair's impulses; and
/// the support's velocity.
fn assemble_on_support<L: NonSmoothLaw>(
    law: &L,
    members: &[u32],
    movable_is_second: bool,
    hot: &[HotContact<L::Params>],
    vel: &[BodyVelocity],
    mob: &[BodyMobility],
    work: &mut Scratch<6>,
) -> Option<(Problem<6>, BodyVelocity)> {
    let first = &hot[members[0] as usize];
    let (body, support) = if movable_is_second {
        (first.body2 as usize, first.body1 as usize)
    } else {
        (first.body1 as usize, first.body2 as usize)
    };
    let sign = if movable_is_second { 1.0 } else { -1.0 };
    let branch = |c: &HotContact<L::Params>| if movable_is_second { (c.l2, c.l1) } else { (c.l1, c.l2) };
    // Length scale of the rotations, so that both halves of z are velocities.
    let mut scale: f64 = 0.0;
    for &a in members {
        let c = &hot[a as usize];
        member_law(law, c)?;
        scale = scale.max(branch(c).0.length());
    }
    if !(scale > 0.0 && scale.is_finite()) {
        return None;
    }
    let (mass, mass_inv) = scaled_mass(&mob[body], scale);
    let sup = vel[support];
    work.members.clear();
    work.multipliers.clear();
    let mut own = Vector::<6>::zeros();
    for &a in members {
        let c = &hot[a as usize];
        let (mu, u_min) = member_law(law, c)?;
        let (l, l_support) = branch(c);
        let rows = frame_rows(c);
        let k = sup.v + sup.w.cross(l_support);
        let map: Map<6> = rows * point_map(l, scale) * sign;
        let target = rows * v3(k) * sign + Vector3::new(u_min, 0.0, 0.0);
        own += map.transpose() * v3(c.p);
        work.members.push(Member::new(map, target, mu));
        work.multipliers.push(v3(c.p));
    }
    let z_now = Vector::<6>::from(scaled_velocity(&vel[body], scale));
    let z_base = z_now - mass_inv * own;
    Some((Problem { mass, mass_inv, z_base, z_now }, sup))
}

/// The problem of two movable bodies in z = (v₁, L ω₁, v₂, L ω₂): the members' maps
/// C_α = R_α [−G_α(l₁) | G_α(l₂)] (U_α is body 2's velocity at the contact less body 1's),
/// targets u_min e_n, the block-diagonal scaled mass and the velocities without the pair's
/// impulses.
fn assemble_free<L: NonSmoothLaw>(
    law: &L,
    members: &[u32],
    hot: &[HotContact<L::Params>],
    vel: &[BodyVelocity],
    mob: &[BodyMobility],
    work: &mut Scratch<12>,
) -> Option<Problem<12>> {
    let first = &hot[members[0] as usize];
    let (b1, b2) = (first.body1 as usize, first.body2 as usize);
    let mut scale: f64 = 0.0;
    for &a in members {
        let c = &hot[a as usize];
        member_law(law, c)?;
        scale = scale.max(c.l1.length()).max(c.l2.length());
    }
    if !(scale > 0.0 && scale.is_finite()) {
        return None;
    }
    let (mut mass, mut mass_inv) = (Square::<12>::zeros(), Square::<12>::zeros());
    for (offset, b) in [(0, b1), (6, b2)] {
        let (m, m_inv) = scaled_mass(&mob[b], scale);
        mass.fixed_view_mut::<6, 6>(offset, offset).copy_from(&m);
        mass_inv.fixed_view_mut::<6, 6>(offset, offset).copy_from(&m_inv);
    }
    work.members.clear();
    work.multipliers.clear();
    let mut own = Vector::<12>::zeros();
    for &a in members {
        let c = &hot[a as usize];
        let (mu, u_min) = member_law(law, c)?;
        let rows = frame_rows(c);
        let mut map = Map::<12>::zeros();
        map.fixed_view_mut::<3, 6>(0, 0).copy_from(&(rows * point_map(c.l1, scale) * -1.0));
        map.fixed_view_mut::<3, 6>(0, 6).copy_from(&(rows * point_map(c.l2, scale)));
        own += map.transpose() * v3(c.p);
        work.members.push(Member::new(map, Vector3::new(u_min, 0.0, 0.0), mu));
        work.multipliers.push(v3(c.p));
    }
    let (z1, z2) = (scaled_velocity(&vel[b1], scale), scaled_velocity(&vel[b2], scale));
    let z_now = Vector::<12>::from_fn(|i, _| if i < 6 { z1[i] } else { z2[i - 6] });
    let z_base = z_now - mass_inv * own;
    Some(Problem { mass, mass_inv, z_base, z_now })
}

impl PairLock {
    /// Groups the contacts of `hot` by body pair and keeps the pairs with at least three
    /// contacts between a fully mobile body and an immobile one, or between two fully
    /// mobile bodies, none of them with an impact process (`process_of`, aligned with `hot`
    /// or empty: the law of such a contact is not U_n = u_min, so its pair is left to the
    /// sweeps).
    pub(crate) fn setup<P>(&mut self, hot: &[HotContact<P>], process_of: &[u32], mob: &[BodyMobility]) {
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
            let bodies = match (fully_mobile(m1), fully_mobile(m2)) {
                (true, true) => Some(Bodies::Free),
                (false, true) if immobile(m1) => Some(Bodies::OnSupport { movable_is_second: true }),
                (true, false) if immobile(m2) => Some(Bodies::OnSupport { movable_is_second: false }),
                _ => None,
            };
            // A contact with an impact process does not obey U_n = u_min: its pair is no block.
            let block = j - i >= 3
                && (process_of.is_empty() || self.keys[i..j].iter().all(|k| process_of[k.2 as usize] == NO_PROCESS));
            if let (true, Some(bodies)) = (block, bodies) {
                let start = self.members.len() as u32;
                self.members.extend(self.keys[i..j].iter().map(|k| k.2));
                let memory = match bodies {
                    Bodies::OnSupport { .. } => GroupMemory::OnSupport(Memory::default()),
                    Bodies::Free => GroupMemory::Free(Memory::default()),
                };
                self.groups.push(Group { start, end: self.members.len() as u32, bodies, open_to_lock: true, memory });
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
            let mut group = self.groups[g];
            if !group.open_to_lock {
                continue;
            }
            let members = &self.members[group.start as usize..group.end as usize];
            let outcome = match (&mut group.memory, group.bodies) {
                (GroupMemory::OnSupport(memory), Bodies::OnSupport { movable_is_second }) => {
                    let work = &mut self.on_support;
                    assemble_on_support(law, members, movable_is_second, hot, vel, mob, work).and_then(
                        |(problem, sup)| solve_group(members, memory, &problem, sup, hot, vel, mob, work, &mut record),
                    )
                }
                (GroupMemory::Free(memory), Bodies::Free) => {
                    let work = &mut self.free;
                    assemble_free(law, members, hot, vel, mob, work).and_then(|problem| {
                        solve_group(
                            members,
                            memory,
                            &problem,
                            BodyVelocity::default(),
                            hot,
                            vel,
                            mob,
                            work,
                            &mut record,
                        )
                    })
                }
                _ => unreachable!("a group's memory is made for its bodies in `setup`"),
            };
            match outcome {
                Some(Outcome::Locked) => locked += 1,
                Some(Outcome::Sliding) => self.slides += 1,
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

/// What a successful block solve of a group did.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    /// The contacts stick: the least-norm locked impulses.
    Locked,
    /// Some loaded contact slips: the impulses of step 1.
    Sliding,
    /// The pair's problem is the one the last successful solve of the step answered (to
    /// the tolerance of step 1): its impulses stand.
    Unchanged,
}

/// The block solve of one assembled group (steps 1-3); on success the impulses and the
/// velocities are updated. `None` when the solve does not converge: the group is left to
/// the sweeps.
#[allow(clippy::too_many_arguments)]
fn solve_group<P, const D: usize>(
    members: &[u32],
    memory: &mut Memory<D>,
    problem: &Problem<D>,
    support: BodyVelocity,
    hot: &mut [HotContact<P>],
    vel: &mut [BodyVelocity],
    mob: &[BodyMobility],
    work: &mut Scratch<D>,
    record: &mut impl FnMut(DVec3, DVec3),
) -> Option<Outcome>
where
    Square<D>: SymmetricEigen<D>,
{
    // The velocity scale of the attempt: the largest |V_α| the bodies have without the pair.
    let v_scale = work.members.iter().map(|mb| (mb.map * problem.z_base - mb.base).norm()).fold(0.0, f64::max);
    let v_scale = v_scale.max(f64::MIN_POSITIVE);
    if memory.solved
        && support == memory.last_support
        && (problem.z_base - memory.last_base).norm() <= PROGRAM_TOLERANCE * v_scale
    {
        for &a in members {
            record(hot[a as usize].p, DVec3::ZERO);
        }
        return Some(Outcome::Unchanged);
    }
    let solution = block::solve(work, problem, memory.y, v_scale)?;
    // The new impulses, exchanged with the bodies.
    for (k, &a) in members.iter().enumerate() {
        let c = &mut hot[a as usize];
        let p = work.impulse(k, &solution);
        let dp = p - c.p;
        if dp != DVec3::ZERO {
            apply(c, c.to_world(dp), vel, mob);
            c.p = p;
        }
        record(p, dp);
    }
    (memory.solved, memory.last_base, memory.last_support) = (true, problem.z_base, support);
    Some(match solution {
        Solution::Locked(y) => {
            memory.y = y;
            Outcome::Locked
        }
        Solution::Sliding => Outcome::Sliding,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::residual::project_on_cone;

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
        lock.setup(hot, &[], mob);
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
