//! N1 and N2: the single-contact shock law (000 eq. 34) and the bouncing ball of
//! 004 §2.3.3.1 with implicit Euler.

use granula_broadphase::BruteForce;
use granula_core::{DVec3, PlaneBuilder, SphereBuilder, World};
use granula_nscd::{Criterion, NscdConfig, NscdSolver};

fn ball_on_floor(gap: f64, vz: f64, gravity: f64) -> World {
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -gravity)).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let r = 0.01;
    w.insert(
        SphereBuilder::new(r, DVec3::new(0.0, 0.0, r + gap))
            .mass(0.2)
            .velocity(DVec3::new(0.3, 0.0, vz))
            .build()
            .unwrap(),
    )
    .unwrap();
    w
}

#[test]
fn n1_landing_sphere_closes_the_gap_then_stops() {
    let dt = 1e-3;
    let gap = 1e-4;
    let mut w = ball_on_floor(gap, -1.0, 9.81);
    let mut s = NscdSolver::new(BruteForce, NscdConfig::default()).unwrap();
    let r = w.step(&mut s, dt).unwrap();
    // U_n Δt + g < 0: the contact closes; the new normal velocity is −g/Δt (000 eq. 26) so
    // the gap is exactly zero after the step. Round-off of a few operations on 1e-1.
    assert_eq!(r.contacts, 1);
    assert!((w.bodies.velocity[1].z + gap / dt).abs() < 1e-12, "v_z = {}", w.bodies.velocity[1].z);
    assert!((w.bodies.position[1].z - 0.01).abs() < 1e-15, "gap closed");
    // Next step: e = 0, the normal velocity vanishes despite gravity.
    w.step(&mut s, dt).unwrap();
    assert!(w.bodies.velocity[1].z.abs() < 1e-14, "v_z = {}", w.bodies.velocity[1].z);
    assert!((w.bodies.position[1].z - 0.01).abs() < 1e-15);
}

#[test]
fn n1_open_contact_gets_no_impulse() {
    // U_n Δt + g > 0: the sphere does not reach the floor in this step.
    let dt = 1e-3;
    let mut w = ball_on_floor(2e-3, -1.0, 0.0);
    let mut s = NscdSolver::new(BruteForce, NscdConfig::default()).unwrap();
    let r = w.step(&mut s, dt).unwrap();
    assert_eq!(r.status.open, r.contacts);
    assert_eq!(w.bodies.velocity[1].z, -1.0);
}

#[test]
fn n2_bouncing_ball_impulse_is_m_v0_for_every_step() {
    for dt in [1e-1, 1e-3, 1e-5] {
        let mut w = ball_on_floor(0.0, -1.0, 0.0);
        let m = w.bodies.mass[1];
        let cfg = NscdConfig {
            criterion: Criterion::LocalRelative { epsilon: 1e-12, cutoff: 1e-12, max_iterations: 10 },
            ..Default::default()
        };
        let mut s = NscdSolver::new(BruteForce, cfg).unwrap();
        let r = w.step(&mut s, dt).unwrap();
        // v¹ = 0 and p¹ = M v⁰ (004 §2.3.3.1), independent of Δt; round-off only.
        assert!(w.bodies.velocity[1].z.abs() < 1e-14, "dt = {dt}");
        let (_, _, p) = s.impulses().next().unwrap();
        assert!((p.z - m * 1.0).abs() < 1e-14, "dt = {dt}: p = {p}");
        // The whole normal kinetic energy ½ m v₀² is dissipated by the shock; the
        // tangential velocity 0.3 m/s, sticking, dissipates into rolling: the ledger holds
        // both exactly (relative round-off).
        let ke_n = 0.5 * m;
        assert!((r.dissipated.normal - ke_n).abs() < 1e-12, "{:?}", r.dissipated);
        // q¹ = 0: no penetration.
        assert!((w.bodies.position[1].z - 0.01).abs() < 1e-15);
    }
}
