//! A mesh wall in a world: with other walls it needs no contact geometry (it is a wall, as
//! planes are); without its generators registered, its insertion is refused naming the
//! call; and a sphere on a wall placed away from the origin sees the wall where its
//! placement puts it.

use crate::common::{random_floor, world};
use granula_core::narrowphase::sphere_plane;
use granula_core::{CoreError, CylinderBuilder, DQuat, DVec3, Material, PlaneBuilder, SphereBuilder, World};
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
