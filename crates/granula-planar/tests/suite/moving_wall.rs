//! Straight walls that translate: a disc dropped onto a belt (a floor moving along itself at
//! V) is dragged by friction until it rolls without slipping, then keeps the velocity V/3
//! and the spin 2V/(3r) it has then, under both solvers; a floor rising at constant speed
//! carries a disc at rest on it up at that speed.
//!
//! The belt, analytically. While the contact slides, friction μ m g pushes the disc along
//! +x: v = μ g t, and its torque about the centre r μ m g spins it with
//! ω = μ m g r t / (m r²/2) = 2 μ g t / r, counter-clockwise. The contact point moves at
//! v + ω r = 3 μ g t relative to the ground, so sliding stops when 3 μ g t = V: then
//! v = V/3 and ω r = 2V/3, and with no force along the belt afterwards they stay.

use granula_planar::prelude::*;

const R: f64 = 0.01;
const G: f64 = 9.81;
const V: f64 = 0.3;

fn disc(y: f64) -> BodyBuilder {
    BodyBuilder::disc(R).position(DVec2::new(0.0, y)).density(1000.0)
}

/// Contact dynamics, Δt = 10⁻⁴ s, μ = 0.4, a single contact solved to round-off: the disc
/// resting on `wall`.
fn rigid(wall: HalfPlane) -> ContactDynamics {
    ContactDynamics::builder()
        .gravity(DVec2::new(0.0, -G))
        .dt(1e-4)
        .friction(0.4)
        .tolerance(1e-12)
        .max_sweeps(100)
        .wall(wall)
        .body(disc(R))
        .build()
        .unwrap()
}

#[test]
fn a_disc_on_a_belt_ends_rolling_at_a_third_of_its_speed_under_md() {
    let belt = HalfPlane::new(DVec2::ZERO, DVec2::Y).moving(DVec2::new(V, 0.0));
    // k_n = 1e6 N/m: a static overlap of about 3e-6 m (0.03 % of r) under the disc's weight.
    let mass = 1000.0 * std::f64::consts::PI * R * R;
    let law =
        ContactLaw::builder(1e6).restitution(0.5, mass).tangential_ratio(1.0 / 3.0).friction(0.4).build().unwrap();
    let mut sim =
        Simulation::builder(law).gravity(DVec2::new(0.0, -G)).dt(1e-5).wall(belt).body(disc(R)).build().unwrap();
    // Sliding lasts V/(3 μ g) = 0.025 s; run to 0.04 s, then average over 0.02 s.
    sim.run(4000).unwrap();
    let (mut v, mut spin) = (0.0, 0.0);
    for _ in 0..2000 {
        sim.run(1).unwrap();
        v += sim.bodies.velocity[0].x / 2000.0;
        spin += sim.bodies.angular_velocity[0] / 2000.0;
    }
    // The tangential spring, loaded to μ m g when the slip ends, then rings about the
    // rolling state (angular frequency about √(k_t/m) ≈ 1800 rad/s, velocity amplitude
    // μ g/1800 ≈ 2e-3 m/s); averaged over about six of its periods the ringing leaves
    // ~1e-4 m/s: 1 % of V covers it with margin.
    assert!((v - V / 3.0).abs() < 0.01 * V, "v = {v}");
    assert!((spin * R - 2.0 * V / 3.0).abs() < 0.01 * V, "ω r = {}", spin * R);
    // The disc stays on the belt: its centre r above it less the static overlap.
    let y = sim.bodies.position[0].y;
    assert!((y - R).abs() < 0.01 * R, "y = {y}");
}

#[test]
fn a_disc_on_a_belt_ends_rolling_at_a_third_of_its_speed_under_contact_dynamics() {
    let belt = HalfPlane::new(DVec2::ZERO, DVec2::Y).moving(DVec2::new(V, 0.0));
    let mut cd = rigid(belt);
    cd.run(500).unwrap();
    let b = &cd.bodies;
    // Rigid contact, one contact: the sliding phase is exact in the scheme (constant
    // friction impulse μ m g Δt per step) and its end falls inside a step, where the
    // sticking solve lands exactly on the rolling state: V/3 to round-off.
    assert!((b.velocity[0].x - V / 3.0).abs() < 1e-9, "v = {}", b.velocity[0].x);
    assert!((b.angular_velocity[0] * R - 2.0 * V / 3.0).abs() < 1e-9, "ω r = {}", b.angular_velocity[0] * R);
    assert!(b.velocity[0].y.abs() < 1e-12, "v_y = {}", b.velocity[0].y);
    // The belt's reaction: the weight, and no friction once the disc rolls.
    let f = cd.wall_reaction(0);
    let m = 1000.0 * std::f64::consts::PI * R * R;
    assert!((f.y.abs() / (m * G) - 1.0).abs() < 1e-9 && f.x.abs() < 1e-9 * m * G, "reaction {f}");
}

#[test]
fn a_rising_floor_carries_a_disc_at_its_speed() {
    let lift = 0.05;
    let floor = HalfPlane::new(DVec2::ZERO, DVec2::Y).moving(DVec2::new(0.0, lift));
    let mut cd = rigid(floor);
    cd.run(1000).unwrap();
    let b = &cd.bodies;
    // After 0.1 s the floor is at y = 5 mm; the disc rests on it (inelastic contact), so
    // it moves at the floor's speed with its centre r above the floor, to round-off of
    // the positions (the θ-scheme closes a gap exactly at the end of the step).
    assert!((b.velocity[0].y - lift).abs() < 1e-9, "v_y = {}", b.velocity[0].y);
    assert!((b.position[0].y - (R + lift * cd.time())).abs() < 1e-9, "y = {}", b.position[0].y);
}
