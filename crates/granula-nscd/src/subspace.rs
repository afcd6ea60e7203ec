//! Subspace correction of the Gauss-Seidel iterate: a conjugate-gradient solve of the
//! linear problem of the active contacts, matrix-free on W = H* M⁻¹ H (000 eq. 15), then
//! projection onto the law's admissible set.
//!
//! Gauss-Seidel relaxes a force disturbance diffusively (000 eqs. 42-50): the slow modes of
//! a packing L deep need of the order of (L/d)² sweeps. On the set of contacts that the
//! sweeps have found active, the law is linear: a sticking contact asks for
//! U = (u_min, 0, 0) (001 eq. 1.27; 000 eq. 28 in impulse form), a sliding one for
//! U_n = u_min with its tangential impulse on the cone (001 eqs. 1.28-1.29), which this
//! correction keeps fixed. That linear problem, W_FF ΔP_F = U*_F − U_F on the free
//! components F, is symmetric positive semi-definite, and conjugate gradients reduce its
//! slow modes in of the order of L/d iterations instead of (L/d)² sweeps. This is the
//! projected Gauss-Seidel subspace minimization of Silcowitz, Niebe and Erleben
//! (*Projected Gauss-Seidel subspace minimization method for interactive rigid body
//! dynamics*, GRAPP 2010), after the gradient projection - conjugate gradient scheme of
//! Moré and Toraldo (*SIAM J. Optim.* 1, 1991) for bound-constrained quadratic programs:
//! the sweeps estimate the active set, the Krylov solve moves the long wavelengths, the
//! projection and the next sweeps correct the active set.
//!
//! A product W d costs one pass over the contacts (d's impulses summed into body velocity
//! changes, ELG form of 004 §2.3.3.4) and one pass reading the relative velocities back:
//! about the cost of one Gauss-Seidel sweep, without assembling W.

use crate::bodies::{BodyMobility, BodyVelocity};
use crate::contacts::HotContact;
use crate::local::{ContactStatus, NonSmoothLaw};
use crate::moreau_jean::apply;
use granula_core::{point_relative_velocity, DVec3};

/// Settings of the subspace correction ([`NscdConfig::correction`](crate::NscdConfig::correction)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubspaceCorrection {
    /// Gauss-Seidel sweeps between two corrections (≥ 1): the sweeps find the active set
    /// and damp the short wavelengths, the correction the long ones.
    pub sweeps_between: u32,
    /// Largest number of conjugate-gradient iterations of one correction (≥ 1).
    pub cg_iterations: u32,
    /// The conjugate gradients stop when the preconditioned residual norm rᵀ D⁻¹ r has
    /// dropped by this factor (in (0, 1)); D is the diagonal of W.
    pub cg_reduction: f64,
}

impl Default for SubspaceCorrection {
    fn default() -> Self {
        SubspaceCorrection { sweeps_between: 20, cg_iterations: 50, cg_reduction: 1e-6 }
    }
}

/// Work arrays of the correction, kept from step to step (no allocation once warm).
#[derive(Clone, Debug, Default)]
pub(crate) struct SubspaceWork {
    /// Free components of each contact (1 or 0 per local axis).
    mask: Vec<DVec3>,
    /// The solution increment ΔP (local frame).
    x: Vec<DVec3>,
    /// Residual U* − U − W ΔP on the free components.
    r: Vec<DVec3>,
    /// Preconditioned residual D⁻¹ r.
    z: Vec<DVec3>,
    /// Search direction.
    d: Vec<DVec3>,
    /// W d on the free components.
    wd: Vec<DVec3>,
    /// Body velocity changes of an impulse vector (the product M⁻¹ H d).
    dvel: Vec<BodyVelocity>,
}

/// Componentwise reciprocal of the diagonal of W on the free components (Jacobi
/// preconditioner), 0 on locked or fixed components.
#[inline(always)]
fn jacobi(w: DVec3, mask: DVec3) -> DVec3 {
    let inv = |a: f64, m: f64| if a > 0.0 && m != 0.0 { 1.0 / a } else { 0.0 };
    DVec3::new(inv(w.x, mask.x), inv(w.y, mask.y), inv(w.z, mask.z))
}

/// Local relative velocity of contact `c` from body velocities `vel` (000 eq. 3).
#[inline(always)]
fn local_velocity<P>(c: &HotContact<P>, vel: &[BodyVelocity]) -> DVec3 {
    let (v1, v2) = (vel[c.body1 as usize], vel[c.body2 as usize]);
    c.to_local(point_relative_velocity(v1.v, v1.w, c.l1, v2.v, v2.w, c.l2))
}

impl SubspaceWork {
    /// `out = mask ∘ (W d)`: the impulses `d` summed into body velocity changes, then the
    /// relative velocities they cause read back (W = H* M⁻¹ H, 000 eq. 15). Returns dᵀ W d.
    fn product<P>(&mut self, hot: &[HotContact<P>], mob: &[BodyMobility]) -> f64 {
        self.dvel.iter_mut().for_each(|v| *v = BodyVelocity::default());
        for (c, d) in hot.iter().zip(&self.d) {
            if *d != DVec3::ZERO {
                apply(c, c.to_world(*d), &mut self.dvel, mob);
            }
        }
        let mut dwd = 0.0;
        for ((c, m), (d, out)) in hot.iter().zip(&self.mask).zip(self.d.iter().zip(self.wd.iter_mut())) {
            *out = if *m == DVec3::ZERO { DVec3::ZERO } else { *m * local_velocity(c, &self.dvel) };
            dwd += d.dot(*out);
        }
        dwd
    }

    /// One correction: classifies the contacts by their current impulse
    /// ([`NonSmoothLaw::status`]), solves W_FF ΔP_F = U*_F − U_F by Jacobi-preconditioned
    /// conjugate gradients (Hestenes and Stiefel 1952; Saad, *Iterative Methods for Sparse
    /// Linear Systems*, 2nd ed., Alg. 9.1) from ΔP = 0, and applies P ← proj(P + ΔP)
    /// ([`NonSmoothLaw::project`]) to the contacts and the bodies. Returns the number of
    /// CG iterations done, or `None` when the law has no linearization or no projection
    /// (nothing is changed then).
    pub(crate) fn correct<L: NonSmoothLaw>(
        &mut self,
        law: &L,
        settings: &SubspaceCorrection,
        hot: &mut [HotContact<L::Params>],
        vel: &mut [BodyVelocity],
        mob: &[BodyMobility],
    ) -> Option<u32> {
        let n = hot.len();
        for v in [&mut self.mask, &mut self.x, &mut self.r, &mut self.z, &mut self.d, &mut self.wd] {
            v.clear();
            v.resize(n, DVec3::ZERO);
        }
        self.dvel.clear();
        self.dvel.resize(vel.len(), BodyVelocity::default());
        // Free components and the residual U* − U of the active linear problem.
        let mut rz = 0.0;
        for (a, c) in hot.iter().enumerate() {
            let u_min = law.shock_params(&c.params)?.min_normal_velocity;
            let m = match law.status(&c.params, c.p) {
                ContactStatus::Open => DVec3::ZERO,
                ContactStatus::Sticking => DVec3::ONE,
                _ => DVec3::X,
            };
            let m = DVec3::new(
                if c.w_diag.x > 0.0 { m.x } else { 0.0 },
                if c.w_diag.y > 0.0 { m.y } else { 0.0 },
                if c.w_diag.z > 0.0 { m.z } else { 0.0 },
            );
            self.mask[a] = m;
            if m == DVec3::ZERO {
                continue;
            }
            let r = m * (DVec3::new(u_min, 0.0, 0.0) - local_velocity(c, vel));
            self.r[a] = r;
            let z = jacobi(c.w_diag, m) * r;
            self.z[a] = z;
            self.d[a] = z;
            rz += r.dot(z);
        }
        law.project(&hot.first()?.params, DVec3::ZERO)?;
        let stop = rz * settings.cg_reduction;
        let mut iterations = 0;
        while iterations < settings.cg_iterations && rz > stop && rz > 0.0 {
            iterations += 1;
            let dwd = self.product(hot, mob);
            // dᵀ W d / dᵀ D d is the Rayleigh quotient of the Jacobi-scaled W, in (0, 3] for
            // spheres; below 1e-12 the direction lies in W's null space (a hyperstatic set
            // of contacts) up to round-off, and a step along it would be round-off noise
            // amplified.
            let ddd: f64 = hot.iter().zip(&self.d).map(|(c, d)| d.dot(c.w_diag * *d)).sum();
            if !(dwd > 1e-12 * ddd && dwd.is_finite()) {
                break;
            }
            let alpha = rz / dwd;
            let mut rz_new = 0.0;
            for (a, c) in hot.iter().enumerate() {
                let m = self.mask[a];
                if m == DVec3::ZERO {
                    continue;
                }
                self.x[a] += self.d[a] * alpha;
                self.r[a] -= self.wd[a] * alpha;
                self.z[a] = jacobi(c.w_diag, m) * self.r[a];
                rz_new += self.r[a].dot(self.z[a]);
            }
            let beta = rz_new / rz;
            rz = rz_new;
            for (d, z) in self.d.iter_mut().zip(&self.z) {
                *d = *z + *d * beta;
            }
        }
        if !self.x.iter().all(|x| x.is_finite()) {
            return Some(iterations);
        }
        for (c, x) in hot.iter_mut().zip(&self.x) {
            if *x == DVec3::ZERO {
                continue;
            }
            let p = law.project(&c.params, c.p + *x)?;
            let dp = p - c.p;
            if dp != DVec3::ZERO {
                apply(c, c.to_world(dp), vel, mob);
                c.p = p;
            }
        }
        Some(iterations)
    }
}
