//! One step's frictional contact problem (W, q, μ) with its solution (r, u), for comparing
//! solvers on identical problems (the Siconos benchmark writes it in Siconos' `fc3d` text
//! format).
//!
//! The problem is the one of [`crate::residual`]: u = W r + q, r the impulse (N s) in the
//! local frames (n, t, s) of the contacts, normal first, u = U − (u_min, 0, 0) and
//! q = U_free − (u_min, 0, 0). W = H* M⁻¹ H (000 eq. 15; 004 §2.3.3.3) is assembled body by
//! body: a unit impulse e_k of contact α on body b (sign σ_α = +1 if b is α's body 2, −1 if
//! its body 1) changes b's velocity by σ_α (m⁻¹ e_k, I⁻¹ (l_α × e_k)) (000 eqs. 7-10), and
//! contact β reads σ_β (Δv + Δω × l_β) in its own frame (000 eq. 3).

use crate::bodies::BodyMobility;
use crate::contacts::ContactList;
use crate::local::NonSmoothLaw;
use crate::residual::natural_map_squared;
use granula_core::{DMat3, DVec3};
use std::collections::BTreeMap;

/// The assembled problem of one step.
#[derive(Clone, Debug, Default)]
pub struct ContactProblem {
    /// Nonzero 3×3 blocks W_βα (row contact β, column contact α); column k of a block is
    /// the response to the unit impulse along axis k of α's frame.
    pub blocks: BTreeMap<(u32, u32), DMat3>,
    /// q per contact (local frame).
    pub q: Vec<DVec3>,
    /// μ per contact.
    pub mu: Vec<f64>,
    /// The impulses r of the step's solution.
    pub r: Vec<DVec3>,
    /// The velocities u = U − (u_min, 0, 0) of the step's solution.
    pub u: Vec<DVec3>,
}

/// Assembles the problem of the step's `contacts` with body mobilities `mob` and the
/// current body velocities `u_now` of each contact (local frame, unshifted); `None` when the
/// law is not Signorini-Coulomb's ([`NonSmoothLaw::shock_params`]) or a contact has an
/// impact process ([`NonSmoothLaw::impact`]).
pub fn assemble<L: NonSmoothLaw>(
    law: &L,
    contacts: &ContactList<L::Params>,
    mob: &[BodyMobility],
    u_now: &[DVec3],
) -> Option<ContactProblem> {
    if !contacts.processes.is_empty() {
        return None;
    }
    let (hot, cold) = (&contacts.hot, &contacts.cold);
    let mut touching: Vec<Vec<(u32, f64, DVec3)>> = vec![Vec::new(); mob.len()];
    for (a, c) in hot.iter().enumerate() {
        touching[c.body1 as usize].push((a as u32, -1.0, c.l1));
        touching[c.body2 as usize].push((a as u32, 1.0, c.l2));
    }
    let mut p = ContactProblem::default();
    for (b, list) in touching.iter().enumerate() {
        let m = &mob[b];
        if m.lin == DVec3::ZERO && m.ang == DMat3::ZERO {
            continue;
        }
        for &(alpha, sa, la) in list {
            let ca = &hot[alpha as usize];
            let frame_a = [ca.n, ca.t, ca.s()];
            for &(beta, sb, lb) in list {
                let cb = &hot[beta as usize];
                let frame_b = [cb.n, cb.t, cb.s()];
                let cols = frame_a.map(|e| {
                    let dv = m.lin * e;
                    let dw = m.ang * la.cross(e);
                    let seen = (dv + dw.cross(lb)) * (sa * sb);
                    DVec3::new(seen.dot(frame_b[0]), seen.dot(frame_b[1]), seen.dot(frame_b[2]))
                });
                *p.blocks.entry((beta, alpha)).or_insert(DMat3::ZERO) += DMat3::from_cols(cols[0], cols[1], cols[2]);
            }
        }
    }
    for ((c, k), u) in hot.iter().zip(cold).zip(u_now) {
        let s = law.shock_params(&c.params)?;
        let shift = DVec3::new(s.min_normal_velocity, 0.0, 0.0);
        p.q.push(k.u_free - shift);
        p.mu.push(s.mu);
        p.r.push(c.p);
        p.u.push(*u - shift);
    }
    Some(p)
}

impl ContactProblem {
    /// The relative natural-map residual of the stored solution r computed from (W, q, μ)
    /// alone: u = W r + q, e = √(Σ_α |r_α − proj_{K_μ}(r_α − û_α)|²) / |q| (Siconos'
    /// `fc3d_compute_error`); equal to the solver's residual up to round-off.
    pub fn natural_map(&self) -> f64 {
        let mut wr = vec![DVec3::ZERO; self.q.len()];
        for (&(beta, alpha), block) in &self.blocks {
            wr[beta as usize] += *block * self.r[alpha as usize];
        }
        let (mut sum, mut q2) = (0.0f64, 0.0f64);
        for (a, wr) in wr.iter().enumerate() {
            sum += natural_map_squared(self.r[a], *wr + self.q[a], self.mu[a]);
            q2 += self.q[a].length_squared();
        }
        if q2.sqrt() > f64::EPSILON {
            sum.sqrt() / q2.sqrt()
        } else {
            sum.sqrt()
        }
    }

    /// max_α |W r + q − u|_α / max_α max(|q_α|, |u_α|): how well the assembled W
    /// reproduces the solver's own velocities (round-off for a correct assembly).
    pub fn consistency(&self) -> f64 {
        let mut wr = vec![DVec3::ZERO; self.q.len()];
        for (&(beta, alpha), w) in &self.blocks {
            wr[beta as usize] += *w * self.r[alpha as usize];
        }
        let scale = self.u.iter().chain(&self.q).map(|u| u.length()).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
        wr.iter().zip(&self.q).zip(&self.u).map(|((a, q), u)| (*a + *q - *u).length()).fold(0.0, f64::max) / scale
    }
}
