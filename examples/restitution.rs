//! Normal impact of two equal spheres for every normal law of granula-laws: prints the
//! measured restitution e_n and contact time t_c next to theory.
//!
//! Run: `cargo run --release --example restitution`. The test suite runs it small
//! (`tests/suite/md_examples.rs`).
//!
//! Theory: linear spring-dashpot, e_n = exp(−πη/ω), t_c = π/ω (002 eqs. 8, 10); with the
//! default no-attraction clamp, the closed form of `params::linear_clamped_collision`; Hertz,
//! t_c = 2.868 (m*²/(R* E*² v))^{1/5} (undamped); Tsuji damping, the reduced head-on equation
//! of `damping::hertz_tsuji_collision` (exactly e with tension allowed, 0.550 for e = 0.5 under
//! the clamp, and e again with the ratio calibrated to the clamp, the default of
//! `hertz_mindlin`); Hunt-Crossley targets e for e close to 1 (003 eq. 3). "asked" is the
//! restitution the law was given; "-" marks quantities without a closed form.

use granula::core::{ContactLaw, DVec3, Material, PairMaterial};
use granula::laws::conformance::pair::{First, IsolatedPair, Sphere};
use granula::laws::params::hertz_tsuji_collision;
use granula::laws::params::{
    damping_ratio_from_restitution, hertz_contact_time, linear_clamped_collision, LinearCollision,
};
use granula::laws::*;

/// One line of the table.
#[derive(Clone, Debug)]
pub struct Row {
    /// The law's name (and tension policy).
    pub law: String,
    /// The restitution the law was given, if any.
    pub e_asked: Option<f64>,
    /// Measured restitution.
    pub e: f64,
    /// Theory, if any.
    pub e_theory: Option<f64>,
    /// Measured contact time (s).
    pub tc: f64,
    /// Theory, if any.
    pub tc_theory: Option<f64>,
}

const RADIUS: f64 = 1e-3;
const SPEED: f64 = 0.5;

fn mass() -> f64 {
    2500.0 * 4.0 / 3.0 * std::f64::consts::PI * RADIUS.powi(3)
}

/// Head-on impact of two spheres touching at t = 0; contact end by interpolation of the
/// overlap between steps. Returns (e, t_c).
fn collide<L: ContactLaw<Pair = ()>>(law: &L, material: PairMaterial, dt: f64) -> (f64, f64) {
    let a = Sphere {
        position: DVec3::ZERO,
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
        radius: RADIUS,
        mass: mass(),
    };
    let b = Sphere { position: DVec3::X * 2.0 * RADIUS, velocity: -DVec3::X * SPEED, ..a };
    let mut p: IsolatedPair<L> = IsolatedPair::new(First::Sphere(a), b, material);
    let (mut t, mut prev) = (0.0, 0.0);
    loop {
        p.step(law, dt);
        t += dt;
        let ov = p.last_overlap;
        if prev > 0.0 && ov <= 0.0 {
            let end = t - dt + dt * prev / (prev - ov);
            let v1 = match p.first {
                First::Sphere(s) => s.velocity,
                First::Wall { .. } => DVec3::ZERO,
            };
            return ((p.second.velocity - v1).x / SPEED, end);
        }
        prev = ov;
        assert!(t < 1.0, "the spheres never separated");
    }
}

/// Runs every normal law with `steps` time steps per (theoretical or estimated) contact.
pub fn run(steps: f64) -> Vec<Row> {
    let glass = Material { friction: 0.0, restitution: 0.5, ..Material::default() };
    let mat = PairMaterial::mix(&glass, &glass);
    let m_r = 0.5 * mass();
    let r_eff = 0.5 * RADIUS;
    let mut rows = Vec::new();
    let mut push = |law: String, e_asked, (e, tc): (f64, f64), e_theory, tc_theory| {
        rows.push(Row { law, e_asked, e, e_theory, tc, tc_theory });
    };

    // Linear spring-dashpot, t_c = 0.2 ms and e = 0.5 by construction (002 eqs. 8, 10).
    let c = LinearCollision::from_collision(2e-4, 0.5, m_r).expect("valid collision");
    let linear = Composed::new(
        LinearSpring::new(c.stiffness).expect("k > 0"),
        LinearViscous::new(DampingCoefficient::Fixed(c.damping)).expect("γ ≥ 0"),
        NoFriction,
    );
    let free = linear.with_tension(TensionPolicy::AllowDampingTension);
    push(
        format!("{} (tension allowed)", free.name()),
        Some(0.5),
        collide(&free, mat, 2e-4 / steps),
        Some(0.5),
        Some(2e-4),
    );
    let (e_cl, t_cl) = linear_clamped_collision(c.stiffness, c.damping, m_r);
    // Measured t_c counts the overlap, which outlasts the force by the coasting phase.
    push(
        format!("{} (no attraction)", linear.name()),
        Some(0.5),
        collide(&linear, mat, 2e-4 / steps),
        Some(e_cl),
        None,
    );
    let _ = t_cl;

    // Hertz (E*, R* form), elastic and with Tsuji damping.
    let tc_h = hertz_contact_time(mat.effective_young, r_eff, m_r, SPEED);
    let hertz = Composed::new(Hertz::from_material(), NoDamping, NoFriction);
    push(hertz.name(), None, collide(&hertz, mat, tc_h / steps), Some(1.0), Some(tc_h));
    // Plain Tsuji ratio: e with tension allowed, more under the clamp; the reduced head-on
    // equation gives both (damping::hertz_tsuji_collision).
    let tsuji = Composed::new(Hertz::from_material(), HertzViscous::from_material(), NoFriction);
    let tsuji_free = tsuji.with_tension(TensionPolicy::AllowDampingTension);
    let reduced =
        |tension| hertz_tsuji_collision(damping_ratio_from_restitution(0.5), tension).expect("α ≥ 0").restitution;
    push(
        format!("{} (tension allowed)", tsuji.name()),
        Some(0.5),
        collide(&tsuji_free, mat, tc_h / steps),
        Some(reduced(TensionPolicy::AllowDampingTension)),
        None,
    );
    push(
        format!("{} (no attraction)", tsuji.name()),
        Some(0.5),
        collide(&tsuji, mat, tc_h / steps),
        Some(reduced(TensionPolicy::NoAttraction)),
        None,
    );
    // Ratio calibrated to the clamp (hertz_mindlin's default): e under the clamp.
    let calibrated = Composed::new(Hertz::from_material(), HertzViscous::calibrated_from_material(), NoFriction);
    push(
        format!("{} calibrated (no attraction)", calibrated.name()),
        Some(0.5),
        collide(&calibrated, mat, tc_h / steps),
        Some(0.5),
        None,
    );

    // Hertz as written in the LMGC90 notes (004), elastic.
    let lmgc = Composed::new(HertzLmgc::from_material(), NoDamping, NoFriction);
    let tc_l = lmgc.contact_time(&mat, m_r, r_eff, SPEED);
    push(lmgc.name(), None, collide(&lmgc, mat, tc_l / steps), Some(1.0), Some(tc_l));

    // Kelvin-Voigt / Hunt-Crossley (003 eq. 3), n = 3/2, e = 0.9.
    let hc_mat = PairMaterial { restitution: 0.9, ..mat };
    let k = 4.0 / 3.0 * mat.effective_young * r_eff.sqrt();
    let hc = Composed::new(PowerLaw::new(k, 1.5).expect("valid"), HuntCrossley::from_material(), NoFriction);
    let tc_p = hc.contact_time(&hc_mat, m_r, r_eff, SPEED);
    push(hc.name(), Some(0.9), collide(&hc, hc_mat, tc_p / steps), Some(0.9), None);
    rows
}

fn main() {
    let fmt = |x: Option<f64>, p: usize| x.map_or("-".to_string(), |v| format!("{v:.p$}"));
    println!("{:<62} {:>6} {:>8} {:>8} {:>11} {:>11}", "law", "asked", "e_n", "theory", "t_c (s)", "theory");
    for r in run(500.0) {
        println!(
            "{:<62} {:>6} {:>8.4} {:>8} {:>11.4e} {:>11}",
            r.law,
            fmt(r.e_asked, 2),
            r.e,
            fmt(r.e_theory, 4),
            r.tc,
            r.tc_theory.map_or("-".to_string(), |v| format!("{v:.4e}"))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::run;

    #[test]
    fn restitution_example_matches_theory() {
        // 200 steps per contact: the M1 accuracy (0.5 %) for the smooth laws; the clamped laws
        // (linear, plain and calibrated Tsuji) converge at first order (see
        // crates/granula-laws/tests/suite/head_on.rs and hertz_tsuji_clamped.rs), 1 % here.
        for row in run(200.0) {
            let tol = if row.law.contains("no attraction") { 1e-2 } else { 5e-3 };
            if let Some(e) = row.e_theory {
                // Hunt-Crossley's e is a target valid for e near 1 (003): 2 % at e = 0.9.
                let tol = if row.law.starts_with("power_law+hunt_crossley") { 2e-2 } else { tol };
                assert!((row.e - e).abs() <= tol * e, "{}: e = {} vs {}", row.law, row.e, e);
            }
            if let Some(t) = row.tc_theory {
                assert!((row.tc / t - 1.0).abs() <= tol, "{}: t_c = {} vs {}", row.law, row.tc, t);
            }
        }
    }
}
