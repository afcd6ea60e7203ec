//! A nonsmooth Newton method on the whole step's frictional contact problem, with the
//! Alart-Curnier function, a matrix-free Jacobian and a preconditioned GMRES inner solve.
//!
//! The step's problem (000 eqs. 15, 24-25 with the θ-method, in Siconos' form of
//! [`crate::residual`]): per contact α, u_α = (W r + q)_α with u = U − (u_min, 0, 0), so that
//! Signorini's condition reads u_n ≥ 0. Alart and Curnier's augmented Lagrangian function
//! (Alart and Curnier, *Comput. Methods Appl. Mech. Engrg.* 92, 1991; Acary and Brogliato,
//! *Numerical Methods for Nonsmooth Dynamical Systems*, Springer 2008, §13.4.2), with
//! per-contact weights ρ_n, ρ_t > 0,
//!
//! - Φ_n = r_n − max(0, r_n − ρ_n u_n),
//! - Φ_t = r_t − proj_{D(μ max(0, r_n − ρ_n u_n))}(r_t − ρ_t u_t), D(R) the disc of radius R,
//!
//! vanishes exactly at the solutions of Signorini-Coulomb's law (the same set as the
//! natural map of [`crate::residual`]). Φ is piecewise smooth; its generalized Jacobian is
//! ∂Φ = A + B W with 3×3 blocks A_α = ∂Φ_α/∂r_α, B_α = ∂Φ_α/∂u_α ([`alart_curnier`]). This
//! is the formulation of Siconos' `fc3d_nonsmooth_Newton_AlartCurnier` (ρ from the diagonal
//! of W_αα as there); the code here is granula's own.
//!
//! One Newton step solves (A + B W) Δr = −Φ by GMRES (Saad and Schultz, *SIAM J. Sci. Stat.
//! Comput.* 7, 1986; Saad, *Iterative Methods for Sparse Linear Systems*, 2nd ed., Alg. 9.5,
//! right preconditioning) with the block-Jacobi preconditioner (A_α + B_α W_αα)⁻¹, W applied
//! matrix-free body by body (an impulse vector summed into body velocity changes, ELG form of
//! 004 §2.3.3.4, and the relative velocities read back: about the cost of one sweep, no W
//! assembled). The step length follows Armijo's rule on the merit function ½|Φ|²
//! (halving from 1), which costs no further product because u is linear in r:
//! u(r + t Δr) = u + t W Δr. Gauss-Seidel sweeps warm-start the Newton iteration and take
//! over for a few sweeps whenever the line search fails (a Jacobian that is singular on a
//! hyperstatic contact set, or an inexact direction that is no descent direction).
//!
//! On a hyperstatic contact set W is singular (its self-stresses) and GMRES on the plain
//! Jacobian stagnates; the Newton matrix is therefore shifted by λ D (D the diagonal of the
//! blocks W_αα, [`NewtonSettings::regularization`]), a proximal regularization of the
//! linearization only: Φ, and so the solution, are unchanged.
//!
//! Everything runs in a fixed order on one thread: results are the same bits on any thread
//! count and after a restart.

use crate::bodies::{BodyMobility, BodyVelocity};
use crate::contacts::HotContact;
use crate::local::NonSmoothLaw;
use crate::moreau_jean::apply;
use granula_core::{point_relative_velocity, DMat3, DVec3};

/// Settings of the nonsmooth Newton method ([`NscdConfig::newton`](crate::NscdConfig::newton)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonSettings {
    /// Gauss-Seidel sweeps before the first Newton step (warm start of the active set).
    pub warm_sweeps: u32,
    /// Gauss-Seidel sweeps after a failed line search, before Newton is tried again (≥ 1).
    pub fallback_sweeps: u32,
    /// Largest number of GMRES iterations of one Newton step (≥ 1); each is one W product.
    pub gmres_iterations: u32,
    /// GMRES stops when the residual of the linear system is below this fraction of |Φ|
    /// (the forcing term of an inexact Newton method), in (0, 1).
    pub forcing: f64,
    /// Largest number of step halvings of the line search (≥ 1).
    pub line_search_steps: u32,
    /// Preconditioner of the GMRES iterations.
    pub preconditioner: Preconditioner,
    /// Proximal regularization λ ≥ 0 of the Newton matrix: (A + B (W + λ D)) Δr = −Φ with D
    /// the diagonal of the blocks W_αα. Φ is unchanged (the solution is the same); the
    /// shifted matrix is nonsingular on a hyperstatic contact set, whose self-stresses
    /// (the null space of W) otherwise stall GMRES (an inexact Newton direction, Levenberg-
    /// Marquardt style). 0: the plain generalized Jacobian. Default 0.1, the best of
    /// 0, 1e-3, 1e-2, 0.1, 0.3 and 1 on dense_1000 (docs/contact-dynamics.md).
    pub regularization: f64,
}

/// Preconditioner of the Newton system (A + B W) Δr = −Φ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Preconditioner {
    /// Block Jacobi: (A_α + B_α W_αα)⁻¹ per contact (3×3). The default: on dense_1000 the
    /// Gauss-Seidel preconditioners cost more per GMRES iteration than they save.
    #[default]
    BlockJacobi,
    /// One forward block Gauss-Seidel sweep on the linear system from zero (Saad 2nd ed.
    /// §10.2, SOR/SSOR preconditioning with ω = 1), W applied through the bodies as in the
    /// nonlinear sweep: the cost of about one sweep per GMRES iteration on top of the product.
    GaussSeidel,
    /// A forward then a backward block Gauss-Seidel sweep (symmetric Gauss-Seidel, Saad
    /// §10.2): about two sweeps per GMRES iteration on top of the product.
    SymmetricGaussSeidel,
}

impl Default for NewtonSettings {
    fn default() -> Self {
        NewtonSettings {
            warm_sweeps: 20,
            fallback_sweeps: 10,
            gmres_iterations: 30,
            forcing: 0.1,
            line_search_steps: 12,
            preconditioner: Preconditioner::BlockJacobi,
            regularization: 0.1,
        }
    }
}

/// The Alart-Curnier function of one contact and its generalized Jacobian: returns
/// (Φ, A = ∂Φ/∂r, B = ∂Φ/∂u) for impulse `r`, shifted velocity `u` (normal first), friction
/// coefficient `mu` and weights `rho = (ρ_n, ρ_t, ρ_t)` (module documentation; Acary and
/// Brogliato 2008 §13.4.2). Where Φ is not differentiable (the kinks of max and of the
/// projection) the Jacobian of the branch taken is returned, an element of the generalized
/// Jacobian.
pub fn alart_curnier(r: DVec3, u: DVec3, mu: f64, rho: DVec3) -> (DVec3, DMat3, DMat3) {
    let x = r.x - rho.x * u.x;
    let mut a = DMat3::ZERO;
    let mut b = DMat3::ZERO;
    // Normal row.
    let phi_n = if x > 0.0 {
        b.x_axis.x = rho.x;
        rho.x * u.x
    } else {
        a.x_axis.x = 1.0;
        r.x
    };
    // Tangential rows.
    let radius = mu * x.max(0.0);
    let (yt, ys) = (r.y - rho.y * u.y, r.z - rho.z * u.z);
    let norm = (yt * yt + ys * ys).sqrt();
    let (phi_t, phi_s);
    if norm <= radius {
        // Sticking: Φ_t = ρ_t u_t.
        phi_t = rho.y * u.y;
        phi_s = rho.z * u.z;
        b.y_axis.y = rho.y;
        b.z_axis.z = rho.z;
    } else {
        // Sliding (or open, radius 0): Φ_t = r_t − R y/|y|.
        let (ht, hs) = (yt / norm, ys / norm);
        phi_t = r.y - radius * ht;
        phi_s = r.z - radius * hs;
        // G = (I − ŷŷᵀ)/|y|, d(y/|y|)/dy.
        let k = radius / norm;
        let (g_tt, g_ts, g_ss) = (k * (1.0 - ht * ht), -k * ht * hs, k * (1.0 - hs * hs));
        // ∂Φ_t/∂r_t = I − R G; ∂Φ_t/∂u_t = R G diag(ρ_t).
        a.y_axis.y = 1.0 - g_tt;
        a.z_axis.y = -g_ts;
        a.y_axis.z = -g_ts;
        a.z_axis.z = 1.0 - g_ss;
        b.y_axis.y = g_tt * rho.y;
        b.z_axis.y = g_ts * rho.z;
        b.y_axis.z = g_ts * rho.y;
        b.z_axis.z = g_ss * rho.z;
        if x > 0.0 {
            // R = μ (r_n − ρ_n u_n): ∂Φ_t/∂r_n = −μ ŷ, ∂Φ_t/∂u_n = μ ρ_n ŷ.
            a.x_axis.y = -mu * ht;
            a.x_axis.z = -mu * hs;
            b.x_axis.y = mu * rho.x * ht;
            b.x_axis.z = mu * rho.x * hs;
        }
    }
    (DVec3::new(phi_n, phi_t, phi_s), a, b)
}

/// The Alart-Curnier residual alone (no Jacobian), for the line search.
#[inline]
fn alart_curnier_value(r: DVec3, u: DVec3, mu: f64, rho: DVec3) -> DVec3 {
    let x = r.x - rho.x * u.x;
    let phi_n = if x > 0.0 { rho.x * u.x } else { r.x };
    let radius = mu * x.max(0.0);
    let (yt, ys) = (r.y - rho.y * u.y, r.z - rho.z * u.z);
    let norm = (yt * yt + ys * ys).sqrt();
    if norm <= radius {
        DVec3::new(phi_n, rho.y * u.y, rho.z * u.z)
    } else {
        DVec3::new(phi_n, r.y - radius * yt / norm, r.z - radius * ys / norm)
    }
}

/// Weights ρ = (1/W_nn, 1/W_tt, 1/W_ss) from the diagonal of W_αα (as Siconos'
/// `fc3d_AlartCurnier_setParameters` default); a direction without mobility (a locked degree
/// of freedom) takes the normal weight, so that Φ drives its impulse to zero.
#[inline]
fn weights(w: DVec3) -> DVec3 {
    let rn = if w.x > 0.0 { 1.0 / w.x } else { 1.0 };
    let r = |a: f64| if a > 0.0 { 1.0 / a } else { rn };
    DVec3::new(rn, r(w.y), r(w.z))
}

/// Local relative velocity of contact `c` from body velocities `vel` (000 eq. 3).
#[inline(always)]
fn local_velocity<P>(c: &HotContact<P>, vel: &[BodyVelocity]) -> DVec3 {
    let (v1, v2) = (vel[c.body1 as usize], vel[c.body2 as usize]);
    c.to_local(point_relative_velocity(v1.v, v1.w, c.l1, v2.v, v2.w, c.l2))
}

/// Dot product of two impulse vectors, summed in list order.
#[inline]
fn dot(a: &[DVec3], b: &[DVec3]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x.dot(*y)).sum()
}

/// Work arrays of the Newton method, kept from step to step (no allocation once warm).
#[derive(Clone, Debug, Default)]
pub(crate) struct NewtonWork {
    /// Per contact: (μ, u_min).
    law: Vec<(f64, f64)>,
    /// Per contact: the weights ρ.
    rho: Vec<DVec3>,
    /// Per contact: the Delassus block W_αα + λ D_α (the regularized diagonal block).
    w_block: Vec<DMat3>,
    /// Per contact: λ D_α, the regularization's diagonal.
    shift: Vec<DVec3>,
    /// Shifted local velocities u at the current iterate.
    u: Vec<DVec3>,
    /// Φ at the current iterate.
    phi: Vec<DVec3>,
    /// Jacobian blocks A_α, B_α.
    a: Vec<DMat3>,
    b: Vec<DMat3>,
    /// Block-Jacobi preconditioner (A_α + B_α W_αα)⁻¹.
    pre: Vec<DMat3>,
    /// Krylov basis (GMRES), `gmres_iterations + 1` vectors.
    basis: Vec<Vec<DVec3>>,
    /// Preconditioned vector and its image W z.
    z: Vec<DVec3>,
    wz: Vec<DVec3>,
    /// The Newton direction Δr and W Δr.
    dx: Vec<DVec3>,
    wdx: Vec<DVec3>,
    /// Body velocity changes of an impulse vector (the product M⁻¹ H x).
    dvel: Vec<BodyVelocity>,
    /// Hessenberg matrix (column-major, (m + 1) × m), Givens rotations and right-hand side.
    h: Vec<f64>,
    cs: Vec<f64>,
    sn: Vec<f64>,
    g: Vec<f64>,
    y: Vec<f64>,
}

/// What one Newton step did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct NewtonStep {
    /// W products and preconditioner sweeps (GMRES iterations, their preconditioning, and
    /// the product W Δr of the line search), each about the cost of one sweep.
    pub products: u32,
    /// Whether the line search accepted a step (the impulses changed).
    pub accepted: bool,
}

impl NewtonWork {
    /// `out = W x` (local frames), W = H* M⁻¹ H applied through the bodies (000 eq. 15).
    fn product<P>(
        hot: &[HotContact<P>],
        mob: &[BodyMobility],
        x: &[DVec3],
        out: &mut [DVec3],
        dvel: &mut [BodyVelocity],
    ) {
        dvel.iter_mut().for_each(|v| *v = BodyVelocity::default());
        for (c, d) in hot.iter().zip(x) {
            if *d != DVec3::ZERO {
                apply(c, c.to_world(*d), dvel, mob);
            }
        }
        for (c, o) in hot.iter().zip(out.iter_mut()) {
            *o = local_velocity(c, dvel);
        }
    }

    /// `out = M⁻¹ v` for the chosen preconditioner; returns its cost in sweeps (0, 1 or 2).
    fn precondition<P>(
        &mut self,
        kind: Preconditioner,
        hot: &[HotContact<P>],
        mob: &[BodyMobility],
        v_index: usize,
    ) -> u32 {
        let v = &self.basis[v_index];
        match kind {
            Preconditioner::BlockJacobi => {
                for ((z, v), p) in self.z.iter_mut().zip(v).zip(&self.pre) {
                    *z = *p * *v;
                }
                0
            }
            Preconditioner::GaussSeidel | Preconditioner::SymmetricGaussSeidel => {
                self.dvel.iter_mut().for_each(|x| *x = BodyVelocity::default());
                // Forward: z_α = D_α⁻¹ (v_α − B_α (W z)_α) with the earlier contacts' z in the
                // bodies (z_α itself still 0).
                for (k, c) in hot.iter().enumerate() {
                    let wz = local_velocity(c, &self.dvel);
                    let z = self.pre[k] * (v[k] - self.b[k] * wz);
                    self.z[k] = z;
                    if z != DVec3::ZERO {
                        apply(c, c.to_world(z), &mut self.dvel, mob);
                    }
                }
                if kind == Preconditioner::GaussSeidel {
                    return 1;
                }
                for (k, c) in hot.iter().enumerate().rev() {
                    let wz = local_velocity(c, &self.dvel);
                    let r = v[k] - self.a[k] * self.z[k] - self.b[k] * (wz + self.shift[k] * self.z[k]);
                    let dz = self.pre[k] * r;
                    if dz != DVec3::ZERO {
                        apply(c, c.to_world(dz), &mut self.dvel, mob);
                        self.z[k] += dz;
                    }
                }
                2
            }
        }
    }

    /// Sets up the per-contact constants of a step. Returns `false` (and the method does
    /// not apply) when the law has no Signorini-Coulomb form.
    pub(crate) fn setup<L: NonSmoothLaw>(
        &mut self,
        law: &L,
        hot: &[HotContact<L::Params>],
        coupled: &[DMat3],
        n_bodies: usize,
        settings: &NewtonSettings,
    ) -> bool {
        let n = hot.len();
        self.law.clear();
        self.rho.clear();
        self.w_block.clear();
        self.shift.clear();
        for c in hot {
            let Some(s) = law.shock_params(&c.params) else {
                return false;
            };
            self.law.push((s.mu, s.min_normal_velocity));
            let w = if c.coupled == u32::MAX { DMat3::from_diagonal(c.w_diag) } else { coupled[c.coupled as usize] };
            let diagonal = DVec3::new(w.x_axis.x, w.y_axis.y, w.z_axis.z);
            self.rho.push(weights(diagonal));
            self.w_block.push(w + DMat3::from_diagonal(diagonal * settings.regularization));
            self.shift.push(diagonal * settings.regularization);
        }
        for v in [&mut self.u, &mut self.phi, &mut self.z, &mut self.wz, &mut self.dx, &mut self.wdx] {
            v.clear();
            v.resize(n, DVec3::ZERO);
        }
        for v in [&mut self.a, &mut self.b, &mut self.pre] {
            v.clear();
            v.resize(n, DMat3::ZERO);
        }
        let m = settings.gmres_iterations as usize;
        self.basis.resize_with(m + 1, Vec::new);
        self.basis.truncate(m + 1);
        for v in &mut self.basis {
            v.clear();
            v.resize(n, DVec3::ZERO);
        }
        self.dvel.clear();
        self.dvel.resize(n_bodies, BodyVelocity::default());
        self.h.clear();
        self.h.resize((m + 1) * m, 0.0);
        for v in [&mut self.cs, &mut self.sn, &mut self.g, &mut self.y] {
            v.clear();
            v.resize(m + 1, 0.0);
        }
        true
    }

    /// One Newton step from the impulses of `hot` and the body velocities `vel` (kept
    /// consistent, v = v_free + M⁻¹ H r): Φ and its Jacobian, GMRES on (A + B W) Δr = −Φ,
    /// Armijo's line search on ½|Φ|², and r ← r + t Δr with the bodies updated.
    pub(crate) fn step<P>(
        &mut self,
        settings: &NewtonSettings,
        hot: &mut [HotContact<P>],
        vel: &mut [BodyVelocity],
        mob: &[BodyMobility],
    ) -> NewtonStep {
        // Φ, A, B and the block-Jacobi preconditioner at the current iterate.
        let mut merit0 = 0.0;
        for (k, c) in hot.iter().enumerate() {
            let (mu, u_min) = self.law[k];
            let u = local_velocity(c, vel) - DVec3::new(u_min, 0.0, 0.0);
            let (phi, a, b) = alart_curnier(c.p, u, mu, self.rho[k]);
            self.u[k] = u;
            self.phi[k] = phi;
            self.a[k] = a;
            self.b[k] = b;
            let block = a + b * self.w_block[k];
            let det = block.determinant();
            // A block with a vanishing determinant (a sticking contact whose W_αα is
            // singular: a locked direction) is left unpreconditioned.
            let scale = block.to_cols_array().iter().fold(0.0f64, |m, x| m.max(x.abs()));
            self.pre[k] =
                if det.is_finite() && det.abs() > 1e-14 * scale.powi(3) { block.inverse() } else { DMat3::IDENTITY };
            merit0 += phi.length_squared();
        }
        if merit0 == 0.0 {
            return NewtonStep { products: 0, accepted: false };
        }
        let products = self.gmres(settings, hot, mob, merit0.sqrt());
        // The line search: u is linear in r, so one product gives u along the whole ray.
        Self::product(hot, mob, &self.dx, &mut self.wdx, &mut self.dvel);
        let products = products + 1;
        const SIGMA: f64 = 1e-4;
        let mut t = 1.0;
        for _ in 0..settings.line_search_steps {
            let mut merit = 0.0;
            for (k, c) in hot.iter().enumerate() {
                let (mu, _) = self.law[k];
                let phi = alart_curnier_value(c.p + self.dx[k] * t, self.u[k] + self.wdx[k] * t, mu, self.rho[k]);
                merit += phi.length_squared();
            }
            // Armijo: the directional derivative of |Φ|² along an exact Newton direction
            // is −2 |Φ|².
            if merit.is_finite() && merit <= (1.0 - 2.0 * SIGMA * t) * merit0 {
                for (c, dx) in hot.iter_mut().zip(&self.dx) {
                    let d = *dx * t;
                    if d != DVec3::ZERO {
                        apply(c, c.to_world(d), vel, mob);
                        c.p += d;
                    }
                }
                return NewtonStep { products, accepted: true };
            }
            t *= 0.5;
        }
        NewtonStep { products, accepted: false }
    }

    /// GMRES with right preconditioning (Saad, Alg. 9.5) from Δr = 0 on
    /// (A + B (W + λ D)) Δr = −Φ; leaves Δr in `dx` and returns the number of W products
    /// and preconditioner passes.
    fn gmres<P>(&mut self, settings: &NewtonSettings, hot: &[HotContact<P>], mob: &[BodyMobility], beta: f64) -> u32 {
        let m = settings.gmres_iterations as usize;
        let tol = settings.forcing * beta;
        for (v, phi) in self.basis[0].iter_mut().zip(&self.phi) {
            *v = -*phi / beta;
        }
        self.g.iter_mut().for_each(|x| *x = 0.0);
        self.g[0] = beta;
        let h = |i: usize, j: usize| i + j * (m + 1);
        let mut k = 0;
        let mut cost = 0;
        while k < m {
            // z = M⁻¹ v_k, w = J z = A z + B W z.
            cost += self.precondition(settings.preconditioner, hot, mob, k);
            Self::product(hot, mob, &self.z, &mut self.wz, &mut self.dvel);
            let (head, tail) = self.basis.split_at_mut(k + 1);
            let w = &mut tail[0];
            for (i, wi) in w.iter_mut().enumerate() {
                *wi = self.a[i] * self.z[i] + self.b[i] * (self.wz[i] + self.shift[i] * self.z[i]);
            }
            // Modified Gram-Schmidt.
            for (i, v) in head.iter().enumerate() {
                let hij = dot(w, v);
                self.h[h(i, k)] = hij;
                for (x, y) in w.iter_mut().zip(v) {
                    *x -= *y * hij;
                }
            }
            let norm = dot(w, w).sqrt();
            self.h[h(k + 1, k)] = norm;
            if norm > 0.0 {
                w.iter_mut().for_each(|x| *x /= norm);
            }
            // Previous rotations on the new column, then a new rotation.
            for i in 0..k {
                let (a, b) = (self.h[h(i, k)], self.h[h(i + 1, k)]);
                self.h[h(i, k)] = self.cs[i] * a + self.sn[i] * b;
                self.h[h(i + 1, k)] = -self.sn[i] * a + self.cs[i] * b;
            }
            let (a, b) = (self.h[h(k, k)], self.h[h(k + 1, k)]);
            let r = a.hypot(b);
            let (c, s) = if r > 0.0 { (a / r, b / r) } else { (1.0, 0.0) };
            self.cs[k] = c;
            self.sn[k] = s;
            self.h[h(k, k)] = r;
            self.h[h(k + 1, k)] = 0.0;
            self.g[k + 1] = -s * self.g[k];
            self.g[k] *= c;
            k += 1;
            if self.g[k].abs() <= tol || norm == 0.0 || !r.is_finite() {
                break;
            }
        }
        // Back substitution H y = g on the k × k triangle (zero pivots: y = 0).
        for i in (0..k).rev() {
            let mut s = self.g[i];
            for j in i + 1..k {
                s -= self.h[h(i, j)] * self.y[j];
            }
            let d = self.h[h(i, i)];
            self.y[i] = if d != 0.0 && d.is_finite() { s / d } else { 0.0 };
        }
        // Δr = M⁻¹ Σ y_i v_i (the sum built in the last basis vector, no longer needed).
        let (head, tail) = self.basis.split_at_mut(k);
        let sum = &mut tail[0];
        sum.iter_mut().for_each(|x| *x = DVec3::ZERO);
        for (i, v) in head.iter().enumerate() {
            let yi = self.y[i];
            for (s, v) in sum.iter_mut().zip(v) {
                *s += *v * yi;
            }
        }
        cost += self.precondition(settings.preconditioner, hot, mob, k);
        self.dx.copy_from_slice(&self.z);
        k as u32 + cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Finite-difference check of the Jacobian blocks on a smooth point of each branch.
    #[test]
    fn jacobian_blocks_match_finite_differences_on_each_branch() {
        let mu = 0.4;
        let rho = DVec3::new(2.0, 3.0, 3.0);
        // (r, u): sliding with contact; sticking; open.
        let cases = [
            (DVec3::new(1.0, 0.9, -0.3), DVec3::new(-0.1, 0.2, 0.1)),
            (DVec3::new(1.0, 0.1, 0.05), DVec3::new(0.01, 0.01, -0.02)),
            (DVec3::new(-0.2, 0.3, 0.1), DVec3::new(0.5, 0.2, 0.1)),
        ];
        let h = 1e-7;
        for (r, u) in cases {
            let (_, a, b) = alart_curnier(r, u, mu, rho);
            for j in 0..3 {
                let mut e = DVec3::ZERO;
                e[j] = h;
                let dr = (alart_curnier_value(r + e, u, mu, rho) - alart_curnier_value(r - e, u, mu, rho)) / (2.0 * h);
                let du = (alart_curnier_value(r, u + e, mu, rho) - alart_curnier_value(r, u - e, mu, rho)) / (2.0 * h);
                // Central differences of a function smooth near the point: error O(h²)
                // times third derivatives of order 1/|y|² ≈ 1, far below 1e-6.
                assert!((a.col(j) - dr).length() < 1e-6, "A column {j} at r = {r}, u = {u}");
                assert!((b.col(j) - du).length() < 1e-6, "B column {j} at r = {r}, u = {u}");
            }
        }
    }

    #[test]
    fn alart_curnier_vanishes_on_the_three_cases_of_coulombs_law() {
        let (mu, rho) = (0.5, DVec3::new(1.0, 1.5, 1.5));
        // Open, sticking, sliding (r_t = −μ r_n u_t/|u_t|, u_n = 0).
        let cases = [
            (DVec3::ZERO, DVec3::new(1.0, 0.2, -0.1)),
            (DVec3::new(1.0, 0.1, 0.2), DVec3::ZERO),
            (DVec3::new(2.0, -0.6, -0.8), DVec3::new(0.0, 0.3, 0.4)),
        ];
        for (r, u) in cases {
            let phi = alart_curnier(r, u, mu, rho).0;
            assert!(phi.length() < 1e-15, "Φ = {phi} at r = {r}, u = {u}");
        }
        // Not a solution: sticking impulse with a residual sliding velocity.
        assert!(alart_curnier(DVec3::new(1.0, 0.1, 0.2), DVec3::new(0.0, 0.1, 0.0), mu, rho).0.length() > 1e-3);
    }
}
