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

use crate::common::column_of;
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

/// A row of `n` touching spheres of equal mass along x, sphere k at velocity `v(k)`, no
/// gravity, restitution `e` and friction `mu` on every pair.
fn row(n: usize, e: f64, mu: f64, v: impl Fn(usize) -> DVec3) -> World {
    let material = Material { restitution: e, friction: mu, ..Material::named("bead") };
    let mut w = World::builder().gravity(DVec3::ZERO).material(material).build().unwrap();
    for k in 0..n {
        let sphere = SphereBuilder::new(R, DVec3::new(2.0 * R * k as f64, 0.0, 0.0)).mass(MASS).velocity(v(k));
        w.insert(sphere.build().unwrap()).unwrap();
    }
    w
}

/// A solver whose sweeps, and the joint shock's, run to a relative change of 1e-9.
fn converged(law: ImpactLaw) -> NscdSolver<BruteForce, SignoriniCoulomb> {
    let law = SignoriniCoulomb { restitution: Restitution::Pair(law) };
    let criterion = granula_nscd::Criterion::LocalRelative { epsilon: 1e-9, cutoff: 1e-12, max_iterations: 100_000 };
    NscdSolver::with_law(BruteForce, law, NscdConfig { criterion, ..Default::default() }).unwrap()
}

/// Kinetic energy of translation and rotation.
fn kinetic(w: &World) -> f64 {
    let b = &w.bodies;
    (0..b.len()).map(|i| 0.5 * b.mass[i] * b.velocity[i].length_squared() + b.rotational_energy(i)).sum()
}

#[test]
fn a_row_of_spheres_closing_at_once_rebounds_at_minus_e_u_under_poisson_and_stronge() {
    // Every contact closes at 2 m/s (v_k = n − 1 − 2k, no net momentum). Solved as one
    // multiple impact, the compression brings every sphere to rest (the common velocity)
    // with the impulses P_c, the restitution adds e P_c: v⁺ = −e v⁻, every contact leaves
    // at U_n⁺ = −e U_n⁻ = 2e and the row keeps e² of its kinetic energy, as under Newton's
    // law. Restarting each binary shock inside the sweeps instead made the impulses grow
    // without bound from four spheres on (0.4 J became 1392 J for eight).
    let e = 0.5;
    for n in [2, 3, 4, 5, 8, 16] {
        for law in [ImpactLaw::Poisson, ImpactLaw::Stronge] {
            for mu in [0.0, 0.3] {
                let mut w = row(n, e, mu, |k| DVec3::new((n - 1) as f64 - 2.0 * k as f64, 0.0, 0.0));
                let before = kinetic(&w);
                let mut s = converged(law);
                w.step(&mut s, 1e-6).unwrap();
                let after = kinetic(&w);
                // The joint problems stop at a relative change of 1e-9 per sweep; on a
                // row of 16 (N_I ∝ n², 000 eq. 48) that leaves a few 1e-8 of the impulses.
                let tol = 1e-6;
                println!("{law:?} n = {n} mu = {mu}: kinetic energy {before:.4} J -> {after:.6} J");
                assert!((after / before - e * e).abs() < tol, "{law:?} n = {n}: {after} J of {before} J");
                for k in 0..n {
                    let v = w.bodies.velocity[k].x;
                    let expected = -e * ((n - 1) as f64 - 2.0 * k as f64);
                    assert!((v - expected).abs() < tol * n as f64, "{law:?} n = {n}: sphere {k} at {v} m/s");
                }
            }
        }
    }
}

#[test]
fn a_multiple_impact_never_creates_kinetic_energy() {
    // Rows of 4 to 12 spheres with seeded random velocities along and across the row,
    // and a friction of 0.3: whatever the order of the impacts, a shock with e ≤ 1 and
    // Coulomb friction dissipates. Each step's kinetic energy may not exceed the one
    // before by more than the sweeps' tolerance (1e-9 relative change per sweep; 1e-5 is a
    // wide margin over it and far below any shock's energy).
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for n in [4, 6, 12] {
        for law in [ImpactLaw::Poisson, ImpactLaw::Stronge] {
            for e in [0.1, 0.5, 1.0] {
                let speeds: Vec<DVec3> = (0..n)
                    .map(|_| {
                        DVec3::new(
                            rng.random_range(-2.0..2.0),
                            rng.random_range(-0.5..0.5),
                            rng.random_range(-0.5..0.5),
                        )
                    })
                    .collect();
                let mut w = row(n, e, 0.3, |k| speeds[k]);
                let mut s = converged(law);
                let mut last = kinetic(&w);
                for step in 0..20 {
                    w.step(&mut s, 1e-4).unwrap();
                    let now = kinetic(&w);
                    assert!(now <= last * (1.0 + 1e-5), "{law:?} n = {n} e = {e} step {step}: {last} J -> {now} J");
                    last = now;
                }
            }
        }
    }
}

#[test]
fn a_hyperstatic_column_dropped_on_the_floor_loses_energy_under_poisson_and_stronge() {
    // The 3×3×6 column of touching spheres in its box (walls and floor: a hyperstatic
    // network, W singular) falls onto the floor at 0.5 m/s with e = 0.5 and μ = 0.5. Each
    // step of θ = 1 loses ½ m g² Δt² per body in flight and the shocks dissipate, so the
    // mechanical energy ½ m v² + ½ ω·Iω + m g z may only fall. Restarting the binary shock of
    // each contact inside the sweeps made this column gain energy without bound.
    for law in [ImpactLaw::Poisson, ImpactLaw::Stronge] {
        let mut w = column_of(Material { friction: 0.5, restitution: 0.5, ..Material::named("bead") });
        let lift = 0.0005;
        for i in 0..w.bodies.len() {
            if w.bodies.inv_mass[i] > 0.0 {
                w.bodies.position[i].z += lift;
                w.bodies.velocity[i] = DVec3::new(0.0, 0.0, -0.5);
            }
        }
        let mechanical = |w: &World| {
            let b = &w.bodies;
            (0..b.len())
                .filter(|&i| b.inv_mass[i] > 0.0)
                .map(|i| {
                    0.5 * b.mass[i] * b.velocity[i].length_squared()
                        + b.rotational_energy(i)
                        + b.mass[i] * 9.81 * b.position[i].z
                })
                .sum::<f64>()
        };
        let mut s = converged(law);
        let e0 = mechanical(&w);
        let mut last = e0;
        for step in 0..100 {
            w.step(&mut s, 2e-4).unwrap();
            let now = mechanical(&w);
            // The sweeps stop at a relative change of 1e-9; 1e-5 of the initial energy per
            // step is a wide margin over it and far below a shock's energy.
            assert!(now <= last + 1e-5 * e0, "{law:?} step {step}: {last} J -> {now} J");
            last = now;
        }
        println!("{law:?}: mechanical energy {e0:.6e} J -> {last:.6e} J");
        assert!(last < e0, "{law:?}");
    }
}
