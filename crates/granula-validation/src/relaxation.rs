//! The stress-controlled relaxation of two bodies of 002 §3 (two discs, 002 Figs. 4-9) and
//! §4 (two polygons, 002 Fig. 10) on the core's planar world: the relaxation time t_R of
//! the kinetic energy (002 eq. 12) against the time step Δt/t_c, with Cundall's spring
//! (002 eqs. 6-7, `granula_laws::planar_friction_law`) or the predictor-based elongation
//! (002 eqs. 14-15, `granula_laws::planar_predictor_law`).
//!
//! Set-up (002 leaves sizes, mass and load open; [`TwoBodyRelaxation::default`]): body i
//! fixed at the origin; body j (m = 0.4 kg) touching it along the 45° direction (002
//! Fig. 4) and pressed by a constant F = 100 N along −x at its centre; the overlap-area law
//! (002 eq. 5) with k_n = 4e8 N/m, the viscous force with the reduced mass (002 eqs. 2-3)
//! with ν_n from ε_n = 0.9 (002 eq. 8 with m_r = m_j), k_t/k_n = ν_t/ν_n = 1/3, μ = 500 (the
//! contact stays elastic); no gravity; Gear with six values (002 Appendix A). Polygons: 7
//! vertices, radius 0.05 m, seeds 1 (fixed) and 2 (moving); discs: radius 0.05 m.

use glam::DVec2;
use granula_broadphase::BruteForce;
use granula_core::narrowphase::Narrowphase;
use granula_core::{ContactLaw, CoreError, DVec3, Dofs, RigidBody, Solver, SphereBuilder, World};
use granula_integrators::Gear;
use granula_laws::{planar_friction_law, planar_predictor_law, LawError};
use granula_md::{MdConfig, MdError, MdSolver};
use granula_polygons::{
    polygon_polygon, register_all_areal, shapes, ConvexPolygon, OverlapScratch, PolygonBodyError, PolygonBuilder,
    PolygonError, Pose2,
};
use std::f64::consts::PI;
use std::sync::Arc;

/// What can go wrong in setting up or running the relaxation.
#[derive(Debug, thiserror::Error)]
pub enum RelaxationError {
    /// A parameter of [`TwoBodyRelaxation`] or of a run is out of range.
    #[error("relaxation: {name} = {value} must be {expected}")]
    BadParameter {
        /// The parameter's name.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What it must be.
        expected: &'static str,
    },
    /// A polygon outline could not be made.
    #[error("relaxation: polygon outline: {0}")]
    Polygon(#[from] PolygonError),
    /// A polygon body could not be made.
    #[error("relaxation: polygon body: {0}")]
    PolygonBody(#[from] PolygonBodyError),
    /// The contact law rejected its parameters.
    #[error("relaxation: contact law: {0}")]
    Law(#[from] LawError),
    /// The MD solver could not be made.
    #[error("relaxation: MD solver: {0}")]
    Md(#[from] MdError),
    /// The world could not be built or stepped.
    #[error("relaxation: world: {0}")]
    World(#[from] CoreError),
    /// The bodies separated during the run (the test needs one lasting contact).
    #[error("relaxation: the bodies separated at step {step} (Δt/t_c = {ratio})")]
    Separated {
        /// The step after which no contact was left.
        step: usize,
        /// Δt/t_c of the run.
        ratio: f64,
    },
}

/// Which pair of bodies (002 Fig. 4 or Fig. 10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelaxationPair {
    /// Two discs of radius 0.05 m (002 Figs. 4-9).
    Discs,
    /// Two 7-vertex polygons of radius 0.05 m, seeds 1 and 2 (002 Fig. 10).
    Polygons,
}

/// The rule that advances the tangential elongation ξ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elongation {
    /// Cundall's spring, ξ += v_t Δt (002 eq. 7).
    Cundall,
    /// The predictor-based elongation (002 eqs. 14-15, polygon form).
    Predictor,
}

/// The parameters of the test; [`TwoBodyRelaxation::default`] is the set-up of the module
/// documentation (two polygons, rotation locked).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBodyRelaxation {
    /// Which pair.
    pub pair: RelaxationPair,
    /// Whether the moving body may rotate (002 Fig. 6) or not (002 Figs. 7, 10).
    pub rotation: bool,
    /// k_n of 002 eq. 5 (N/m).
    pub normal_stiffness: f64,
    /// Mass of the moving body, also the reduced mass (kg).
    pub mass: f64,
    /// ε_n, which sets ν_n (002 eq. 8).
    pub restitution: f64,
    /// k_t/k_n = ν_t/ν_n.
    pub stiffness_ratio: f64,
    /// The constant force on the moving body along −x (N).
    pub force: f64,
    /// A constant force on the moving body along −y (N), 0 by default. 002 Fig. 4 adds
    /// forces F_V, −F_V on the two discs "to balance the reaction from the wall" without
    /// saying more; with F_V = F the load on body j points along the line of centres (45°),
    /// so that a disc free to rotate has an equilibrium (with F alone its torque balance
    /// needs f_t = 0 and it rolls round body i).
    pub vertical_force: f64,
    /// μ.
    pub friction: f64,
}

impl Default for TwoBodyRelaxation {
    fn default() -> Self {
        TwoBodyRelaxation {
            pair: RelaxationPair::Polygons,
            rotation: false,
            normal_stiffness: 4e8,
            mass: 0.4,
            restitution: 0.9,
            stiffness_ratio: 1.0 / 3.0,
            force: 100.0,
            vertical_force: 0.0,
            friction: 500.0,
        }
    }
}

/// Disc radius and polygon circumradius (m).
pub const RADIUS: f64 = 0.05;

/// The two polygon outlines: 7 vertices, radius 0.05 m, seeds 1 (fixed) and 2 (moving).
pub fn outlines() -> Result<(Arc<ConvexPolygon>, Arc<ConvexPolygon>), RelaxationError> {
    let make = |seed: u64| shapes::random_convex(7, RADIUS, 1.0, seed).map(Arc::new);
    Ok((make(1)?, make(2)?))
}

/// The distance along (1, 1)/√2 at which `b` just touches `a`, both unturned (bisection to
/// 1e-15 m).
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

/// The damping rate ν (1/s) of F_v = −m_r ν v (002 eq. 2) that gives restitution ε to a
/// linear contact of stiffness k and reduced mass m_r (002 eq. 8): with η = ν/2 and
/// ω₀ = √(k/m_r), ε = exp(−πη/ω), ω = √(ω₀² − η²), so η = −ln ε ω₀/√(π² + ln² ε).
pub fn damping_from_restitution(restitution: f64, stiffness: f64, reduced_mass: f64) -> f64 {
    let l = restitution.ln();
    2.0 * (-l) * (stiffness / reduced_mass).sqrt() / (PI * PI + l * l).sqrt()
}

/// The contact time t_c = π/√(ω₀² − η²) (002 eq. 10) of a contact of stiffness k, damping
/// rate ν (η = ν/2) and reduced mass m_r.
pub fn contact_time(stiffness: f64, damping: f64, reduced_mass: f64) -> f64 {
    let eta = 0.5 * damping;
    PI / (stiffness / reduced_mass - eta * eta).sqrt()
}

impl TwoBodyRelaxation {
    /// Checks the parameters: k_n, m, F, k_t/k_n > 0, ε_n in (0, 1), μ ≥ 0, all finite.
    pub fn check(&self) -> Result<(), RelaxationError> {
        let bad = |name, value, expected| Err(RelaxationError::BadParameter { name, value, expected });
        for (name, v) in [
            ("normal_stiffness", self.normal_stiffness),
            ("mass", self.mass),
            ("force", self.force),
            ("stiffness_ratio", self.stiffness_ratio),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return bad(name, v, "positive and finite");
            }
        }
        if !(self.restitution > 0.0 && self.restitution < 1.0) {
            return bad("restitution", self.restitution, "in (0, 1)");
        }
        if !self.vertical_force.is_finite() {
            return bad("vertical_force", self.vertical_force, "finite");
        }
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return bad("friction", self.friction, "non-negative and finite");
        }
        Ok(())
    }

    /// ν_n (1/s) from ε_n (002 eq. 8 with m_r = m).
    pub fn damping_rate(&self) -> f64 {
        damping_from_restitution(self.restitution, self.normal_stiffness, self.mass)
    }

    /// The contact time t_c (002 eq. 10) with m_r = m (s).
    pub fn contact_time(&self) -> f64 {
        contact_time(self.normal_stiffness, self.damping_rate(), self.mass)
    }

    /// The planar world at time 0: body 0 fixed, body 1 touching it at 45° and loaded.
    pub fn world(&self) -> Result<World, RelaxationError> {
        self.check()?;
        let mut narrowphase = Narrowphase::new();
        register_all_areal(&mut narrowphase)?;
        let mut world = World::builder().planar(true).gravity(DVec3::ZERO).narrowphase(narrowphase).build()?;
        let dir = DVec2::new(1.0, 1.0).normalize();
        let force = DVec2::new(-self.force, -self.vertical_force);
        let (fixed, mut moving): (RigidBody, RigidBody) = match self.pair {
            RelaxationPair::Discs => (
                SphereBuilder::new(RADIUS, DVec3::ZERO).fixed().build()?,
                SphereBuilder::new(RADIUS, (dir * 2.0 * RADIUS).extend(0.0))
                    .mass(self.mass)
                    .external_force(force.extend(0.0))
                    .build()?,
            ),
            RelaxationPair::Polygons => {
                let (a, b) = outlines()?;
                let at = dir * touching_distance(&a, &b);
                (
                    PolygonBuilder::new(a, DVec2::ZERO).fixed().build()?,
                    PolygonBuilder::new(b, at).mass(self.mass).external_force(force).build()?,
                )
            }
        };
        if !self.rotation {
            moving.locked = moving.locked | Dofs::RZ;
        }
        world.insert(fixed)?;
        world.insert(moving)?;
        Ok(world)
    }

    /// (time, E_k of the world) after every step over `duration_tc` contact times with
    /// `rule` and Δt = `ratio` t_c; an error if the bodies separate.
    pub fn run(&self, rule: Elongation, ratio: f64, duration_tc: f64) -> Result<Vec<(f64, f64)>, RelaxationError> {
        self.samples(rule, ratio, duration_tc, |w: &World| w.kinetic_energy())
    }

    /// [`TwoBodyRelaxation::run`] with the sample `measure` of the world after each step.
    pub fn samples(
        &self,
        rule: Elongation,
        ratio: f64,
        duration_tc: f64,
        measure: impl FnMut(&World) -> f64,
    ) -> Result<Vec<(f64, f64)>, RelaxationError> {
        for (name, v) in [("ratio", ratio), ("duration_tc", duration_tc)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(RelaxationError::BadParameter { name, value: v, expected: "positive and finite" });
            }
        }
        let (k, nu, r, mu) = (self.normal_stiffness, self.damping_rate(), self.stiffness_ratio, self.friction);
        self.check()?;
        match rule {
            Elongation::Cundall => self.run_law(planar_friction_law(k, nu, r, mu)?, ratio, duration_tc, measure),
            Elongation::Predictor => self.run_law(planar_predictor_law(k, nu, r, mu)?, ratio, duration_tc, measure),
        }
    }

    fn run_law<L: ContactLaw>(
        &self,
        law: L,
        ratio: f64,
        duration_tc: f64,
        mut measure: impl FnMut(&World) -> f64,
    ) -> Result<Vec<(f64, f64)>, RelaxationError> {
        let mut world = self.world()?;
        let config = MdConfig { skin: 1e-3, ..MdConfig::default() };
        let mut md = MdSolver::new(law, Gear::six(), BruteForce, config)?;
        md.publish_contacts(true);
        let dt = ratio * self.contact_time();
        let steps = (duration_tc / ratio).ceil() as usize;
        let mut out = Vec::with_capacity(steps);
        for step in 0..steps {
            world.step(&mut md, dt)?;
            if md.contacts().map_or(0, |c| c.len()) != 1 {
                return Err(RelaxationError::Separated { step, ratio });
            }
            out.push((world.time(), measure(&world)));
        }
        Ok(out)
    }

    /// t_R/t_c (002 eq. 12) over 150 t_c with `rule` and Δt = `ratio` t_c, fitted to the
    /// energy peaks between 1e-2 and 1e-8 of the largest ([`relaxation_time`]); `None`
    /// with too few peaks.
    pub fn relaxation_ratio(&self, rule: Elongation, ratio: f64) -> Result<Option<f64>, RelaxationError> {
        let samples = self.run(rule, ratio, 150.0)?;
        Ok(relaxation_time(&samples, 1e-8).map(|t| t / self.contact_time()))
    }
}

/// t_R of 002 eq. 12, E_k ∝ exp(−t/t_R), from a least-squares line through ln E at the local
/// maxima of the samples between 1e-2 and `floor` of the largest; `None` with fewer than 4
/// such maxima or a slope that is not negative.
pub fn relaxation_time(samples: &[(f64, f64)], floor: f64) -> Option<f64> {
    let peaks: Vec<(f64, f64)> =
        samples.windows(3).filter(|w| w[1].1 > w[0].1 && w[1].1 >= w[2].1).map(|w| w[1]).collect();
    let top = peaks.iter().map(|p| p.1).fold(0.0, f64::max);
    let used: Vec<(f64, f64)> =
        peaks.into_iter().filter(|p| p.1 < 1e-2 * top && p.1 > floor * top).map(|(t, e)| (t, e.ln())).collect();
    if used.len() < 4 {
        return None;
    }
    let n = used.len() as f64;
    let (mt, me) = used.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    let (sxy, sxx) = used.iter().fold((0.0, 0.0), |a, p| (a.0 + (p.0 - mt) * (p.1 - me), a.1 + (p.0 - mt).powi(2)));
    (sxy < 0.0).then(|| -sxx / sxy)
}
