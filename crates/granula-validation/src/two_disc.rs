//! The stress-controlled two-disc test of 002 §3 (Figs. 4-9) with its parameters open: the
//! set-up, the runs, the energy measures and the relaxation-time fit shared by the examples
//! `two_disc_relaxation` (t_R against Δt, VALIDATION M5) and `two_disc_parameters` (t_R
//! against k_n, μ, k_t/k_n and ε_t/ε_n). Kept here, compiled once, rather than included
//! by both: each of its runs composes MD solvers, the costly part of a build.
//!
//! Set-up (002 leaves radius, mass, force and damping open; these are granula's choices):
//! two discs of radius a = 0.05 m in planar mode; disc i fixed at the origin, disc j
//! (m = 0.4 kg) touching it at 45°; a constant force F on j along −x (it presses the contact
//! and loads it tangentially, 100 N in M5); linear normal spring k_n on the overlap δ (002
//! eq. 5 uses the overlap area; for discs we use the linear overlap), viscous normal damping
//! γ_n from ε_n = 0.9 (002 eq. 8 with the reduced mass m, disc i being fixed), k_t and
//! γ_t as ratios of k_n and γ_n (002 §2 takes γ_t/γ_n = k_t/k_n); no gravity; Gear
//! predictor-corrector with 6 values (002 Appendix A).

use granula_broadphase::BruteForce;
use granula_core::{ContactLaw, DVec3, Dofs, Material, SphereBuilder, World};
use granula_integrators::Gear;
use granula_laws::params::{linear_contact_time, linear_restitution, viscous_coefficient_from_restitution};
use granula_laws::{
    Composed, CundallStrack, DampingCoefficient, Friction, LinearSpring, LinearViscous, PredictorElongation,
    RotationalIncrement, TangentialDamping, TangentialStiffness,
};
use granula_md::{MdConfig, MdSolver};

/// Disc radius a (m).
pub const A: f64 = 0.05;
/// Mass m of the moving disc j (kg); the reduced mass of the pair, disc i being fixed.
pub const MASS: f64 = 0.4;
/// Normal restitution ε_n (002 eq. 8).
pub const EPS_N: f64 = 0.9;

/// Which tangential spring.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Cundall's incremental spring, 002 eqs. 6-7.
    Cundall,
    /// The predictor-based elongation, 002 eqs. 14-15, rotations from the orientations.
    Predictor,
}

/// Whether the moving disc may turn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rotation {
    /// Its rotation is locked (002 Figs. 7 and 8a).
    Locked,
    /// It turns freely (002 Figs. 6 and 9).
    Free,
}

/// What kinetic energy t_R is fitted to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Measure {
    /// ½ m |𝒱|² with 𝒱 = v_j + ω_j × l_j the velocity of j's material point at the contact
    /// relative to the fixed disc i (000 eq. 3). With the rotation locked it is j's kinetic
    /// energy E_k (002 eq. 11); with free rotation it leaves out the rolling of j around i
    /// (𝒱 = 0 in pure rolling), which is not a contact relaxation.
    ContactPoint,
    /// ½ m (𝒱·n)², the normal part: the energy of the normal contact oscillation alone.
    /// With μ = 0 the load's tangential part makes j slide round i without damping (a
    /// frictionless pendulum), so E_k has no relaxation time but this part has.
    Normal,
}

/// The parameters of one run of the test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    /// Normal stiffness k_n (N/m).
    pub stiffness: f64,
    /// The constant force F on j along −x (N).
    pub load: f64,
    /// A constant force F_V on j along −y (N), 0 in M5. With F_V = F the load points along
    /// the line of centres: it has no tangential part and j has an equilibrium at 45° for
    /// any μ, including μ = 0 (002 Fig. 4 balances the wall's reaction with forces F_V it
    /// does not give).
    pub vertical_load: f64,
    /// k_t/k_n.
    pub kt_over_kn: f64,
    /// γ_t/γ_n (002 §2 sets it to k_t/k_n; other values set ε_t, see [`Setup::with_restitution_ratio`]).
    pub gt_over_gn: f64,
    /// Friction coefficient μ (static and sliding).
    pub friction: f64,
    /// Whether j may turn.
    pub rotation: Rotation,
}

impl Setup {
    /// The set-up of VALIDATION M5: k_n = 4e8 N/m, F = 100 N, k_t/k_n = γ_t/γ_n = 1/3,
    /// μ = 500 (002 Fig. 5: the contact stays elastic).
    pub const fn m5(rotation: Rotation) -> Self {
        Setup {
            stiffness: 4e8,
            load: 100.0,
            vertical_load: 0.0,
            kt_over_kn: 1.0 / 3.0,
            gt_over_gn: 1.0 / 3.0,
            friction: 500.0,
            rotation,
        }
    }

    /// γ_n (N s/m) from ε_n at the reduced mass m (inverse of 002 eq. 8).
    pub fn normal_damping(&self) -> f64 {
        viscous_coefficient_from_restitution(EPS_N, MASS, self.stiffness, 1.0)
    }

    /// Contact duration t_c = π/√(ω₀² − η²) of the damped normal oscillator (002 eq. 10).
    pub fn contact_time(&self) -> f64 {
        linear_contact_time(self.stiffness, self.normal_damping(), MASS)
    }

    /// The characteristic period t_s = 2π √(⟨m⟩/k_n) of 002 eq. 9 (⟨m⟩ = m, the only moving mass).
    pub fn oscillation_period(&self) -> f64 {
        2.0 * std::f64::consts::PI * (MASS / self.stiffness).sqrt()
    }

    /// The tangential restitution ε_t: 002 eq. 8 with k_t and γ_t in place of k_n and γ_n,
    /// "defined similarly" (002 §2), computed from the law's actual coefficients.
    pub fn tangential_restitution(&self) -> f64 {
        linear_restitution(self.kt_over_kn * self.stiffness, self.gt_over_gn * self.normal_damping(), MASS)
    }

    /// This set-up with γ_t chosen so that ε_t/ε_n = `ratio` at the present k_t (inverse of
    /// 002 eq. 8 for the tangential oscillator; 002 Fig. 8b holds ε_t/ε_n fixed while k_t/k_n
    /// varies, Fig. 8c varies it at fixed k_t/k_n).
    pub fn with_restitution_ratio(self, ratio: f64) -> Self {
        let gt = viscous_coefficient_from_restitution(ratio * EPS_N, MASS, self.kt_over_kn * self.stiffness, 1.0);
        Setup { gt_over_gn: gt / self.normal_damping(), ..self }
    }

    /// Relaxation time of the small-amplitude, elastic contact in the closed form of two
    /// uncoupled damped oscillators (derived in docs/validation.md): the normal one of mass m
    /// and the tangential one of mass m_t = m (rotation locked) or m/(1 + m a²/I) = m/3 (a
    /// free disc, I = m a²/2). The kinetic energy of a damped oscillator m ẍ + γ ẋ + k x = F
    /// has peaks that decay as e^{−γt/m}, so the slower mode sets
    /// t_R = max(m/γ_n, m_t/γ_t) (002 eq. 12). Ignores the Coulomb limit and the geometric
    /// coupling of the two modes (the contact turning as j moves). With μ = 0, or F_V = F
    /// (no tangential load), only the normal mode is excited: t_R = m/γ_n.
    pub fn small_amplitude_relaxation_time(&self) -> f64 {
        let gn = self.normal_damping();
        let gt = self.gt_over_gn * gn;
        let mt = if self.rotation == Rotation::Locked { MASS } else { MASS / 3.0 };
        let tangential = if gt > 0.0 { mt / gt } else { f64::INFINITY };
        // With μ = 0 or a load along the line of centres the tangential mode is not excited.
        if self.friction == 0.0 || self.load == self.vertical_load {
            MASS / gn
        } else {
            (MASS / gn).max(tangential)
        }
    }

    fn world(&self) -> Result<World, Box<dyn std::error::Error>> {
        let material = Material { friction: self.friction, restitution: EPS_N, ..Material::default() };
        let mut w = World::builder().gravity(DVec3::ZERO).planar(true).material(material).build()?;
        w.insert(SphereBuilder::new(A, DVec3::ZERO).fixed().build()?)?;
        let c = std::f64::consts::FRAC_1_SQRT_2 * 2.0 * A;
        let j = SphereBuilder::new(A, DVec3::new(c, c, 0.0)).mass(MASS).external_force(DVec3::new(
            -self.load,
            -self.vertical_load,
            0.0,
        ));
        let j = if self.rotation == Rotation::Locked { j.lock(Dofs::RZ) } else { j };
        w.insert(j.build()?)?;
        Ok(w)
    }

    /// Samples (t, energy) over `duration` seconds at step `dt`, every `every`-th step.
    pub fn run_sampled(
        &self,
        method: Method,
        measure: Measure,
        dt: f64,
        duration: f64,
        every: usize,
    ) -> Result<Vec<(f64, f64)>, Box<dyn std::error::Error>> {
        let mut w = self.world()?;
        let gear = Gear::six();
        // One thread: a pair of discs costs less than handing a step to a pool.
        let config = MdConfig { skin: 1e-3, threads: Some(1), ..Default::default() };
        let steps = (duration / dt).ceil() as usize;
        let mut samples = Vec::with_capacity(steps / every.max(1) + 1);
        let stiffness = TangentialStiffness::Ratio(self.kt_over_kn);
        let damping = TangentialDamping::Ratio(self.gt_over_gn);
        let normal =
            (LinearSpring::new(self.stiffness)?, LinearViscous::new(DampingCoefficient::FromRestitution(None))?);
        let every = every.max(1);
        match method {
            Method::Cundall => {
                let tangential = CundallStrack::new(stiffness, damping, Friction::from_material())?;
                let law = Composed::new(normal.0, normal.1, tangential);
                let mut s = MdSolver::new(law, gear, BruteForce, config)?;
                sample_steps(&mut w, &mut s, dt, steps, every, measure, &mut samples)?;
            }
            Method::Predictor => {
                let tangential = PredictorElongation::new(
                    stiffness,
                    damping,
                    Friction::from_material(),
                    RotationalIncrement::FromOrientations,
                )?;
                let law = Composed::new(normal.0, normal.1, tangential);
                let mut s = MdSolver::new(law, gear, BruteForce, config)?;
                sample_steps(&mut w, &mut s, dt, steps, every, measure, &mut samples)?;
            }
        }
        Ok(samples)
    }

    /// Samples (t, energy) at every step.
    pub fn run(
        &self,
        method: Method,
        measure: Measure,
        dt: f64,
        duration: f64,
    ) -> Result<Vec<(f64, f64)>, Box<dyn std::error::Error>> {
        self.run_sampled(method, measure, dt, duration, 1)
    }

    /// t_R/t_c (002 eq. 12) from a run of `duration_tc` contact times at Δt/t_c = `ratio`,
    /// fitted to the energy peaks between 1e-2 and `floor` of the largest one.
    pub fn relaxation_time(
        &self,
        method: Method,
        measure: Measure,
        ratio: f64,
        duration_tc: f64,
        floor: f64,
    ) -> Result<f64, Box<dyn std::error::Error>> {
        let tc = self.contact_time();
        let samples = self.run(method, measure, ratio * tc, duration_tc * tc)?;
        let t_r = relaxation_time_above(&samples, floor).ok_or("too few energy peaks to fit t_R")?;
        Ok(t_r / tc)
    }
}

/// Takes `steps` steps of `dt` with `solver`, pushing (t, energy) after every `every`-th.
fn sample_steps<L: ContactLaw>(
    w: &mut World,
    solver: &mut MdSolver<L, Gear, BruteForce>,
    dt: f64,
    steps: usize,
    every: usize,
    measure: Measure,
    samples: &mut Vec<(f64, f64)>,
) -> Result<(), Box<dyn std::error::Error>> {
    for k in 1..=steps {
        w.step(solver, dt)?;
        if k % every == 0 {
            samples.push((w.time(), energy(w, measure)));
        }
    }
    Ok(())
}

/// The energy `measure` of the world's moving disc j (body 1) against the fixed disc i.
fn energy(w: &World, measure: Measure) -> f64 {
    let b = &w.bodies;
    let x = b.position[1];
    let n = x / x.length();
    let overlap = 2.0 * A - x.length();
    let branch = -n * (A - 0.5 * overlap);
    let v = b.velocity[1] + b.angular_velocity[1].cross(branch);
    match measure {
        Measure::ContactPoint => 0.5 * MASS * v.length_squared(),
        Measure::Normal => 0.5 * MASS * v.dot(n).powi(2),
    }
}

/// Relaxation time from a least-squares line through ln E at the local maxima of E that lie
/// between 1e-2 and 1e-8 of the largest one (002 eq. 12); `None` with fewer than 4.
pub fn relaxation_time(samples: &[(f64, f64)]) -> Option<f64> {
    relaxation_time_above(samples, 1e-8)
}

/// [`relaxation_time`] with the peaks between 1e-2 and `floor` of the largest one.
pub fn relaxation_time_above(samples: &[(f64, f64)], floor: f64) -> Option<f64> {
    relaxation_time_between(samples, 1e-2, floor)
}

/// Relaxation time (002 eq. 12) from a least-squares line through ln E at the local maxima of
/// E that lie between `floor` and `upper` times the largest one; `None` with fewer than 4.
pub fn relaxation_time_between(samples: &[(f64, f64)], upper: f64, floor: f64) -> Option<f64> {
    let peaks = peaks(samples);
    let top = peaks.iter().map(|p| p.1).fold(0.0, f64::max);
    let used: Vec<(f64, f64)> =
        peaks.into_iter().filter(|p| p.1 < upper * top && p.1 > floor * top).map(|(t, e)| (t, e.ln())).collect();
    if used.len() < 4 {
        return None;
    }
    let n = used.len() as f64;
    let (st, se) = used.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    let (mt, me) = (st / n, se / n);
    let (sxy, sxx) = used.iter().fold((0.0, 0.0), |a, p| (a.0 + (p.0 - mt) * (p.1 - me), a.1 + (p.0 - mt).powi(2)));
    let slope = sxy / sxx;
    (slope < 0.0).then(|| -1.0 / slope)
}

/// The local maxima (t, E) of the samples.
pub fn peaks(samples: &[(f64, f64)]) -> Vec<(f64, f64)> {
    samples.windows(3).filter(|w| w[1].1 > w[0].1 && w[1].1 >= w[2].1).map(|w| w[1]).collect()
}

/// An independent model of the test: disc j against the fixed disc i in continuous time,
/// integrated by classical Runge-Kutta (not granula's solver, laws or Gear). State
/// (x, y, vx, vy, ω, ξ); the contact of the core's sphere pair (n = x/|x|, δ = 2a − |x|,
/// the contact point in the middle of the overlap, branch l = −n (a − δ/2)); the force on j
/// is (k_n δ − γ_n 𝒱·n) n − (k_t ξ + γ_t 𝒱·t) t − F x̂ − F_V ŷ with t = ẑ × n, γ_n from ε_n at the
/// mass m (002 eq. 8); its torque l × F_contact with the disc's I = m a²/2 (what the planar
/// world gives a sphere); the elongation is the exact tangential displacement, ξ̇ = 𝒱·t
/// along the tangent that turns with the contact (the limit Δt → 0 of both of 002's rules).
/// It has no Coulomb limit: it models the elastic contact (μ large), or μ = 0 (no
/// tangential force at all). Returns the samples (t, energy) at every step of t_c/`per_tc`.
pub fn reference_run(setup: &Setup, measure: Measure, per_tc: f64, duration_tc: f64) -> Vec<(f64, f64)> {
    let tc = setup.contact_time();
    let dt = tc / per_tc;
    let gn = setup.normal_damping();
    let frictionless = setup.friction == 0.0;
    let (kt, gt) = if frictionless { (0.0, 0.0) } else { (setup.kt_over_kn * setup.stiffness, setup.gt_over_gn * gn) };
    let (kn, load, vertical) = (setup.stiffness, setup.load, setup.vertical_load);
    let inertia = 0.5 * MASS * A * A;
    let locked = setup.rotation == Rotation::Locked;
    // The contact's normal, tangent, overlap, branch and contact-point velocity at state s.
    let contact = |s: &[f64; 6]| {
        let d = (s[0] * s[0] + s[1] * s[1]).sqrt();
        let (n, t) = ([s[0] / d, s[1] / d], [-s[1] / d, s[0] / d]);
        let delta = 2.0 * A - d;
        let l = [-n[0] * (A - 0.5 * delta), -n[1] * (A - 0.5 * delta)];
        let v = [s[2] - s[4] * l[1], s[3] + s[4] * l[0]];
        (n, t, delta, l, v)
    };
    let rate = |s: &[f64; 6]| -> [f64; 6] {
        let (n, t, delta, l, v) = contact(s);
        let (vn, vt) = (v[0] * n[0] + v[1] * n[1], v[0] * t[0] + v[1] * t[1]);
        let (fn_, ft) = (kn * delta - gn * vn, -kt * s[5] - gt * vt);
        let f = [fn_ * n[0] + ft * t[0], fn_ * n[1] + ft * t[1]];
        // The external force acts at the centre: only the contact force turns j.
        let spin = if locked { 0.0 } else { (l[0] * f[1] - l[1] * f[0]) / inertia };
        [s[2], s[3], (f[0] - load) / MASS, (f[1] - vertical) / MASS, spin, vt]
    };
    let c = std::f64::consts::FRAC_1_SQRT_2 * 2.0 * A;
    let mut s = [c, c, 0.0, 0.0, 0.0, 0.0];
    let steps = (duration_tc * per_tc).ceil() as usize;
    let mut out = Vec::with_capacity(steps);
    let add = |a: &[f64; 6], k: &[f64; 6], h: f64| -> [f64; 6] { std::array::from_fn(|q| a[q] + h * k[q]) };
    for step in 1..=steps {
        let k1 = rate(&s);
        let k2 = rate(&add(&s, &k1, 0.5 * dt));
        let k3 = rate(&add(&s, &k2, 0.5 * dt));
        let k4 = rate(&add(&s, &k3, dt));
        s = std::array::from_fn(|q| s[q] + dt / 6.0 * (k1[q] + 2.0 * k2[q] + 2.0 * k3[q] + k4[q]));
        let (n, _, _, _, v) = contact(&s);
        let e = match measure {
            Measure::ContactPoint => 0.5 * MASS * (v[0] * v[0] + v[1] * v[1]),
            Measure::Normal => 0.5 * MASS * (v[0] * n[0] + v[1] * n[1]).powi(2),
        };
        out.push((step as f64 * dt, e));
    }
    out
}
