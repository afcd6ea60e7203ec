//! N3 and N4: a column at rest and a sphere on an incline.

use granula_broadphase::BruteForce;
use granula_core::{DVec3, Dofs, Material, PlaneBuilder, SphereBuilder, World};
use granula_nscd::{Criterion, NscdConfig, NscdSolver};
use granula_validation::scenes::column;

fn tight() -> NscdConfig {
    NscdConfig {
        criterion: Criterion::LocalRelative { epsilon: 1e-10, cutoff: 1e-12, max_iterations: 100_000 },
        ..Default::default()
    }
}

#[test]
fn n3_column_carries_the_weight_above_each_contact() {
    let (n, m, g) = (12, 0.05, 9.81);
    let mut w = column(n, 0.01, m, 0.5).unwrap();
    let mut s = NscdSolver::new(BruteForce, tight()).unwrap();
    for step in 0..5 {
        let r = w.step(&mut s, 1e-3).unwrap();
        assert!(r.warnings.is_empty(), "converged");
        assert_eq!(r.contacts, n);
        for (i, j, p) in s.impulses() {
            // The contact below sphere k (body k + 1) carries the weight of n − k spheres.
            let k = i.max(j) as usize - 1;
            let expected = (n - k) as f64 * m * g;
            let force = p.z.abs() / 1e-3;
            // ε = 1e-10 on each local change: the converged forces are exact well below 1e-6.
            assert!((force / expected - 1.0).abs() < 1e-6, "step {step}, contact {k}: {force} vs {expected}");
        }
        // At rest: no velocity builds up.
        assert!(w.bodies.velocity.iter().all(|v| v.length() < 1e-9));
    }
}

/// A sphere of radius r at rest on a plane inclined by α about y, friction μ. Returns the
/// world and the unit down-slope direction.
fn incline(alpha: f64, mu: f64, lock_rotation: bool) -> (World, DVec3) {
    let mut w = World::builder().material(Material { friction: mu, ..Material::named("m") }).build().unwrap();
    let n = DVec3::new(-alpha.sin(), 0.0, alpha.cos());
    w.insert(PlaneBuilder::new(DVec3::ZERO, n).build().unwrap()).unwrap();
    let r = 0.02;
    let mut b = SphereBuilder::new(r, n * r).mass(0.1);
    if lock_rotation {
        b = b.lock(Dofs::ROTATION);
    }
    w.insert(b.build().unwrap()).unwrap();
    (w, -DVec3::new(alpha.cos(), 0.0, alpha.sin()))
}

/// Down-slope acceleration after `steps` steps of `dt` from rest (exact for a constant
/// acceleration under implicit Euler: v_k = k a Δt).
fn slope_acceleration(w: &mut World, down: DVec3, steps: usize, dt: f64) -> f64 {
    let mut s = NscdSolver::new(BruteForce, tight()).unwrap();
    for _ in 0..steps {
        let r = w.step(&mut s, dt).unwrap();
        assert!(r.warnings.is_empty());
    }
    w.bodies.velocity[1].dot(down) / (steps as f64 * dt)
}

#[test]
fn n4_rolls_without_slip_when_mu_exceeds_two_sevenths_tan_alpha() {
    let (alpha, g, dt) = (0.35f64, 9.81, 1e-3);
    let (mut w, down) = incline(alpha, 0.5, false);
    let a = slope_acceleration(&mut w, down, 50, dt);
    // a = (5/7) g sin α for rolling; the single contact converges in one sweep to round-off.
    assert!((a / (5.0 / 7.0 * g * alpha.sin()) - 1.0).abs() < 1e-9, "a = {a}");
    // Rolling: the contact point does not slip, ω r = v.
    let v = w.bodies.velocity[1].length();
    let wr = w.bodies.angular_velocity[1].length() * 0.02;
    assert!((wr / v - 1.0).abs() < 1e-9);
}

#[test]
fn n4_slides_and_spins_up_below_the_threshold() {
    let (alpha, g, dt, mu) = (0.35f64, 9.81, 1e-3, 0.05);
    assert!(mu < 2.0 / 7.0 * alpha.tan());
    let (mut w, down) = incline(alpha, mu, false);
    let a = slope_acceleration(&mut w, down, 50, dt);
    assert!((a / (g * (alpha.sin() - mu * alpha.cos())) - 1.0).abs() < 1e-9, "a = {a}");
    // Spin-up: I dω/dt = μ m g cos α r with I = (2/5) m r² → dω/dt = 5 μ g cos α/(2r).
    let spin = w.bodies.angular_velocity[1].length() / (50.0 * dt);
    assert!((spin / (5.0 * mu * g * alpha.cos() / (2.0 * 0.02)) - 1.0).abs() < 1e-9);
}

#[test]
fn n4_with_rotation_locked_sticks_iff_mu_reaches_tan_alpha() {
    let (alpha, g, dt) = (0.35f64, 9.81, 1e-3);
    let tan = alpha.tan();
    let (mut w, down) = incline(alpha, tan * 1.01, true);
    let a = slope_acceleration(&mut w, down, 20, dt);
    // Sticking: the velocity stays at round-off level.
    assert!(a.abs() < 1e-9, "a = {a}");
    let mu = tan * 0.9;
    let (mut w, down) = incline(alpha, mu, true);
    let a = slope_acceleration(&mut w, down, 20, dt);
    assert!((a / (g * (alpha.sin() - mu * alpha.cos())) - 1.0).abs() < 1e-9, "a = {a}");
}

#[test]
fn planar_disc_on_incline_rolls_with_the_disc_acceleration() {
    // Planar mode: a disc (I = m r²/2) on a line inclined by α about z rolls without slip
    // at a = (2/3) g sin α when μ ≥ (1/3) tan α. The tangent frame must lie in the plane
    // for friction to act at all.
    let alpha = 0.3f64;
    let mut w = World::builder().planar(true).gravity(DVec3::new(0.0, -9.81, 0.0)).build().unwrap();
    let n = DVec3::new(-alpha.sin(), alpha.cos(), 0.0);
    w.insert(PlaneBuilder::new(DVec3::ZERO, n).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(0.02, n * 0.02).build().unwrap()).unwrap();
    let down = -DVec3::new(alpha.cos(), alpha.sin(), 0.0);
    let a = slope_acceleration(&mut w, down, 30, 1e-3);
    // One contact, converged in one sweep: round-off.
    assert!((a / (2.0 / 3.0 * 9.81 * alpha.sin()) - 1.0).abs() < 1e-9, "a = {a}");
}
