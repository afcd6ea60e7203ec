//! Regular tetrahedra crossing edge on edge. Their dihedral angle (70.5°) is below 90°,
//! and a crossing of two such edges can have the closest point of one edge's line outside
//! the other body: the edge pass refused those crossings at every depth, and two
//! tetrahedra with no vertex inside each other had no contact point, fell through each
//! other, and were thrown apart when a centre entered the other body.
//!
//! Both tests fail on the edge pass as it is (no point from 3.5 µm to 1.5 mm deep; body 2
//! went 1.5 mm into body 1 and left at 5.7 m/s after one step of the deep contact), and
//! are ignored until the edge pass or a fallback covers these crossings: a separating-axis
//! fallback for convex pairs without points passes them but makes the undamped pile of
//! `energy_pile.rs` gain +125 % of the energy released (bound 50 %), as the fallback
//! switches on at a finite depth there.

use granula_broadphase::BruteForce;
use granula_core::{DQuat, DVec3, Material, Narrowphase, World};
use granula_integrators::VelocityVerlet;
use granula_md::{MdConfig, MdSolver};
use granula_polyhedra::contact::{polyhedron_polyhedron_with, Method};
use granula_polyhedra::{register_all, shapes, PolyhedronBuilder, Pose};
use rand::{Rng, SeedableRng};
use std::sync::Arc;

/// Edge of the tetrahedra (m).
const EDGE: f64 = 0.004;

/// Body 1 at the origin turned by `Q1`, body 2 turned by `Q2` on the line along `U`: two
/// sharp edges meet first, at the centre distance `TOUCH`, with a crossing normal outside
/// the range the edge pass accepted.
const Q1: [f64; 4] = [0.35373824881563964, 0.1555638070893567, -0.16588192806650348, -0.9072774323158542];
const Q2: [f64; 4] = [0.0971812308590485, -0.030107774016524994, 0.07976460169802524, -0.9916082586528037];
const U: [f64; 3] = [-0.12076856999888481, 0.09894741811851739, 0.987736989764028];
const TOUCH: f64 = 2.641_897_950_775_349_3e-3;

fn quat(q: [f64; 4]) -> DQuat {
    DQuat::from_xyzw(q[0], q[1], q[2], q[3]).normalize()
}

#[test]
#[ignore = "the edge pass refuses crossings of edges with a dihedral angle below 90°"]
fn tetrahedra_crossing_sharp_edges_always_have_a_contact() {
    let t = shapes::tetrahedron(EDGE).unwrap();
    let u = DVec3::from_array(U).normalize();
    let pose1 = Pose::new(DVec3::ZERO, quat(Q1));
    // Along the approach, from 3.5 µm to 1 mm deep: one point, as deep as the approach
    // times the cosine between the line and the crossing's normal.
    for method in [Method::General, Method::Convex, Method::Auto] {
        let mut cosine = None;
        for k in 1..=285 {
            let approach = 3.5e-6 * k as f64;
            let pose2 = Pose::new(u * (TOUCH - approach), quat(Q2));
            let mut out = Vec::new();
            polyhedron_polyhedron_with(method, &t, &pose1, &t, &pose2, 0.0, &mut out);
            assert!(!out.is_empty(), "{method:?}: no point {approach:e} m deep");
            let deepest = out.iter().map(|g| -g.gap).fold(0.0, f64::max);
            let c = *cosine.get_or_insert(deepest / approach);
            assert!(c > 0.5 && c <= 1.0, "{method:?}: depth {deepest:e} at {approach:e}");
            // The same two edges carry it down to 1 mm: the depth grows with the approach.
            assert!((deepest - c * approach).abs() < 1e-3 * approach, "{method:?}: {deepest:e} at {approach:e}");
            // The normal pushes body 2 away along the approach line.
            assert!(out.iter().all(|g| g.normal.dot(u) > 0.0), "{method:?}: normal against the approach");
        }
    }
    // Random poses with the centres 1.2 to 1.5 mm apart (under twice the inscribed
    // radius, 1.63 mm: every such pair overlaps): each one has a point. Before, about two
    // in five had none.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let unit = |rng: &mut rand_chacha::ChaCha8Rng| loop {
        let v = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        if v.length_squared() > 1e-4 && v.length_squared() <= 1.0 {
            return v.normalize();
        }
    };
    for _ in 0..5000 {
        let q1 = DQuat::from_axis_angle(unit(&mut rng), rng.random_range(0.0..std::f64::consts::TAU));
        let q2 = DQuat::from_axis_angle(unit(&mut rng), rng.random_range(0.0..std::f64::consts::TAU));
        let d = unit(&mut rng) * rng.random_range(0.0012..0.0015);
        for method in [Method::General, Method::Convex] {
            let mut out = Vec::new();
            polyhedron_polyhedron_with(method, &t, &Pose::new(DVec3::ZERO, q1), &t, &Pose::new(d, q2), 0.0, &mut out);
            assert!(out.iter().any(|g| g.gap < 0.0), "{method:?}: no point at {q1:?} {q2:?} {d:?}");
        }
    }
}

#[test]
#[ignore = "the edge pass refuses crossings of edges with a dihedral angle below 90°"]
fn a_tetrahedron_thrown_at_another_edge_first_bounces_off() {
    // Body 2 thrown at body 1 along −U at 0.35 m/s from 10 µm before the edges touch,
    // Hertz–Mindlin with the default material (E = 10 MPa): a contact of about 0.3 ms,
    // about 0.1 mm deep, some 60 steps of 5 µs. Without the crossing, body 2 went on
    // through body 1 for about a millimetre before anything pushed it.
    let mut narrowphase = Narrowphase::new();
    register_all(&mut narrowphase).unwrap();
    let mut world = World::builder().material(Material::default()).narrowphase(narrowphase).build().unwrap();
    let t = Arc::new(shapes::tetrahedron(EDGE).unwrap());
    let u = DVec3::from_array(U).normalize();
    let h1 =
        world.insert(PolyhedronBuilder::new(t.clone(), DVec3::ZERO).orientation(quat(Q1)).build().unwrap()).unwrap();
    let start = u * (TOUCH + 1e-5);
    let h2 = world
        .insert(PolyhedronBuilder::new(t, start).orientation(quat(Q2)).velocity(-0.35 * u).build().unwrap())
        .unwrap();
    let (i, j) = (world.bodies.index(h1).unwrap(), world.bodies.index(h2).unwrap());
    let config = MdConfig { skin: 2e-4, threads: Some(1), ..Default::default() };
    let mut solver = MdSolver::new(granula_laws::hertz_mindlin(), VelocityVerlet::new(), BruteForce, config).unwrap();
    let (mut closest, mut touching_steps) = (f64::INFINITY, 0);
    for _ in 0..1000 {
        let report = world.step(&mut solver, 5e-6).unwrap();
        touching_steps += usize::from(report.contacts > 0);
        let d = world.bodies.position[j] - world.bodies.position[i];
        closest = closest.min(d.dot(u));
    }
    let d = world.bodies.position[j] - world.bodies.position[i];
    let separating = (world.bodies.velocity[j] - world.bodies.velocity[i]).dot(d.normalize());
    println!(
        "closest {closest:e} m (touch at {TOUCH:e}), {touching_steps} steps in contact, separating at {separating} m/s"
    );
    // Stopped within 0.2 mm of touching (0.12 mm measured), and on the way out.
    assert!(closest > TOUCH - 2e-4, "came within {closest} m");
    assert!(touching_steps > 10, "{touching_steps} steps in contact");
    assert!(separating > 0.0 && separating < 0.35, "{separating} m/s");
}

/// Meanwhile the overlap-volume contact (`register_all_volumetric`) sees these crossings:
/// along the same approach it gives one contact whose normal pushes body 2 away, and the
/// random pairs with centres 1.2 to 1.5 mm apart each overlap.
#[test]
fn the_overlap_volume_contact_sees_the_crossings_the_edge_pass_misses() {
    use granula_polyhedra::contact::convex_volume_contact;
    let t = shapes::tetrahedron(EDGE).unwrap();
    let u = DVec3::from_array(U).normalize();
    let pose1 = Pose::new(DVec3::ZERO, quat(Q1));
    for k in 1..=285 {
        let approach = 3.5e-6 * k as f64;
        let pose2 = Pose::new(u * (TOUCH - approach), quat(Q2));
        let g = convex_volume_contact(&t, &pose1, &t, &pose2)
            .unwrap_or_else(|| panic!("no overlap-volume contact {approach:e} m deep"));
        assert!(g.gap < 0.0 && g.normal.dot(u) > 0.0, "{approach:e}: gap {:e}, normal {}", g.gap, g.normal);
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    for _ in 0..2000 {
        let axis = |rng: &mut rand_chacha::ChaCha8Rng| {
            DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(0.1..1.0)).normalize()
        };
        let q1 = DQuat::from_axis_angle(axis(&mut rng), rng.random_range(0.0..std::f64::consts::TAU));
        let q2 = DQuat::from_axis_angle(axis(&mut rng), rng.random_range(0.0..std::f64::consts::TAU));
        let d = axis(&mut rng) * rng.random_range(0.0012..0.0015);
        let g = convex_volume_contact(&t, &Pose::new(DVec3::ZERO, q1), &t, &Pose::new(d, q2));
        assert!(g.is_some_and(|g| g.gap < 0.0), "no overlap-volume contact at {q1:?} {q2:?} {d:?}");
    }
}
