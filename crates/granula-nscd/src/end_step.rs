//! End of a step (004 §2.3.3.3 "velocity correction" and "update of the configuration")
//! and its report: status counts, overlaps as the monitor of inaccuracy (001), and the
//! energy dissipated per mechanism computed from the impulses.
//!
//! Energy: with v_new = v_free + M⁻¹ H P, the kinetic energy change of the contact stage is
//! exactly ΔK = Σ_α P_α · (U_α^free + U_α^new)/2 − W_kin, W_kin the work of kinematic
//! bodies. The dissipated energy is therefore D_α = −P_α · (U_α^free + U_α^new)/2, split
//! into its normal part (inelastic shocks) and its tangential part (sliding).

use crate::contacts::{ColdContact, HotContact};
use crate::local::NonSmoothLaw;
use crate::solver::NscdSolver;
use granula_core::math::integrate_orientation;
use granula_core::ContactStatus;
use granula_core::{
    point_relative_velocity, BodyHandle, BodySet, Broadphase, ContactRecord, DVec3, MotionKind, StepReport,
};

impl<B: Broadphase, L: NonSmoothLaw> NscdSolver<B, L> {
    /// Step 6 and the report, for the step of `dt` from `t0` under `gravity`.
    pub(crate) fn finish(&mut self, b: &mut BodySet, gravity: DVec3, t0: f64, dt: f64) -> StepReport {
        let theta_dt = self.config.theta * dt;
        let pairs = self.contacts.hot.iter().zip(self.contacts.hot.iter().skip(1));
        let pairs = usize::from(!self.contacts.hot.is_empty())
            + pairs.filter(|(a, b)| (a.body1, a.body2) != (b.body1, b.body2)).count();
        let mut report = StepReport { contacts: self.contacts.len(), pairs, ..Default::default() };
        // Work of the constant external loads over the step (gravity excluded).
        for i in 0..b.len() {
            if b.motion[i] == MotionKind::Dynamic {
                let dx = self.start[i].v * (dt - theta_dt) + self.vel[i].v * theta_dt;
                let dphi = self.start[i].w * (dt - theta_dt) + self.vel[i].w * theta_dt;
                report.external_work += b.external_force[i].dot(dx) + b.external_torque[i].dot(dphi);
            }
            // The load of the force balance: m g + F_ext on the free translations (the
            // mobility is 1/m there and zero on locked axes and on other bodies).
            let lin = self.mob[i].lin;
            if lin != DVec3::ZERO {
                let free = lin.cmpgt(DVec3::ZERO);
                let load = gravity / b.inv_mass[i] + b.external_force[i];
                report.applied_load += DVec3::select(free, load, DVec3::ZERO);
            }
            b.force[i] = DVec3::ZERO;
            b.torque[i] = DVec3::ZERO;
        }
        self.book_contacts(b, &mut report, dt);
        self.update_configuration(b, t0, dt);
        report
    }

    /// Per contact: dissipation, status, overlap, its force and couple on the bodies'
    /// load columns (mean over the step), the work of kinematic bodies, the carried state.
    fn book_contacts(&mut self, b: &mut BodySet, report: &mut StepReport, dt: f64) {
        let theta_dt = self.config.theta * dt;
        let states = self.store.states_mut();
        self.published.clear();
        self.published_last = self.publish;
        let mut worst = (0.0, 0.0, None::<(BodyHandle, BodyHandle)>);
        for (idx, (c, cold)) in self.contacts.hot.iter().zip(&self.contacts.cold).enumerate() {
            let (i, j) = (c.body1 as usize, c.body2 as usize);
            let (v1, v2) = (self.vel[i], self.vel[j]);
            let u_world = point_relative_velocity(v1.v, v1.w, c.l1, v2.v, v2.w, c.l2);
            let u_new = c.to_local(u_world);
            let mean = (cold.u_free + u_new) * 0.5;
            let (shock, cohesive) = self.law.normal_split(&c.params, c.p);
            report.dissipated.normal -= shock * mean.x;
            report.dissipated.cohesion -= cohesive * mean.x;
            report.dissipated.sliding -= c.p.y * mean.y + c.p.z * mean.z;
            let status = self.law.status(&c.params, c.p);
            report.status.count(status);
            let gap_after = cold.gap + theta_dt * u_new.x;
            let overlap = -gap_after;
            if overlap > 0.0 {
                let ratio = overlap / cold.min_radius;
                if ratio > worst.1 {
                    worst = (overlap, ratio, Some((b.handle[i], b.handle[j])));
                }
                report.max_overlap = report.max_overlap.max(overlap);
            }
            let p = c.to_world(c.p);
            let f = p / dt;
            b.force[j] += f;
            b.torque[j] += c.l2.cross(f);
            b.force[i] -= f;
            b.torque[i] -= c.l1.cross(f);
            // The supports' side of the force balance: what the held axes receive.
            let held = |k: usize| self.mob[k].lin.cmpeq(DVec3::ZERO);
            report.support_force += DVec3::select(held(j), f, DVec3::ZERO) - DVec3::select(held(i), f, DVec3::ZERO);
            // Work of kinematic bodies on the others: −(impulse received) · (point velocity).
            if b.motion[i] == MotionKind::Kinematic {
                report.external_work += p.dot(v1.v + v1.w.cross(c.l1));
            }
            if b.motion[j] == MotionKind::Kinematic {
                report.external_work -= p.dot(v2.v + v2.w.cross(c.l2));
            }
            let carried = &mut states[cold.store_index as usize];
            carried.impulse = p;
            if let Some(k) = self.contacts.couples.get(idx) {
                let om = c.to_local(v2.w - v1.w);
                let mean = (k.omega_free + om) * 0.5;
                report.dissipated.twisting -= k.q.x * mean.x;
                report.dissipated.rolling -= k.q.y * mean.y + k.q.z * mean.z;
                let qw = c.to_world(k.q);
                b.torque[j] += qw / dt;
                b.torque[i] -= qw / dt;
                carried.couple = qw;
            }
            report.dissipated.cohesion += self.law.finish(&c.params, c.p, gap_after, &mut carried.state);
            if self.publish {
                let couple = self.contacts.couples.get(idx).map_or(DVec3::ZERO, |k| c.to_world(k.q) / dt);
                self.published.push(record(c, cold, u_world, f, couple, status));
            }
        }
        report.max_overlap_ratio = worst.1;
        report.max_overlap_pair = worst.2;
    }

    /// Velocities and configuration: v = v_free + M⁻¹ H P, q = q_m + θ Δt v; kinematic
    /// bodies back to the start of the step, then advanced by their drive over it.
    fn update_configuration(&self, b: &mut BodySet, t0: f64, dt: f64) {
        let theta_dt = self.config.theta * dt;
        for i in 0..b.len() {
            if b.motion[i] == MotionKind::Dynamic {
                let v = self.vel[i];
                b.velocity[i] = v.v;
                b.angular_velocity[i] = v.w;
                b.position[i] += v.v * theta_dt;
                b.orientation[i] = integrate_orientation(b.orientation[i], v.w, theta_dt);
            }
        }
        for &(i, x, q) in &self.saved_kinematic {
            b.position[i] = x;
            b.orientation[i] = q;
        }
        if !self.saved_kinematic.is_empty() {
            b.advance_kinematic(t0, dt);
        }
    }
}

/// The published record of contact `c`: geometry at the detection configuration, the mean
/// force `f` = P/Δt and couple on body 2, the end-of-step relative velocity `u` (world
/// frame) and the local solver's `status`.
fn record<P>(
    c: &HotContact<P>,
    cold: &ColdContact,
    u: DVec3,
    f: DVec3,
    couple: DVec3,
    status: ContactStatus,
) -> ContactRecord {
    ContactRecord {
        key: cold.key,
        body1: c.body1,
        body2: c.body2,
        point: cold.point,
        normal: c.n,
        tangent: c.t,
        gap: cold.gap,
        branch1: c.l1,
        branch2: c.l2,
        relative_velocity: u,
        force: f,
        couple,
        status,
    }
}
