//! The velocity that velocity Verlet hands to velocity-dependent forces: offsets to
//! v(t) + a(t)Δt between predict and correct, and the order of a damped oscillator whose
//! dashpot reads them.

use crate::common::LentLoads;
use granula_core::{BodySet, DVec3, Integrator, Material, MaterialTable, SphereBuilder};
use granula_integrators::{ForceVelocity, Gear, VelocityVerlet};

const NO_GRAVITY: DVec3 = DVec3::ZERO;
/// Damping rate of ẍ = −x − C ẋ (under-damped, ζ = 0.25).
const C: f64 = 0.5;
const T_END: f64 = 4.0;

fn one_body() -> BodySet {
    let mut t = MaterialTable::new();
    t.add(Material::default()).unwrap();
    let mut b = BodySet::default();
    let body = SphereBuilder::new(0.1, DVec3::X).mass(1.0).build().unwrap();
    b.insert(&body, &t, false).unwrap();
    b
}

/// The exact solution of ẍ = −x − C ẋ, x(0) = 1, ẋ(0) = 0.
fn exact(t: f64) -> f64 {
    let (eta, w) = (0.5 * C, (1.0 - 0.25 * C * C).sqrt());
    (-eta * t).exp() * ((w * t).cos() + eta / w * (w * t).sin())
}

/// Largest position error along the run, the dashpot reading the body set's velocity
/// shifted by the integrator's offsets, as the MD solver does for a contact's normal rate.
fn damped_error(mut integ: VelocityVerlet, steps: usize) -> f64 {
    let mut b = one_body();
    let dt = T_END / steps as f64;
    let force = |b: &BodySet, lead: DVec3| -b.position[0] - (b.velocity[0] + lead) * C;
    b.force[0] = force(&b, DVec3::ZERO);
    let mut err: f64 = 0.0;
    for s in 0..steps {
        let t = s as f64 * dt;
        integ.predict_lent(&mut b, NO_GRAVITY, t, dt);
        let lead = integ.force_velocity_offsets().map_or(DVec3::ZERO, |o| o.linear(0));
        b.force[0] = force(&b, lead);
        integ.correct_lent(&mut b, NO_GRAVITY, t, dt);
        err = err.max((b.position[0].x - exact(t + dt)).abs());
    }
    err
}

#[test]
fn verlet_offers_a_t_dt_half_between_predict_and_correct_only() {
    let mut b = one_body();
    b.force[0] = DVec3::new(-2.0, 1.0, 0.5);
    let (dt, mut v) = (1e-2, VelocityVerlet::new());
    assert!(v.force_velocity_offsets().is_none(), "nothing before the step");
    v.predict_lent(&mut b, NO_GRAVITY, 0.0, dt);
    let offsets = v.force_velocity_offsets().expect("offsets within the step");
    // a = F/m with m = 1: a Δt/2 exactly, and no spin.
    assert_eq!(offsets.linear(0), b.force[0] * (0.5 * dt));
    assert_eq!(offsets.angular(0), DVec3::ZERO);
    v.correct_lent(&mut b, NO_GRAVITY, 0.0, dt);
    assert!(v.force_velocity_offsets().is_none(), "nothing after the step");

    let mut half = VelocityVerlet::with_force_velocity(ForceVelocity::HalfStep);
    half.predict_lent(&mut b, NO_GRAVITY, dt, dt);
    assert!(half.force_velocity_offsets().is_none(), "the half-step scheme offers none");
    let mut gear = Gear::five();
    gear.predict_lent(&mut b, NO_GRAVITY, dt, dt);
    assert!(gear.force_velocity_offsets().is_none(), "Gear's predicted velocities are the force's");
}

#[test]
fn damped_oscillator_is_second_order_with_the_predicted_velocity() {
    // Global error ratio between N and 2N steps: 4 at second order, 2 at first. Measured
    // 4.0 (predicted) and 2.0 (half-step) from 400 to 800 steps; the bounds 3.5 and
    // 2 ± 0.2 separate the orders with margin.
    let predicted = damped_error(VelocityVerlet::new(), 400) / damped_error(VelocityVerlet::new(), 800);
    assert!(predicted > 3.5, "predicted: ratio {predicted}");
    let half = || VelocityVerlet::with_force_velocity(ForceVelocity::HalfStep);
    let ratio = damped_error(half(), 400) / damped_error(half(), 800);
    assert!((ratio - 2.0).abs() < 0.2, "half-step: ratio {ratio}");
}
