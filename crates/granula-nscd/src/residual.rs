//! The natural-map residual of the whole step's frictional contact problem, as Siconos
//! defines it (Acary and Brogliato, *Numerical Methods for Nonsmooth Dynamical Systems*,
//! Springer 2008, §13.3; Siconos' `fc3d_compute_error`), so that granula's and Siconos'
//! solvers are compared on one measure of the distance to a solution.
//!
//! The step's problem in Siconos' form (000 eqs. 15, 24-25 with the θ-method): per contact
//! u = W r + q, r the impulse, u the local velocity shifted so that Signorini's condition
//! reads u_n ≥ 0, i.e. u = U − (u_min, 0, 0) and q = U_free − (u_min, 0, 0). Coulomb's law
//! with De Saxcé's modified velocity û = u + (μ |u_t|, 0, 0) is the cone complementarity
//! K_μ ∋ r ⊥ û ∈ K_μ*, equivalent to the fixed point r = proj_{K_μ}(r − û) (natural map,
//! ρ = 1). The residual is
//!
//! e = √(Σ_α |r_α − proj_{K_μ}(r_α − û_α)|²) / |q|,
//!
//! with |q| the Euclidean norm of q over all contacts.

use crate::bodies::BodyVelocity;
use crate::contacts::{ContactList, NO_PROCESS};
use crate::local::{LocalProblem, NonSmoothLaw};
use granula_core::{point_relative_velocity, DMat3, DVec3};

/// Projection of `y` (normal first) onto the Coulomb cone
/// K_μ = {r : |r_t| ≤ μ r_n} (the second-order cone projection).
#[inline]
pub fn project_on_cone(y: DVec3, mu: f64) -> DVec3 {
    let t = (y.y * y.y + y.z * y.z).sqrt();
    if t <= mu * y.x {
        y
    } else if mu * t <= -y.x {
        DVec3::ZERO
    } else {
        let n = (mu * t + y.x) / (mu * mu + 1.0);
        let f = if t > 0.0 { mu * n / t } else { 0.0 };
        DVec3::new(n, y.y * f, y.z * f)
    }
}

/// The natural-map residual of one contact, |r − proj_{K_μ}(r − û)|², û = u + (μ |u_t|, 0, 0)
/// (De Saxcé's modified velocity).
#[inline]
pub fn natural_map_squared(r: DVec3, u: DVec3, mu: f64) -> f64 {
    let ut = (u.y * u.y + u.z * u.z).sqrt();
    let y = r - DVec3::new(u.x + mu * ut, u.y, u.z);
    (r - project_on_cone(y, mu)).length_squared()
}

/// The relative natural-map residual e of the module documentation for the step's
/// `contacts` and body velocities `vel` (v = v_free + M⁻¹ H P), or `None` when the law
/// is not Signorini-Coulomb's ([`NonSmoothLaw::shock_params`]). A problem with q = 0 gets
/// the absolute residual.
///
/// A contact with an impact process ([`NonSmoothLaw::impact`]) does not obey the linear law
/// U_n = u_min: its term is the change its own local solve would still make, in velocity
/// units, |W_αα (P_α − solve_impact(b_α))|², zero exactly when the contact is at its fixed
/// point (the natural map's ρ = 1 compares velocities likewise).
pub fn natural_map_residual<L: NonSmoothLaw>(
    law: &L,
    contacts: &ContactList<L::Params>,
    vel: &[BodyVelocity],
) -> Option<f64> {
    let (mut sum, mut q2) = (0.0, 0.0);
    for (a, (c, k)) in contacts.hot.iter().zip(&contacts.cold).enumerate() {
        let s = law.shock_params(&c.params)?;
        let shift = DVec3::new(s.min_normal_velocity, 0.0, 0.0);
        let (v1, v2) = (vel[c.body1 as usize], vel[c.body2 as usize]);
        let u = c.to_local(point_relative_velocity(v1.v, v1.w, c.l1, v2.v, v2.w, c.l2));
        let process = contacts.process_of.get(a).copied().unwrap_or(NO_PROCESS);
        sum += match process {
            NO_PROCESS => natural_map_squared(c.p, u - shift, s.mu),
            i => {
                let w = if c.coupled == u32::MAX {
                    DMat3::from_diagonal(c.w_diag)
                } else {
                    contacts.coupled[c.coupled as usize]
                };
                let problem = LocalProblem { w, b: u - w * c.p, diagonal: c.coupled == u32::MAX };
                let next = law.solve_impact(&problem, &c.params, &contacts.processes[i as usize]);
                (w * (c.p - next)).length_squared()
            }
        };
        q2 += (k.u_free - shift).length_squared();
    }
    let norm = q2.sqrt();
    Some(if norm > f64::EPSILON { sum.sqrt() / norm } else { sum.sqrt() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cone_projection_keeps_inside_points_and_maps_polar_points_to_the_apex() {
        let mu = 0.5;
        let inside = DVec3::new(1.0, 0.3, 0.2);
        assert_eq!(project_on_cone(inside, mu), inside);
        assert_eq!(project_on_cone(DVec3::new(-1.0, 0.1, 0.0), mu), DVec3::ZERO);
        // (0, 1, 0) projects onto the generatrix (n, μ n, 0) with n = μ/(μ² + 1): the
        // difference is orthogonal to the generatrix direction (1, μ, 0).
        let p = project_on_cone(DVec3::new(0.0, 1.0, 0.0), mu);
        assert!((p.x - mu / (mu * mu + 1.0)).abs() < 1e-15 && (p.y - mu * p.x).abs() < 1e-15);
        assert!((DVec3::new(0.0, 1.0, 0.0) - p).dot(DVec3::new(1.0, mu, 0.0)).abs() < 1e-15);
    }

    #[test]
    fn natural_map_vanishes_exactly_on_the_three_cases_of_coulombs_law() {
        let mu = 0.5;
        // Open: r = 0, u_n > 0.
        assert_eq!(natural_map_squared(DVec3::ZERO, DVec3::new(1.0, 0.2, -0.1), mu), 0.0);
        // Sticking: u = 0, r strictly inside the cone.
        assert_eq!(natural_map_squared(DVec3::new(1.0, 0.1, 0.2), DVec3::ZERO, mu), 0.0);
        // Sliding: u_n = 0, r_t = −μ r_n u_t/|u_t|.
        // r_t = −0.5 · 2 · (0.6, 0.8).
        let r = DVec3::new(2.0, -0.6, -0.8);
        assert!(natural_map_squared(r, DVec3::new(0.0, 0.3, 0.4), mu) < 1e-30);
        // A sticking impulse with a residual velocity is not a solution.
        assert!(natural_map_squared(DVec3::new(1.0, 0.1, 0.2), DVec3::new(0.0, 0.1, 0.0), mu) > 1e-4);
    }
}
