//! A mesh wall in a world: with other walls it needs no contact geometry (it is a wall, as
//! planes are); without its generators registered, its insertion is refused naming the
//! call; a sphere on a wall placed away from the origin sees the wall where its placement
//! puts it; and beads on mesh walls move the same on any number of threads.

use crate::common::{random_floor, world};
use granula_broadphase::LinkedCells;
use granula_core::narrowphase::sphere_plane;
use granula_core::{CoreError, CylinderBuilder, DQuat, DVec3, Material, PlaneBuilder, SphereBuilder, World};
use granula_integrators::VelocityVerlet;
use granula_laws::hertz_mindlin;
use granula_md::{MdConfig, MdSolver};
use granula_mesh::{sphere_mesh, MeshWallBuilder};

#[test]
fn a_mesh_wall_lives_beside_other_walls_and_needs_its_generators() {
    let floor = random_floor(0.5, 4, 2);
    let mut w = world(DVec3::ZERO, Material::default());
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    w.insert(CylinderBuilder::new(DVec3::ZERO, DVec3::Z, 1.0).build().unwrap()).unwrap();
    w.insert(MeshWallBuilder::new(floor.clone(), DVec3::ZERO).build().unwrap()).unwrap();
    w.insert(MeshWallBuilder::new(floor.clone(), DVec3::Z).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(0.01, DVec3::new(0.0, 0.0, 0.5)).build().unwrap()).unwrap();

    // Without `register_all`, a sphere in a world with a mesh wall is refused.
    let mut bare = World::builder().build().unwrap();
    bare.insert(MeshWallBuilder::new(floor, DVec3::ZERO).build().unwrap()).unwrap();
    let err = bare.insert(SphereBuilder::new(0.01, DVec3::Z).build().unwrap()).unwrap_err();
    assert!(matches!(err, CoreError::MissingContactGeometry { .. }), "{err}");
    assert!(err.to_string().contains("granula_mesh::register_all"), "{err}");
}

#[test]
fn a_placed_wall_is_where_its_placement_puts_it() {
    // The floor turned by 40° about (1, 2, 0.5) and moved to p: a sphere near it has the
    // contact of the plane through p with normal R z, to round-off.
    let floor = random_floor(0.5, 10, 8);
    let p = DVec3::new(0.3, -1.2, 2.0);
    let q = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 0.5).normalize(), 40f64.to_radians());
    let n = q * DVec3::Z;
    let r = 0.02;
    let mut out = Vec::new();
    for k in 0..50 {
        let s = k as f64 / 50.0;
        let along = q * DVec3::new(-0.4 + 0.8 * s, 0.3 - 0.5 * s, 0.0);
        let centre = p + along + n * (r - 1e-4 - 1e-3 * s);
        out.clear();
        sphere_mesh(&floor, p, q, centre, r, 0.0, &mut out);
        let plane = sphere_plane(p, n, centre, r, 0.0).unwrap();
        assert_eq!(out.len(), 1);
        // Coordinates of order 2 turned by a quaternion: round-off of a few 1e-16.
        assert!((out[0].gap - plane.gap).abs() < 1e-14 && (out[0].normal - n).length() < 1e-14, "{:?}", out[0]);
        assert!((out[0].point - plane.point).length() < 1e-14);
    }
}

#[test]
fn beads_on_a_mesh_floor_move_the_same_on_one_thread_and_on_three() {
    // 300 beads poured onto the tiled floor and a 45° slope of another mesh, under
    // Hertz-Mindlin with linked cells: the generator's buffers are per thread, so the
    // contacts, hence the bits of every state, cannot depend on the number of threads.
    let run = |threads: usize| {
        let mut w = world(DVec3::new(0.0, 0.0, -9.81), Material::default());
        w.insert(MeshWallBuilder::new(random_floor(0.2, 30, 4), DVec3::ZERO).build().unwrap()).unwrap();
        let slope = DQuat::from_rotation_y(-45f64.to_radians());
        w.insert(
            MeshWallBuilder::new(random_floor(0.1, 10, 5), DVec3::new(0.17, 0.0, 0.07))
                .orientation(slope)
                .build()
                .unwrap(),
        )
        .unwrap();
        for k in 0..300 {
            let p = DVec3::new(
                -0.12 + 0.024 * (k % 10) as f64,
                -0.12 + 0.024 * ((k / 10) % 10) as f64,
                0.0105 + 0.024 * (k / 100) as f64,
            );
            w.insert(SphereBuilder::new(0.01, p).build().unwrap()).unwrap();
        }
        let config = MdConfig { skin: 1e-3, threads: Some(threads), parallel_min_pairs: 0, ..Default::default() };
        let mut solver = MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config).unwrap();
        let mut contacts = 0;
        for _ in 0..3000 {
            contacts = contacts.max(w.step(&mut solver, 1e-5).unwrap().contacts);
        }
        (w.bodies.position.clone(), w.bodies.angular_velocity.clone(), contacts)
    };
    let (one, three) = (run(1), run(3));
    assert!(one.2 > 100, "{} contacts at most", one.2);
    assert_eq!(one, three);
}

#[test]
fn the_pair_memory_skips_only_calls_that_find_nothing() {
    // A sphere wanders near and far from a turning, drifting random floor of 800
    // triangles (a random walk of 20 000 small steps, into and out of contact, on both
    // sides): with one memory kept across the calls, every call gives the points of a
    // call without memory, bit for bit; and the memory holds a clearance after the calls
    // that found nothing (the next call may then skip the mesh).
    use granula_core::narrowphase::{ContactGenerator, PosedShape};
    use granula_core::{PairMemory, Shape};
    use granula_mesh::{MeshSphere, MeshWall};
    use rand::{Rng, SeedableRng};
    let wall = Shape::Custom(std::sync::Arc::new(MeshWall::new(random_floor(0.5, 20, 9))));
    let ball = Shape::Sphere { radius: 0.03 };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
    let memory = PairMemory::new();
    let (mut with, mut without) = (Vec::new(), Vec::new());
    let mut c = DVec3::new(0.1, -0.2, 0.2);
    let (mut touching, mut cleared) = (0, 0);
    for step in 0..20_000 {
        let t = step as f64 * 1e-4;
        let pose = (DVec3::new(0.0, 0.0, 0.05 * (3.0 * t).sin()), DQuat::from_rotation_z(0.7 * t));
        let drift = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        c = (c + 2e-3 * drift - DVec3::new(0.0, 0.0, 2e-4 * (c.z - 0.05).signum()))
            .clamp(DVec3::splat(-0.4), DVec3::splat(0.4));
        let a = PosedShape { shape: &wall, position: pose.0, orientation: pose.1, index: None };
        let b = PosedShape { shape: &ball, position: c, orientation: DQuat::IDENTITY, index: None };
        with.clear();
        without.clear();
        MeshSphere.generate_remembering(a, b, 1e-3, &memory, &mut with).unwrap();
        MeshSphere.generate(a, b, 1e-3, &mut without).unwrap();
        assert_eq!(format!("{with:?}"), format!("{without:?}"), "step {step}");
        touching += !with.is_empty() as usize;
        cleared += (memory.load()[2] != 0) as usize;
    }
    // The walk keeps the ball within some 10 cm of the floor, touching it part of the time.
    assert!(touching > 100 && touching < 19_000, "{touching} steps in contact");
    assert!(cleared > 1000, "a clearance after {cleared} calls only");
}
