//! Newton's, Poisson's and Stronge's impact laws (004 §2.2.2.2) on the bouncing ball of
//! 004 §2.2.1 / §2.3.3.1, and what the θ-method with θ = 0.5 conserves.
//!
//! A sphere on a plane is a central, frictionless impact: W_αα is diagonal (000 eq. 19), U_n
//! is linear in the normal impulse, and the three laws coincide: Poisson's P_r = e P_c and
//! Stronge's W_r = −e² W_c both give U_n⁺ = −e U_n⁻. So every bounce rebounds at e times the
//! scheme's impact speed and, energy being ½ m v² + m g z in flight, the k-th bounce rises
//! to e^{2k} h₀.
//!
//! θ = 0.5 (004 §2.3.3.1: "conservative for smooth evolution problems"). In free flight
//! under constant gravity, v⁺ = v − g Δt and z⁺ = z + Δt ((1 − θ) v + θ v⁺), so
//!   ΔE = ½ m (v⁺² − v²) + m g (z⁺ − z) = m g² Δt² (½ − θ)
//! per step: zero for θ = 0.5 (the trapezoidal rule integrates a constant acceleration
//! exactly), −½ m g² Δt² per step for θ = 1. At an elastic bounce (e = 1) the contact turns
//! U_n⁻ = −V into +V, so z⁺ = z + Δt (−V + V)/2 = z: position and speed are kept, and the
//! energy of an elastic bouncing ball is conserved to round-off for ever (θ = 1 instead
//! moves the ball up by V Δt at each bounce). What θ = 0.5 does not conserve: the time of
//! the bounce (the ball turns at the gap it had at the start of the step, up to V Δt above
//! the plane), energy in any inelastic or frictional shock (by design), and with e < 1 it
//! lets the ball end the impact step below the plane by up to (1 − θ(1 + e)) Δt V.

use granula_broadphase::BruteForce;
use granula_core::{DVec3, Material, PlaneBuilder, SphereBuilder, World};
use granula_nscd::{ImpactLaw, NscdConfig, NscdSolver, Restitution, SignoriniCoulomb};

const G: f64 = 9.81;
const R: f64 = 0.01;
const MASS: f64 = 0.2;
const LAWS: [ImpactLaw; 3] = [ImpactLaw::Newton, ImpactLaw::Poisson, ImpactLaw::Stronge];

/// A ball released from rest at gap `h` above a plane, with friction (irrelevant to a
/// central impact, kept to show it).
fn ball_world(h: f64, e: f64) -> World {
    let material = Material { restitution: e, friction: 0.4, ..Material::named("ball") };
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -G)).material(material).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(R, DVec3::new(0.0, 0.0, R + h)).mass(MASS).build().unwrap()).unwrap();
    w
}

fn solver(law: ImpactLaw, theta: f64) -> NscdSolver<BruteForce, SignoriniCoulomb> {
    let law = SignoriniCoulomb { restitution: Restitution::Pair(law) };
    NscdSolver::with_law(BruteForce, law, NscdConfig { theta, ..NscdConfig::fixed_random_sweeps(20) }).unwrap()
}

/// Total energy ½ m v² + m g (z − R) of the ball.
fn energy(w: &World) -> f64 {
    0.5 * MASS * w.bodies.velocity[1].length_squared() + MASS * G * (w.bodies.position[1].z - R)
}

/// One bounce: the impact speed (start of the closing step) and the rebound speed.
struct Bounce {
    impact: f64,
    rebound: f64,
    /// Highest gap of the flight after this bounce.
    apex: f64,
}

/// Steps until `n` bounces have happened and their flights reached their apex.
fn bounces(law: ImpactLaw, h: f64, e: f64, dt: f64, theta: f64, n: usize) -> Vec<Bounce> {
    let mut w = ball_world(h, e);
    let mut s = solver(law, theta);
    let mut out: Vec<Bounce> = Vec::new();
    for _ in 0..50_000_000 {
        let before = w.bodies.velocity[1].z;
        w.step(&mut s, dt).unwrap();
        let gap = w.bodies.position[1].z - R;
        if s.impulses().any(|(_, _, p)| p != DVec3::ZERO) && before < 0.0 {
            if out.len() == n {
                return out;
            }
            out.push(Bounce { impact: -before, rebound: w.bodies.velocity[1].z, apex: gap });
        } else if let Some(last) = out.last_mut() {
            last.apex = last.apex.max(gap);
        }
    }
    panic!("not enough bounces")
}

#[test]
fn bouncing_ball_rebounds_at_e_and_rises_to_e_2k_h0_under_all_three_laws() {
    let (h0, dt) = (0.1, 1e-5);
    for e in [0.8, 0.5] {
        let runs: Vec<Vec<Bounce>> = LAWS.iter().map(|&law| bounces(law, h0, e, dt, 0.5, 4)).collect();
        for (law, run) in LAWS.iter().zip(&runs) {
            for (k, b) in run.iter().enumerate() {
                // U_n⁺ = −e U_n⁻: Newton's is one division, Poisson's and Stronge's two
                // linear phases (one increment each for a diagonal W): round-off, 1e-9.
                assert!((b.rebound - e * b.impact).abs() <= 1e-9 * b.impact, "{law:?} e = {e}: bounce {k}");
                // The apex of flight k against e^{2(k+1)} h₀. The discrete ball turns at the
                // gap it had when its closing step started (≤ V Δt above the plane), and the
                // apex is sampled every step (≤ g Δt²/2 off), so each bounce may shift the
                // energy by up to m g V Δt; over k + 1 bounces that is (k + 1) V Δt of
                // height, V ≤ √(2 g h₀) = 1.4 m/s: (k + 1) 1.4e-5 m.
                let exact = e.powi(2 * (k as i32 + 1)) * h0;
                let tol = (k as f64 + 1.0) * (2.0 * G * h0).sqrt() * dt;
                println!("{law:?} e = {e}: apex {k} = {:.7} m, e^(2k) h0 = {exact:.7} m", b.apex);
                assert!((b.apex - exact).abs() <= tol, "{law:?} e = {e}: apex {} vs {exact}", b.apex);
            }
        }
        // The three laws coincide in a central impact: the same trajectory to round-off.
        for run in &runs[1..] {
            for (a, b) in run.iter().zip(&runs[0]) {
                assert!((a.rebound - b.rebound).abs() <= 1e-12 * b.rebound && (a.apex - b.apex).abs() <= 1e-12);
            }
        }
    }
}

#[test]
fn theta_one_half_keeps_the_energy_of_free_flight_and_theta_one_loses_half_m_g2_dt2_per_step() {
    let dt = 1e-3;
    for theta in [0.5, 0.75, 1.0] {
        let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -G)).build().unwrap();
        let ball = SphereBuilder::new(R, DVec3::new(0.0, 0.0, 1.0)).mass(MASS).velocity(DVec3::new(0.3, -0.2, 2.0));
        w.insert(ball.build().unwrap()).unwrap();
        let mut s = solver(ImpactLaw::Newton, theta);
        let e0 = 0.5 * MASS * w.bodies.velocity[0].length_squared() + MASS * G * w.bodies.position[0].z;
        let steps = 400;
        for _ in 0..steps {
            w.step(&mut s, dt).unwrap();
        }
        let e1 = 0.5 * MASS * w.bodies.velocity[0].length_squared() + MASS * G * w.bodies.position[0].z;
        let expected = steps as f64 * MASS * G * G * dt * dt * (0.5 - theta);
        // Energies of order 0.4 J summed over 400 steps: round-off below 1e-13 J.
        println!("theta = {theta}: energy change {:.3e} J, m g² Δt² (1/2 − θ) per step: {expected:.3e} J", e1 - e0);
        assert!((e1 - e0 - expected).abs() < 1e-12, "theta = {theta}: {} vs {expected}", e1 - e0);
    }
}

#[test]
fn theta_one_half_conserves_the_energy_of_an_elastic_bouncing_ball_under_all_three_laws() {
    let dt = 1e-4;
    for law in LAWS {
        for theta in [0.5, 1.0] {
            let mut w = ball_world(0.05, 1.0);
            let mut s = solver(law, theta);
            let e0 = energy(&w);
            let mut worst: f64 = 0.0;
            // 0.5 s: five bounces.
            for _ in 0..5000 {
                w.step(&mut s, dt).unwrap();
                worst = worst.max((energy(&w) - e0).abs());
            }
            println!("{law:?}, theta = {theta}: largest |E − E0| = {worst:.3e} J (E0 = {e0:.3e} J)");
            if theta == 0.5 {
                // Round-off of ½ m v² + m g z with E0 = 0.1 J over 5000 steps: < 1e-13 J
                // measured; 1e-12 J is 1e-11 of E0.
                assert!(worst < 1e-12, "{law:?}: energy drift {worst} J");
            } else {
                // θ = 1 gains m g V Δt per bounce and loses ½ m g² Δt² per step of flight:
                // far from round-off.
                assert!(worst > 1e-6, "{law:?}: θ = 1 drift {worst} J");
            }
        }
    }
}
