//! The Gear scheme in free flight, and a face-to-face collision against 002 eq. 8.

use granula_planar::prelude::*;
use granula_polygons::shapes;
use std::sync::Arc;

#[test]
fn free_fall_is_exact_for_the_gear_scheme() {
    // Constant acceleration: r₂ = g Δt²/2 from the start, higher derivatives zero, the
    // corrector's Δ is zero: the parabola to round-off.
    let law = ContactLaw::builder(1.0).build().unwrap();
    let mut sim = Simulation::builder(law)
        .gravity(DVec2::new(0.0, -9.81))
        .dt(1e-3)
        .body(
            BodyBuilder::disc(0.1).position(DVec2::new(0.0, 10.0)).velocity(DVec2::new(1.0, 2.0)).angular_velocity(3.0),
        )
        .build()
        .unwrap();
    sim.run(1000).unwrap();
    let t = sim.time();
    let p = sim.bodies.position[0];
    assert!((p.x - t).abs() < 1e-12 && (p.y - (10.0 + 2.0 * t - 0.5 * 9.81 * t * t)).abs() < 1e-12, "{p}");
    assert!((sim.bodies.angle[0] - 3.0 * t).abs() < 1e-12);
}

#[test]
fn squares_colliding_face_to_face_restitute_as_002_eq_8_predicts() {
    // Two squares of side w = 0.1 m and 1 kg, faces parallel, approaching at ±0.5 m/s.
    // The overlap is a w × δ strip, so F = k_n w δ / l_c with l_c = 2 w/√π: a linear
    // spring of stiffness k = k_n √π / 2. With the damping rate ν of eq. 2 chosen for
    // ε = 0.9 at stiffness k_n (m_r = 0.5 kg), eq. 8 at the true stiffness k predicts
    // ε = exp(−π η / √(k/m_r − η²)) with η = ν/2.
    let (kn, mr, w) = (1e4, 0.5, 0.1);
    let law = ContactLaw::builder(kn).restitution(0.9, mr).build().unwrap();
    let nu = law.normal_damping;
    let k = kn * std::f64::consts::PI.sqrt() / 2.0;
    let eta = 0.5 * nu;
    let expected = (-std::f64::consts::PI * eta / (k / mr - eta * eta).sqrt()).exp();
    let tc = contact_time(k, nu, mr);
    let square = Arc::new(shapes::rectangle(w, w).unwrap());
    let mut sim = Simulation::builder(law)
        .dt(tc / 2000.0)
        .body(
            BodyBuilder::polygon(square.clone()).position(DVec2::new(-0.0505, 0.0)).velocity(DVec2::X * 0.5).mass(1.0),
        )
        .body(BodyBuilder::polygon(square).position(DVec2::new(0.0505, 0.0)).velocity(-DVec2::X * 0.5).mass(1.0))
        .build()
        .unwrap();
    let mut touched = false;
    for _ in 0..20_000 {
        sim.step().unwrap();
        touched |= !sim.contacts().is_empty();
        if touched && sim.contacts().is_empty() {
            break;
        }
    }
    assert!(touched && sim.contacts().is_empty(), "the squares collided and separated");
    let e = (sim.bodies.velocity[1].x - sim.bodies.velocity[0].x) / 1.0;
    println!("ε = {e}, expected {expected} (k_n-based 0.9)");
    // The contact ends between two steps with the dashpot still pulling: an impulse error
    // of order ν Δt ~ 1e-5 of the total (measured 1.5e-5: 0.894094 against 0.894109);
    // 1e-4 bounds it. No rotation: the faces stay parallel.
    assert!((e - expected).abs() < 1e-4, "ε = {e}, expected {expected}");
    assert!(sim.bodies.angular_velocity[0].abs() < 1e-12);
}
