//! A lattice of 729 random convex polyhedra shaken above a floor under the MD solver: the
//! same bits on one and two threads, with the other thread polling for work through the
//! step and sleeping between loops.
//! The world is large enough for the per-step preparation of the bodies and the skin test
//! to run in parallel (they split from 512 bodies on), and the bodies move enough for the
//! candidate list to be rebuilt several times and for pairs to touch.

use granula_broadphase::SweepAndPrune;
use granula_core::{DQuat, DVec3, Material, PlaneBuilder, World};
use granula_integrators::VelocityVerlet;
use granula_laws::hertz_mindlin;
use granula_md::{MdConfig, MdSolver};
use granula_polyhedra::{register_all, shapes, BodyFrame, Polyhedron, PolyhedronBuilder};
use std::sync::Arc;

/// Bodies per edge of the lattice, and its spacing (m): hulls 0.9 mm across, so that
/// neighbours start overlapping or close, and meet once shaken.
const PER_EDGE: usize = 9;
const SPACING: f64 = 0.88e-3;
const DT: f64 = 1e-6;

/// SplitMix64 in [0, 1).
fn uniform(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

/// The floor and the lattice of random hulls.
fn shaken_lattice() -> World {
    let material = Material {
        density: 2500.0,
        young_modulus: 1e8,
        poisson_ratio: 0.3,
        friction: 0.5,
        restitution: 0.5,
        ..Material::named("grain")
    };
    let mut narrowphase = granula_core::Narrowphase::new();
    register_all(&mut narrowphase).unwrap();
    let mut world = World::builder()
        .gravity(DVec3::new(0.0, 0.0, -9.81))
        .material(material)
        .narrowphase(narrowphase)
        .build()
        .unwrap();
    world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let mut state = 3u64;
    for k in 0..PER_EDGE * PER_EDGE * PER_EDGE {
        // A random hull stretched to fill a box of 0.9 mm (as the settling bench's).
        let hull = shapes::random_convex(12, 1.0, k as u64 + 1).unwrap();
        let b = hull.local_aabb();
        let stretch = DVec3::splat(0.9e-3) / (b.max - b.min);
        let stretched = hull.vertices().iter().map(|&v| v * stretch).collect();
        let (poly, place) = Polyhedron::from_mesh(stretched, hull.faces().to_vec(), BodyFrame::PrincipalAxes).unwrap();
        let (i, j, l) = (k / (PER_EDGE * PER_EDGE), (k / PER_EDGE) % PER_EDGE, k % PER_EDGE);
        let at = DVec3::new(i as f64, j as f64, l as f64 + 1.0) * SPACING;
        let mut r = || uniform(&mut state) - 0.5;
        // Axis-aligned as stretched (neighbours overlap by 0.02 mm at most), then tilted by
        // up to 0.05 rad and thrown at up to 0.05 m/s per axis.
        let axis = DVec3::new(r(), r(), r() + 1e-3).normalize();
        let q = DQuat::from_axis_angle(axis, 0.1 * r()) * place.rotation;
        let v = DVec3::new(r(), r(), r()) * 0.1;
        let body = PolyhedronBuilder::new(Arc::new(poly), at).orientation(q).velocity(v).build().unwrap();
        world.insert(body).unwrap();
    }
    world.accept_overlaps();
    world
}

/// Bits of every body's position, orientation, velocity and angular velocity after
/// `steps`, the list's rebuilds and the most contact points of a step.
fn run(threads: usize, hot_workers: bool, steps: usize) -> (Vec<u64>, u64, usize) {
    let mut world = shaken_lattice();
    let config =
        MdConfig { skin: 1e-4, threads: Some(threads), parallel_min_pairs: 0, hot_workers, ..Default::default() };
    let mut solver = MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), SweepAndPrune::new(), config).unwrap();
    let (mut rebuilds, mut most) = (0, 0);
    for _ in 0..steps {
        let report = world.step(&mut solver, DT).unwrap();
        rebuilds = report.broadphase_rebuilds;
        most = most.max(report.contacts);
    }
    let b = &world.bodies;
    let mut bits = Vec::new();
    for i in 0..b.len() {
        for v in [b.position[i], b.velocity[i], b.angular_velocity[i]] {
            bits.extend(v.to_array().map(f64::to_bits));
        }
        bits.extend(b.orientation[i].to_array().map(f64::to_bits));
    }
    (bits, rebuilds, most)
}

#[test]
fn a_shaken_lattice_of_729_polyhedra_is_the_same_on_one_and_two_threads() {
    let steps = 300;
    let (one, rebuilds, most) = run(1, true, steps);
    println!("{rebuilds} rebuilds, {most} contact points at most");
    // The comparison must cover both outcomes of the skin test and the pair pass: the
    // overlaps of the lattice push the bodies apart, faster than they were thrown, across
    // half the skin (5e-5 m) every few tens of steps (34 rebuilds in 300 steps measured),
    // and most neighbours touch (1023 points measured). The bounds leave room for other
    // shapes and still require both.
    assert!((5..=steps as u64 / 2).contains(&rebuilds), "{rebuilds} rebuilds in {steps} steps");
    assert!(most >= 200, "{most} contact points at most");
    let (two, rebuilds_two, _) = run(2, true, steps);
    assert_eq!(rebuilds_two, rebuilds);
    assert!(one == two, "two threads differ from one");
    let (sleeping, _, _) = run(2, false, steps);
    assert!(one == sleeping, "two threads without hot workers differ from one");
}
