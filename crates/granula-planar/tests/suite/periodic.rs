//! Periodic boundaries: a collision across the boundary equals the same collision away
//! from it bit for bit; momentum is conserved; a bond across the boundary counts once in
//! the stress; contact histories survive the crossing.

use granula_planar::prelude::*;
use granula_polygons::shapes;
use std::sync::Arc;

fn law() -> ContactLaw {
    // Friction and Cundall's spring, so that the tangential history matters.
    ContactLaw::builder(1000.0).restitution(0.8, 0.2).tangential_ratio(1.0 / 3.0).friction(0.5).build().unwrap()
}

/// Two polygons colliding obliquely, both drifting +x and +y so that, in a box
/// [min, min + 8)², they cross the boundary during the contact when `min` = 0.
fn collide(min: f64, b_position: DVec2) -> Simulation {
    let pa = Arc::new(shapes::random_convex(6, 0.4, 1.0, 11).unwrap());
    let pb = Arc::new(shapes::random_convex(8, 0.4, 1.0, 12).unwrap());
    let mut sim = Simulation::builder(law())
        .domain(Domain::periodic(DVec2::splat(min), DVec2::splat(8.0)))
        .dt(1e-4)
        .body(
            BodyBuilder::polygon(pa)
                .position(DVec2::new(7.6, 7.8))
                .velocity(DVec2::new(1.5, 0.4))
                .angular_velocity(1.0),
        )
        .body(BodyBuilder::polygon(pb).position(b_position).velocity(DVec2::new(0.5, -0.1)).angle(0.3))
        .build()
        .unwrap();
    let mut contact_steps = 0;
    for _ in 0..6000 {
        sim.step().unwrap();
        contact_steps += sim.contacts().len();
    }
    assert!(contact_steps > 100, "the bodies collided ({contact_steps} contact steps)");
    sim
}

#[test]
fn a_collision_across_the_boundary_equals_the_one_away_from_it_bit_for_bit() {
    // The same unwrapped coordinates in two boxes: in [0, 8)² the pair straddles the
    // corner (8, 8) and body B's wrapped image sits at the other side of the box; in
    // [4, 12)² it sits in the middle, away from every boundary.
    let b = DVec2::new(8.45, 8.1);
    let across = collide(0.0, b);
    let away = collide(4.0, b);
    for i in 0..2 {
        assert_eq!(across.bodies.position[i], away.bodies.position[i], "body {i}");
        assert_eq!(across.bodies.velocity[i], away.bodies.velocity[i]);
        assert_eq!(across.bodies.angle[i].to_bits(), away.bodies.angle[i].to_bits());
        assert_eq!(across.bodies.angular_velocity[i].to_bits(), away.bodies.angular_velocity[i].to_bits());
    }
    // Body B starts beyond the corner (8, 8) (its wrapped image in the first cell of the
    // box) and body A crosses x = 8 during the run: the pair was found through both
    // boundaries, and A's wrapped image jumped across the box during the run.
    println!("{:?}", across.bodies.position);
    assert!(across.bodies.position[1].x > 8.0 && across.bodies.position[1].y > 8.0);
    assert!(across.bodies.position[0].x > 8.0);
}

#[test]
fn an_image_given_wrapped_gives_the_same_collision_to_round_off_and_momentum_is_conserved() {
    let unwrapped = collide(0.0, DVec2::new(8.45, 8.1));
    // B given at its wrapped place (0.45, 8.1): a separation through the minimum image.
    let wrapped = collide(0.0, DVec2::new(0.45, 8.1));
    let p0 = DVec2::new(1.5, 0.4) * unwrapped.bodies.mass[0] + DVec2::new(0.5, -0.1) * unwrapped.bodies.mass[1];
    for sim in [&unwrapped, &wrapped] {
        let p = sim.bodies.momentum();
        // Pair forces are equal and opposite (the same number added and subtracted), so
        // momentum changes by round-off of the sums only: 1e-13 of |p|.
        assert!((p - p0).length() < 1e-13 * p0.length(), "momentum {p} vs {p0}");
    }
    // Coordinates differ by 8 exactly at the start, so the two runs round differently
    // (different binades); the trajectories agree to ~1e-15 per step over 6000 steps.
    let d = wrapped.bodies.position[1] + DVec2::new(8.0, 0.0) - unwrapped.bodies.position[1];
    assert!(d.length() < 1e-10, "{d}");
    assert!((wrapped.bodies.velocity[0] - unwrapped.bodies.velocity[0]).length() < 1e-10);
}

#[test]
fn a_bond_across_the_boundary_counts_once_in_the_stress() {
    // Four discs of radius 0.5, 0.9 apart on a ring of period 3.6: four equal bonds, one
    // across the boundary. At rest the forces balance and nothing moves.
    let sim_law = ContactLaw::builder(100.0).build().unwrap();
    let mut b = Simulation::builder(sim_law).domain(Domain::periodic_x(0.0, 3.6)).dt(1e-3);
    for k in 0..4 {
        b = b.body(BodyBuilder::disc(0.5).position(DVec2::new(0.45 + 0.9 * k as f64, 0.0)));
    }
    let mut sim = b.build().unwrap();
    sim.step().unwrap();
    assert_eq!(sim.contacts().len(), 4);
    // Lens of two discs of radius a at distance d: 2a² acos(d/2a) − (d/2)√(4a² − d²).
    let (a, d) = (0.5f64, 0.9f64);
    let lens = 2.0 * a * a * (d / (2.0 * a)).acos() - 0.5 * d * (4.0 * a * a - d * d).sqrt();
    let f = 100.0 * lens / (2.0 * a);
    let area = 3.6 * 1.0;
    let s = sim.stress(area);
    // σ_xx = 4 f d / A; the lens from the library and the closed form agree to round-off.
    assert!((s[0][0] - 4.0 * f * d / area).abs() < 1e-12 * s[0][0], "{s:?} vs {}", 4.0 * f * d / area);
    assert!(s[1][1].abs() < 1e-15 && s[0][1].abs() < 1e-15);
}
