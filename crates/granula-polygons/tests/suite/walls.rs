//! Bodies of the planar world on walls: at rest on a floor under gravity a body sits at the
//! overlap whose normal force k_n A / l_c (002 eq. 5) carries its weight (a square and a
//! disc on a straight floor, a hexagon on a rough floor of glued squares); a disc dropped
//! onto a belt (a floor moving along itself at V) ends rolling at V/3 under both solvers;
//! a rising floor carries a disc at its speed.
//!
//! The belt, analytically. While the contact slides, friction μ m g pushes the disc along
//! +x: v = μ g t, and its torque about the centre r μ m g spins it with
//! ω = μ m g r t / (m r²/2) = 2 μ g t / r, counter-clockwise (the force at the bottom
//! point along +x). The contact point moves at v + ω r = 3 μ g t relative to the ground, so
//! sliding stops when 3 μ g t = V: then v = V/3 and ω r = 2V/3, and with no force along the
//! belt afterwards they stay.

use glam::DVec2;
use granula_broadphase::BruteForce;
use granula_core::narrowphase::Narrowphase;
use granula_core::{ContactLaw, DVec3, Material, PlaneBuilder, Prescribed, RigidBody, SphereBuilder, World};
use granula_integrators::Gear;
use granula_laws::{planar_friction_law, ReducedMassViscous};
use granula_md::{MdConfig, MdSolver};
use granula_nscd::{Criterion, NscdConfig, NscdSolver};
use granula_polygons::{register_all, register_all_areal, shapes, PolygonBuilder};
use std::sync::Arc;

const KN: f64 = 1e5;
const G: f64 = 9.81;

/// A planar world under gravity −g ŷ with the area generators (MD) or the point generators
/// (contact dynamics), and friction `mu` in its default material.
fn world(areal: bool, mu: f64) -> World {
    let mut narrowphase = Narrowphase::new();
    if areal {
        register_all_areal(&mut narrowphase).unwrap();
    } else {
        register_all(&mut narrowphase).unwrap();
    }
    let material = Material { friction: mu, ..Material::default() };
    World::builder()
        .planar(true)
        .gravity(DVec3::new(0.0, -G, 0.0))
        .material(material)
        .narrowphase(narrowphase)
        .build()
        .unwrap()
}

/// 002's law with k_n = `kn`, ε_n = `restitution` for a reduced mass `mass`, k_t/k_n = 1/3
/// and μ = `mu`, run by Gear.
fn md<L: ContactLaw>(law: L) -> MdSolver<L, Gear, BruteForce> {
    MdSolver::new(law, Gear::six(), BruteForce, MdConfig::default()).unwrap()
}

fn law(kn: f64, restitution: f64, mass: f64, mu: f64) -> granula_laws::PlanarFrictionLaw {
    let nu = ReducedMassViscous::from_restitution(restitution, kn, mass).unwrap().rate();
    planar_friction_law(kn, nu, 1.0 / 3.0, mu).unwrap()
}

/// Settles `bodies` on a floor y = 0 (with `floor`) for 1 s at Δt = 2e-5 s under a strongly
/// damped law (ε_n = 0.3 for 1 kg): t_c = π/√(k/m) ≈ 1e-2 s, so 1 s is 100 t_c, and an
/// oscillation decays by e^{-1.2} per t_c, far below round-off by the end.
fn settle(bodies: Vec<RigidBody>, floor: bool) -> World {
    let mut w = world(true, 0.5);
    if floor {
        w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Y).build().unwrap()).unwrap();
    }
    for b in bodies {
        w.insert(b).unwrap();
    }
    let mut s = md(law(KN, 0.3, 1.0, 0.5));
    for _ in 0..50_000 {
        w.step(&mut s, 2e-5).unwrap();
    }
    w
}

#[test]
fn square_on_a_straight_floor_sits_at_the_overlap_of_its_weight() {
    let w = 0.1;
    let square = Arc::new(shapes::rectangle(w, w).unwrap());
    let r = square.equivalent_radius();
    let body = PolygonBuilder::new(square, DVec2::new(0.0, 0.5 * w + 0.002)).mass(1.0).build().unwrap();
    let world = settle(vec![body], true);
    let i = world.bodies.len() - 1;
    // A = w δ and l_c = 2r for a straight wall: k_n w δ / (2r) = m g.
    let delta = G * 2.0 * r / (KN * w);
    let y = world.bodies.position[i].y;
    println!("y = {y}, expected {}", 0.5 * w - delta);
    // At rest the balance is exact up to round-off of the overlap area (1e-16 relative to
    // w²); 1e-9 of δ is far above that and far below any error of the law.
    assert!((y - (0.5 * w - delta)).abs() < 1e-9 * delta, "y = {y}");
    let turned = world.bodies.orientation[i] * DVec3::X;
    assert!(turned.y.abs() < 1e-12, "a flat face stays flat: {turned}");
    assert!(world.bodies.velocity[i].length() < 1e-9);
}

#[test]
fn disc_on_a_straight_floor_sits_at_the_segment_of_its_weight() {
    let a = 0.05;
    let disc = SphereBuilder::new(a, DVec3::new(0.0, a + 0.001, 0.0)).mass(1.0).build().unwrap();
    let world = settle(vec![disc], true);
    let y = world.bodies.position[world.bodies.len() - 1].y;
    // Segment below the floor: α = acos(y/a), A = a²(α − sin α cos α); l_c = 2a.
    let alpha = (y / a).acos();
    let area = a * a * (alpha - alpha.sin() * alpha.cos());
    let force = KN * area / (2.0 * a);
    println!("y = {y}, force {force}");
    // The weight is carried to round-off of the segment (1e-9 relative is far above it).
    assert!((force - G).abs() < 1e-9 * G, "force {force}");
}

#[test]
fn hexagon_on_a_rough_floor_of_glued_particles_carries_its_weight() {
    // A floor of five glued squares (kinematic, at rest) and a hexagon on one edge.
    let w = 0.1;
    let tile = Arc::new(shapes::rectangle(w, w).unwrap());
    let hex = Arc::new(shapes::regular(6, 0.05).unwrap());
    let mut bodies: Vec<RigidBody> = (-2..=2)
        .map(|k| {
            let at = DVec2::new(k as f64 * w, -0.5 * w);
            PolygonBuilder::new(tile.clone(), at).kinematic(DVec2::ZERO, 0.0).build().unwrap()
        })
        .collect();
    // An edge of the regular hexagon (first vertex on +x) is flat at the bottom: the
    // apothem is R cos 30°.
    let apothem = 0.05 * (std::f64::consts::PI / 6.0).cos();
    bodies.push(PolygonBuilder::new(hex.clone(), DVec2::new(0.01, apothem + 0.001)).mass(1.0).build().unwrap());
    let world = settle(bodies, false);
    // Between two bodies l_c = r_hex + r_tile. The part of the hexagon below the tiles'
    // top is a trapezoid: its bottom edge R = 0.05 at depth δ, its sides at 60°, so
    // A = R δ + δ²/√3; k_n A / l_c = m g is a quadratic in δ.
    let lc = hex.equivalent_radius() + tile.equivalent_radius();
    let (qa, qb, qc) = (1.0 / 3f64.sqrt(), 0.05, -G * lc / KN);
    let delta = (-qb + (qb * qb - 4.0 * qa * qc).sqrt()) / (2.0 * qa);
    let y = world.bodies.position[5].y;
    println!("y = {y}, expected {}", apothem - delta);
    assert!((y - (apothem - delta)).abs() < 1e-9 * delta, "y = {y}");
    // The glued floor feels the weight: the contact forces on the tiles sum to −m g.
    let on_floor: DVec3 = (0..5).map(|k| world.bodies.force[k]).sum();
    assert!((on_floor.y + G).abs() < 1e-9 * G, "{on_floor}");
}

const R: f64 = 0.01;
const V: f64 = 0.3;

/// A belt: the floor y = 0 moving along +x at V.
fn belt() -> RigidBody {
    PlaneBuilder::new(DVec3::ZERO, DVec3::Y)
        .kinematic(Prescribed::Constant(DVec3::new(V, 0.0, 0.0)), Prescribed::default())
        .build()
        .unwrap()
}

fn disc(y: f64) -> RigidBody {
    SphereBuilder::new(R, DVec3::new(0.0, y, 0.0)).density(1000.0).build().unwrap()
}

#[test]
fn a_disc_on_a_belt_ends_rolling_at_a_third_of_its_speed_under_md() {
    let mut w = world(true, 0.4);
    w.insert(belt()).unwrap();
    w.insert(disc(R)).unwrap();
    // k_n = 1e6 N/m: a static overlap of about 3e-6 m (0.03 % of r) under the disc's weight.
    let mass = 1000.0 * std::f64::consts::PI * R * R;
    let mut s = md(law(1e6, 0.5, mass, 0.4));
    // Sliding lasts V/(3 μ g) = 0.025 s; run to 0.04 s, then average over 0.02 s.
    for _ in 0..4000 {
        w.step(&mut s, 1e-5).unwrap();
    }
    let (mut v, mut spin) = (0.0, 0.0);
    for _ in 0..2000 {
        w.step(&mut s, 1e-5).unwrap();
        v += w.bodies.velocity[1].x / 2000.0;
        spin += w.bodies.angular_velocity[1].z / 2000.0;
    }
    // The tangential spring, loaded to μ m g when the slip ends, then rings about the
    // rolling state (angular frequency about √(k_t/m) ≈ 1800 rad/s, velocity amplitude
    // μ g/1800 ≈ 2e-3 m/s); averaged over about six of its periods the ringing leaves
    // ~1e-4 m/s: 1 % of V covers it with margin.
    assert!((v - V / 3.0).abs() < 0.01 * V, "v = {v}");
    assert!((spin * R - 2.0 * V / 3.0).abs() < 0.01 * V, "ω r = {}", spin * R);
    let y = w.bodies.position[1].y;
    assert!((y - R).abs() < 0.01 * R, "y = {y}");
}

/// Contact dynamics, a single contact solved to round-off (the local criterion of 000
/// eq. 35 at 1e-12, forward sweeps).
fn rigid() -> NscdSolver<BruteForce> {
    let criterion = Criterion::LocalRelative { epsilon: 1e-12, cutoff: 1e-14, max_iterations: 100 };
    NscdSolver::new(BruteForce, NscdConfig { criterion, momentum: false, ..NscdConfig::default() }).unwrap()
}

#[test]
fn a_disc_on_a_belt_ends_rolling_at_a_third_of_its_speed_under_contact_dynamics() {
    let mut w = world(false, 0.4);
    w.insert(belt()).unwrap();
    w.insert(disc(R)).unwrap();
    let mut s = rigid();
    // Sliding lasts V/(3 μ g) = 0.0255 s: 400 steps of 1e-4 s are past it.
    for _ in 0..400 {
        w.step(&mut s, 1e-4).unwrap();
    }
    let (v, spin) = (w.bodies.velocity[1], w.bodies.angular_velocity[1].z);
    // Rigid contacts: no spring rings, the rolling state is reached to the solver's
    // round-off (1e-9 of V is far above it).
    assert!((v.x - V / 3.0).abs() < 1e-9 * V, "v = {v}");
    assert!((spin * R - 2.0 * V / 3.0).abs() < 1e-9 * V, "ω r = {}", spin * R);
    assert!(v.y.abs() < 1e-9, "v_y = {}", v.y);
}

#[test]
fn a_rising_floor_carries_a_disc_at_its_speed() {
    let lift = 0.05;
    let mut w = world(false, 0.4);
    let floor = PlaneBuilder::new(DVec3::ZERO, DVec3::Y)
        .kinematic(Prescribed::Constant(DVec3::new(0.0, lift, 0.0)), Prescribed::default())
        .build()
        .unwrap();
    w.insert(floor).unwrap();
    w.insert(disc(R)).unwrap();
    let mut s = rigid();
    for _ in 0..1000 {
        w.step(&mut s, 1e-4).unwrap();
    }
    let b = &w.bodies;
    // After 0.1 s the floor is at y = 5 mm; the disc rests on it (inelastic contact), so
    // it moves at the floor's speed with its centre r above the floor, to round-off of
    // the positions (the θ-scheme closes a gap exactly at the end of the step).
    assert!((b.velocity[1].y - lift).abs() < 1e-9, "v_y = {}", b.velocity[1].y);
    assert!((b.position[1].y - (R + lift * w.time())).abs() < 1e-9, "y = {}", b.position[1].y);
}
