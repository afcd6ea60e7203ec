//! The sweeps a contact-dynamics step needs for its depth (000 eqs. 42-48), compared with a
//! scene's `max_iterations` by `granula check`.
//!
//! Gauss-Seidel spreads a force disturbance like a diffusion, ∂R/∂t* = D ∂²R/∂x² with
//! D = q d²/Δt* per sweep (000 eqs. 42-43), q = (4√e − 5)/2 ≈ 0.797 for the random sweep
//! (eq. 46). In a bed of depth L on a floor (fixed bottom, free top) the slowest mode has
//! the wave number π/(2L), so its error decays as exp(−q π² N/(4 (L/d)²)) after N sweeps:
//! reaching the relative accuracy ε takes
//!
//! N(ε) = 4 ln(1/ε) (L/d)² / (q π²),
//!
//! the (L/d)² of eq. 48 with its prefactor. On the 1D chain of 000 §3.3.1 this gives 351
//! sweeps for n = 10 at ε = 1e-3 where 370 are measured (docs/contact-dynamics.md, test
//! N6). Dense frictional 3D packings need more (about ten times more on dense_1000), so the
//! estimate is a lower bound: a cap below it cannot be met.

use super::spec::{CriterionKind, OnCapKind, SolverSpec};
use super::Scene;
use granula_core::Motion;

/// q of 000 eq. 46 for the random sweep.
const Q_RANDOM: f64 = 0.797;
/// Solid fraction assumed for a settled bed (random close packing).
const SETTLED_FRACTION: f64 = 0.64;

/// A scene's depth and the sweeps its tolerance needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepEstimate {
    /// Depth of the bed in mean diameters, L/d.
    pub depth: f64,
    /// The tolerance ε of the scene's criterion.
    pub tolerance: f64,
    /// N(ε) = 4 ln(1/ε) (L/d)² / (q π²).
    pub sweeps: f64,
    /// The scene's cap: `max_iterations`, or `hard_cap` with `on_cap = "extend"`.
    pub cap: u32,
}

impl SweepEstimate {
    /// `true` when the cap is below the estimate.
    pub fn cap_too_low(&self) -> bool {
        (self.cap as f64) < self.sweeps
    }

    /// One line for `granula check`.
    pub fn message(&self) -> String {
        let base = format!(
            "contact dynamics: bed about {:.1} diameters deep; reaching tolerance {:.1e} takes at least {:.0} sweeps (000 eqs. 42-48)",
            self.depth, self.tolerance, self.sweeps
        );
        if self.cap_too_low() {
            format!("warning: {base}, but the cap is {} sweeps: steps will stop unconverged; raise max_iterations, or set on_cap = \"extend\" with a larger hard_cap", self.cap)
        } else {
            format!(
                "{base}; the cap is {} sweeps (dense frictional packings may need ten times the estimate)",
                self.cap
            )
        }
    }
}

/// N(ε) for a bed `depth` diameters deep.
pub fn sweeps_for_depth(depth: f64, tolerance: f64) -> f64 {
    4.0 * (1.0 / tolerance).ln() * depth * depth / (Q_RANDOM * std::f64::consts::PI.powi(2))
}

/// The estimate for an NSCD scene with a tolerance (`None` for MD, a fixed number of
/// sweeps, no gravity or no dynamic spheres). The depth along gravity is the smaller of the
/// spheres' extent and the height their volume fills at a solid fraction of 0.64 over the
/// spheres' horizontal extent (a loose initial packing settles).
pub fn sweep_estimate(scene: &Scene) -> Option<SweepEstimate> {
    let SolverSpec::Nscd(n) = &scene.spec.solver else { return None };
    if n.criterion == CriterionKind::FixedIterations {
        return None;
    }
    let g = glam::DVec3::from_array(scene.spec.simulation.gravity);
    if g.length() == 0.0 {
        return None;
    }
    let up = -g / g.length();
    // Two horizontal axes.
    let a = if up.x.abs() < 0.9 { glam::DVec3::X } else { glam::DVec3::Y };
    let h1 = (a - up * a.dot(up)).normalize();
    let h2 = up.cross(h1);
    let (mut lo, mut hi) = (glam::DVec3::splat(f64::INFINITY), glam::DVec3::splat(f64::NEG_INFINITY));
    let (mut volume, mut diameters, mut count) = (0.0, 0.0, 0usize);
    for plan in &scene.bodies {
        let b = &plan.body;
        let Some(r) = b.shape.sphere_radius() else { continue };
        if !matches!(b.motion, Motion::Dynamic) {
            continue;
        }
        let p = b.state.position;
        let c = glam::DVec3::new(p.dot(h1), p.dot(h2), p.dot(up));
        lo = lo.min(c - glam::DVec3::splat(r));
        hi = hi.max(c + glam::DVec3::splat(r));
        volume += 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
        diameters += 2.0 * r;
        count += 1;
    }
    if count == 0 {
        return None;
    }
    let d = diameters / count as f64;
    let extent = hi - lo;
    let settled = volume / (SETTLED_FRACTION * extent.x * extent.y);
    let depth = extent.z.min(settled) / d;
    let cap = if n.on_cap == OnCapKind::Extend {
        n.hard_cap.unwrap_or(n.max_iterations.saturating_mul(10))
    } else {
        n.max_iterations
    };
    Some(SweepEstimate { depth, tolerance: n.tolerance, sweeps: sweeps_for_depth(depth, n.tolerance), cap })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_matches_the_chain_of_000() {
        // 000 §3.3.1 chain, n = 10 at ε = 1e-3: measured 370 sweeps (test N6); the estimate
        // must be within 10 % (it neglects the discreteness of a 10-bead chain).
        let n = sweeps_for_depth(10.0, 1e-3);
        assert!((n / 370.0 - 1.0).abs() < 0.1, "{n}");
        // (L/d)² scaling of eq. 48, exactly.
        assert!((sweeps_for_depth(20.0, 1e-3) / n - 4.0).abs() < 1e-12);
    }
}
