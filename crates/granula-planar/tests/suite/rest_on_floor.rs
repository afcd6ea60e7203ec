//! A body at rest on a floor under gravity sits at the overlap whose normal force
//! k_n A / l_c (002 eq. 5) carries its weight.

use granula_planar::prelude::*;
use granula_polygons::shapes;
use std::sync::Arc;

const KN: f64 = 1e5;
const G: f64 = 9.81;

fn law() -> ContactLaw {
    // Strong damping (ε_n = 0.3) so that the body is at rest after a few hundred t_c.
    ContactLaw::builder(KN).restitution(0.3, 1.0).tangential_ratio(1.0 / 3.0).friction(0.5).build().unwrap()
}

fn settle(body: BodyBuilder, floor: &str) -> Simulation {
    let mut b = Simulation::builder(law()).gravity(DVec2::new(0.0, -G)).dt(2e-5);
    b = match floor {
        "half-plane" => b.wall(HalfPlane::new(DVec2::ZERO, DVec2::Y)),
        _ => b,
    };
    let mut sim = b.body(body).build().unwrap();
    // t_c = π/√(k/m) ≈ 1e-2 s for m = 1 kg; 1 s is 100 t_c, and with ε = 0.3 an
    // oscillation decays by e^{-1.2} per t_c: far below round-off by the end.
    sim.run(50_000).unwrap();
    sim
}

#[test]
fn square_on_a_straight_floor_sits_at_the_overlap_of_its_weight() {
    let w = 0.1;
    let square = Arc::new(shapes::rectangle(w, w).unwrap());
    let r = square.equivalent_radius();
    let sim = settle(BodyBuilder::polygon(square).position(DVec2::new(0.0, 0.5 * w + 0.002)).mass(1.0), "half-plane");
    // A = w δ and l_c = 2r for a straight wall: k_n w δ / (2r) = m g.
    let delta = G * 2.0 * r / (KN * w);
    let y = sim.bodies.position[0].y;
    println!("y = {y}, expected {}", 0.5 * w - delta);
    // At rest the balance is exact up to round-off of the overlap area (1e-16 relative to
    // w²); 1e-9 of δ is far above that and far below any error of the law.
    assert!((y - (0.5 * w - delta)).abs() < 1e-9 * delta, "y = {y}");
    assert!(sim.bodies.angle[0].abs() < 1e-12, "a flat face stays flat");
    assert!(sim.bodies.velocity[0].length() < 1e-9);
}

#[test]
fn disc_on_a_straight_floor_sits_at_the_segment_of_its_weight() {
    let a = 0.05;
    let sim = settle(BodyBuilder::disc(a).position(DVec2::new(0.0, a + 0.001)).mass(1.0), "half-plane");
    let y = sim.bodies.position[0].y;
    // Segment below the floor: α = acos(y/a), A = a²(α − sin α cos α); l_c = 2a.
    let alpha = (y / a).acos();
    let area = a * a * (alpha - alpha.sin() * alpha.cos());
    let force = KN * area / (2.0 * a);
    println!("y = {y}, force {force}");
    // The weight is carried to round-off (1e-9 relative is far above it).
    assert!((force - G).abs() < 1e-9 * G, "force {force}");
}

#[test]
fn hexagon_on_a_rough_floor_of_glued_particles_carries_its_weight() {
    // A floor of glued squares (prescribed, at rest) and a hexagon on one edge.
    let w = 0.1;
    let tile = Arc::new(shapes::rectangle(w, w).unwrap());
    let hex = Arc::new(shapes::regular(6, 0.05).unwrap());
    let mut b = Simulation::builder(law()).gravity(DVec2::new(0.0, -G)).dt(2e-5);
    for k in -2..=2 {
        b = b.body(
            BodyBuilder::polygon(tile.clone()).position(DVec2::new(k as f64 * w, -0.5 * w)).prescribed(DVec2::ZERO),
        );
    }
    // An edge of the regular hexagon (first vertex on +x) is flat at the bottom: the
    // apothem is R cos 30°.
    let apothem = 0.05 * (std::f64::consts::PI / 6.0).cos();
    b = b.body(BodyBuilder::polygon(hex.clone()).position(DVec2::new(0.01, apothem + 0.001)).mass(1.0));
    let mut sim = b.build().unwrap();
    sim.run(50_000).unwrap();
    let i = 5;
    // Between two bodies l_c = r_hex + r_tile. The part of the hexagon below the tiles'
    // top is a trapezoid: its bottom edge R = 0.05 at depth δ, its sides at 60°, so
    // A = R δ + δ²/√3; k_n A / l_c = m g is a quadratic in δ.
    let lc = hex.equivalent_radius() + tile.equivalent_radius();
    let (qa, qb, qc) = (1.0 / 3f64.sqrt(), 0.05, -G * lc / KN);
    let delta = (-qb + (qb * qb - 4.0 * qa * qc).sqrt()) / (2.0 * qa);
    let y = sim.bodies.position[i].y;
    println!("y = {y}, expected {}", apothem - delta);
    assert!((y - (apothem - delta)).abs() < 1e-9 * delta, "y = {y}");
    // The glued floor feels the weight: the forces on the tiles sum to −m g.
    let on_floor: DVec2 = (0..5).map(|k| sim.bodies.force[k]).sum();
    assert!((on_floor.y + G).abs() < 1e-9 * G, "{on_floor}");
}
