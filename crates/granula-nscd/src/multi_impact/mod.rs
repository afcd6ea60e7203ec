//! Multiple impacts under Poisson's and Stronge's laws (004 §2.2.2.2, with Poisson's law
//! imposed on the whole impact set at once).
//!
//! A binary shock is followed exactly along its impulse ([`crate::local::ImpactProcess`]).
//! Inside Gauss-Seidel, though, a contact whose bodies touch others sees its velocity change
//! with every update of its neighbours, and restarting its binary shock from each new
//! velocity multiplies the neighbours' impulses by 1 + e: the sweeps become projected
//! Gauss-Seidel on W − e/(1 + e) D, which is not positive definite in a row of four spheres
//! or any hyperstatic network, and the impulses grow without bound.
//!
//! So when an approaching contact touches a movable body that also touches a third body,
//! the shock of every contact on such a body is solved jointly, before the sweeps, in two problems on the velocities without the step's smooth loads (the
//! start-of-step velocities of the movable bodies):
//!
//! 1. compression: Signorini-Coulomb with each contact's position-level bound,
//!    U_c = U⁻ + W P_c, 0 ≤ P_c,n ⊥ U_c,n − u_min ≥ 0 (the bodies brought to the end of
//!    their approach together);
//! 2. restitution, from U_c: 0 ≤ P_r,n − r P_c,n ⊥ U_n⁺ − u_min ≥ 0 with Coulomb's law on
//!    P_r (`restitution_law`), r = e under Poisson's law, the binary shock's ratio
//!    P_r,n/P_c,n under Stronge's (e for a central or frictionless contact), 0 for a contact
//!    that did not approach at the start of the step.
//!
//! Both are convex problems for a frictionless packing (a projection on a convex set in W's
//! metric), so their Gauss-Seidel sweeps converge where the per-contact process diverged.
//! The sweeps run in list order with the step's extrapolation (Nesterov's, with a restart)
//! until a sweep changes the impulses by less than the criterion's tolerance of their sum
//! plus the impulses the step's smooth loads call for (the sweeps that follow resolve
//! those to that tolerance anyway).
//! Each contact then keeps its shock P_c + P_r ([`JointShock`]) and the sweeps of the step
//! carry the smooth loads on top of it with the post-shock normal velocity as the bound, as
//! a binary process does. The contacts of a pair of bodies that touch nothing else (one
//! point, or the corners of a face) keep their exact binary processes. A row of spheres closing at once under Poisson's law leaves with U_n⁺ = −e U_n⁻
//! on every contact and loses the fraction 1 − e² of its kinetic energy, as Newton's law.

pub(crate) mod work;

use crate::bodies::BodyVelocity;
use crate::contacts::{HotContact, NO_PROCESS};
use crate::kernels::apply;
use crate::local::{
    restitution_law, restitution_ratio, shock_law, ImpactLaw, ImpactProcess, JointShock, LocalProblem, NonSmoothLaw,
};
use crate::solver::NscdSolver;
use granula_core::{point_relative_velocity, Broadphase, DMat3, DVec3};
use work::{NO_PARTNER, SEVERAL};

/// The local problem of contact `c` with impulse `p` in velocity field `vel`.
fn local_problem<P>(c: &HotContact<P>, coupled: &[DMat3], vel: &[BodyVelocity], p: DVec3) -> LocalProblem {
    let (v1, v2) = (vel[c.body1 as usize], vel[c.body2 as usize]);
    let u = c.to_local(point_relative_velocity(v1.v, v1.w, c.l1, v2.v, v2.w, c.l2));
    if c.coupled == u32::MAX {
        LocalProblem { w: DMat3::from_diagonal(c.w_diag), b: u - c.w_diag * p, diagonal: true }
    } else {
        let w = coupled[c.coupled as usize];
        LocalProblem { w, b: u - w * p, diagonal: false }
    }
}

impl<B: Broadphase, L: NonSmoothLaw> NscdSolver<B, L> {
    /// Solves the shock of the contacts that share a body with another contact of the step
    /// when one of them has an impact process (module documentation), and gives each its
    /// [`JointShock`]. Call after the contact list is built and before the warm start
    /// (`self.vel` holds the free velocities).
    pub(crate) fn solve_joint_impacts(&mut self) {
        self.joint.sweeps = 0;
        if self.contacts.processes.is_empty() || !self.select_joint_members() {
            return;
        }
        self.shock_velocities();
        let cap = self.config.criterion.cap().max(1);
        let epsilon = self.config.criterion.tolerance().unwrap_or(1e-6);
        let floor = self.smooth_impulse_scale();
        self.joint.compression.clear();
        self.joint.compression.resize(self.joint.members.len(), DVec3::ZERO);
        self.joint.sweeps += self.joint_sweeps(Phase::Compression, cap, epsilon, floor);
        self.restitution_floors();
        self.joint.restitution.clear();
        self.joint.restitution.resize(self.joint.members.len(), DVec3::ZERO);
        self.joint.sweeps += self.joint_sweeps(Phase::Restitution, cap, epsilon, floor);
        self.record_joint_shocks();
        self.updates += self.joint.sweeps as u64 * self.joint.members.len() as u64;
    }

    /// The contacts of the joint problem: those whose law gives shock constants and that
    /// touch a movable body which also touches another body (the points of one pair of
    /// bodies alone are one binary shock, followed exactly by their processes). `false`
    /// when no contact with an impact process is among them (every shock of the step is
    /// binary).
    fn select_joint_members(&mut self) -> bool {
        let j = &mut self.joint;
        j.partner.clear();
        j.partner.resize(self.vel.len(), NO_PARTNER);
        for c in &self.contacts.hot {
            for (me, other) in [(c.body1, c.body2), (c.body2, c.body1)] {
                let p = &mut j.partner[me as usize];
                if *p == NO_PARTNER {
                    *p = other;
                } else if *p != other {
                    *p = SEVERAL;
                }
            }
        }
        let movable = |i: u32| self.mob[i as usize].lin != DVec3::ZERO || self.mob[i as usize].ang != DMat3::ZERO;
        let shared = |i: u32| movable(i) && j.partner[i as usize] == SEVERAL;
        j.members.clear();
        let mut with_process = false;
        for (a, c) in self.contacts.hot.iter().enumerate() {
            if self.law.shock_params(&c.params).is_some() && (shared(c.body1) || shared(c.body2)) {
                j.members.push(a as u32);
                with_process |= self.contacts.process_of[a] != NO_PROCESS;
            }
        }
        with_process
    }

    /// The velocities of the shock: the start-of-step velocity of each movable body, the
    /// free (prescribed) velocity of the others.
    fn shock_velocities(&mut self) {
        self.joint.vel.clear();
        for (i, (start, free)) in self.start.iter().zip(&self.vel).enumerate() {
            let m = &self.mob[i];
            let movable = m.lin != DVec3::ZERO || m.ang != DMat3::ZERO;
            self.joint.vel.push(if movable { *start } else { *free });
        }
    }

    /// Σ |U_n,free − U_n⁻| / W_nn over the members: the normal impulses the step's smooth
    /// loads (gravity) call for. The sweeps that follow the shock solve those to the
    /// criterion's tolerance, so the shock's impulses need no finer resolution than that:
    /// in a bed at rest, whose pre-impact velocities are only the last step's residual,
    /// the joint problems stop at once instead of resolving that noise.
    fn smooth_impulse_scale(&self) -> f64 {
        let mut sum = 0.0;
        for &a in &self.joint.members {
            let (c, cold) = (&self.contacts.hot[a as usize], &self.contacts.cold[a as usize]);
            let (s1, s2) = (self.start[c.body1 as usize], self.start[c.body2 as usize]);
            let before = c.n.dot(point_relative_velocity(s1.v, s1.w, c.l1, s2.v, s2.w, c.l2));
            if c.w_diag.x > 0.0 {
                sum += (cold.u_free.x - before).abs() / c.w_diag.x;
            }
        }
        sum
    }

    /// Gauss-Seidel sweeps in list order over the joint problem of `phase`, until the
    /// impulses change in a sweep by at most `epsilon` of their sum plus `floor` (N s), or
    /// `cap` sweeps; returns the sweeps. Between sweeps the impulses are extrapolated as in
    /// the step's own sweeps (Nesterov 1983, with O'Donoghue and Candès' restart when the
    /// change grows), projected back onto the phase's admissible set.
    fn joint_sweeps(&mut self, phase: Phase, cap: u32, epsilon: f64, floor: f64) -> u32 {
        let (hot, coupled) = (&self.contacts.hot, &self.contacts.coupled);
        let j = &mut self.joint;
        let impulses = match phase {
            Phase::Compression => &mut j.compression,
            Phase::Restitution => &mut j.restitution,
        };
        j.previous.clear();
        j.previous.extend_from_slice(impulses);
        let (mut since_restart, mut last_change) = (0u32, f64::INFINITY);
        for sweep in 1..=cap {
            let (mut change, mut total) = (0.0, 0.0);
            for (k, &a) in j.members.iter().enumerate() {
                let c = &hot[a as usize];
                let Some(params) = self.law.shock_params(&c.params) else { continue };
                let problem = local_problem(c, coupled, &j.vel, impulses[k]);
                let u_min = params.min_normal_velocity.min(0.0);
                let p = match phase {
                    Phase::Compression => shock_law(&problem, params.mu, u_min),
                    Phase::Restitution => restitution_law(&problem, params.mu, u_min, j.floor[k]),
                };
                let dp = p - impulses[k];
                if dp != DVec3::ZERO {
                    apply(c, c.to_world(dp), &mut j.vel, &self.mob);
                    impulses[k] = p;
                }
                change += dp.length();
                total += p.length();
            }
            if change <= epsilon * (total + floor) {
                return sweep;
            }
            since_restart = if change > last_change { 1 } else { since_restart + 1 };
            last_change = change;
            let beta = (since_restart as f64 - 1.0) / (since_restart as f64 + 2.0);
            for (k, &a) in j.members.iter().enumerate() {
                let (c, p) = (&hot[a as usize], impulses[k]);
                if beta > 0.0 {
                    let mu = self.law.shock_params(&c.params).map_or(0.0, |s| s.mu);
                    let low = if phase == Phase::Restitution { j.floor[k] } else { 0.0 };
                    let y = onto_cone(p + (p - j.previous[k]) * beta, mu, low);
                    let dy = y - p;
                    if dy != DVec3::ZERO {
                        apply(c, c.to_world(dy), &mut j.vel, &self.mob);
                        impulses[k] = y;
                    }
                }
                j.previous[k] = p;
            }
        }
        cap
    }

    /// The restitution floor r P_c,n of each member: r from its impact process (e under
    /// Poisson's law, the binary ratio under Stronge's), 0 without one.
    fn restitution_floors(&mut self) {
        let j = &mut self.joint;
        j.floor.clear();
        for (k, &a) in j.members.iter().enumerate() {
            let c = &self.contacts.hot[a as usize];
            let r = match self.contacts.process_of[a as usize] {
                NO_PROCESS => 0.0,
                i => {
                    let process = &self.contacts.processes[i as usize];
                    let mu = self.law.shock_params(&c.params).map_or(0.0, |s| s.mu);
                    // The binary shock from the contact's own pre-impact velocity.
                    let (s1, s2) = (self.start[c.body1 as usize], self.start[c.body2 as usize]);
                    let u = c.to_local(point_relative_velocity(s1.v, s1.w, c.l1, s2.v, s2.w, c.l2));
                    let w = local_problem(c, &self.contacts.coupled, &j.vel, DVec3::ZERO).w;
                    restitution_ratio(&w, u, mu, process.law, process.e)
                }
            };
            j.floor.push(r * j.compression[k].x);
        }
    }

    /// Gives each member its shock impulse and post-shock normal velocity: in its own
    /// process, or in a new process for a member without one that took part in the shock;
    /// the shock impulse replaces the warm start of those contacts.
    fn record_joint_shocks(&mut self) {
        for (k, &a) in self.joint.members.iter().enumerate() {
            let c = self.contacts.hot[a as usize];
            let c = &c;
            let impulse = self.joint.compression[k] + self.joint.restitution[k];
            let took_part = impulse.x > 0.0;
            let after = local_problem(c, &self.contacts.coupled, &self.joint.vel, DVec3::ZERO).b.x;
            let joint = JointShock { impulse, normal_after: if took_part { after } else { f64::NEG_INFINITY } };
            // The sweeps start from the shock: without smooth loads it is their solution.
            if took_part || self.contacts.process_of[a as usize] != NO_PROCESS {
                self.contacts.hot[a as usize].p = impulse;
            }
            match self.contacts.process_of[a as usize] {
                NO_PROCESS if took_part => {
                    let cold = &self.contacts.cold[a as usize];
                    let (s1, s2) = (self.start[c.body1 as usize], self.start[c.body2 as usize]);
                    let before = c.n.dot(point_relative_velocity(s1.v, s1.w, c.l1, s2.v, s2.w, c.l2));
                    self.contacts.process_of[a as usize] = self.contacts.processes.len() as u32;
                    self.contacts.processes.push(ImpactProcess {
                        law: ImpactLaw::Poisson,
                        e: 0.0,
                        smooth_shift: cold.u_free.x - before,
                        joint: Some(joint),
                    });
                }
                NO_PROCESS => {}
                i => self.contacts.processes[i as usize].joint = Some(joint),
            }
        }
    }
}

/// `p` with its normal part raised to at least `low` and its tangential part scaled
/// radially into Coulomb's cone |P_t| ≤ μ P_n.
fn onto_cone(p: DVec3, mu: f64, low: f64) -> DVec3 {
    let pn = p.x.max(low).max(0.0);
    let t = (p.y * p.y + p.z * p.z).sqrt();
    let f = if t > mu * pn && t > 0.0 { mu * pn / t } else { 1.0 };
    DVec3::new(pn, p.y * f, p.z * f)
}

/// The two problems of a joint shock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Compression,
    Restitution,
}
