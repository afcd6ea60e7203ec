//! Newton's impact law in Moreau-Jean's scheme (004 §2.2.2.2, §2.3.3): a contact that
//! closes within a step rebounds with U_n⁺ = −e U_n⁻ whatever Δt and wherever within the
//! step it closes. Drops from random heights and three-ball cradles from random start
//! gaps, for e = 1, 0.5 and 0, several Δt and θ = 1 and 0.5.
//!
//! What "exact" means here. The scheme's pre-impact velocity U_n⁻ is the normal velocity at
//! the start of the step in which the contact closes (the step whose predicted gap
//! g + θ Δt U_n,free is ≤ 0). For a ball released from rest under constant gravity the
//! free fall before that step is exact in the scheme: v_k = −k g Δt after k steps
//! (v_free = v + Δt g, no impulse). So the expected rebound of a drop is e k g Δt, k the
//! number of steps before the closing one, which the test finds by replaying the discrete
//! free fall (θ-method positions) and checks against the solver's first step with an
//! impulse.

use granula_broadphase::BruteForce;
use granula_core::{DVec3, Material, PlaneBuilder, SphereBuilder, World};
use granula_nscd::{ImpactLaw, NscdConfig, NscdSolver, Restitution, SignoriniCoulomb};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const G: f64 = 9.81;
const R: f64 = 0.01;

/// The law and the material of a case: Newton with the material's e (materials hold e in
/// (0, 1]), or the constant coefficient 0.
fn law_and_material(e: f64) -> (SignoriniCoulomb, Material) {
    let restitution = if e > 0.0 { Restitution::NEWTON } else { Restitution::Constant(ImpactLaw::Newton, 0.0) };
    let material = Material { restitution: if e > 0.0 { e } else { 0.5 }, ..Material::named("balls") };
    (SignoriniCoulomb { restitution }, material)
}

/// A single contact or three: the Gauss-Seidel reaches its fixed point to round-off well
/// within 60 sweeps (spectral radius 1/4 per sweep for the cradle's two contacts).
fn config(theta: f64) -> NscdConfig {
    NscdConfig { theta, ..NscdConfig::fixed_random_sweeps(60) }
}

struct Drop {
    /// Speed at the start of the closing step (the scheme's U_n⁻, sign removed).
    impact: f64,
    /// Normal velocity at the end of the closing step.
    rebound: f64,
    /// Steps before the closing one.
    steps_before: usize,
    /// Gap at the end of the closing step.
    gap_after: f64,
}

/// Drops a ball from rest at height `h` (gap) and steps until the first step with a
/// non-zero impulse.
fn drop(h: f64, e: f64, dt: f64, theta: f64) -> Drop {
    let (law, material) = law_and_material(e);
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -G)).material(material).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(R, DVec3::new(0.0, 0.0, R + h)).mass(0.2).build().unwrap()).unwrap();
    let mut s = NscdSolver::with_law(BruteForce, law, config(theta)).unwrap();
    for k in 0.. {
        let before = w.bodies.velocity[1].z;
        w.step(&mut s, dt).unwrap();
        if s.impulses().any(|(_, _, p)| p != DVec3::ZERO) {
            return Drop {
                impact: -before,
                rebound: w.bodies.velocity[1].z,
                steps_before: k,
                gap_after: w.bodies.position[1].z - R,
            };
        }
        assert!(k < 10_000_000, "never landed");
    }
    unreachable!()
}

/// The discrete free fall of the θ-method from rest at gap `h`: the number of steps before
/// the first step whose predicted gap (q_m gap plus θ Δt v_free) is ≤ 0.
fn replay_closing_step(h: f64, dt: f64, theta: f64) -> usize {
    let (mut z, mut v) = (h, 0.0_f64);
    for k in 0.. {
        let v_free = v - G * dt;
        let zm = z + (1.0 - theta) * dt * v;
        if zm + theta * dt * v_free <= 0.0 {
            return k;
        }
        z = zm + theta * dt * v_free;
        v = v_free;
    }
    unreachable!()
}

#[test]
fn drops_from_random_heights_rebound_at_minus_e_times_the_impact_velocity() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    for theta in [1.0, 0.5] {
        for dt in [1e-3, 3.7e-4, 1e-4, 2.3e-5] {
            for e in [1.0, 0.5, 0.0] {
                for _ in 0..4 {
                    let h = rng.random_range(1e-3..0.2);
                    let d = drop(h, e, dt, theta);
                    let k = replay_closing_step(h, dt, theta);
                    // The contact acts in the step the free fall predicts it closes, not
                    // earlier (an approaching ball is not stopped from afar) nor later.
                    assert_eq!(d.steps_before, k, "h = {h}, dt = {dt}, theta = {theta}");
                    // U_n⁻ = k g Δt: k additions of g Δt, relative round-off ≤ k ε
                    // (k ≤ 9000 here, so ≤ 2e-12).
                    let exact = k as f64 * G * dt;
                    assert!((d.impact - exact).abs() <= 1e-11 * exact, "impact {} vs {exact}", d.impact);
                    // The impact law: U⁺ = −e U⁻. The requirement is 1e-9
                    // relative; the local solve is one division, so the error is round-off.
                    assert!(
                        (d.rebound - e * d.impact).abs() <= 1e-9 * d.impact,
                        "h = {h}, e = {e}, dt = {dt}, theta = {theta}: rebound {} for impact {}",
                        d.rebound,
                        d.impact
                    );
                    // Penetration: the end gap is g + Δt ((1 − θ) U⁻ + θ U⁺) with g ≥ 0 at
                    // the step start and U⁺ = −e U⁻, so it is ≥ −(1 − θ (1 + e)) Δt |U⁻|:
                    // none for θ = 1 (the ball turns where it was), some for θ = 0.5 and
                    // e < 1 (q_m is already past the floor; the same holds for the
                    // inelastic law). 1e-15 m: round-off of positions of order 0.1 m.
                    let allowed = (1.0 - theta * (1.0 + e)).max(0.0) * dt * d.impact;
                    assert!(d.gap_after >= -allowed - 1e-15, "gap after {} (allowed {allowed})", d.gap_after);
                    // The scheme's impact speed is the exact one, √(2 g h), to O(g Δt): the
                    // discrete fall reaches the floor within two steps of the exact time
                    // (one for the step the contact closes in, one for the θ-method's
                    // O(g Δt²) per-step position offset accumulated over the fall).
                    let continuous = (2.0 * G * h).sqrt();
                    assert!((d.impact - continuous).abs() <= 2.0 * G * dt, "{} vs {continuous}", d.impact);
                }
            }
        }
    }
}

/// The case: 5 cm, e = 1 rebounded at 0.460 m/s with Δt = 1e-3 s and 0.136 m/s with
/// 1e-4 s; √(2 g h) = 0.990 m/s.
#[test]
fn five_centimetre_drop_rebounds_at_the_impact_speed() {
    for (dt, e) in [(1e-3, 1.0), (1e-4, 1.0), (1e-3, 0.5)] {
        let d = drop(0.05, e, dt, 1.0);
        let exact = d.steps_before as f64 * G * dt;
        // Round-off only (see the random drops).
        assert!((d.rebound - e * exact).abs() <= 1e-9 * exact, "dt = {dt}: {}", d.rebound);
        // Within two steps' worth of gravity of e √(2 g h) (see the random drops).
        assert!((d.rebound - e * (2.0 * G * 0.05_f64).sqrt()).abs() <= 2.0 * G * dt * e, "dt = {dt}: {}", d.rebound);
    }
}

/// Velocities after a three-ball cradle: ball 1 at speed `v0` hits balls 2 and 3, which
/// touch each other and rest; ball 1 starts `s` steps of travel (s v0 Δt) from ball 2.
fn cradle(s: f64, e: f64, dt: f64, theta: f64) -> [f64; 3] {
    let (law, material) = law_and_material(e);
    let mut w = World::builder().gravity(DVec3::ZERO).material(material).build().unwrap();
    let v0 = 1.0;
    // Balls 2 and 3 at x = 0 and 2R: the gap 2R − 2R is exactly 0.
    let x1 = -2.0 * R - s * v0 * dt;
    for (x, v) in [(x1, v0), (0.0, 0.0), (2.0 * R, 0.0)] {
        w.insert(
            SphereBuilder::new(R, DVec3::new(x, 0.0, 0.0)).mass(0.1).velocity(DVec3::new(v, 0.0, 0.0)).build().unwrap(),
        )
        .unwrap();
    }
    let mut solver = NscdSolver::with_law(BruteForce, law, config(theta)).unwrap();
    // The contact closes in step ⌈s⌉; five more steps check that nothing happens after.
    for _ in 0..(s.ceil() as usize + 5) {
        w.step(&mut solver, dt).unwrap();
    }
    [w.bodies.velocity[0].x, w.bodies.velocity[1].x, w.bodies.velocity[2].x]
}

/// Newton's law on both contacts at once (Moreau-Jean treats impacts of one step
/// simultaneously, 004 §2.3.3.1). Equal masses m = 1, ball 1 at speed 1, impulses P₁₂ on
/// contact 1-2 and P₂₃ on contact 2-3:
///   v₁ = 1 − P₁₂,  v₂ = P₁₂ − P₂₃,  v₃ = P₂₃.
/// Contact 1-2 approaches with U⁻ = −1, so U⁺ = v₂ − v₁ = e; contact 2-3 has U⁻ = 0, so
/// U⁺ = v₃ − v₂ = 0 (both impulses come out positive, so both equalities hold):
///   2 P₁₂ − P₂₃ = 1 + e,  2 P₂₃ − P₁₂ = 0  ⇒  P₂₃ = (1 + e)/3,  P₁₂ = 2 (1 + e)/3,
///   v = ((1 − 2e)/3, (1 + e)/3, (1 + e)/3):
/// e = 1: (−1/3, 2/3, 2/3) (momentum 1 and kinetic energy 1/2 both kept), e = 0.5:
/// (0, 1/2, 1/2), e = 0: (1/3, 1/3, 1/3).
#[test]
fn cradles_from_random_start_gaps_end_with_the_simultaneous_impact_velocities() {
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    for theta in [1.0, 0.5] {
        for dt in [1e-3, 1e-4, 3.3e-5] {
            for e in [1.0, 0.5, 0.0] {
                let expected = [(1.0 - 2.0 * e) / 3.0, (1.0 + e) / 3.0, (1.0 + e) / 3.0];
                // The start gap (0.4 of a step), then random ones of up to 6 steps.
                let mut gaps = vec![0.4];
                gaps.extend((0..4).map(|_| rng.random_range(0.0..6.0)));
                for s in gaps {
                    let v = cradle(s, e, dt, theta);
                    for (a, b) in v.iter().zip(expected) {
                        // Velocities of order 1: the Gauss-Seidel's fixed point to
                        // round-off; 1e-9 is the requirement.
                        assert!(
                            (a - b).abs() <= 1e-9,
                            "s = {s}, e = {e}, dt = {dt}, theta = {theta}: {v:?}, expected {expected:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_constant_coefficient_outside_0_1_is_rejected() {
    let law = SignoriniCoulomb { restitution: Restitution::Constant(ImpactLaw::Newton, 1.5) };
    let err = NscdSolver::with_law(BruteForce, law, NscdConfig::default()).unwrap_err();
    assert!(err.to_string().contains("restitution"), "{err}");
}

/// Two free balls of random masses meet head-on from a random gap, without gravity. With
/// ball 2 ahead on +x and U⁻ = v₂ − v₁ < 0, Newton's law U⁺ = −e U⁻ and momentum
/// conservation give the impulse P = (1 + e) m_n |U⁻| on ball 2 and −P on ball 1, with
/// m_n = m₁ m₂/(m₁ + m₂) (000 eq. 16): v₁⁺ = v₁ − P/m₁, v₂⁺ = v₂ + P/m₂. The normal energy
/// lost is ½ m_n (1 − e²) U⁻², which the solver's ledger D = −P (U_free + U⁺)/2 must hold
/// (U_free = U⁻ without loads).
#[test]
fn binary_impacts_of_unequal_masses_keep_momentum_and_lose_half_mn_1_minus_e2_u2() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    for e in [1.0, 0.5, 0.0] {
        for dt in [1e-3, 1e-4] {
            for _ in 0..5 {
                let (law, material) = law_and_material(e);
                let mut w = World::builder().gravity(DVec3::ZERO).material(material).build().unwrap();
                let (m1, m2) = (rng.random_range(0.01..1.0), rng.random_range(0.01..1.0));
                let (v1, v2) = (rng.random_range(0.1..2.0), rng.random_range(-2.0..0.0));
                let closing = v1 - v2;
                // Start gap: up to 4 steps of relative travel.
                let gap = rng.random_range(0.0..4.0) * closing * dt;
                for (x, v, m) in [(0.0, v1, m1), (2.0 * R + gap, v2, m2)] {
                    let b = SphereBuilder::new(R, DVec3::new(x, 0.0, 0.0)).mass(m).velocity(DVec3::new(v, 0.0, 0.0));
                    w.insert(b.build().unwrap()).unwrap();
                }
                let mut s = NscdSolver::with_law(BruteForce, law, config(1.0)).unwrap();
                let mut dissipated = 0.0;
                for _ in 0..6 {
                    dissipated += w.step(&mut s, dt).unwrap().dissipated.normal;
                }
                let mn = m1 * m2 / (m1 + m2);
                let p = (1.0 + e) * mn * closing;
                let (a, b) = (w.bodies.velocity[0].x, w.bodies.velocity[1].x);
                // Velocities of order 1 from one division: round-off; 1e-9 the requirement.
                assert!((a - (v1 - p / m1)).abs() <= 1e-9 * closing, "e = {e}: v1 {a}");
                assert!((b - (v2 + p / m2)).abs() <= 1e-9 * closing, "e = {e}: v2 {b}");
                assert!(((b - a) - e * closing).abs() <= 1e-9 * closing, "e = {e}: separation {}", b - a);
                // The ledger is an exact identity of the impulses (relative round-off).
                let loss = 0.5 * mn * (1.0 - e * e) * closing * closing;
                assert!((dissipated - loss).abs() <= 1e-9 * (0.5 * mn * closing * closing), "{dissipated} vs {loss}");
            }
        }
    }
}
