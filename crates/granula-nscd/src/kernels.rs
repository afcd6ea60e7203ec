//! The contact update of the Gauss-Seidel loop in the exchange-local-global form (004
//! §2.3.3.4, ELG): each body keeps its velocity with every impulse applied so far, so one
//! update reads two bodies, solves the contact's local problem and hands the change back to
//! the same two bodies, O(1) per contact whatever the packing.

use crate::bodies::{BodyMobility, BodyVelocity};
use crate::contacts::{Couple, HotContact, NO_PROCESS};
use crate::local::{ImpactProcess, LocalProblem, NonSmoothLaw};
use granula_core::{point_relative_velocity, DMat3, DVec3};
use nalgebra::Vector6;

/// Which local solve a sweep applies to a contact, chosen once per sweep from the step's
/// contact list: [`LawSolve`] when no contact has an impact process (the common path reads
/// the hot record only, with no test per contact), [`ProcessSolve`] otherwise.
pub(crate) trait LocalSolve<L: NonSmoothLaw> {
    /// The impulse solving the local problem `problem` of contact `a` with constants `params`.
    fn solve(&self, law: &L, a: usize, problem: &LocalProblem, params: &L::Params) -> DVec3;
}

/// Every contact by [`NonSmoothLaw::solve`].
pub(crate) struct LawSolve;

impl<L: NonSmoothLaw> LocalSolve<L> for LawSolve {
    #[inline(always)]
    fn solve(&self, law: &L, _a: usize, problem: &LocalProblem, params: &L::Params) -> DVec3 {
        law.solve(problem, params)
    }
}

/// The contacts with an impact process by [`NonSmoothLaw::solve_impact`], the others by
/// [`NonSmoothLaw::solve`]: the side table of the contact list (`ContactList::process_of`
/// and `ContactList::processes`).
pub(crate) struct ProcessSolve<'a> {
    /// Per contact, the index of its process or [`NO_PROCESS`].
    pub process_of: &'a [u32],
    /// The step's processes.
    pub processes: &'a [ImpactProcess],
}

impl<L: NonSmoothLaw> LocalSolve<L> for ProcessSolve<'_> {
    #[inline(always)]
    fn solve(&self, law: &L, a: usize, problem: &LocalProblem, params: &L::Params) -> DVec3 {
        match self.process_of[a] {
            NO_PROCESS => law.solve(problem, params),
            i => law.solve_impact(problem, params, &self.processes[i as usize]),
        }
    }
}

/// Applies world impulse `p` of contact `c`: +p on body 2, −p on body 1 (000 eq. 6).
#[inline(always)]
pub(crate) fn apply<P>(c: &HotContact<P>, p: DVec3, vel: &mut [BodyVelocity], mob: &[BodyMobility]) {
    let (i, j) = (c.body1 as usize, c.body2 as usize);
    let d2 = mob[j].response(c.l2, p);
    let d1 = mob[i].response(c.l1, p);
    vel[j].v += d2.v;
    vel[j].w += d2.w;
    vel[i].v -= d1.v;
    vel[i].w -= d1.w;
}

/// Applies world couple impulse `q`: +q on body 2, −q on body 1 (pure couples).
#[inline(always)]
pub(crate) fn apply_couple<P>(c: &HotContact<P>, q: DVec3, vel: &mut [BodyVelocity], mob: &[BodyMobility]) {
    let (i, j) = (c.body1 as usize, c.body2 as usize);
    vel[j].w += mob[j].ang * q;
    vel[i].w -= mob[i].ang * q;
}

/// One contact update with rolling and torsion friction (001 §1.7): generalized local
/// velocity (U, Ω) from the two bodies, removal of the contact's own contribution
/// W6 (P, Q), the 6-D local solve with the exact coupling ([`NonSmoothLaw::solve6`]), and
/// exchange of the 6-D impulse change with the two bodies. O(1) per contact.
/// Returns the new force impulse, its change, the new couple impulse and its change.
#[inline(always)]
pub(crate) fn update6<L: NonSmoothLaw>(
    law: &L,
    c: &mut HotContact<L::Params>,
    k: &mut Couple,
    vel: &mut [BodyVelocity],
    mob: &[BodyMobility],
) -> (DVec3, DVec3, DVec3, DVec3) {
    let (v1, v2) = (vel[c.body1 as usize], vel[c.body2 as usize]);
    let ul = c.to_local(point_relative_velocity(v1.v, v1.w, c.l1, v2.v, v2.w, c.l2));
    let ol = c.to_local(v2.w - v1.w);
    let x0 = Vector6::new(c.p.x, c.p.y, c.p.z, k.q.x, k.q.y, k.q.z);
    let b = Vector6::new(ul.x, ul.y, ul.z, ol.x, ol.y, ol.z) - k.w6 * x0;
    let x = law.solve6(&k.w6, &b, &c.params, &x0);
    let (p, q) = (DVec3::new(x[0], x[1], x[2]), DVec3::new(x[3], x[4], x[5]));
    let (dp, dq) = (p - c.p, q - k.q);
    if dp != DVec3::ZERO {
        apply(c, c.to_world(dp), vel, mob);
        c.p = p;
    }
    if dq != DVec3::ZERO {
        apply_couple(c, c.to_world(dq), vel, mob);
        k.q = q;
    }
    (p, dp, q, dq)
}

/// The local part of a contact update (004 §2.3.3.4): the local velocity from the two
/// bodies' velocities `v1`, `v2`, removal of the contact's own contribution W_αα P_α, the
/// law's local solve for contact `a` as `how` chooses it. Returns the new impulse; the
/// contact is not changed.
#[inline(always)]
fn local_solve<L: NonSmoothLaw, S: LocalSolve<L>>(
    law: &L,
    how: &S,
    a: usize,
    c: &HotContact<L::Params>,
    coupled: &[DMat3],
    v1: BodyVelocity,
    v2: BodyVelocity,
) -> DVec3 {
    let u = point_relative_velocity(v1.v, v1.w, c.l1, v2.v, v2.w, c.l2);
    let s = c.s();
    let ul = DVec3::new(u.dot(c.n), u.dot(c.t), u.dot(s));
    let problem = if c.coupled == u32::MAX {
        LocalProblem { w: DMat3::from_diagonal(c.w_diag), b: ul - c.w_diag * c.p, diagonal: true }
    } else {
        let w = coupled[c.coupled as usize];
        LocalProblem { w, b: ul - w * c.p, diagonal: false }
    };
    how.solve(law, a, &problem, &c.params)
}

/// One contact update of the ELG Gauss-Seidel (004 §2.3.3.4): local velocity from the two
/// bodies' current velocities, removal of the contact's own contribution W_αα P_α, local
/// solve (as `how` chooses it for contact `a`, the record `c`), and exchange of the impulse
/// change with the two bodies. O(1) per contact. Returns the new impulse and its change.
#[inline(always)]
pub(crate) fn update<L: NonSmoothLaw, S: LocalSolve<L>>(
    law: &L,
    how: &S,
    a: usize,
    c: &mut HotContact<L::Params>,
    coupled: &[DMat3],
    vel: &mut [BodyVelocity],
    mob: &[BodyMobility],
) -> (DVec3, DVec3) {
    let (v1, v2) = (vel[c.body1 as usize], vel[c.body2 as usize]);
    let p = local_solve(law, how, a, c, coupled, v1, v2);
    let s = c.s();
    let dp = p - c.p;
    if dp != DVec3::ZERO {
        apply(c, c.n * dp.x + c.t * dp.y + s * dp.z, vel, mob);
        c.p = p;
    }
    (p, dp)
}
