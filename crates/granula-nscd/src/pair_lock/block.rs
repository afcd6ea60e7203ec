//! The block solve of one group in its scaled coordinates z ∈ ℝᴰ: D = 6 for a body on a
//! support (z = (v, L ω)), D = 12 for two movable bodies (z = (v₁, L ω₁, v₂, L ω₂)).
//! Steps 1-3 of the module documentation of [`super`]; the caller assembles the members'
//! maps and targets and the scaled mass, and exchanges the impulses with the bodies.

use super::cone_projection_jacobian;
use crate::residual::project_on_cone;
use granula_core::DVec3;
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

/// A vector of the group's scaled coordinates.
pub(super) type Vector<const D: usize> = SVector<f64, D>;
/// A square matrix on the group's scaled coordinates.
pub(super) type Square<const D: usize> = SMatrix<f64, D, D>;
/// The map from the scaled coordinates to a contact's local relative velocity.
pub(super) type Map<const D: usize> = SMatrix<f64, 3, D>;

/// Degrees of freedom a group's contacts can restrain: the six of the relative rigid
/// motion of the two bodies (for a body on a support, all of the body's).
pub(super) const RELATIVE_DOF: usize = 6;

/// Largest number of Newton iterations of one lock attempt. A feasible lock is found in
/// a few iterations from the warm start; an infeasible one (the dual is unbounded) uses
/// them all and the pair goes back to the sweeps.
const MAX_ITERATIONS: u32 = 40;
/// Relative tolerance on the velocity the bodies keep after the lock, |M⁻¹ (Π − Σ Cᵀ P)|
/// over |z* − z_b| (the velocity the lock removes).
const TOLERANCE: f64 = 1e-12;
/// Relative tolerance of step 1 on the velocities (stationarity of the augmented
/// Lagrangian, the multipliers' update over ρ, the change of De Saxcé's term), over the
/// velocity scale of the attempt: about a hundred times the round-off the penalty ρ leaves
/// in them (measured 1e-12 on the M7 block).
pub(super) const PROGRAM_TOLERANCE: f64 = 1e-10;
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
/// The sixth largest eigenvalue of the scaled normal matrix Σ C_αᵀ C_α (relative to the
/// number of contacts) below which the sticking contacts do not restrain all six relative
/// degrees of freedom.
const RANK_TOLERANCE: f64 = 1e-8;

/// The symmetric eigen-decomposition (nalgebra's) of the group's matrices, for the sizes
/// the groups have: eigenvalues and eigenvectors as columns, in no particular order.
pub(super) trait SymmetricEigen<const D: usize> {
    /// Eigenvalues and eigenvectors of the symmetric matrix `self`.
    fn eigen(&self) -> (Vector<D>, Square<D>);
}

impl SymmetricEigen<6> for Square<6> {
    fn eigen(&self) -> (Vector<6>, Square<6>) {
        let e = self.symmetric_eigen();
        (e.eigenvalues, e.eigenvectors)
    }
}

impl SymmetricEigen<12> for Square<12> {
    fn eigen(&self) -> (Vector<12>, Square<12>) {
        let e = self.symmetric_eigen();
        (e.eigenvalues, e.eigenvectors)
    }
}

/// One member of a group in the scaled coordinates z: its contact map C_α (the local
/// relative velocity is U_α = C_α z − k_α, with k_α the support's velocity at the contact in
/// the local frame, zero between two movable bodies), the target e_α = k_α + u_min e_n
/// (V_α = C_α z − e_α vanishes when the contact sticks and meets its Signorini bound within
/// the step) and its friction coefficient.
#[derive(Clone, Copy, Debug)]
pub(super) struct Member<const D: usize> {
    pub(super) map: Map<D>,
    /// e_α without De Saxcé's term.
    pub(super) base: Vector3<f64>,
    /// De Saxcé's term s_α = μ |U_t,α| of the last solution.
    shift: f64,
    /// e_α = base − s_α e_n, the target of the current cone program.
    target: Vector3<f64>,
    mu: f64,
}

impl<const D: usize> Member<D> {
    /// A member with map `map`, target `base` and friction coefficient `mu`, De Saxcé's
    /// term not set yet.
    pub(super) fn new(map: Map<D>, base: Vector3<f64>, mu: f64) -> Self {
        Member { map, base, shift: 0.0, target: base, mu }
    }
}

/// Work arrays of one attempt, reused.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch<const D: usize> {
    pub(super) members: Vec<Member<D>>,
    /// The multipliers of the augmented Lagrangian (local impulses, N s).
    pub(super) multipliers: Vec<Vector3<f64>>,
    /// Whether a member sticks at its bound in the locked state (V_α = 0).
    active: Vec<bool>,
}

/// The group's problem in its scaled coordinates: the scaled mass M (Π = M Δz), its
/// inverse, the velocity z_b the bodies have without the pair's impulses and the velocity
/// z_0 they have with them.
pub(super) struct Problem<const D: usize> {
    pub(super) mass: Square<D>,
    pub(super) mass_inv: Square<D>,
    pub(super) z_base: Vector<D>,
    /// The start of step 1: with the multipliers started from the pair's impulses P_α,
    /// z_0 = z_b + M⁻¹ Σ C_αᵀ P_α is the minimizer of the augmented Lagrangian when the
    /// P_α already solve the pair (the warm start of a later sweep).
    pub(super) z_now: Vector<D>,
}

/// The solution of a group's block solve.
#[derive(Clone, Copy, Debug)]
pub(super) enum Solution<const D: usize> {
    /// The contacts stick: the least-norm locked impulses, with the dual variable y of
    /// step 3.
    Locked(Vector<D>),
    /// Some loaded contact slips: the impulses of step 1.
    Sliding,
}

impl<const D: usize> Scratch<D> {
    /// The impulse of member `k` in the solution.
    pub(super) fn impulse(&self, k: usize, solution: &Solution<D>) -> DVec3 {
        let mb = &self.members[k];
        match solution {
            Solution::Locked(y) if self.active[k] => {
                let x = mb.map * y;
                project_on_cone(DVec3::new(x[0], x[1], x[2]), mb.mu * (1.0 - CONE_SHRINK))
            }
            Solution::Locked(_) => DVec3::ZERO,
            Solution::Sliding => {
                let p = self.multipliers[k];
                DVec3::new(p[0], p[1], p[2])
            }
        }
    }
}

fn v3(v: DVec3) -> Vector3<f64> {
    Vector3::new(v.x, v.y, v.z)
}

fn jacobian(x: &Vector3<f64>, mu: f64) -> Matrix3<f64> {
    let j = cone_projection_jacobian(DVec3::new(x[0], x[1], x[2]), mu);
    Matrix3::from_column_slice(&j.to_cols_array())
}

fn project(x: &Vector3<f64>, mu: f64) -> Vector3<f64> {
    v3(project_on_cone(DVec3::new(x[0], x[1], x[2]), mu))
}

/// Steps 1-3 of the block solve (module documentation of [`super`]) from the members and
/// multipliers in `work`, with `y` the warm start of the dual of step 3 and `v_scale` the
/// velocity scale of the attempt. `None` when step 1 does not converge (a pair that must
/// tip or bounce): the group goes back to the sweeps.
pub(super) fn solve<const D: usize>(
    work: &mut Scratch<D>,
    problem: &Problem<D>,
    y: Vector<D>,
    v_scale: f64,
) -> Option<Solution<D>>
where
    Square<D>: SymmetricEigen<D>,
{
    // Step 1: the pair's frictional contact problem, solved as a sequence of cone programs
    // whose normal targets carry De Saxcé's term s_α = μ |U_t,α| of the previous solution
    // (a fixed point on s), each by the augmented Lagrangian method.
    let rho = PENALTY * problem.mass.trace() / D as f64;
    let mut z = problem.z_now;
    // De Saxcé's term starts from the slip at z_0: zero for a pair that sticks, the last
    // sweep's slip for one that slides, which the fixed point then only corrects.
    for mb in work.members.iter_mut() {
        let u = mb.map * z - mb.base;
        mb.shift = mb.mu * (u[1] * u[1] + u[2] * u[2]).sqrt();
        mb.target = mb.base - Vector3::new(mb.shift, 0.0, 0.0);
    }
    let mut settled = false;
    for k in 0..MAX_SHIFTS {
        if !solve_cone_program(work, problem, rho, PROGRAM_TOLERANCE * v_scale, &mut z) {
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
    if !sticks {
        return Some(Solution::Sliding);
    }
    work.active.clear();
    work.active.extend(work.members.iter().map(|mb| (mb.map * z - mb.base).norm() <= ACTIVE * v_scale));
    Some(match lock(work, problem, y, v_scale) {
        Some(y) => Solution::Locked(y),
        None => Solution::Sliding,
    })
}

/// Steps 1'-3 on the members found sticking at their bound: the locked velocity, the
/// impulse to it and the least-norm impulses that give it. Returns the dual variable, or
/// `None` when no locked state exists (the solution of step 1 then stands).
fn lock<const D: usize>(work: &Scratch<D>, problem: &Problem<D>, y: Vector<D>, v_scale: f64) -> Option<Vector<D>>
where
    Square<D>: SymmetricEigen<D>,
{
    let z_lock = locked_velocity(work, problem)?;
    // The locked state must satisfy the law: the sticking members exactly, the others
    // with U_n ≥ u_min (released, P = 0).
    for (mb, &on) in work.members.iter().zip(&work.active) {
        let v = mb.map * z_lock - mb.base;
        if (on && v.norm() > ACCEPT * v_scale) || (!on && v[0] < -ACCEPT * v_scale) {
            return None;
        }
    }
    // Step 2: the impulse to the lock.
    let target = problem.mass * (z_lock - problem.z_base);
    let demand = (z_lock - problem.z_base).norm();
    // Step 3: the dual Newton method over the sticking members.
    let cones = || {
        work.members.iter().zip(&work.active).filter(|(_, &on)| on).map(|(mb, _)| (mb.mu * (1.0 - CONE_SHRINK), mb.map))
    };
    let evaluate = |y: &Vector<D>| {
        let (mut sum, mut half_norm) = (Vector::<D>::zeros(), 0.0);
        for (mu, gm) in cones() {
            let p = project(&(gm * y), mu);
            sum += gm.transpose() * p;
            half_norm += 0.5 * p.norm_squared();
        }
        (target - sum, y.dot(&target) - half_norm)
    };
    let tolerance = TOLERANCE * demand.max(f64::MIN_POSITIVE);
    let mut y = y;
    let (mut gradient, mut value) = evaluate(&y);
    let mut converged = false;
    for _ in 0..MAX_ITERATIONS {
        if (problem.mass_inv * gradient).norm() <= tolerance {
            converged = true;
            break;
        }
        let mut hessian = Square::<D>::zeros();
        for (mu, gm) in cones() {
            hessian += gm.transpose() * jacobian(&(gm * y), mu) * gm;
        }
        // The shift makes the Hessian definite along the pair's common motion (the
        // null space of every C_α between two movable bodies), where the gradient is zero.
        let shift = 1e-12 * hessian.trace().max(f64::MIN_POSITIVE);
        let direction = (hessian + Square::<D>::identity() * shift).cholesky().map(|c| c.solve(&gradient));
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
                converged = (problem.mass_inv * gradient).norm() <= ACCEPT * demand;
                break;
            }
        }
    }
    // After the cap, a lock within the round-off bound is still a lock.
    (converged || (problem.mass_inv * gradient).norm() <= ACCEPT * demand).then_some(y)
}

/// Step 1': the locked velocity z*, exact on the members found sticking at their bound:
/// the solution of the normal equations N z = r (N = Σ C_αᵀ C_α, r = Σ C_αᵀ e_α over
/// them) nearest to z_b in the mass norm. N has rank six at most (the relative rigid
/// motion); between two movable bodies its null space is their common motion, which the
/// contacts leave as it is. With N's eigenpairs (λ_i, q_i) in ascending order, the null
/// basis K = (q_1 … q_{D−6}) and the minimum-norm solution z_p = Σ_{i>D−6} q_i q_iᵀ r / λ_i,
/// z* = z_p + K (Kᵀ M K)⁻¹ Kᵀ M (z_b − z_p): zero when the targets are (a support at rest,
/// closed contacts), to the last bit. `None` when the sticking members do not restrain
/// the six relative degrees of freedom (a sixth-largest eigenvalue below 1e-8 per contact).
fn locked_velocity<const D: usize>(work: &Scratch<D>, problem: &Problem<D>) -> Option<Vector<D>>
where
    Square<D>: SymmetricEigen<D>,
{
    let (mut normal, mut rhs, mut count) = (Square::<D>::zeros(), Vector::<D>::zeros(), 0usize);
    for (mb, _) in work.members.iter().zip(&work.active).filter(|(_, &on)| on) {
        normal += mb.map.transpose() * mb.map;
        rhs += mb.map.transpose() * mb.base;
        count += 1;
    }
    if count == 0 {
        return None;
    }
    let (values, vectors) = normal.eigen();
    let mut order: [usize; D] = std::array::from_fn(|i| i);
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let free = D - RELATIVE_DOF;
    if !(values[order[free]] >= RANK_TOLERANCE * count as f64) {
        return None;
    }
    let mut z = Vector::<D>::zeros();
    for &i in &order[free..] {
        let q = vectors.column(i);
        z += q * (q.dot(&rhs) / values[i]);
    }
    if free > 0 {
        // The common motion: the M-orthogonal projection of z_b − z_p on the null space,
        // solved in D × D with the identity on the columns outside it.
        let mut basis = Square::<D>::zeros();
        for (c, &i) in order[..free].iter().enumerate() {
            basis.set_column(c, &vectors.column(i));
        }
        let mut gram = basis.transpose() * problem.mass * basis;
        for c in free..D {
            gram[(c, c)] = 1.0;
        }
        let a = gram.cholesky()?.solve(&(basis.transpose() * problem.mass * (problem.z_base - z)));
        z += basis * a;
    }
    Some(z)
}

/// The velocity the augmented Lagrangian of the pair's cone program takes the bodies to:
/// the minimizer over z of
/// L(z) = ½ (z − z_b)ᵀ M (z − z_b) + Σ |proj_{K_μ}(P_α − ρ V_α(z))|² / (2ρ),
/// a smooth strictly convex function (module documentation, step 1), by a semismooth
/// Newton method with Armijo's rule, from `z`.
fn minimize_augmented<const D: usize>(
    work: &Scratch<D>,
    problem: &Problem<D>,
    rho: f64,
    tolerance: f64,
    z: &mut Vector<D>,
) -> bool {
    let Problem { mass, mass_inv, z_base, .. } = problem;
    let evaluate = |z: &Vector<D>| {
        let dz = z - z_base;
        let mut gradient = mass * dz;
        let mut value = 0.5 * dz.dot(&gradient);
        for (m, p) in work.members.iter().zip(&work.multipliers) {
            let r = project(&(p - (m.map * z - m.target) * rho), m.mu);
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
            let j = jacobian(&(p - (m.map * *z - m.target) * rho), m.mu);
            hessian += m.map.transpose() * j * m.map * rho;
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
fn solve_cone_program<const D: usize>(
    work: &mut Scratch<D>,
    problem: &Problem<D>,
    rho: f64,
    tolerance: f64,
    z: &mut Vector<D>,
) -> bool {
    let mut last = f64::INFINITY;
    for _ in 0..MAX_OUTER {
        if !minimize_augmented(work, problem, rho, tolerance, z) {
            return false;
        }
        let mut change: f64 = 0.0;
        for (mb, p) in work.members.iter().zip(work.multipliers.iter_mut()) {
            let next = project(&(*p - (mb.map * *z - mb.target) * rho), mb.mu);
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
