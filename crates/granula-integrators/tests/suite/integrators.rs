//! Integrator tests against analytic solutions: harmonic-oscillator orders (VALIDATION M3),
//! rotations with Euler's equations, locked dofs, time-step changes and structure changes.

use crate::common::LentLoads;
use granula_core::{BodySet, DQuat, DVec3, Dofs, Integrator, Material, MaterialTable, SphereBuilder};
use granula_integrators::{Gear, GearCoefficients, StartDerivatives, SymplecticEuler, VelocityVerlet};

fn table() -> MaterialTable {
    let mut t = MaterialTable::new();
    t.add(Material::default()).unwrap();
    t
}

const NO_GRAVITY: DVec3 = DVec3::ZERO;
const V0: f64 = 0.7;
const T_END: f64 = 2.0;

/// Exact solution of ẍ = −x with x(0) = 1, ẋ(0) = V0.
fn exact(t: f64) -> f64 {
    t.cos() + V0 * t.sin()
}

/// A unit mass on a unit spring (ω₀ = 1) integrated to T_END with `steps` steps; returns the
/// largest absolute position error along the run (a single end-point error can pass through
/// zero and spoil order estimates). With `start`, the Gear scheme gets the true derivatives at
/// t = 0 and `integ` is unused.
fn oscillator_error(mut integ: impl Integrator, steps: usize, start: Option<&mut Gear>) -> f64 {
    let mut b = BodySet::default();
    let body = SphereBuilder::new(0.1, DVec3::X).velocity(DVec3::X * V0).mass(1.0).build().unwrap();
    b.insert(&body, &table(), false).unwrap();
    let dt = T_END / steps as f64;
    b.force[0] = -b.position[0];
    let run = |integ: &mut dyn Integrator, b: &mut BodySet| {
        let mut err: f64 = 0.0;
        for s in 0..steps {
            let t = s as f64 * dt;
            integ.predict_lent(b, NO_GRAVITY, t, dt);
            b.force[0] = -b.position[0];
            integ.correct_lent(b, NO_GRAVITY, t, dt);
            err = err.max((b.position[0].x - exact(t + dt)).abs());
        }
        err
    };
    match start {
        Some(gear) => {
            let x = DVec3::X;
            let v = DVec3::X * V0;
            gear.start_with(&b, dt, |_| StartDerivatives { linear: [-x, -v, x, v], angular: [DVec3::ZERO; 4] });
            run(gear, &mut b)
        }
        None => run(&mut integ, &mut b),
    }
}

fn orders(errors: &[f64]) -> Vec<f64> {
    errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect()
}

#[test]
fn verlet_and_symplectic_euler_have_orders_two_and_one() {
    let steps = [200, 400, 800];
    let ev: Vec<f64> = steps.iter().map(|&n| oscillator_error(VelocityVerlet::new(), n, None)).collect();
    let ee: Vec<f64> = steps.iter().map(|&n| oscillator_error(SymplecticEuler::new(), n, None)).collect();
    // Two-point order estimates in the asymptotic regime scatter by a few hundredths.
    for p in orders(&ev) {
        assert!((p - 2.0).abs() < 0.05, "verlet order {p}");
    }
    for p in orders(&ee) {
        assert!((p - 1.0).abs() < 0.05, "symplectic Euler order {p}");
    }
}

#[test]
fn gear_schemes_reach_their_nominal_order_with_an_exact_start() {
    // Step counts keep the errors between ~1e-5 and ~1e-12, above round-off (~1e-15 × steps)
    // and in the asymptotic regime; two-point order estimates are compared within 0.3
    // (the next error term still shows at the coarser steps).
    let cases = [
        (GearCoefficients::FOUR, [40, 80, 160]),
        (GearCoefficients::FIVE, [40, 80, 160]),
        (GearCoefficients::SIX_POSITION_ONLY, [20, 40, 80]),
        (GearCoefficients::SIX, [20, 40, 80]),
    ];
    for (c, steps) in cases {
        let errs: Vec<f64> = steps
            .iter()
            .map(|&n| {
                let mut g = Gear::new(c);
                oscillator_error(SymplecticEuler, n, Some(&mut g))
            })
            .collect();
        let p = orders(&errs);
        println!("{} values, α0 = {}: errors {errs:?}, orders {p:?}", c.values, c.alpha[0]);
        let last = *p.last().unwrap();
        assert!(
            last > c.nominal_order() as f64 - 0.3,
            "{} values: observed order {last} below nominal {}",
            c.values,
            c.nominal_order()
        );
    }
}

#[test]
fn gear_default_start_limits_the_global_order_to_two() {
    // With zero initial higher derivatives the start-up error (x''' wrong by V0) dominates:
    // the global error is O(Δt²) whatever the number of values (documented on `Gear`).
    for c in [GearCoefficients::FOUR, GearCoefficients::SIX] {
        let errs: Vec<f64> = [100, 200, 400].iter().map(|&n| oscillator_error(Gear::new(c), n, None)).collect();
        for p in orders(&errs) {
            // Asymptotic two-point estimates, scatter below 0.05.
            assert!((p - 2.0).abs() < 0.05, "{} values: order {p}", c.values);
        }
    }
}

fn all_integrators() -> Vec<Box<dyn Integrator>> {
    vec![
        Box::new(Gear::four()),
        Box::new(Gear::five()),
        Box::new(Gear::six()),
        Box::new(VelocityVerlet::new()),
        Box::new(SymplecticEuler::new()),
    ]
}

#[test]
fn constant_torque_spins_a_sphere_up_exactly() {
    // ω(t) = α t and the turned angle α t²/2 are polynomials of degree ≤ 2, which every
    // scheme here integrates exactly up to round-off; axis fixed, so the exponential-map
    // orientation update is exact too.
    for mut integ in all_integrators() {
        let mut b = BodySet::default();
        let body = SphereBuilder::new(0.5, DVec3::ZERO).mass(2.0).build().unwrap();
        b.insert(&body, &table(), false).unwrap();
        let inertia = b.inertia[0].x;
        let torque = DVec3::Z * 0.3;
        let alpha = 0.3 / inertia;
        let dt = 1e-3;
        b.torque[0] = torque;
        for s in 0..1000 {
            integ.predict_lent(&mut b, NO_GRAVITY, s as f64 * dt, dt);
            b.torque[0] = torque;
            integ.correct_lent(&mut b, NO_GRAVITY, s as f64 * dt, dt);
        }
        let t = 1.0;
        let w = b.angular_velocity[0];
        let name = integ.name();
        if name == "symplectic_euler" {
            // Drift with ω(t) then kick: angle = α Δt² Σ k = α t (t − Δt)/2, exact algebra.
            let angle = b.orientation[0].to_axis_angle().1;
            assert!((angle - alpha * t * (t - dt) / 2.0).abs() < 1e-10 * alpha, "{name}: {angle}");
        } else {
            let angle = b.orientation[0].to_axis_angle().1;
            // Round-off accumulated over 1000 steps of size ~1e-3 rad: well under 1e-10.
            assert!((angle - alpha * t * t / 2.0).abs() < 1e-10 * alpha, "{name}: {angle}");
        }
        assert!((w.z - alpha * t).abs() < 1e-10 * alpha, "{name}: ω = {w}");
        assert!(w.x == 0.0 && w.y == 0.0, "{name}: rotation left the z axis");
        assert!((b.orientation[0].length() - 1.0).abs() < 1e-14, "{name}: unit quaternion");
    }
}

#[test]
fn free_asymmetric_top_conserves_energy_and_angular_momentum() {
    // Torque-free rigid body with I = (1, 2, 3) spinning near its intermediate axis: Euler's
    // equations with the gyroscopic term must keep |L| (world frame) and the rotational
    // energy. Tolerances: Δt = 1e-4 over t = 1 keeps the schemes' truncation errors below
    // 1e-5 relative; a missing gyroscopic term would change L by O(1).
    use granula_core::{MassProperties, RigidBodyBuilder, Shape};
    for mut integ in all_integrators() {
        let mut b = BodySet::default();
        let body = RigidBodyBuilder::new(Shape::Sphere { radius: 0.1 }, DVec3::ZERO)
            .mass_properties(MassProperties { mass: 1.0, inertia: DVec3::new(1.0, 2.0, 3.0) })
            .angular_velocity(DVec3::new(0.1, 2.0, 0.05))
            .orientation(DQuat::from_rotation_x(0.3))
            .build()
            .unwrap();
        b.insert(&body, &table(), false).unwrap();
        let l = |b: &BodySet| {
            let q = b.orientation[0];
            q * (b.inertia[0] * (q.inverse() * b.angular_velocity[0]))
        };
        let e = |b: &BodySet| {
            let wb = b.orientation[0].inverse() * b.angular_velocity[0];
            0.5 * (b.inertia[0] * wb).dot(wb)
        };
        let (l0, e0) = (l(&b), e(&b));
        let dt = 1e-4;
        for s in 0..10_000 {
            integ.predict_lent(&mut b, NO_GRAVITY, s as f64 * dt, dt);
            integ.correct_lent(&mut b, NO_GRAVITY, s as f64 * dt, dt);
        }
        let name = integ.name();
        let tol = if name == "symplectic_euler" { 1e-3 } else { 1e-5 };
        assert!((l(&b) - l0).length() < tol * l0.length(), "{name}: L {} vs {}", l(&b), l0);
        assert!((e(&b) - e0).abs() < tol * e0, "{name}: E {} vs {e0}", e(&b));
    }
}

#[test]
fn locked_dofs_and_non_dynamic_bodies_stay_untouched() {
    for mut integ in all_integrators() {
        let mut b = BodySet::default();
        let t = table();
        let planar = SphereBuilder::new(0.1, DVec3::new(0.0, 0.0, 1.0))
            .velocity(DVec3::new(1.0, 0.0, 0.0))
            .angular_velocity(DVec3::new(0.0, 0.0, 2.0))
            .mass(1.0)
            .build()
            .unwrap();
        b.insert(&planar, &t, true).unwrap();
        let fixed = SphereBuilder::new(0.1, DVec3::new(5.0, 0.0, 0.0)).fixed().build().unwrap();
        b.insert(&fixed, &t, false).unwrap();
        let g = DVec3::new(0.3, -1.0, -9.81);
        let dt = 1e-3;
        for s in 0..200 {
            b.force[0] = DVec3::new(0.0, 0.0, 5.0);
            b.torque[0] = DVec3::new(1.0, -2.0, 0.5);
            integ.predict_lent(&mut b, g, s as f64 * dt, dt);
            b.force[0] = DVec3::new(0.0, 0.0, 5.0);
            b.torque[0] = DVec3::new(1.0, -2.0, 0.5);
            integ.correct_lent(&mut b, g, s as f64 * dt, dt);
        }
        let name = integ.name();
        assert_eq!(b.position[0].z, 1.0, "{name}: z translation is locked in planar mode");
        assert_eq!(b.velocity[0].z, 0.0, "{name}");
        assert_eq!((b.angular_velocity[0].x, b.angular_velocity[0].y), (0.0, 0.0), "{name}");
        assert!(b.angular_velocity[0].z > 2.0, "{name}: free rotation about z responds");
        assert_eq!(b.position[1], DVec3::new(5.0, 0.0, 0.0), "{name}: fixed body moved");
    }
}

#[test]
fn state_follows_removals_by_handle() {
    // Two independent oscillators; removing the first one mid-run must leave the second on
    // exactly the trajectory it has when integrated alone (bit for bit: same operations).
    let run = |with_other: bool| {
        let mut b = BodySet::default();
        let t = table();
        let other = SphereBuilder::new(0.1, DVec3::Y * 3.0).mass(1.0).build().unwrap();
        let h_other = if with_other { Some(b.insert(&other, &t, false).unwrap()) } else { None };
        let body = SphereBuilder::new(0.1, DVec3::X).velocity(DVec3::X * V0).mass(1.0).build().unwrap();
        let h = b.insert(&body, &t, false).unwrap();
        let mut g = Gear::six();
        let dt = 0.01;
        for i in 0..b.len() {
            b.force[i] = -b.position[i];
        }
        for s in 0..300 {
            if s == 100 {
                if let Some(ho) = h_other {
                    b.remove(ho).unwrap();
                }
            }
            g.predict_lent(&mut b, NO_GRAVITY, s as f64 * dt, dt);
            for i in 0..b.len() {
                b.force[i] = -b.position[i];
            }
            g.correct_lent(&mut b, NO_GRAVITY, s as f64 * dt, dt);
        }
        b.position[b.index(h).unwrap()]
    };
    assert_eq!(run(true), run(false));
}

#[test]
fn changing_the_time_step_keeps_gear_accurate() {
    // Half the run at Δt, half at Δt/2, against a run at constant Δt: with the derivatives
    // rescaled the error is no larger than the constant-step one (factor 1.5 of slack for
    // the different error history); an unscaled restart would be off by orders of magnitude.
    let run = |halve: bool| {
        let mut b = BodySet::default();
        let body = SphereBuilder::new(0.1, DVec3::X).velocity(DVec3::X * V0).mass(1.0).build().unwrap();
        b.insert(&body, &table(), false).unwrap();
        let mut g = Gear::six();
        b.force[0] = -b.position[0];
        let mut t = 0.0;
        let plan = if halve { [(0.01, 100), (0.005, 200)] } else { [(0.01, 100), (0.01, 100)] };
        for (dt, n) in plan {
            for _ in 0..n {
                g.predict_lent(&mut b, NO_GRAVITY, t, dt);
                b.force[0] = -b.position[0];
                g.correct_lent(&mut b, NO_GRAVITY, t, dt);
                t += dt;
            }
        }
        (b.position[0].x - exact(t)).abs()
    };
    let (changed, constant) = (run(true), run(false));
    assert!(changed < 1.5 * constant, "error {changed} with a step change, {constant} without");
}

#[test]
fn names_are_stable() {
    let names: Vec<&str> = all_integrators().iter().map(|i| i.name()).collect();
    assert_eq!(names, ["gear4", "gear5", "gear6", "velocity_verlet", "symplectic_euler"]);
    let _ = Dofs::NONE;
}
