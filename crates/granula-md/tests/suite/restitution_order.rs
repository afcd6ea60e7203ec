//! Restitution of damped Hertz impacts through the MD solver, per integrator: a sphere on a
//! plane and two equal spheres (aluminium oxide, R = 2.5 mm, 3.9 m/s, no gravity), Hertz with
//! the damping calibrated from e under the no-attraction clamp, so the exact restitution is
//! e (docs/contact-laws.md).
//!
//! An impact's error has two parts: a systematic one, set by the integrator (first order in
//! Δt when the dashpot sees the half-step velocity, second order when it sees a velocity at
//! the force's time level), and a part that depends on where the first contact falls
//! between two force evaluations (the Tsuji dashpot grows as δ^{1/4}, so the sampled impulse
//! of the first steps is off by O(Δt^{5/4}), with zero mean over that phase, for every
//! integrator). The tests average over `PHASES` evenly spaced onset phases to measure the
//! first, as a granular flow with its random contact phases sees it.

use granula_broadphase::BruteForce;
use granula_core::{ContactLaw, DVec3, Integrator, Material, PairMaterial, PlaneBuilder, SphereBuilder, World};
use granula_integrators::{ForceVelocity, Gear, SymplecticEuler, VelocityVerlet};
use granula_laws::params::hertz_contact_time;
use granula_laws::{Composed, Hertz, HertzViscous, HertzViscousImpulse, NoFriction};
use granula_md::{MdConfig, MdSolver};

const RADIUS: f64 = 2.5e-3;
const SPEED: f64 = 3.9;
/// Onset phases per average: the midpoints of 32 equal parts of a step. The phase-dependent
/// part varies by ±1.2 % at e = 0.1 and t_c/100; its 32-point mean is within 2e-5 of the
/// 64-point one (measured), well below the tolerances.
const PHASES: usize = 32;
/// The restitutions of the table.
const RESTITUTIONS: [f64; 4] = [0.1, 0.2, 0.5, 0.9];

fn alumina(e: f64) -> Material {
    Material {
        name: "alumina".into(),
        density: 4000.0,
        young_modulus: 380e9,
        poisson_ratio: 0.23,
        restitution: e,
        friction: 0.0,
        ..Material::default()
    }
}

/// Undamped Hertz contact time of the impact (sphere on plane, or two spheres).
fn contact_time(two: bool) -> f64 {
    let m = alumina(0.5);
    let pm = PairMaterial::mix(&m, &m);
    let mass = 4000.0 * 4.0 / 3.0 * std::f64::consts::PI * RADIUS.powi(3);
    let (m_eff, r_eff) = if two { (0.5 * mass, 0.5 * RADIUS) } else { (mass, RADIUS) };
    hertz_contact_time(pm.effective_young, r_eff, m_eff, SPEED)
}

/// Head-on impact at `SPEED` (two spheres: at ±SPEED/2), the gap at t = 0 being `phase`
/// steps of travel; returns the measured restitution, −(relative normal velocity after) /
/// (before), once the contact has ended.
fn impact<I: Integrator>(integrator: I, e: f64, dt: f64, two: bool, phase: f64) -> f64 {
    let law = Composed::new(Hertz::from_material(), HertzViscous::calibrated_from_material(), NoFriction);
    impact_with(law, integrator, e, dt, two, phase)
}

/// [`impact`] under any law.
fn impact_with<L: ContactLaw, I: Integrator>(law: L, integrator: I, e: f64, dt: f64, two: bool, phase: f64) -> f64 {
    let mut w = World::builder().gravity(DVec3::ZERO).material(alumina(e)).build().unwrap();
    let gap = phase * SPEED * dt;
    let sphere = |x: DVec3, v: DVec3| SphereBuilder::new(RADIUS, x).velocity(v).build().unwrap();
    let (first, second) = if two {
        let a = w.insert(sphere(DVec3::ZERO, DVec3::X * 0.5 * SPEED)).unwrap();
        let b = w.insert(sphere(DVec3::X * (2.0 * RADIUS + gap), -DVec3::X * 0.5 * SPEED)).unwrap();
        (Some(a), b)
    } else {
        w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::X).build().unwrap()).unwrap();
        (None, w.insert(sphere(DVec3::X * (RADIUS + gap), -DVec3::X * SPEED)).unwrap())
    };
    let config = MdConfig { skin: 0.1 * RADIUS, ..Default::default() };
    let mut s = MdSolver::new(law, integrator, BruteForce, config).unwrap();
    let mut touched = false;
    for _ in 0..10_000 {
        let r = w.step(&mut s, dt).unwrap();
        if r.contacts > 0 {
            touched = true;
        } else if touched {
            let b = &w.bodies;
            let v1 = first.map_or(DVec3::ZERO, |h| b.velocity[b.index(h).unwrap()]);
            return (b.velocity[b.index(second).unwrap()] - v1).x / SPEED;
        }
    }
    panic!("the contact did not end");
}

/// Mean relative error e_measured/e − 1 over `PHASES` onset phases.
fn mean_error<I: Integrator>(make: impl Fn() -> I, e: f64, steps_per_contact: f64, two: bool) -> f64 {
    let dt = contact_time(two) / steps_per_contact;
    let sum: f64 = (0..PHASES).map(|k| impact(make(), e, dt, two, (k as f64 + 0.5) / PHASES as f64) / e - 1.0).sum();
    sum / PHASES as f64
}

#[test]
fn verlet_restitution_is_within_0_2_percent_at_tc_over_100() {
    // The target: e within 0.2 % at Δt = t_c/100 for every e ≥ 0.1. Measured (sphere
    // on plane and two spheres alike: the reduced impact is the same) −7.1e-4, −6.5e-4,
    // −3.3e-4, −5.4e-5 for e = 0.1, 0.2, 0.5, 0.9; with the half-step velocity in the dashpot
    // −2.2 %, −1.1 %, −0.20 %, −4.5e-5.
    for two in [false, true] {
        for e in RESTITUTIONS {
            let err = mean_error(VelocityVerlet::new, e, 100.0, two);
            assert!(err.abs() < 2e-3, "two spheres: {two}, e = {e}: error {err:+.3e}");
        }
    }
}

#[test]
fn verlet_restitution_converges_at_second_order() {
    // Halving Δt divides the systematic error by 4 at second order, by 2 at first order;
    // measured 4.1 to 4.7 between t_c/50 and t_c/100 (2.0 with the half-step velocity).
    // A ratio above 3 tells the orders apart with margin on both sides.
    for e in [0.1, 0.2, 0.5] {
        let coarse = mean_error(VelocityVerlet::new, e, 50.0, false);
        let fine = mean_error(VelocityVerlet::new, e, 100.0, false);
        assert!(coarse / fine > 3.0, "e = {e}: {coarse:+.3e} at t_c/50, {fine:+.3e} at t_c/100");
    }
    // The classic scheme stays available, and first order.
    let half = || VelocityVerlet::with_force_velocity(ForceVelocity::HalfStep);
    let ratio = mean_error(half, 0.2, 50.0, false) / mean_error(half, 0.2, 100.0, false);
    // Measured 2.01; ±0.2 leaves room for the phase average's quadrature error.
    assert!((ratio - 2.0).abs() < 0.2, "half-step ratio {ratio}");
}

#[test]
fn gear_restitution_is_within_0_2_percent_at_tc_over_100() {
    // Gear predicts the velocity with the position: measured |error| ≤ 1.5e-4 for Gear 4,
    // 1.4e-5 for Gear 5 and 6, for every e of the table. Same 0.2 % bound as Verlet.
    for e in RESTITUTIONS {
        for (values, err) in [
            (4, mean_error(Gear::four, e, 100.0, false)),
            (5, mean_error(Gear::five, e, 100.0, false)),
            (6, mean_error(Gear::six, e, 100.0, false)),
        ] {
            assert!(err.abs() < 2e-3, "gear{values}, e = {e}: error {err:+.3e}");
        }
    }
}

#[test]
fn symplectic_euler_restitution_equals_half_step_verlet() {
    // Drift-kick symplectic Euler is Verlet with its velocities read half a step later, and
    // a free impact starts and ends without force: both give the same outgoing velocity, so
    // symplectic Euler's restitution is first order as the half-step Verlet's. The two runs
    // take different roundings, so they agree to a few ulps of the velocity (1e-12
    // relative, measured equal to all printed digits).
    for e in [0.1, 0.5] {
        let dt = contact_time(false) / 100.0;
        let a = impact(SymplecticEuler::new(), e, dt, false, 0.3);
        let b = impact(VelocityVerlet::with_force_velocity(ForceVelocity::HalfStep), e, dt, false, 0.3);
        assert!((a - b).abs() < 1e-12, "e = {e}: {a} vs {b}");
    }
}

#[test]
fn elastic_impacts_are_the_same_bits_under_both_force_velocities() {
    // Without damping the force depends on positions only, so the predicted velocity changes
    // nothing: the same bits as the classic scheme, hence the same energy conservation.
    // Velocity Verlet's energy error over an elastic impact at t_c/100, measured at 64
    // phases: |e − 1| ≤ 7.2e-6 (kinetic energy 1.4e-5), mean 1.5e-9.
    let dt = contact_time(false) / 100.0;
    for phase in [0.0, 0.3, 0.7] {
        let a = impact(VelocityVerlet::new(), 1.0, dt, false, phase);
        let b = impact(VelocityVerlet::with_force_velocity(ForceVelocity::HalfStep), 1.0, dt, false, phase);
        assert_eq!(a.to_bits(), b.to_bits(), "phase {phase}");
        // The bound of the measured worst case above, with a factor 2 of margin.
        assert!((a - 1.0).abs() < 1.5e-5, "phase {phase}: e = {a}");
    }
}

#[test]
fn with_an_onset_exact_dashpot_every_impact_is_within_0_2_percent() {
    // `HertzViscousImpulse`: the calibrated Tsuji dashpot with its impulse integrated
    // over the step. Per impact (not averaged over onset phases), under Verlet at t_c/100:
    // measured −0.090 % to −0.079 % for e = 0.1, −0.076 % to −0.066 % for 0.2, −0.041 % to
    // −0.031 % for 0.5, −0.008 % to −0.004 % for 0.9. With the sampled dashpot the same
    // impacts spread over −0.71 % to +1.09 % for e = 0.1 (docs/contact-laws.md); with the
    // half-step velocity they are −2.2 % off on average. Tolerance: the 0.2 % target of
    // the issue, per impact, at 16 phases and for sphere–plane and sphere–sphere.
    let dt = |two| contact_time(two) / 100.0;
    for e in RESTITUTIONS {
        for two in [false, true] {
            for k in 0..16 {
                let phase = (k as f64 + 0.5) / 16.0;
                let err = impact_with(impulse_law(), VelocityVerlet::new(), e, dt(two), two, phase) / e - 1.0;
                assert!(err.abs() < 2e-3, "e = {e}, two spheres {two}, phase {phase}: error {err:+.3e}");
            }
        }
    }
}

/// Hertz with the integrated dashpot, calibrated to the clamp.
fn impulse_law() -> Composed<Hertz, HertzViscousImpulse, NoFriction> {
    Composed::new(Hertz::from_material(), HertzViscousImpulse::calibrated_from_material(), NoFriction)
}

#[test]
fn the_integrated_dashpot_is_second_order_and_matches_gear() {
    // Halving Δt from t_c/100 to t_c/200 divides the per-impact error by about 4 (measured
    // 4.0 to 4.4 before it entered the library): at least 3, with margin for the phase.
    // Under Gear 5 the same law is within 0.02 % at t_c/100 (measured −0.017 % to −0.007 %
    // for e = 0.1): tolerance 0.05 %.
    let tc = contact_time(false);
    for phase in [0.1, 0.45, 0.8] {
        let coarse = impact_with(impulse_law(), VelocityVerlet::new(), 0.1, tc / 100.0, false, phase) / 0.1 - 1.0;
        let fine = impact_with(impulse_law(), VelocityVerlet::new(), 0.1, tc / 200.0, false, phase) / 0.1 - 1.0;
        assert!(coarse.abs() > 3.0 * fine.abs(), "phase {phase}: {coarse:+.3e} then {fine:+.3e}");
        let gear = impact_with(impulse_law(), Gear::five(), 0.1, tc / 100.0, false, phase) / 0.1 - 1.0;
        assert!(gear.abs() < 5e-4, "phase {phase}: Gear 5 error {gear:+.3e}");
    }
}
