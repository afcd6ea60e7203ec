//! Steps 1-4 of the Moreau-Jean step (004 §2.3.3.1-2.3.3.3): free velocities, the
//! intermediate configuration q_m, detection, the contact list with its Delassus blocks
//! and the law's constants, and the warm start.

use crate::bodies::{BodyMobility, BodyVelocity};
use crate::contacts::{ColdContact, Couple, HotContact};
use crate::delassus::{delassus_block, is_diagonal};
use crate::error::NscdError;
use crate::kernels::{apply, apply_couple};
use crate::local::{delassus_block6, ContactSetup, NonSmoothLaw};
use crate::materials::max_range;
use crate::solver::NscdSolver;
use granula_core::math::{integrate_orientation, tangent_frame};
use granula_core::{
    point_relative_velocity, BodyRef, BodySet, Broadphase, ContactGeometry, ContactKey, CoreError, DMat3, DVec3,
    MaterialTable, MotionKind, StepContext,
};

impl<B: Broadphase, L: NonSmoothLaw> NscdSolver<B, L> {
    /// Steps 1-4: free velocities, q_m, detection, contact list, warm start.
    pub(crate) fn prepare(&mut self, ctx: &mut StepContext<'_>) -> Result<(), NscdError> {
        let (theta, dt) = (self.config.theta, ctx.dt);
        let vmax = self.free_velocities(ctx.bodies, ctx.gravity, ctx.time, dt)?;
        self.move_to_intermediate(ctx.bodies, ctx.time, dt);
        let range = max_range(ctx.materials, &self.law);
        let margin = self.config.margin + 2.0 * theta * dt * vmax + range;
        self.detection.run(ctx.bodies, ctx.narrowphase, &mut self.broadphase, &ctx.periodic, margin)?;
        self.build_contacts(ctx.bodies, ctx.materials, dt);
        if self.config.spatial_sort {
            self.sort_spatially(&ctx.bodies.position);
        }
        self.solve_joint_impacts();
        self.warm_start();
        Ok(())
    }

    /// Step 1: the velocities at the start of the step, the free velocities
    /// v_free = v + Δt M⁻¹ F_ext (kinematic bodies: their drive at t₀ + Δt) and the
    /// mobilities of every body; returns the largest speed of a body's surface, before or
    /// after, for the detection margin.
    fn free_velocities(&mut self, b: &BodySet, gravity: DVec3, t0: f64, dt: f64) -> Result<f64, NscdError> {
        self.vel.clear();
        self.mob.clear();
        self.start.clear();
        let mut vmax: f64 = 0.0;
        for i in 0..b.len() {
            let start = BodyVelocity { v: b.velocity[i], w: b.angular_velocity[i] };
            let free = match b.motion[i] {
                MotionKind::Dynamic => {
                    let acc = b.locked[i].mask_linear(b.external_force[i] * b.inv_mass[i] + gravity);
                    let alpha = b.angular_acceleration(i, b.external_torque[i], start.w);
                    BodyVelocity { v: start.v + acc * dt, w: start.w + alpha * dt }
                }
                MotionKind::Kinematic => {
                    // A body made kinematic by editing the motion column has no drive.
                    let d = b.drive[i].as_ref().ok_or_else(|| {
                        CoreError::invalid_body(
                            BodyRef::Handle(b.handle[i]),
                            "motion",
                            "kinematic without a drive",
                            "a drive in `bodies.drive` for every kinematic body (insert the body as kinematic)",
                        )
                    })?;
                    BodyVelocity { v: d.linear.at(t0 + dt), w: d.angular.at(t0 + dt) }
                }
                MotionKind::Fixed => BodyVelocity::default(),
            };
            let r = surface_reach(b, i);
            vmax = vmax.max(free.v.length() + free.w.length() * r).max(start.v.length() + start.w.length() * r);
            self.start.push(start);
            self.vel.push(free);
            self.mob.push(BodyMobility::of(b, i));
        }
        self.free.clone_from(&self.vel);
        Ok(vmax)
    }

    /// Step 2: the intermediate configuration q_m = q + (1 − θ) Δt v (004 §2.3.3.1); the
    /// kinematic bodies' configurations at the start are kept for the end of the step. A
    /// kinematic body with a drive moves by its drive's own displacement over (1 − θ) Δt
    /// from `t0` (the same bits as v (1 − θ) Δt for a constant drive), so that a belt, whose
    /// surface moves while the wall stays, stays put.
    fn move_to_intermediate(&mut self, b: &mut BodySet, t0: f64, dt: f64) {
        let theta = self.config.theta;
        self.saved_kinematic.clear();
        for i in 0..b.len() {
            if b.motion[i] == MotionKind::Kinematic {
                self.saved_kinematic.push((i, b.position[i], b.orientation[i]));
            }
        }
        if theta < 1.0 {
            let h = (1.0 - theta) * dt;
            for i in 0..b.len() {
                let (dx, turn) = match (b.motion[i], &b.drive[i]) {
                    (MotionKind::Fixed, _) => continue,
                    (MotionKind::Kinematic, Some(d)) => (d.linear.step(t0, h), d.angular.step(t0, h)),
                    _ => (self.start[i].v * h, self.start[i].w * h),
                };
                b.position[i] += dx;
                b.orientation[i] = integrate_orientation(b.orientation[i], turn, 1.0);
            }
        }
    }

    /// Steps 3-4: the contact store realigned with the detected contacts, and one entry of
    /// the contact list per contact.
    fn build_contacts(&mut self, b: &BodySet, materials: &MaterialTable, dt: f64) {
        let found = std::mem::take(&mut self.detection.found);
        self.store.rebuild(found.iter().map(|&(i, j, g)| ContactKey {
            body1: b.handle[i as usize],
            body2: b.handle[j as usize],
            feature: g.feature,
        }));
        self.contacts.clear();
        for (k, &(i, j, g)) in found.iter().enumerate() {
            self.push_contact(k, i, j, &g, b, materials, dt);
        }
        self.detection.found = found;
    }

    /// The contact frame (normal, t, s) of geometry `g` between bodies `iu` and `ju`, and its
    /// Delassus block. The tangent pair is turned onto the principal axes of the tangential
    /// block, so that a locked direction (planar mode: out of the plane) is a frame axis and
    /// the sphere/disc block stays diagonal (000 eq. 19).
    fn contact_frame(&self, iu: usize, ju: usize, g: &ContactGeometry) -> (DMat3, DVec3, DVec3) {
        let (t, s) = tangent_frame(g.normal);
        let mut w = delassus_block([g.normal, t, s], &self.mob[iu], g.branch1, &self.mob[ju], g.branch2);
        let (t, s) = principal_tangents(&w, t, s);
        if t != tangent_frame(g.normal).0 {
            w = delassus_block([g.normal, t, s], &self.mob[iu], g.branch1, &self.mob[ju], g.branch2);
        }
        (w, t, s)
    }

    /// Appends detected contact `k` between bodies `i` and `j` (geometry `g`, normal from
    /// `i` to `j`): its frame and Delassus block, free and initial local velocities, the
    /// law's constants (and its impact process, if any, in the list's side table), and the
    /// warm-start impulse carried from the last step.
    #[allow(clippy::too_many_arguments)]
    fn push_contact(
        &mut self,
        k: usize,
        i: u32,
        j: u32,
        g: &ContactGeometry,
        b: &BodySet,
        materials: &MaterialTable,
        dt: f64,
    ) {
        let (iu, ju) = (i as usize, j as usize);
        let (w, t, s) = self.contact_frame(iu, ju, g);
        let local = |v1: &BodyVelocity, v2: &BodyVelocity| {
            let u = point_relative_velocity(v1.v, v1.w, g.branch1, v2.v, v2.w, g.branch2);
            DVec3::new(u.dot(g.normal), u.dot(t), u.dot(s))
        };
        let u_free = local(&self.vel[iu], &self.vel[ju]);
        let u_before = local(&self.start[iu], &self.start[ju]);
        let carried = self.store.states()[k];
        let setup = ContactSetup {
            material: materials.pair(b.material[iu], b.material[ju]),
            gap: g.gap,
            theta_dt: self.config.theta * dt,
            step_dt: dt,
            gap_mode: self.config.gap,
            normal_velocity_before: u_before.x,
            normal_velocity_free: u_free.x,
        };
        let params = self.law.params(&setup, &carried.state);
        if !L::COUPLES {
            self.contacts.push_process(self.law.impact(&setup, &carried.state));
        }
        let frame = [g.normal, t, s];
        let in_frame = |v: DVec3| if self.config.warm_start { frame.map(|a| v.dot(a)).into() } else { DVec3::ZERO };
        let p0 = in_frame(carried.impulse);
        let coupled = if is_diagonal(&w) {
            u32::MAX
        } else {
            self.contacts.coupled.push(w);
            (self.contacts.coupled.len() - 1) as u32
        };
        if L::COUPLES {
            let om = self.vel[ju].w - self.vel[iu].w;
            let couple = Couple {
                q: in_frame(carried.couple),
                w6: delassus_block6(frame, &self.mob[iu], g.branch1, &self.mob[ju], g.branch2),
                omega_free: frame.map(|a| om.dot(a)).into(),
            };
            self.contacts.couples.push(couple);
        }
        self.contacts.hot.push(HotContact {
            body1: i,
            body2: j,
            n: g.normal,
            t,
            l1: g.branch1,
            l2: g.branch2,
            w_diag: DVec3::new(w.x_axis.x, w.y_axis.y, w.z_axis.z),
            p: p0,
            coupled,
            params,
        });
        self.contacts.cold.push(ColdContact {
            key: self.store.keys()[k],
            store_index: k as u32,
            gap: g.gap,
            point: g.point,
            u_free,
            min_radius: b.radius[iu].min(b.radius[ju]),
        });
    }

    /// Warm start: v = v_free + M⁻¹ H P₀.
    fn warm_start(&mut self) {
        for c in &self.contacts.hot {
            if c.p != DVec3::ZERO {
                apply(c, c.to_world(c.p), &mut self.vel, &self.mob);
            }
        }
        for (c, k) in self.contacts.hot.iter().zip(&self.contacts.couples) {
            if k.q != DVec3::ZERO {
                apply_couple(c, c.to_world(k.q), &mut self.vel, &self.mob);
            }
        }
    }

    /// Reorders the contact list along the Morton curve of the contact points.
    fn sort_spatially(&mut self, position: &[DVec3]) {
        let hot = &self.contacts.hot;
        if hot.is_empty() {
            return;
        }
        let point = |c: &HotContact<L::Params>| position[c.body1 as usize] + c.l1;
        let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
        for c in hot {
            let p = point(c);
            if p.is_finite() {
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
        let scale = (hi - lo).max(DVec3::splat(1e-300));
        self.sort_keys.clear();
        for (k, c) in hot.iter().enumerate() {
            let q = ((point(c) - lo) / scale).clamp(DVec3::ZERO, DVec3::ONE) * 2_097_151.0;
            let key = crate::contacts::morton3(q.x as u64, q.y as u64, q.z as u64);
            self.sort_keys.push((key, k as u32));
        }
        self.sort_keys.sort_unstable();
        self.contacts.permute(&self.sort_keys);
    }
}

/// The farthest a point of body `i`'s surface is from its position, for the speed of its
/// surface |v| + |ω| r: a sphere's radius; for a kinematic body with a bounded box (a mesh
/// drum, whose lifters sweep into the charge at ω times their distance from the axis), the
/// distance to the farthest corner of its box; zero otherwise (a plane or an unbounded
/// cylinder, which turn in themselves, and the other shapes as before).
fn surface_reach(b: &BodySet, i: usize) -> f64 {
    if b.radius[i].is_finite() {
        return b.radius[i];
    }
    if b.motion[i] != MotionKind::Kinematic {
        return 0.0;
    }
    let (bx, x) = (b.aabb(i), b.position[i]);
    let far = (bx.min - x).abs().max((bx.max - x).abs()).length();
    if far.is_finite() {
        far
    } else {
        0.0
    }
}

/// The tangents rotated in their plane onto the principal axes of the tangential 2×2
/// block of `w`, the more mobile one first (the rotation's angle puts the larger eigenvalue
/// on t). A block already diagonal to round-off is kept, except when t has no mobility at
/// all and s has some (planar mode with a normal along ±x: t along z, out of the plane):
/// the frame is then turned to (n, s, −t), so that the locked direction is always s and a
/// planar contact meets the 2D local solver of 004 §2.3.3.4, whose one tangent is t.
fn principal_tangents(w: &DMat3, t: DVec3, s: DVec3) -> (DVec3, DVec3) {
    let (wtt, wss, wts) = (w.y_axis.y, w.z_axis.z, w.z_axis.y);
    if wts.abs() <= crate::delassus::DIAGONAL_TOLERANCE * wtt.abs().max(wss.abs()) {
        if wtt == 0.0 && wss > 0.0 {
            return (s, -t);
        }
        return (t, s);
    }
    let phi = 0.5 * (2.0 * wts).atan2(wtt - wss);
    let (sn, cs) = phi.sin_cos();
    (t * cs + s * sn, s * cs - t * sn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bodies::BodyMobility;
    use crate::delassus::delassus_block;
    use crate::local::{shock_law, LocalProblem};
    use granula_core::math::tangent_frame;

    /// A body of the planar world: translations in x and y, rotation about z only.
    fn planar(m: f64, i_z: f64) -> BodyMobility {
        BodyMobility {
            lin: DVec3::new(1.0 / m, 1.0 / m, 0.0),
            ang: DMat3::from_diagonal(DVec3::new(0.0, 0.0, 1.0 / i_z)),
        }
    }

    #[test]
    fn a_planar_contact_along_x_gets_its_tangent_in_the_plane() {
        // A square's corner (branch (−0.05, 0.05)) on a wall with normal +x (infinite
        // inertia). The first tangent of the default frame is ∓z, out of the plane; the
        // turned frame has t = ±y in the plane and s along z with no mobility.
        let (n, wall, body) = (DVec3::X, BodyMobility::default(), planar(10.0, 10.0 * 0.01 / 6.0));
        let l2 = DVec3::new(-0.05, 0.05, 0.0);
        let (t0, s0) = tangent_frame(n);
        assert!(t0.z.abs() == 1.0, "the default frame of +x: t = {t0}");
        let w0 = delassus_block([n, t0, s0], &wall, DVec3::ZERO, &body, l2);
        let (t, s) = principal_tangents(&w0, t0, s0);
        assert!(t.z == 0.0 && (t.length() - 1.0).abs() < 1e-15 && s.x == 0.0 && s.y == 0.0, "t {t}, s {s}");
        assert!((n.cross(t) - s).length() < 1e-15, "right-handed (n, t, s)");
        let w = delassus_block([n, t, s], &wall, DVec3::ZERO, &body, l2);
        assert!(w.z_axis == DVec3::ZERO && w.y_axis.y > 0.0 && w.y_axis.x != 0.0, "{w}");
        // In that frame the local solve is the 2D graph intersection (004 §2.3.3.4). Its
        // sliding solution (b_t = 1 m/s, μ = 0.3) ends the contact closed with |P_t| = μ P_n;
        // the default frame, whose mobile tangent s₀ is the turned frame's t, gives the same
        // impulse through the three-step law restricted to s₀ (round-off of a 2×2 solve).
        assert_eq!(s0, t);
        let b = DVec3::new(-0.2, 1.0, 0.0);
        let p = shock_law(&LocalProblem { w, b, diagonal: false }, 0.3, 0.0);
        let un = b.x + (w * p).x;
        assert!(un.abs() < 1e-15 && p.x > 0.0 && (p.y.abs() - 0.3 * p.x).abs() < 1e-15 && p.z == 0.0, "{p}");
        let p0 = shock_law(&LocalProblem { w: w0, b: DVec3::new(b.x, 0.0, b.y), diagonal: false }, 0.3, 0.0);
        assert!((p0.x - p.x).abs() < 1e-12 * p.x && (p0.z - p.y).abs() < 1e-12 * p.x && p0.y == 0.0, "{p0} vs {p}");
    }
}
