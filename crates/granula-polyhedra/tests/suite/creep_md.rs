//! 003 Figs. 4-5 side by side: the L-block of 003 §6 sent up the 30° incline at 5 m/s
//! under the plain Cundall-Strack spring (003 eq. 4, [`UnboundedCundallStrack`]) and under
//! the Brendel-Dippel spring (003 eqs. 5-6, [`BrendelDippel`]), every other setting as in
//! `incline_md.rs` (VALIDATION M7).
//!
//! 003 §5: with the conventional Cundall-Strack spring a sticking force after a reversal "is
//! not possible": after a long sliding phase "it will take a long backwards motion in
//! opposite direction to release this spring". 003 §6, Fig. 5: with eqs. 5-6 "the velocity
//! decreases further for a short time, since the block moves downward during sticking ...
//! For μ2 and μ3, the velocity rises until it gets zero and remains there."

use granula_broadphase::BruteForce;

use crate::common::{incline, ALPHA, G, V0};
use granula_core::Material;
use granula_integrators::VelocityVerlet;
use granula_laws::prelude::*;
use granula_laws::{Friction, TangentialDamping, TangentialStiffness, UnboundedCundallStrack};
use granula_md::{MdConfig, MdSolver};

/// Normal stiffness per contact point (N/m), as in `incline_md.rs`.
const STIFFNESS: f64 = 1e8;
/// Time step (s), as in `incline_md.rs` (84 steps per period of the block on its springs).
const DT: f64 = 5e-6;

/// What a run measured; velocities are along the slope, up positive.
#[derive(Debug, Default)]
struct Trace {
    /// Time the block stopped (s), first sign change of the velocity, interpolated.
    stop: f64,
    /// Lowest velocity in the 0.02 s after the stop (m/s): the dip of 003 Fig. 5.
    dip: f64,
    /// Velocity 0.1 s after the stop (m/s).
    later: f64,
    /// Mean acceleration between 0.05 and 0.25 s after the stop (m/s²).
    back: f64,
    /// Distance moved between 0.1 and 1.1 s after the stop (m): the creep.
    drift: f64,
}

/// The L-block with friction `mu` and tangential model `tangential`, run until 1.1 s
/// after the stop.
fn run<T: TangentialModel + 'static>(tangential: T, mu: f64) -> Trace {
    let material = Material { density: 2700.0, friction: mu, restitution: 0.3, ..Material::named("block") };
    let sink = |volume: f64| 2700.0 * volume * G * ALPHA.cos() / (6.0 * STIFFNESS);
    let (mut world, i) = incline(material, sink);
    let law = Composed::new(PowerLaw::new(STIFFNESS, 1.0).unwrap(), HuntCrossley::from_material(), tangential);
    let config = MdConfig { skin: 1e-3, threads: Some(1), ..Default::default() };
    let mut solver = MdSolver::new(law, VelocityVerlet::new(), BruteForce, config).unwrap();
    let mut tr = Trace { dip: f64::INFINITY, ..Default::default() };
    let (mut stopped, mut v_a, mut x_a, mut t) = (false, None, None, 0.0);
    loop {
        let v_before = world.bodies.velocity[i].x;
        world.step(&mut solver, DT).unwrap();
        t += DT;
        let (x, v) = (world.bodies.position[i].x, world.bodies.velocity[i].x);
        if !stopped {
            if v <= 0.0 {
                tr.stop = t - DT + DT * v_before / (v_before - v);
                stopped = true;
            }
            continue;
        }
        let since = t - tr.stop;
        if since <= 0.02 {
            tr.dip = tr.dip.min(v);
        }
        if since >= 0.05 && v_a.is_none() {
            v_a = Some((since, v));
        }
        if since >= 0.1 && x_a.is_none() {
            (tr.later, x_a) = (v, Some(x));
        }
        if since >= 0.25 && tr.back == 0.0 {
            let (ta, va) = v_a.unwrap();
            tr.back = (v - va) / (since - ta);
        }
        if since >= 1.1 {
            tr.drift = (x - x_a.unwrap()).abs();
            return tr;
        }
    }
}

/// Both springs as in `incline_md.rs`: k_t from Mindlin's ratio, damped at the normal
/// damping ratio, friction from the material.
fn springs() -> (UnboundedCundallStrack, BrendelDippel) {
    let (k, g, f) = (TangentialStiffness::FromNormal, TangentialDamping::SameDampingRatio, Friction::from_material());
    (UnboundedCundallStrack::new(k, g, f).unwrap(), BrendelDippel::new(k, g, f).unwrap())
}

/// t = v₀/(g sin α + μ g cos α) (003 §6).
fn stop_time(mu: f64) -> f64 {
    V0 / (G * (ALPHA.sin() + mu * ALPHA.cos()))
}

/// One μ of 003 Figs. 4-5 under both springs: (eq. 4, eqs. 5-6). Both stop at the time of
/// 003 §6: on the way up every point slides, and both springs then hold |f_t| = μ N
/// (eq. 4's min and eq. 6's Θ agree until the motion reverses). 003 asks 1 %; velocity
/// Verlet is exact for the constant deceleration and the stop is interpolated on a linear
/// v(t), so what is left is the springs' start (μNᵢ/(k_t v₀) ~ 1e-8 s, ~2e-8 of the stop;
/// measured 1.8e-12 to 5.3e-9): 1e-7.
fn side_by_side(mu: f64) -> (Trace, Trace) {
    let (cs, bd) = springs();
    let (a, b) = (run(cs, mu), run(bd, mu));
    let expected = stop_time(mu);
    println!("mu {mu}: expected stop {expected:.5} s\n  eq. 4:    {a:?}\n  eqs. 5-6: {b:?}");
    for (name, tr) in [("eq. 4", &a), ("eqs. 5-6", &b)] {
        assert!((tr.stop / expected - 1.0).abs() < 1e-7, "{name}: stop at {} s, expected {expected} s", tr.stop);
    }
    (a, b)
}

/// The largest dip of the velocity after the stop for the block on its six tangential
/// springs: the springs turn from μN down the slope to m g sin α up it, an undamped swing of
/// amplitude m g (sin α + μ cos α)/Σk_t at ω_t = √(Σk_t/m), peak speed
/// g (sin α + μ cos α)/ω_t.
fn undamped_dip(mu: f64) -> f64 {
    let kt = 6.0 * granula_laws::params::tangential_stiffness_ratio(Material::default().poisson_ratio) * STIFFNESS;
    let mass = 2700.0 * granula_validation::incline::VOLUME;
    G * (ALPHA.sin() + mu * ALPHA.cos()) / (kt / mass).sqrt()
}

/// μ ≥ tan α (003's μ2 = 0.58, μ3 = 0.6): Brendel-Dippel dips and comes to rest (Fig. 5);
/// the plain Cundall-Strack spring creeps down for good.
fn rests_or_creeps(mu: f64) -> (Trace, Trace) {
    let (cs, bd) = side_by_side(mu);
    let bound = undamped_dip(mu);
    // Fig. 5, eqs. 5-6: "the velocity decreases further for a short time, since the block
    // moves downward during sticking": a dip below zero, no deeper than the undamped swing;
    // at least half of it (measured 0.88-0.90: the dashpot at the normal damping ratio of
    // e = 0.3 takes about a tenth before the first minimum).
    assert!(bd.dip < -0.5 * bound && bd.dip >= -bound, "dip {} against the undamped {bound}", bd.dip);
    // "... the velocity rises until it gets zero and remains there": at rest 0.1 s after the
    // stop to round-off (measured ~1e-16 m/s), and no creep over the next second (the 1e-6 m
    // of 003 §6; measured 0).
    assert!(bd.later.abs() < 1e-12, "eqs. 5-6: {} m/s 0.1 s after the stop", bd.later);
    assert!(bd.drift < 1e-6, "eqs. 5-6: crept {} m", bd.drift);
    // Eq. 4: the spring, stretched by the whole slide up (~1.3 m), still pulls down the
    // slope with μN; its dashpot balances gravity and that pull, m g (sin α + μ cos α) =
    // γ_t v, so the block creeps down at a constant speed and never rests: the dip is not
    // followed by a rise (the velocity 0.1 s later is the dip to 1e-9 relative; measured
    // 1e-12), the acceleration is zero to round-off (measured 1e-15 m/s²; 1e-9 m/s²
    // bounds 5e4 velocity updates) and a second moves it v × 1 s (1e-6 relative).
    assert!(cs.later < 0.0 && (cs.later / cs.dip - 1.0).abs() < 1e-9, "eq. 4: {} vs dip {}", cs.later, cs.dip);
    assert!(cs.back.abs() < 1e-9, "eq. 4: acceleration {} m/s²", cs.back);
    assert!((cs.drift / cs.later.abs() - 1.0).abs() < 1e-6, "eq. 4: crept {} m at {} m/s", cs.drift, cs.later);
    // A creep three orders of magnitude beyond 003's 1e-6 m (measured ~1.9e-3 m).
    assert!(cs.drift > 1e-3, "eq. 4: crept only {} m", cs.drift);
    (cs, bd)
}

#[test]
fn fig_5_mu_0_6_brendel_dippel_rests_plain_cundall_strack_creeps() {
    let (cs6, _) = rests_or_creeps(0.6);
    // The creep speed is m g (sin α + μ cos α)/γ_t with the same γ_t (the same normal
    // loads) at μ = 0.58 and 0.6: their ratio is that of sin α + μ cos α, 1.017281 (1e-6:
    // each speed is constant to 1e-12 relative and the normal loads agree to round-off;
    // measured 1e-9).
    let (cs58, _) = rests_or_creeps(0.58);
    let expected = (ALPHA.sin() + 0.6 * ALPHA.cos()) / (ALPHA.sin() + 0.58 * ALPHA.cos());
    let ratio = cs6.later / cs58.later;
    println!("creep speed ratio {ratio:.9} (expected {expected:.9})");
    assert!((ratio / expected - 1.0).abs() < 1e-6, "creep speed ratio {ratio} against {expected}");
}

#[test]
fn fig_4_mu_0_5_both_slide_down_at_the_coulomb_rate() {
    let (cs, bd) = side_by_side(0.5);
    // μ1 < tan α: both slide down at g (sin α − μ cos α) (Fig. 4): sliding faster than the
    // creep speed, eq. 4's dashpot turns its capped force against the motion, so it acts as
    // Coulomb friction too (measured rel. 7e-12 and 3.6e-7). 003's 1 % would pass a 0.15 %
    // error in μ (a is 6.5 times as sensitive as μ here); the acceleration is constant and
    // exact under Verlet once the springs have turned, the rest is their damped ringing at
    // the turn: 2e-6 (3.6e-7 measured with eqs. 5-6).
    let a = -G * (ALPHA.sin() - 0.5 * ALPHA.cos());
    for (name, tr) in [("eq. 4", &cs), ("eqs. 5-6", &bd)] {
        assert!((tr.back / a - 1.0).abs() < 2e-6, "{name}: {} m/s² against {a}", tr.back);
    }
}
