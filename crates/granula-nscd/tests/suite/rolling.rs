//! N10 and N11: rolling and torsion friction (001 §1.7, eqs. 1.38-1.42).

use granula_broadphase::BruteForce;
use granula_core::{DVec3, Material, PlaneBuilder, SphereBuilder, World};
use granula_nscd::{Criterion, NscdConfig, NscdSolver, RollingSignoriniCoulomb};

const R: f64 = 0.01;
const G: f64 = 9.81;

fn sphere_on_floor(material: Material, v: DVec3, w: DVec3) -> World {
    let mut world = World::builder().material(material).build().unwrap();
    world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    world
        .insert(SphereBuilder::new(R, DVec3::new(0.0, 0.0, R)).velocity(v).angular_velocity(w).build().unwrap())
        .unwrap();
    world
}

fn solver() -> NscdSolver<BruteForce, RollingSignoriniCoulomb> {
    let cfg = NscdConfig {
        criterion: Criterion::LocalRelative { epsilon: 1e-13, cutoff: 1e-15, max_iterations: 1000 },
        ..Default::default()
    };
    NscdSolver::with_law(BruteForce, RollingSignoriniCoulomb::default(), cfg).unwrap()
}

#[test]
fn n10_rolling_sphere_decelerates_at_five_sevenths_mu_r_g_over_r_then_stays() {
    let mu_r = 1e-3;
    let v0 = 0.1;
    let m = Material { rolling_friction: mu_r, friction: 0.5, ..Material::named("m") };
    // Rolling without slip: ω × (−R z) = v → ω = (0, v/R, 0) for v along x.
    let mut w = sphere_on_floor(m, DVec3::new(v0, 0.0, 0.0), DVec3::new(0.0, v0 / R, 0.0));
    let mut s = solver();
    let (dt, steps) = (1e-3, 50);
    let mut rolled = 0.0;
    for _ in 0..steps {
        let r = w.step(&mut s, dt).unwrap();
        assert!(r.warnings.is_empty());
        rolled += r.dissipated.rolling;
    }
    let a = 5.0 / 7.0 * mu_r * G / R;
    let v = w.bodies.velocity[1].x;
    // Implicit Euler is exact for a constant deceleration; converged to 1e-13.
    assert!((v - (v0 - a * steps as f64 * dt)).abs() < 1e-9, "v = {v}, expected {}", v0 - a * steps as f64 * dt);
    // Still rolling without slip.
    assert!((w.bodies.angular_velocity[1].y * R - v).abs() < 1e-9);
    // The rolling resistance dissipates energy (its work on the rotation).
    assert!(rolled > 0.0);
    // After the stop time v₀/a = 0.143 s it stays at rest.
    for _ in 0..150 {
        w.step(&mut s, dt).unwrap();
    }
    assert!(w.bodies.velocity[1].length() < 1e-9, "{}", w.bodies.velocity[1]);
    assert!(w.bodies.angular_velocity[1].length() < 1e-7);
}

#[test]
fn n11_spinning_sphere_is_braked_by_mu_n_r_n_until_it_stops() {
    let mu_n = 1e-4;
    let w0 = 5.0;
    let m = Material { torsion_friction: mu_n, friction: 0.5, ..Material::named("m") };
    let mut w = sphere_on_floor(m, DVec3::ZERO, DVec3::new(0.0, 0.0, w0));
    let inertia = w.bodies.inertia[1].z;
    let mass = w.bodies.mass[1];
    let mut s = solver();
    let (dt, steps) = (1e-3, 100);
    for _ in 0..steps {
        w.step(&mut s, dt).unwrap();
    }
    // |T_n| = μ_n R_n = μ_n m g: angular deceleration μ_n m g / I.
    let alpha = mu_n * mass * G / inertia;
    let wz = w.bodies.angular_velocity[1].z;
    assert!((wz - (w0 - alpha * steps as f64 * dt)).abs() < 1e-9, "ω = {wz}");
    for _ in 0..200 {
        w.step(&mut s, dt).unwrap();
    }
    // Stopped (w0/α = 0.2 s) and stays.
    assert!(w.bodies.angular_velocity[1].length() < 1e-9);
}
