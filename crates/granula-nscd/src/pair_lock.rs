//! The block solve of a hyperstatic contact pair: all the contacts one rigid body has
//! with one support (a fixed or kinematic body), solved together for the locked state in
//! which the body sticks to the support.
//!
//! A rigid face on a plane touches it at k ≥ 3 corners: 3k impulse components act on 6
//! degrees of freedom, so the pair's Delassus block W (3k × 3k) has rank 6 and the
//! reactions are not unique (004 §2.3.3.4 on hyperstatic sets). The point-by-point
//! Gauss-Seidel update (000 eq. 34) then has to find, one corner at a time, a distribution
//! whose every impulse lies in its Coulomb cone; when the friction margin is thin (the M7
//! block at μ = 0.58, 0.45 % above tan α) the admissible distributions form a thin set
//! (every tangential impulse within 0.45 % of μ P_n) that neither the sweeps nor the
//! nonsmooth Newton method reach, and the block creeps.
//!
//! The locked state is solved for the pair as a whole, in the body's six coordinates:
//!
//! 1. the locked velocity z* of the movable body: every contact point moves with the
//!    support, v + ω × l_α = k_α (k_α the support's velocity at contact α), the least-squares
//!    solution of 3k equations in 6 unknowns, exact when the contacts restrain all six
//!    degrees of freedom (three non-collinear points);
//! 2. the generalized impulse Π = M (z* − z_b) that takes the body there from z_b, its
//!    velocity with the pair's own impulses removed;
//! 3. the impulses P_α ∈ K_μ (the Coulomb cones) of the closed contacts (u_min = 0), P_α = 0
//!    of the others, with Σ G_αᵀ P_α = Π, of least norm ½ Σ |P_α|²: a convex program whose
//!    dual in y ∈ ℝ⁶ is the smooth concave maximization of
//!    D(y) = y · Π − ½ Σ |proj_{K_μ}(G_α y)|² (the primal solution is P_α = proj_{K_μ}(G_α y);
//!    Moreau's decomposition gives ∇D = Π − Σ G_αᵀ P_α). The dual is solved by a
//!    semismooth Newton method with Armijo's line search (Hessian −Σ G_αᵀ J_α G_α, J_α the
//!    Jacobian of the cone projection, shifted by 1e-12 of its trace).
//!
//! If the program is feasible, the result solves the pair's local problem exactly: the
//! closed contacts have U = (u_min, 0, 0) = 0 with P in the cone (Signorini and Coulomb's
//! sticking case, 000 eqs. 28, 34), the open ones U_n = 0 > u_min with P = 0. If it is not
//! (the body must slide, tip onto an open corner, or bounce), the Newton method does not
//! converge within its cap and the pair is left to the sweeps for the rest of the step.
//! This is the block idea of LMGC90's and Siconos' solvers (a pair's contacts solved
//! together inside the Gauss-Seidel loop over pairs), restricted to the locked state; the
//! code is granula's own.
//!
//! Everything runs in a fixed order on one thread: the same bits on any thread count. The
//! lock keeps nothing from one step to the next (the dual variables start from zero every
//! step), so the solver's checkpoint ([`crate::NscdState`]) needs nothing new and restarts
//! stay bit-identical.

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
/// Relative shrink of the Coulomb cones in the lock: its impulses lie strictly inside the
/// cones, where the point-by-point sweep's sticking test accepts them whatever the
/// round-off (on the cone's surface with U_t = 0 the sliding branch would take its direction
/// from the round-off of U_t). A friction capacity lower by 1e-9 is far below any margin a
/// test resolves (M7's is 4.5e-3).
const CONE_SHRINK: f64 = 1e-9;
/// Relative velocity error accepted when the Newton method stalls on round-off (no
/// ascent left, or the cap reached) before [`TOLERANCE`] is met.
const ACCEPT: f64 = 1e-9;
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
                });
            }
            i = j;
        }
    }

    /// Whether the step has groups that may still lock.
    pub(crate) fn active(&self) -> bool {
        self.groups.iter().any(|g| g.open_to_lock)
    }

    /// Tries the lock of every group that has not failed yet in this step; a group whose
    /// lock fails is left to the sweeps until the step ends. Returns the number locked.
    pub(crate) fn lock_all<L: NonSmoothLaw>(
        &mut self,
        law: &L,
        hot: &mut [HotContact<L::Params>],
        vel: &mut [BodyVelocity],
        mob: &[BodyMobility],
    ) -> u32 {
        let mut locked = 0;
        for g in 0..self.groups.len() {
            if !self.groups[g].open_to_lock {
                continue;
            }
            let group = self.groups[g];
            let members = &self.members[group.start as usize..group.end as usize];
            match lock_group(law, members, &group, hot, vel, mob) {
                Some(y) => {
                    self.groups[g].y = y;
                    locked += 1;
                }
                None => self.groups[g].open_to_lock = false,
            }
        }
        self.locks += locked;
        locked
    }
}

/// The lock of one group (module documentation, steps 1-3); on success the impulses and
/// the velocities are updated and the dual variable is returned.
fn lock_group<L: NonSmoothLaw>(
    law: &L,
    members: &[u32],
    group: &Group,
    hot: &mut [HotContact<L::Params>],
    vel: &mut [BodyVelocity],
    mob: &[BodyMobility],
) -> Option<Vector6<f64>> {
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
    // Step 1: the locked velocity, least squares over all the pair's contacts.
    let mut normal = Matrix6::zeros();
    let mut rhs = Vector6::zeros();
    let sup = vel[support];
    for &a in members {
        let c = &hot[a as usize];
        let (l, l_support) = branch(c);
        let g = point_map(l, scale);
        let k = sup.v + sup.w.cross(l_support);
        normal += g.transpose() * g;
        rhs += g.transpose() * v3(k);
    }
    let eigen = normal.symmetric_eigen();
    if eigen.eigenvalues.min() < RANK_TOLERANCE * members.len() as f64 {
        return None;
    }
    let z_lock = normal.cholesky()?.solve(&rhs);
    // Step 2: the body's velocity without the pair's impulses, and the impulse to the lock.
    let own = {
        let mut p = Vector6::zeros();
        for &a in members {
            let c = &hot[a as usize];
            let g = point_map(branch(c).0, scale);
            p += g.transpose() * (frame_rows(c).transpose() * v3(c.p)) * sign;
        }
        p
    };
    let now = vel[body];
    let z_now = Vector6::new(now.v.x, now.v.y, now.v.z, now.w.x * scale, now.w.y * scale, now.w.z * scale);
    let z_base = z_now - to_velocity(&own);
    let target = to_impulse(&(z_lock - z_base));
    let demand = (z_lock - z_base).norm();
    // Step 3: the dual Newton method.
    let contact_map = |c: &HotContact<L::Params>| frame_rows(c) * point_map(branch(c).0, scale) * sign;
    // Closed: u_min = 0 (a gap ≤ 0 under `GapMode::Positive`); u_min > 0 was rejected above.
    let closed = |c: &HotContact<L::Params>| law.shock_params(&c.params).is_some_and(|s| s.min_normal_velocity >= 0.0);
    // A closed member's shrunk friction coefficient and contact map; `None` when open.
    let cone_of = |c: &HotContact<L::Params>| {
        closed(c).then(|| (law.shock_params(&c.params).map_or(0.0, |s| s.mu) * (1.0 - CONE_SHRINK), contact_map(c)))
    };
    let evaluate = |y: &Vector6<f64>, hot: &[HotContact<L::Params>]| {
        let (mut sum, mut half_norm) = (Vector6::zeros(), 0.0);
        for (mu, gm) in members.iter().filter_map(|&a| cone_of(&hot[a as usize])) {
            let x = gm * y;
            let p = project_on_cone(DVec3::new(x[0], x[1], x[2]), mu);
            sum += gm.transpose() * v3(p);
            half_norm += 0.5 * p.length_squared();
        }
        (target - sum, y.dot(&target) - half_norm)
    };
    let tolerance = TOLERANCE * demand.max(f64::MIN_POSITIVE);
    let mut y = group.y;
    let (mut gradient, mut value) = evaluate(&y, hot);
    let mut converged = false;
    for _ in 0..MAX_ITERATIONS {
        if to_velocity(&gradient).norm() <= tolerance {
            converged = true;
            break;
        }
        let mut hessian = Matrix6::zeros();
        for (mu, gm) in members.iter().filter_map(|&a| cone_of(&hot[a as usize])) {
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
                let (g_new, v_new) = evaluate(&trial, hot);
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
        return None;
    }
    // The lock: the new impulses, exchanged with the bodies.
    for &a in members {
        let c = &mut hot[a as usize];
        let p = if closed(c) {
            let mu = law.shock_params(&c.params).map_or(0.0, |s| s.mu) * (1.0 - CONE_SHRINK);
            let x = contact_map(c) * y;
            project_on_cone(DVec3::new(x[0], x[1], x[2]), mu)
        } else {
            DVec3::ZERO
        };
        let dp = p - c.p;
        if dp != DVec3::ZERO {
            apply(c, c.to_world(dp), vel, mob);
            c.p = p;
        }
    }
    Some(y)
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
}
