//! Accelerated projected gradient descent (APGD) on the step's contact impulses, after
//! Mazhar, Heyn, Negrut and Tasora (*Using Nesterov's method to accelerate multibody
//! dynamics with friction and contact*, ACM Trans. Graph. 34, 2015, Alg. 2), granula's own
//! code.
//!
//! The step's problem in the form of [`crate::residual`], u = W r + q (W = H* M⁻¹ H,
//! 000 eq. 15; q the free local velocity shifted by u_min so that Signorini reads u_n ≥ 0),
//! without De Saxcé's term is the cone-constrained quadratic program
//! min f(r) = ½ rᵀ W r + qᵀ r over r_α ∈ K_μ (the convex relaxation of Coulomb's law that
//! Chrono solves; it differs from Coulomb's law on sliding contacts only). APGD is
//! Nesterov's accelerated gradient projection on it: y the extrapolated point,
//! γ ← Π_K(y − t ∇f(y)), a backtracking test f(γ) ≤ f(y) + ∇f(y)·(γ − y) + L/2 |γ − y|²
//! (L ← 2L on failure, t = 1/L), momentum β = θ_k (1 − θ_k)/(θ_k² + θ_{k+1}),
//! θ_{k+1}² = (1 − θ_{k+1}) θ_k², a restart when ∇f(y)·(γ_{k+1} − γ_k) > 0 (O'Donoghue and
//! Candès 2015) and L ← 0.9 L after each step. The number of iterations of Nesterov's
//! method grows as √κ (κ the condition number of W on the active set), where Gauss-Seidel
//! grows as κ: for a bed L deep, as L/d instead of (L/d)² (000 eq. 45).
//!
//! W is applied matrix-free through the bodies (one product costs about one sweep); W y is
//! carried along the linear extrapolations, so an iteration costs one product per
//! backtracking try. Everything runs in list order on one thread.

use crate::bodies::{BodyMobility, BodyVelocity};
use crate::contacts::{ColdContact, HotContact};
use crate::local::NonSmoothLaw;
use crate::moreau_jean::apply;
use granula_core::{point_relative_velocity, DVec3};

/// Settings of APGD ([`NscdConfig::apgd`](crate::NscdConfig::apgd)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ApgdSettings {
    /// Iterations between two evaluations of the natural-map residual (≥ 1; each costs
    /// about two thirds of a sweep).
    pub check_every: u32,
}

impl Default for ApgdSettings {
    fn default() -> Self {
        ApgdSettings { check_every: 5 }
    }
}

/// Work arrays of APGD, kept from step to step.
#[derive(Clone, Debug, Default)]
pub(crate) struct ApgdWork {
    gamma: Vec<DVec3>,
    w_gamma: Vec<DVec3>,
    next: Vec<DVec3>,
    w_next: Vec<DVec3>,
    y: Vec<DVec3>,
    w_y: Vec<DVec3>,
    q: Vec<DVec3>,
    dvel: Vec<BodyVelocity>,
}

/// `out = W x` through the bodies (000 eq. 15): impulses summed into body velocity
/// changes, relative velocities read back.
fn product<P>(hot: &[HotContact<P>], mob: &[BodyMobility], x: &[DVec3], dvel: &mut [BodyVelocity], out: &mut [DVec3]) {
    dvel.iter_mut().for_each(|v| *v = BodyVelocity::default());
    for (c, x) in hot.iter().zip(x) {
        if *x != DVec3::ZERO {
            apply(c, c.to_world(*x), dvel, mob);
        }
    }
    for (c, o) in hot.iter().zip(out.iter_mut()) {
        let (v1, v2) = (dvel[c.body1 as usize], dvel[c.body2 as usize]);
        *o = c.to_local(point_relative_velocity(v1.v, v1.w, c.l1, v2.v, v2.w, c.l2));
    }
}

fn dot(a: &[DVec3], b: &[DVec3]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x.dot(*y)).sum()
}

/// f(x) = ½ xᵀ W x + qᵀ x from x, W x and q.
fn objective(x: &[DVec3], wx: &[DVec3], q: &[DVec3]) -> f64 {
    x.iter().zip(wx).zip(q).map(|((x, w), q)| x.dot(*w * 0.5 + *q)).sum()
}

impl ApgdWork {
    /// Sets up from the contacts' present impulses; `false` when the law has no
    /// Signorini-Coulomb form or no projection.
    pub(crate) fn setup<L: NonSmoothLaw>(
        &mut self,
        law: &L,
        hot: &[HotContact<L::Params>],
        cold: &[ColdContact],
        mob: &[BodyMobility],
        n_bodies: usize,
    ) -> bool {
        let n = hot.len();
        if n == 0 || law.project(&hot[0].params, DVec3::ZERO).is_none() {
            return false;
        }
        self.q.clear();
        for (c, k) in hot.iter().zip(cold) {
            match law.shock_params(&c.params) {
                Some(s) => self.q.push(k.u_free - DVec3::new(s.min_normal_velocity, 0.0, 0.0)),
                None => return false,
            }
        }
        for v in [&mut self.gamma, &mut self.w_gamma, &mut self.next, &mut self.w_next, &mut self.y, &mut self.w_y] {
            v.clear();
            v.resize(n, DVec3::ZERO);
        }
        self.dvel.clear();
        self.dvel.resize(n_bodies, BodyVelocity::default());
        for (g, c) in self.gamma.iter_mut().zip(hot) {
            *g = c.p;
        }
        product(hot, mob, &self.gamma, &mut self.dvel, &mut self.w_gamma);
        true
    }

    /// A first Lipschitz estimate |W x| / |x| with x the unit vector of every component
    /// (the backtracking corrects an underestimate, the 0.9 decay an overestimate).
    pub(crate) fn lipschitz<P>(&mut self, hot: &[HotContact<P>], mob: &[BodyMobility]) -> f64 {
        self.y.iter_mut().for_each(|y| *y = DVec3::ONE);
        product(hot, mob, &self.y, &mut self.dvel, &mut self.w_y);
        let l = (dot(&self.w_y, &self.w_y) / dot(&self.y, &self.y)).sqrt();
        self.y.copy_from_slice(&self.gamma);
        self.w_y.copy_from_slice(&self.w_gamma);
        if l.is_finite() && l > 0.0 {
            l
        } else {
            1.0
        }
    }

    /// One APGD iteration from (γ, y, θ, L): returns the new (θ, L) and the W products
    /// done, or `None` when the projection failed.
    pub(crate) fn iterate<L: NonSmoothLaw>(
        &mut self,
        law: &L,
        hot: &[HotContact<L::Params>],
        mob: &[BodyMobility],
        theta: f64,
        mut lipschitz: f64,
    ) -> Option<(f64, f64, u32)> {
        let mut products = 0;
        // g = W y + q (kept in `next` until γ_new is formed).
        let f_y = objective(&self.y, &self.w_y, &self.q);
        loop {
            let t = 1.0 / lipschitz;
            for (a, c) in hot.iter().enumerate() {
                let g = self.w_y[a] + self.q[a];
                self.next[a] = law.project(&c.params, self.y[a] - g * t)?;
            }
            product(hot, mob, &self.next, &mut self.dvel, &mut self.w_next);
            products += 1;
            let f_next = objective(&self.next, &self.w_next, &self.q);
            let (mut lin, mut dist) = (0.0, 0.0);
            for a in 0..hot.len() {
                let d = self.next[a] - self.y[a];
                lin += (self.w_y[a] + self.q[a]).dot(d);
                dist += d.length_squared();
            }
            // Sufficient decrease (Mazhar et al. 2015, Alg. 2, line 8), with a round-off
            // allowance of 1e-14 of |f(y)|.
            if f_next <= f_y + lin + 0.5 * lipschitz * dist + 1e-14 * f_y.abs() || products >= 40 {
                break;
            }
            lipschitz *= 2.0;
        }
        let theta_next = 0.5 * (-theta * theta + theta * (theta * theta + 4.0).sqrt());
        let beta = theta * (1.0 - theta) / (theta * theta + theta_next);
        // Restart test: the gradient at y against the step γ_new − γ.
        let mut along = 0.0;
        for a in 0..hot.len() {
            along += (self.w_y[a] + self.q[a]).dot(self.next[a] - self.gamma[a]);
        }
        let (beta, theta_next) = if along > 0.0 { (0.0, 1.0) } else { (beta, theta_next) };
        for a in 0..hot.len() {
            self.y[a] = self.next[a] + (self.next[a] - self.gamma[a]) * beta;
            self.w_y[a] = self.w_next[a] + (self.w_next[a] - self.w_gamma[a]) * beta;
        }
        std::mem::swap(&mut self.gamma, &mut self.next);
        std::mem::swap(&mut self.w_gamma, &mut self.w_next);
        Some((theta_next, 0.9 * lipschitz, products))
    }

    /// Writes γ into the contacts and their impulse changes into the body velocities.
    pub(crate) fn publish<P>(&self, hot: &mut [HotContact<P>], vel: &mut [BodyVelocity], mob: &[BodyMobility]) {
        for (c, g) in hot.iter_mut().zip(&self.gamma) {
            let dp = *g - c.p;
            if dp != DVec3::ZERO {
                apply(c, c.to_world(dp), vel, mob);
                c.p = *g;
            }
        }
    }
}
