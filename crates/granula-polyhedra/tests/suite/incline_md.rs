//! VALIDATION M7 (003 §6) under the MD solver: the non-convex L-block (V = 0.001 m³,
//! ρ = 2700 kg/m³) sent up a 30° incline at v₀ = 5 m/s stops at
//! t = v₀/(g sin α + μ g cos α); with μ < tan α it then slides down at g(sin α − μ cos α),
//! with μ > tan α it stays where it stopped.
//!
//! The incline is the plane z = 0 with gravity turned by α about y,
//! g = g(−sin α, 0, −cos α): the same forces as a tilted plane under vertical gravity, with
//! the slope along x. The block lies on its L-shaped face, so it touches the plane at the
//! six corners of that non-convex face: six contact points of one pair, each with its own
//! tangential history.

use granula_broadphase::BruteForce;

use crate::common::{incline, ALPHA, G, V0};
use granula_core::Material;
use granula_integrators::VelocityVerlet;
use granula_laws::prelude::*;
use granula_laws::{Friction, TangentialDamping, TangentialStiffness};
use granula_md::{MdConfig, MdSolver};

/// Normal stiffness per contact point (N/m). The test's physics is rigid-body friction, which
/// does not depend on the contact stiffness as long as the overlap (m g cos α / 6K ≈ 4e-8 m)
/// and the tangential spring's stretch stay far below the distances measured: stiffer than
/// 003's contacts, which keeps the run short.
const STIFFNESS: f64 = 1e8;
/// Time step (s): 84 steps per period of the block on its six springs
/// (T = 2π√(m/6K) ≈ 0.42 ms). At 1e-5 s (42 steps per period) the block with μ = 0.58,
/// 0.45 % above tan α, crept 1.5e-6 m in the second after it settled: velocity Verlet's
/// error in the ringing of the springs let a point's tangential force pass its share μNᵢ
/// for a step now and then. At 5e-6 s and at 2.5e-6 s it does not move at all (measured:
/// drift 0 for μ = 0.58 and 0.6, settling 9.5e-6 m and 1.1e-6 m at both steps).
const DT: f64 = 5e-6;

/// What a run measured.
struct Trace {
    /// Time the block stopped (s): the first sign change of the up-slope velocity,
    /// interpolated linearly within the step.
    stop: f64,
    /// How far it moved between the stop and 0.1 s later (m): the tangential springs, which
    /// held μN down the slope, turn to hold m g sin α up it, and the block moves with
    /// them; a spring-dashpot overshoots its new rest stretch, and with μ barely above
    /// tan α (0.58 against 0.577) the overshoot slips.
    settle: f64,
    /// Largest distance over the following second from where it was 0.1 s after the stop
    /// (m): the creep of a block at rest.
    drift: f64,
    /// Mean acceleration along x between 0.2 s and 0.7 s after the stop (m/s²).
    after_stop: f64,
    /// Contact points of the pair while sliding up.
    contacts: usize,
}

/// The L-block of 003 §6 lying on its L-shaped face, sent up the slope at `V0`, with
/// friction `mu`, for 1.1 s after it stops.
fn run(mu: f64) -> Trace {
    let material = Material { density: 2700.0, friction: mu, restitution: 0.3, ..Material::named("block") };
    // Started at the static overlap of six equal springs, so that it does not bounce.
    let sink = |volume: f64| 2700.0 * volume * G * ALPHA.cos() / (6.0 * STIFFNESS);
    let (mut world, i) = incline(material, sink);
    // 003 eqs. 3-6: Kelvin-Voigt / Hunt-Crossley normal force (n = 1) and the
    // Brendel-Dippel tangential spring, damped at the normal damping ratio so that the
    // spring's ringing after the stop dies out.
    let tangential = BrendelDippel::new(
        TangentialStiffness::FromNormal,
        TangentialDamping::SameDampingRatio,
        Friction::from_material(),
    )
    .unwrap();
    let law = Composed::new(PowerLaw::new(STIFFNESS, 1.0).unwrap(), HuntCrossley::from_material(), tangential);
    let config = MdConfig { skin: 1e-3, threads: Some(1), ..Default::default() };
    let mut solver = MdSolver::new(law, VelocityVerlet::new(), BruteForce, config).unwrap();
    let (mut stop, mut x_stop, mut contacts) = (None, 0.0, 0);
    let (mut settled, mut drift) = (None, 0.0_f64);
    let (mut v_a, mut v_b) = (None, None);
    let mut t = 0.0;
    loop {
        let v_before = world.bodies.velocity[i].x;
        let report = world.step(&mut solver, DT).unwrap();
        t += DT;
        let (x, vx) = (world.bodies.position[i].x, world.bodies.velocity[i].x);
        match stop {
            None if vx <= 0.0 => {
                stop = Some(t - DT + DT * v_before / (v_before - vx));
                x_stop = x;
            }
            None => contacts = contacts.max(report.contacts),
            Some(ts) => {
                let since = t - ts;
                if since >= 0.1 {
                    let x0 = *settled.get_or_insert(x);
                    drift = drift.max((x - x0).abs());
                }
                if since >= 0.2 && v_a.is_none() {
                    v_a = Some((since, vx));
                }
                if since >= 0.7 && v_b.is_none() {
                    v_b = Some((since, vx));
                }
                if since >= 1.1 {
                    let ((ta, va), (tb, vb)) = (v_a.unwrap(), v_b.unwrap());
                    let settle = (settled.unwrap_or(x_stop) - x_stop).abs();
                    return Trace { stop: ts, settle, drift, after_stop: (vb - va) / (tb - ta), contacts };
                }
            }
        }
    }
}

/// t = v₀/(g sin α + μ g cos α).
fn stop_time(mu: f64) -> f64 {
    V0 / (G * (ALPHA.sin() + mu * ALPHA.cos()))
}

#[test]
fn m7_the_l_block_stops_then_slides_down_with_mu_0_5() {
    let trace = run(0.5);
    let expected = stop_time(0.5);
    println!(
        "mu 0.5: stop {:.5} s (expected {expected:.5}, rel. error {:.1e}), then {:.5} m/s² (rel. error {:.1e}), {} contacts",
        trace.stop,
        trace.stop / expected - 1.0,
        trace.after_stop,
        trace.after_stop / (-G * (ALPHA.sin() - 0.5 * ALPHA.cos())) - 1.0,
        trace.contacts
    );
    assert_eq!(trace.contacts, 6, "the six corners of the L-shaped face");
    // 003 §6 asks 1 %, which a 2 % error in μ would pass. Here every point slides, so
    // Σ μNᵢ = μ m g cos α exactly and velocity Verlet is exact for the constant
    // deceleration; the stop is interpolated within a step on a linear v(t). What is left
    // is the start: the tangential springs start unstretched and reach μNᵢ after
    // μNᵢ/(k_t v₀) ~ 1e-8 s, ~2e-8 of the stop time (measured 8.7e-13 to 5.3e-9 over the
    // three μ). STOP_TOLERANCE = 1e-7 catches an error of 2e-7 in μ.
    assert!((trace.stop / expected - 1.0).abs() < STOP_TOLERANCE, "stop at {} s, expected {expected} s", trace.stop);
    // The slide down: constant acceleration, exact under Verlet once the springs have
    // turned (0.2 s after the stop); measured 3.3e-8, the springs' ringing at the turn
    // damped by e^−(0.2 s/τ). 1e-6 catches an error of 1.5e-7 in μ (a is 6.5 times as
    // sensitive as μ here: μ cos α/(sin α − μ cos α)).
    let a = -G * (ALPHA.sin() - 0.5 * ALPHA.cos());
    assert!((trace.after_stop / a - 1.0).abs() < 1e-6, "slides down at {} m/s², expected {a}", trace.after_stop);
}

/// Relative tolerance of the stop times: see `m7_the_l_block_stops_then_slides_down_with_mu_0_5`.
const STOP_TOLERANCE: f64 = 1e-7;

/// The stop of a run with friction `mu` at the expected time, within [`STOP_TOLERANCE`]
/// (003 §6 asks 1 %), with its report line.
fn stops_in_time(mu: f64) -> Trace {
    let trace = run(mu);
    let expected = stop_time(mu);
    println!(
        "mu {mu}: stop {:.5} s (expected {expected:.5}, rel. error {:.1e}), settling {:.3e} m, then drift {:.3e} m",
        trace.stop,
        trace.stop / expected - 1.0,
        trace.settle,
        trace.drift
    );
    assert!(
        (trace.stop / expected - 1.0).abs() < STOP_TOLERANCE,
        "mu {mu}: stop at {} s, expected {expected} s",
        trace.stop
    );
    trace
}

#[test]
fn m7_the_l_block_stops_and_stays_with_mu_0_6() {
    let trace = stops_in_time(0.6);
    // 1e-6 m over a second at rest (003 §6), measured from 0.1 s after the stop: the
    // springs' turn at the stop is a transient of the contact model, not a creep
    // (measured: 1.1e-6 m of settling, then no motion at all).
    assert!(trace.drift < 1e-6, "drift {} m", trace.drift);
    // The turn itself: the tangential stretch changes by (μN + m g sin α)/(6 k_t) ≈ 6e-8 m,
    // and the damped springs overshoot; 1e-5 m bounds it at 0.02 % of the distance slid.
    assert!(trace.settle < 1e-5, "settling slip {} m", trace.settle);
}

/// μ = 0.58 is 0.45 % above tan 30° = 0.577: the block stops in time and stays, with
/// the time step resolving the ringing of its springs (see [`DT`]).
#[test]
fn m7_the_l_block_stops_and_stays_with_mu_0_58() {
    let trace = stops_in_time(0.58);
    // 1e-6 m over a second at rest (003 §6), from 0.1 s after the stop as for μ = 0.6
    // (measured: no motion at all).
    assert!(trace.drift < 1e-6, "drift {} m", trace.drift);
    // The turn of the springs at the stop: with μ barely above tan α the damped springs'
    // overshoot slips more than at μ = 0.6 (measured 9.5e-6 m against 1.1e-6 m); 2e-5 m
    // bounds it at 0.03 % of the distance slid up (about 1.3 m).
    assert!(trace.settle < 2e-5, "settling slip {} m", trace.settle);
}
