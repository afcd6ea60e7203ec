//! Deep interpenetration: two polyhedra at the same spot, or one inside the other, are
//! reported overlapping with one contact along the axis of least penetration, by the point
//! contacts (both paths), the core generator and the overlap-volume contacts.

use glam::{DQuat, DVec3};
use granula_core::narrowphase::{ContactGenerator, PosedShape};
use granula_core::ContactGeometry;
use granula_core::Shape;
use granula_polyhedra::contact::convex_volume_contact;
use granula_polyhedra::contact::{polyhedron_polyhedron_with, FeatureKey, Method};
use granula_polyhedra::PolyhedronPair;
use granula_polyhedra::{shapes, Polyhedron, PolyhedronShape, Pose};
use std::sync::Arc;

fn points(method: Method, a: &Polyhedron, pa: &Pose, b: &Polyhedron, pb: &Pose) -> Vec<ContactGeometry> {
    let mut out = Vec::new();
    polyhedron_polyhedron_with(method, a, pa, b, pb, 0.0, &mut out);
    out
}

/// Largest |component| of a unit vector: 1 for a coordinate axis.
fn axis_like(n: DVec3) -> f64 {
    n.abs().max_element()
}

#[test]
fn coincident_cubes_overlap_by_their_whole_edge() {
    let cube = shapes::cube(0.2).unwrap();
    let at = Pose::new(DVec3::new(0.3, -0.1, 0.5), DQuat::IDENTITY);
    for method in [Method::Convex, Method::General] {
        let out = points(method, &cube, &at, &cube, &at);
        // One contact: the least push that separates two coincident cubes is a whole edge,
        // along a face normal (all six tie: the first, deterministic).
        assert_eq!(out.len(), 1, "{method:?}: {out:?}");
        let c = out[0];
        assert_eq!(FeatureKey::decode(c.feature), FeatureKey::Single);
        assert!((c.gap + 0.2).abs() < 1e-12, "{method:?}: gap {}", c.gap);
        assert!((axis_like(c.normal) - 1.0).abs() < 1e-12 && (c.normal.length() - 1.0).abs() < 1e-12);
        // The point between the centres (here: both of them), in the middle of the overlap.
        assert!((c.point - at.position).length() < 1e-12, "{:?}", c.point);
    }
}

#[test]
fn centres_a_little_apart_push_along_the_line_between_them() {
    let cube = shapes::cube(0.2).unwrap();
    let a = Pose::new(DVec3::ZERO, DQuat::IDENTITY);
    let b = Pose::new(DVec3::new(1e-3, 0.0, 0.0), DQuat::IDENTITY);
    // Along x the extents overlap by 0.2 − 0.001 (less than 0.2 along y and z): body 2 is
    // pushed along +x, and with the bodies swapped along −x (the same contact mirrored).
    let ab = points(Method::Convex, &cube, &a, &cube, &b);
    let ba = points(Method::Convex, &cube, &b, &cube, &a);
    assert_eq!((ab.len(), ba.len()), (1, 1));
    assert!((ab[0].normal - DVec3::X).length() < 1e-12 && (ba[0].normal + DVec3::X).length() < 1e-12);
    assert!((ab[0].gap + 0.199).abs() < 1e-12 && (ba[0].gap + 0.199).abs() < 1e-12);
    assert!((ab[0].point - ba[0].point).length() < 1e-12);
}

#[test]
fn a_small_body_inside_a_big_one_is_pushed_out_through_the_nearest_face() {
    // A 0.1 m cube turned 0.3 rad about z inside a 0.3 m cube, same centre. Along the big
    // cube's z normal the extents overlap by 0.15 + 0.05 = 0.2; along its x and y normals
    // by 0.15 + 0.05 (cos 0.3 + sin 0.3) = 0.2126; along the small cube's turned normals by
    // more. Depth 0.2 along ±z.
    let (big, small) = (shapes::cube(0.3).unwrap(), shapes::cube(0.1).unwrap());
    let at = Pose::new(DVec3::new(0.0, 0.0, 1.0), DQuat::IDENTITY);
    let turned = Pose::new(at.position, DQuat::from_rotation_z(0.3));
    for method in [Method::Convex, Method::General] {
        let out = points(method, &big, &at, &small, &turned);
        assert_eq!(out.len(), 1, "{method:?}: {out:?}");
        assert!((out[0].gap + 0.2).abs() < 1e-12, "{method:?}: gap {}", out[0].gap);
        assert!((out[0].normal.z.abs() - 1.0).abs() < 1e-12, "{:?}", out[0].normal);
    }
    // The overlap volume is the small cube's, and its normal the same axis (the surface of
    // body 1 inside body 2 is closed: no area vector to take the normal from).
    let v = convex_volume_contact(&big, &at, &small, &turned).expect("nested bodies overlap");
    assert!((v.overlap_volume - 1e-3).abs() < 1e-15, "{}", v.overlap_volume);
    assert!((v.normal.z.abs() - 1.0).abs() < 1e-12, "{:?}", v.normal);
    assert!((v.gap + 0.2).abs() < 1e-12, "{}", v.gap);
}

#[test]
fn coincident_bodies_through_the_generator_and_the_volume_contact() {
    let cube = Arc::new(shapes::cube(0.2).unwrap());
    let shape = Shape::Custom(Arc::new(PolyhedronShape::new(cube.clone()).unwrap()));
    let posed = PosedShape::new(&shape, DVec3::new(1.0, 2.0, 3.0), DQuat::IDENTITY);
    let mut out = Vec::new();
    PolyhedronPair.generate(posed, posed, 1e-3, &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert!(out[0].gap < -0.19, "{:?}", out[0]);
    let at = Pose::new(posed.position, posed.orientation);
    let v = convex_volume_contact(&cube, &at, &cube, &at).expect("coincident bodies overlap");
    // The whole cube overlaps; the normal is an axis and the mean depth V/A the edge.
    assert!((v.overlap_volume - 8e-3).abs() < 1e-15);
    assert!((axis_like(v.normal) - 1.0).abs() < 1e-12, "{:?}", v.normal);
    assert!((v.gap + 0.2).abs() < 1e-12, "{}", v.gap);
}

#[test]
fn a_non_convex_block_on_itself() {
    // The L-block's centre of mass lies in the block (its thick corner): the general path
    // sees it inside the other copy and reports one deep contact.
    let l = shapes::l_block(0.1).unwrap();
    let at = Pose::new(DVec3::ZERO, DQuat::from_rotation_x(0.2));
    let out = points(Method::General, &l, &at, &l, &at);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].gap < -0.05, "{:?}", out[0]);
    assert!((out[0].normal.length() - 1.0).abs() < 1e-12);
}
