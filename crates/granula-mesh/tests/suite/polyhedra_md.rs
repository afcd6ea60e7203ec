//! Polyhedra moving on mesh walls under the MD solver against the same runs on analytic
//! planes: a cube sliding and a polyhedron tumbling over a tiled floor, a cube sliding down
//! a tilted tiled plane at g(sin α − μ cos α), a cube carried along by a moving floor, and
//! a polyhedron resting in a closed box of twelve triangles, carried by its floor.

use crate::common::random_floor;
use granula_broadphase::BruteForce;
use granula_core::{BodySet, DQuat, DVec3, Material, Narrowphase, PlaneBuilder, Prescribed, RigidBody, Solver, World};
use granula_integrators::VelocityVerlet;
use granula_laws::hertz_mindlin_damped;
use granula_md::{MdConfig, MdSolver};
use granula_mesh::{MeshOptions, MeshWallBuilder, TriangleMesh};
use granula_polyhedra::{shapes, PolyhedronBuilder};
use std::sync::Arc;

const G: f64 = 9.81;

/// A world with the generators of polyhedra and of mesh walls, vertical gravity and
/// `material` as its default.
fn world(material: Material) -> World {
    let mut narrowphase = Narrowphase::new();
    granula_polyhedra::register_all(&mut narrowphase).unwrap();
    granula_mesh::register_all(&mut narrowphase).unwrap();
    let gravity = DVec3::new(0.0, 0.0, -G);
    World::builder().gravity(gravity).material(material).narrowphase(narrowphase).build().unwrap()
}

/// The MD solver of these runs: Hertz-Mindlin with damping (restitution 0.5, μ from the
/// material), velocity Verlet, one thread.
fn solver() -> MdSolver<granula_laws::HertzMindlin, VelocityVerlet, BruteForce> {
    let config = MdConfig { skin: 1e-3, threads: Some(1), ..Default::default() };
    MdSolver::new(hertz_mindlin_damped(), VelocityVerlet::new(), BruteForce, config).unwrap()
}

/// The columns of a body that must agree between two runs.
fn state(b: &BodySet, i: usize) -> [DVec3; 5] {
    [b.position[i], b.velocity[i], b.angular_velocity[i], b.force[i], b.torque[i]]
}

/// Runs `body` against `wall` for `steps` steps of `dt`, returning its state after each.
fn run(material: Material, wall: RigidBody, body: RigidBody, steps: usize, dt: f64) -> Vec<[DVec3; 5]> {
    let mut w = world(material);
    w.insert(wall).unwrap();
    let h = w.insert(body).unwrap();
    let mut solver = solver();
    (0..steps)
        .map(|_| {
            w.step(&mut solver, dt).unwrap();
            state(&w.bodies, w.bodies.index(h).unwrap())
        })
        .collect()
}

/// Largest difference of each quantity between two runs, relative to its scale in the
/// first: the largest position offset from the start, speed, spin, force and torque.
fn parted(a: &[[DVec3; 5]], b: &[[DVec3; 5]]) -> [f64; 5] {
    let largest =
        |k: usize| a.iter().map(|s| (s[k] - if k == 0 { a[0][0] } else { DVec3::ZERO }).length()).fold(0.0, f64::max);
    let scale: [f64; 5] = std::array::from_fn(largest);
    let mut worst = [0.0f64; 5];
    for (p, m) in a.iter().zip(b) {
        for k in 0..5 {
            worst[k] = worst[k].max((p[k] - m[k]).length() / scale[k]);
        }
    }
    worst
}

/// The number of cells of a `cells`² tiling of [−half, half]² that the points of `path`
/// enter in turn (the triangles crossed are about twice as many).
fn cells_crossed(path: &[[DVec3; 5]], half: f64, cells: usize) -> usize {
    let cell = |x: DVec3| {
        (((x.x + half) / (2.0 * half) * cells as f64) as i64, ((x.y + half) / (2.0 * half) * cells as f64) as i64)
    };
    let mut seen = vec![cell(path[0][0])];
    for s in path {
        if *seen.last().unwrap() != cell(s[0]) {
            seen.push(cell(s[0]));
        }
    }
    seen.len()
}

#[test]
fn a_cube_and_a_polyhedron_move_over_a_tiled_floor_as_on_the_plane() {
    // A 2 cm cube sent sliding and spinning at 1.5 m/s (μ = 0.5: it stops after some 23 cm),
    // and a random polyhedron of 1.2 cm thrown spinning from 3 cm at 1.3 m/s, bouncing and
    // tumbling, over a floor of 12 800 triangles of 1.25 cm, for 0.8 s; the same bodies on
    // the plane z = 0.
    let floor = Arc::new(random_floor(0.5, 80, 11));
    let cube = Arc::new(shapes::cube(0.02).unwrap());
    let stone = Arc::new(shapes::random_convex(24, 0.012, 5).unwrap());
    let bodies = [
        PolyhedronBuilder::new(cube, DVec3::new(-0.3, -0.1, 0.01 + 1e-4))
            .velocity(DVec3::new(1.4, 0.5, 0.0))
            .angular_velocity(DVec3::new(0.0, 0.0, 20.0)),
        PolyhedronBuilder::new(stone, DVec3::new(-0.3, -0.1, 0.03))
            .orientation(DQuat::from_rotation_x(0.4))
            .velocity(DVec3::new(1.2, 0.5, 0.0))
            .angular_velocity(DVec3::new(30.0, -50.0, 10.0)),
    ];
    for (k, b) in bodies.into_iter().enumerate() {
        let b = b.build().unwrap();
        let dt = 5e-6;
        let steps = 160_000;
        let mesh = MeshWallBuilder::new(floor.clone(), DVec3::ZERO).build().unwrap();
        let plane = PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap();
        let on_mesh = run(Material::default(), mesh, b.clone(), steps, dt);
        let on_plane = run(Material::default(), plane, b, steps, dt);
        let worst = parted(&on_plane, &on_mesh);
        let crossed = cells_crossed(&on_mesh, 0.5, 80);
        let end = on_mesh.last().unwrap();
        println!(
            "body {k}: parted {worst:?} of the scales, {crossed} cells crossed, ends at {} moving {}",
            end[0], end[1]
        );
        // The points are the plane's to the bit where a triangle's normal is (0, 0, ±1)
        // exactly and an ulp off where its normalisation rounds; the runs part by that
        // much, amplified over the bounces. Positions, speeds and spins stay within 1e-9 of
        // their scales (measured 6e-13 to 9e-11 for the tumbling body). The stiff contacts
        // turn a position offset δx into a force offset k δx, of δx over the overlap (some
        // 1e-5 m at the impacts) of the force: 1e-7 for forces and torques (measured 8e-9).
        // Both are far below what a missed, doubled or re-keyed point at an edge would do
        // (a jump of a quarter of the weight, a spring reset).
        let tolerance = [1e-9, 1e-9, 1e-9, 1e-7, 1e-7];
        assert!(worst.iter().zip(tolerance).all(|(w, t)| *w <= t), "body {k}: {worst:?}");
        assert!(crossed >= 20, "body {k} crossed {crossed} cells");
        // The cube comes to rest on the floor, and the tumbling polyhedron settles into a
        // slow roll.
        assert!(end[0].z < 0.02 && end[1].length() < if k == 0 { 1e-6 } else { 0.05 }, "{end:?}");
    }
}

/// The velocity along the slope of a cube sliding down a plane tilted by `alpha` about the
/// y axis, mesh or analytic, sampled every 100 steps of 1e-5 s over 0.4 s.
fn slide(alpha: f64, mu: f64, mesh: bool) -> Vec<f64> {
    let turn = DQuat::from_rotation_y(alpha);
    let (n, down) = (turn * DVec3::Z, turn * DVec3::X);
    let material = Material { friction: mu, ..Material::default() };
    let wall = if mesh {
        MeshWallBuilder::new(random_floor(0.5, 40, 3), DVec3::ZERO).orientation(turn).build().unwrap()
    } else {
        PlaneBuilder::new(DVec3::ZERO, n).build().unwrap()
    };
    let cube = Arc::new(shapes::cube(0.02).unwrap());
    // Resting on a face, 1e-6 m through the plane (about its static overlap), 0.2 m up the
    // slope.
    let body = PolyhedronBuilder::new(cube, n * (0.01 - 1e-6) - down * 0.2).orientation(turn).build().unwrap();
    let states = run(material, wall, body, 40_000, 1e-5);
    states.iter().step_by(100).map(|s| s[1].dot(down)).collect()
}

#[test]
fn a_cube_slides_down_a_tilted_tiled_plane_at_the_coulomb_rate() {
    // α = 25°, μ = 0.3 < tan α: every point slides, Σ μ N = μ m g cos α, and the cube
    // accelerates at a = g (sin α − μ cos α) = 1.48 m/s², on the tiled plane (6400 triangles
    // of 2.5 cm turned by α) as on the analytic one.
    let (alpha, mu) = (25f64.to_radians(), 0.3);
    let a = G * (alpha.sin() - mu * alpha.cos());
    let (mesh, plane) = (slide(alpha, mu, true), slide(alpha, mu, false));
    // From 0.1 s (the normal springs' ringing after the start, damped at restitution 0.5,
    // dies in a few ms; the tangential springs reach μN within microseconds) to 0.4 s.
    let rate = |v: &[f64]| (v[v.len() - 1] - v[100]) / (1e-3 * (v.len() - 1 - 100) as f64);
    let (on_mesh, on_plane) = (rate(&mesh), rate(&plane));
    println!("a = {a}: mesh {on_mesh} ({:e}), plane {on_plane} ({:e})", on_mesh / a - 1.0, on_plane / a - 1.0);
    // Velocity Verlet is exact for a constant acceleration, and sliding Coulomb points sum
    // to μ m g cos α whatever the normal forces' split: what is left is the decay of the
    // start's ringing, e^(−0.1 s/τ) with τ of a millisecond. 1e-6 catches an error of 2e-7
    // in μ (a is 5.5 times as sensitive as μ here) or a lost point.
    assert!((on_plane / a - 1.0).abs() < 1e-6, "plane: {on_plane} vs {a}");
    assert!((on_mesh / a - 1.0).abs() < 1e-6, "mesh: {on_mesh} vs {a}");
    // The two runs: the same forces, computed from points of the turned triangles against
    // points of the turned plane, which differ by round-off (1e-16 of the coordinates).
    let worst = mesh.iter().zip(&plane).map(|(m, p)| (m - p).abs()).fold(0.0, f64::max);
    assert!(worst < 1e-9, "velocities part by {worst}");
}

#[test]
fn a_moving_tiled_floor_carries_a_cube_as_the_moving_plane_does() {
    // A floor of 6400 triangles moving at u = 0.3 m/s along x (kinematic) under a cube set
    // down at rest: friction (μ = 0.5) drives it at μ g until it moves with the floor,
    // after u/(μ g) = 61 ms, as the plane moving at u does. The contacts see the floor's
    // velocity at their points through their branch vectors from the wall's position.
    let u = DVec3::new(0.3, 0.0, 0.0);
    let cube = Arc::new(shapes::cube(0.02).unwrap());
    let body = PolyhedronBuilder::new(cube, DVec3::new(0.0, 0.0, 0.01 - 1e-6)).build().unwrap();
    let zero = Prescribed::Constant(DVec3::ZERO);
    let mesh = MeshWallBuilder::new(random_floor(0.5, 40, 9), DVec3::ZERO)
        .kinematic(Prescribed::Constant(u), zero.clone())
        .build()
        .unwrap();
    let plane = PlaneBuilder::new(DVec3::ZERO, DVec3::Z).kinematic(Prescribed::Constant(u), zero).build().unwrap();
    let on_mesh = run(Material::default(), mesh, body.clone(), 20_000, 1e-5);
    let on_plane = run(Material::default(), plane, body, 20_000, 1e-5);
    let end = on_mesh.last().unwrap();
    // At 0.2 s the cube moves with the floor: the sticking tangential springs' ringing is
    // damped, leaving well under 1e-4 of u.
    assert!((end[1] - u).length() < 3e-5, "moves at {} against {u}", end[1]);
    // Before sticking it slid at μ g: its speed at 30 ms is μ g t within the start's
    // transients (the normal springs settle in a few ms: 1 %).
    let early = on_mesh[2999][1].x;
    assert!((early / (0.5 * G * 0.03) - 1.0).abs() < 1e-2, "{early}");
    let worst = parted(&on_plane, &on_mesh);
    println!("moving floor: parted {worst:?}");
    assert!(worst.iter().all(|&w| w <= 1e-9), "{worst:?}");
}

/// The closed box [−h, h]³ made of two triangles per side.
fn closed_box(h: f64) -> TriangleMesh {
    let v: Vec<DVec3> =
        (0..8).map(|i: usize| DVec3::new(h * sign(i & 1), h * sign(i >> 1 & 1), h * sign(i >> 2 & 1))).collect();
    fn sign(b: usize) -> f64 {
        if b == 1 {
            1.0
        } else {
            -1.0
        }
    }
    let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
    let triangles = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
    TriangleMesh::new(v, triangles, &MeshOptions::default()).unwrap()
}

#[test]
fn a_polyhedron_at_the_bottom_of_a_closed_mesh_box_is_carried_by_its_floor() {
    // A random polyhedron of 1.5 cm dropped turning into a closed box of 10 cm (twelve
    // triangles) from 5 mm above its floor, left 0.8 s to settle (restitution 0.2): the
    // normal forces of its points (all on the floor, from inside the box) sum to its weight.
    let stone = Arc::new(shapes::random_convex(30, 0.015, 12).unwrap());
    let mut w = world(Material { restitution: 0.2, ..Material::default() });
    w.insert(MeshWallBuilder::new(closed_box(0.05), DVec3::ZERO).build().unwrap()).unwrap();
    let body = PolyhedronBuilder::new(stone.clone(), DVec3::new(0.01, -0.005, -0.05 + 0.015 + 0.005))
        .orientation(DQuat::from_rotation_z(0.7) * DQuat::from_rotation_x(0.3))
        .angular_velocity(DVec3::new(2.0, 1.0, 0.0))
        .build()
        .unwrap();
    let h = w.insert(body).unwrap();
    let mut solver = solver();
    solver.publish_contacts(true);
    for _ in 0..160_000 {
        w.step(&mut solver, 5e-6).unwrap();
    }
    let i = w.bodies.index(h).unwrap();
    let (m, v) = (w.bodies.mass[i], w.bodies.velocity[i]);
    let contacts = solver.contacts().unwrap();
    assert!(contacts.len() >= 3, "rests on three points or more: {contacts:?}");
    let mut normal = 0.0;
    for c in contacts {
        // Every point on the floor, pushing up into the box.
        assert!((c.normal - DVec3::Z).length() < 1e-12, "{c:?}");
        normal += c.force.dot(c.normal);
    }
    let weight = m * G;
    println!("{} points carry {normal} N of the weight {weight} N; v = {v}", contacts.len());
    // At rest the points carry m (g − a): after 0.8 s (some hundred ringing periods of the
    // polyhedron on its points, damped at restitution 0.2) the speed left is some µm/s and
    // the acceleration below 1e-6 g. The tangential forces lie in the floor and carry
    // nothing vertical.
    assert!(v.length() < 1e-4, "still moves at {v}");
    assert!((normal / weight - 1.0).abs() < 1e-6, "{normal} N against {weight} N");
}
