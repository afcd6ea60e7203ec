//! The two-polygon relaxation of 002 Fig. 10: the stress-controlled relaxation of two
//! polygons, rotation neglected, whose relaxation time t_R of the kinetic energy
//! (002 eq. 12) does not depend on Δt/t_c with the predictor-based elongation (002 §4)
//! and does with Cundall's spring (002 eq. 7).
//!
//! Set-up (002 leaves sizes, mass and load open; ours follow the disc test of
//! `docs/smooth-dynamics.md`): polygon i (7 vertices, radius 0.05 m, seed 1) fixed;
//! polygon j (seed 2, m = 0.4 kg, rotation locked) touching it along the 45° direction; a
//! constant F = 100 N on j along −x; k_n = 4e8 N/m, ε_n = 0.9 (002 eq. 8 with m_r = m_j),
//! k_t/k_n = ν_t/ν_n = 1/3, μ = 500 (the contact stays elastic), no gravity, Gear with
//! six values (002 Appendix A).

use crate::bodies::BodyBuilder;
use crate::error::{PlanarError, Result};
use crate::law::{contact_time, damping_from_restitution, ContactLaw, Tangential};
use crate::simulation::Simulation;
use glam::DVec2;
use granula_polygons::{polygon_polygon, shapes, ConvexPolygon, OverlapScratch, Pose2};
use std::sync::Arc;

/// The parameters of the two-polygon test ([`TwoPolygons::default`] is the set-up above).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoPolygons {
    /// k_n (N/m).
    pub normal_stiffness: f64,
    /// Mass of the moving polygon, also the reduced mass (kg).
    pub mass: f64,
    /// ε_n.
    pub restitution: f64,
    /// The constant force on the moving polygon along −x (N).
    pub force: f64,
    /// μ (large: the contact stays elastic).
    pub friction: f64,
}

impl Default for TwoPolygons {
    fn default() -> Self {
        TwoPolygons { normal_stiffness: 4e8, mass: 0.4, restitution: 0.9, force: 100.0, friction: 500.0 }
    }
}

/// The two outlines: 7 vertices, radius 0.05 m, seeds 1 (fixed) and 2 (moving).
pub fn outlines() -> Result<(Arc<ConvexPolygon>, Arc<ConvexPolygon>)> {
    let make = |seed: u64, body: usize| {
        shapes::random_convex(7, 0.05, 1.0, seed)
            .map(Arc::new)
            .map_err(|source| PlanarError::BadPolygon { body, source })
    };
    Ok((make(1, 0)?, make(2, 1)?))
}

/// The distance along (1, 1)/√2 at which `b` just touches `a` (bisection to 1e-15 m).
pub fn touching_distance(a: &ConvexPolygon, b: &ConvexPolygon) -> f64 {
    let dir = DVec2::new(1.0, 1.0).normalize();
    let mut s = OverlapScratch::default();
    let (mut lo, mut hi) = (0.0, 2.0 * (a.circumradius() + b.circumradius()));
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if polygon_polygon(a, &Pose2::identity(), b, &Pose2::new(dir * mid, 0.0), &mut s).is_some() {
            lo = mid
        } else {
            hi = mid
        }
    }
    hi
}

impl TwoPolygons {
    /// The contact time t_c (002 eq. 10) of the law with m_r = `mass` (s).
    pub fn contact_time(&self) -> f64 {
        let nu = damping_from_restitution(self.restitution, self.normal_stiffness, self.mass);
        contact_time(self.normal_stiffness, nu, self.mass)
    }

    /// The simulation at time 0 with `rule` and Δt = `ratio` t_c.
    pub fn build(&self, rule: Tangential, ratio: f64) -> Result<Simulation> {
        let (a, b) = outlines()?;
        let d = touching_distance(&a, &b);
        let law = ContactLaw::builder(self.normal_stiffness)
            .restitution(self.restitution, self.mass)
            .tangential_ratio(1.0 / 3.0)
            .friction(self.friction)
            .tangential(rule)
            .build()?;
        Simulation::builder(law)
            .dt(ratio * self.contact_time())
            .body(BodyBuilder::polygon(a).position(DVec2::ZERO).prescribed(DVec2::ZERO))
            .body(
                BodyBuilder::polygon(b)
                    .position(DVec2::new(1.0, 1.0).normalize() * d)
                    .mass(self.mass)
                    .lock_rotation()
                    .external_force(DVec2::new(-self.force, 0.0)),
            )
            .build()
    }

    /// (time, kinetic energy) after every step over `duration_tc` contact times, with
    /// `rule` and Δt = `ratio` t_c, and whether the polygons were still in contact at the end.
    pub fn run(&self, rule: Tangential, ratio: f64, duration_tc: f64) -> Result<(Vec<(f64, f64)>, bool)> {
        let mut sim = self.build(rule, ratio)?;
        let steps = (duration_tc / ratio).ceil() as usize;
        let mut out = Vec::with_capacity(steps);
        for _ in 0..steps {
            sim.step()?;
            out.push((sim.time(), sim.bodies.kinetic_energy()));
        }
        Ok((out, sim.contacts().len() == 1))
    }
}

/// t_R of 002 eq. 12 from a least-squares line through ln E_k at the local maxima of the
/// samples between 1e-2 and 1e-8 of the largest; `None` with fewer than 4 such maxima.
pub fn relaxation_time(samples: &[(f64, f64)]) -> Option<f64> {
    let peaks: Vec<(f64, f64)> =
        samples.windows(3).filter(|w| w[1].1 > w[0].1 && w[1].1 >= w[2].1).map(|w| w[1]).collect();
    let top = peaks.iter().map(|p| p.1).fold(0.0, f64::max);
    let used: Vec<(f64, f64)> =
        peaks.into_iter().filter(|p| p.1 < 1e-2 * top && p.1 > 1e-8 * top).map(|(t, e)| (t, e.ln())).collect();
    if used.len() < 4 {
        return None;
    }
    let n = used.len() as f64;
    let (mt, me) = used.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    let (sxy, sxx) = used.iter().fold((0.0, 0.0), |a, p| (a.0 + (p.0 - mt) * (p.1 - me), a.1 + (p.0 - mt).powi(2)));
    Some(-sxx / sxy)
}
