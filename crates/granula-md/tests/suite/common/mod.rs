//! Test support: a small linear spring-dashpot law with a Cundall-Strack spring held at the
//! Coulomb limit while sliding (Brendel-Dippel, 003 eqs. 5-6), an elastic Hertz law and
//! energy helpers. The real laws live in `granula-laws`; these keep the solver's own tests
//! independent of it.
#![allow(dead_code)]

use granula_core::{
    ContactForce, ContactKinematics, ContactLaw, ContactStatus, DVec3, Dissipation, Material, MaterialId,
    SphereBuilder, World,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// History: tangential spring ξ, the powers of the normal and tangential forces at the last
/// call (for trapezoidal work) and the energies stored then.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpringHistory {
    pub xi: DVec3,
    pub power_n: f64,
    pub power_t: f64,
    pub stored_n: f64,
    pub stored_t: f64,
}

/// Linear spring k_n with viscous damping γ_n (N s/m) along the normal; tangential spring
/// k_t with viscous damping γ_t, capped at μ F_n (μ = the pair's friction).
#[derive(Clone, Copy, Debug)]
pub struct SpringDashpot {
    pub kn: f64,
    pub gamma_n: f64,
    pub kt: f64,
    pub gamma_t: f64,
}

impl SpringDashpot {
    /// Frictional law with γ_n giving restitution `e` for effective mass `m` (002 eq. 8).
    pub fn with_restitution(kn: f64, e: f64, m: f64) -> Self {
        let ln = e.ln();
        let gamma_n = -2.0 * ln * (m * kn / (std::f64::consts::PI.powi(2) + ln * ln)).sqrt();
        SpringDashpot { kn, gamma_n, kt: kn * 2.0 / 7.0, gamma_t: 0.0 }
    }

    /// Contact duration of the damped oscillator, t_c = π/√(k/m − η²), η = γ/(2m) (002 eq. 10).
    pub fn contact_time(&self, m: f64) -> f64 {
        let eta = self.gamma_n / (2.0 * m);
        std::f64::consts::PI / (self.kn / m - eta * eta).sqrt()
    }
}

impl ContactLaw for SpringDashpot {
    type History = SpringHistory;
    type Pair = ();

    fn name(&self) -> String {
        "test_spring_dashpot".into()
    }

    fn force(&self, k: &ContactKinematics<'_>, h: &mut SpringHistory) -> ContactForce {
        let n = k.normal;
        let d = k.overlap.max(0.0);
        let v = k.relative_velocity;
        let vn = v.dot(n);
        let vt = v - n * vn;
        let f_n = (self.kn * d - self.gamma_n * vn).max(0.0);
        // Rotate the stored spring into the current tangent plane, keeping its length.
        let len = h.xi.length();
        let mut xi = h.xi - n * h.xi.dot(n);
        let l2 = xi.length();
        if l2 > 0.0 {
            xi *= len / l2;
        }
        let trial_xi = xi + vt * k.dt;
        let mut ft = -trial_xi * self.kt - vt * self.gamma_t;
        let cap = k.material.friction * f_n;
        let ftl = ft.length();
        let new_xi = if ftl > cap {
            ft *= cap / ftl;
            // Brendel-Dippel: the spring is held at the Coulomb radius (spring plus damping
            // give the capped force), not stretched further.
            -(ft + vt * self.gamma_t) / self.kt
        } else {
            trial_xi
        };
        let force = n * f_n + ft;
        let stored_n = 0.5 * self.kn * d * d;
        let stored_t = 0.5 * self.kt * new_xi.length_squared();
        // Energy the contact takes from the bodies over the step (trapezoidal rule on the
        // power), minus what it now stores, is what it dissipated.
        let power_n = -(n * f_n).dot(v);
        let power_t = -ft.dot(v);
        // A new contact starts from zero force, hence zero power (the default history).
        let (pn0, pt0) = (h.power_n, h.power_t);
        let dissipated = Dissipation {
            normal: 0.5 * (pn0 + power_n) * k.dt - (stored_n - h.stored_n),
            sliding: 0.5 * (pt0 + power_t) * k.dt - (stored_t - h.stored_t),
            ..Default::default()
        };
        *h = SpringHistory { xi: new_xi, power_n, power_t, stored_n, stored_t };
        // The regime the law decided, counted by the solver as given.
        let status = if f_n <= 0.0 {
            ContactStatus::Open
        } else if ftl > cap {
            ContactStatus::Sliding
        } else {
            ContactStatus::Sticking
        };
        ContactForce { force, torque: DVec3::ZERO, dissipated, stored: stored_n + stored_t, status }
    }
}

/// Kinetic + potential + stored − external work + dissipated: constant when the ledger closes.
pub fn ledger_total(w: &World) -> f64 {
    w.kinetic_energy() + w.potential_energy() + w.ledger.stored_elastic + w.ledger.dissipated.total()
        - w.ledger.external_work
}

/// Mechanical energy: kinetic + potential + stored elastic.
pub fn mechanical(w: &World) -> f64 {
    w.kinetic_energy() + w.potential_energy() + w.ledger.stored_elastic
}

/// Elastic, frictionless Hertz contact F_n = k δ^{3/2}, k = (4/3) E* √R* (004 §2.2.1),
/// storing (2/5) k δ^{5/2}.
#[derive(Clone, Copy, Debug)]
pub struct HertzElastic {
    pub e_star: f64,
}

impl HertzElastic {
    /// Hertz contact duration at impact speed `v` (VALIDATION M2):
    /// t_c = 2.868 (m*² / (R* E*² v))^{1/5}.
    pub fn contact_time(&self, m_eff: f64, r_eff: f64, v: f64) -> f64 {
        2.868 * (m_eff * m_eff / (r_eff * self.e_star * self.e_star * v)).powf(0.2)
    }
}

impl ContactLaw for HertzElastic {
    type History = ();
    type Pair = ();

    fn name(&self) -> String {
        "test_hertz_elastic".into()
    }

    fn force(&self, k: &ContactKinematics<'_>, _h: &mut ()) -> ContactForce {
        let d = k.overlap.max(0.0);
        let kh = 4.0 / 3.0 * self.e_star * k.effective_radius.sqrt();
        let f = kh * d * d.sqrt();
        ContactForce { force: k.normal * f, stored: 0.4 * kh * d * d * d.sqrt(), ..Default::default() }
    }
}

/// 180 spheres of radius `r` in a lattice with random velocities and spins (seeded) in an
/// open box of five planes, under gravity: several hundred candidate pairs, so the force
/// pass has several blocks.
pub fn crowd(r: f64) -> World {
    let material = Material { friction: 0.4, rolling_friction: 0.05, torsion_friction: 0.05, ..Material::default() };
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(material).build().unwrap();
    let (nx, ny, nz) = (6, 6, 5);
    w.insert_open_box(DVec3::ZERO, 2.04 * r * nx as f64, 2.04 * r * ny as f64, MaterialId(0)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for i in 0..nx {
        for j in 0..ny {
            for k in 0..nz {
                let c = |n: usize| 1.02 * r * (2 * n + 1) as f64;
                let mut random = || {
                    DVec3::new(rng.random_range(-0.3..0.3), rng.random_range(-0.3..0.3), rng.random_range(-0.3..0.3))
                };
                let (v, omega) = (random(), random() * 30.0);
                let b = SphereBuilder::new(r, DVec3::new(c(i), c(j), c(k))).velocity(v).angular_velocity(omega);
                w.insert(b.build().unwrap()).unwrap();
            }
        }
    }
    w
}

/// The world's restorable state, as a checkpoint stores it (`World::save_state`, through
/// bincode).
pub fn copy_world(from: &World, to: &mut World) {
    let state = bincode::deserialize(&bincode::serialize(&from.save_state()).unwrap()).unwrap();
    to.restore_state(&state).unwrap();
}
