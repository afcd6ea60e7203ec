//! The VTK frame of custom shapes: each body's triangles in its current pose parse back
//! (with an independent reader, vtkio) where the pose puts them, with the body's id and
//! velocity on every face.

use glam::{DQuat, DVec3};
use granula_core::narrowphase::{ContactGenerator, DegenerateGeometry, Narrowphase, PosedShape, ShapeKind};
use granula_core::{Aabb, CustomShape, MassProperties, Shape, SurfaceMesh};
use granula_core::{ContactGeometry, RigidBodyBuilder, SphereBuilder, World};
use granula_io::output::write_shapes;
use std::any::Any;
use std::sync::Arc;
use vtkio::model::{Attribute, DataSet, Piece, PolyDataPiece, VertexNumbers};
use vtkio::Vtk;

/// A cube of half-edge `h` centred on its body origin, as a host shape with a surface.
#[derive(Debug)]
struct Cube {
    corners: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
}

impl Cube {
    fn new(h: f64) -> Self {
        // Corner k has coordinates ±h by its bits (x: bit 0, y: bit 1, z: bit 2).
        let corners = (0..8)
            .map(|k| {
                DVec3::new(
                    if k & 1 == 1 { h } else { -h },
                    if k & 2 == 2 { h } else { -h },
                    if k & 4 == 4 { h } else { -h },
                )
            })
            .collect();
        let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        let triangles = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
        Cube { corners, triangles }
    }
}

impl CustomShape for Cube {
    fn name(&self) -> &'static str {
        "test_cube"
    }
    fn aabb(&self, position: DVec3, orientation: DQuat) -> Aabb {
        let r = self.corners[0].length();
        let _ = orientation;
        Aabb::around(position, DVec3::splat(r))
    }
    fn mass_properties(&self, density: f64) -> Option<MassProperties> {
        let a = 2.0 * self.corners[7].x;
        let m = density * a * a * a;
        Some(MassProperties { mass: m, inertia: DVec3::splat(m * a * a / 6.0) })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn surface(&self) -> Option<SurfaceMesh<'_>> {
        Some(SurfaceMesh { vertices: &self.corners, triangles: &self.triangles })
    }
}

fn piece(path: &std::path::Path) -> PolyDataPiece {
    let vtk = Vtk::import(path).expect("vtkio parses the file");
    match vtk.data {
        DataSet::PolyData { pieces, .. } => match pieces.into_iter().next().expect("one piece") {
            Piece::Inline(p) => *p,
            _ => panic!("inline piece expected"),
        },
        _ => panic!("PolyData expected"),
    }
}

fn array(attrs: &[Attribute], name: &str) -> Vec<f64> {
    for a in attrs {
        if let Attribute::DataArray(d) = a {
            if d.name == name {
                return d.data.cast_into::<f64>().expect("numeric array");
            }
        }
    }
    panic!("no array {name}")
}

/// No contact between the test cube and spheres: the test draws the world and never steps
/// it, but a world accepts a body only with a contact geometry against the shapes already
/// in it.
struct NoContact;

impl ContactGenerator for NoContact {
    fn generate(
        &self,
        _a: PosedShape<'_>,
        _b: PosedShape<'_>,
        _margin: f64,
        _out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        Ok(())
    }
}

#[test]
fn a_rotated_cube_is_drawn_where_its_pose_puts_it() {
    let mut narrowphase = Narrowphase::new();
    narrowphase.register(ShapeKind::Custom("test_cube"), ShapeKind::Sphere, NoContact).unwrap();
    let mut w = World::builder().narrowphase(narrowphase).build().unwrap();
    // A sphere first, so that the cube is body 1 and its points do not start at 0.
    w.insert(SphereBuilder::new(0.1, DVec3::new(5.0, 0.0, 0.0)).build().unwrap()).unwrap();
    let cube = Arc::new(Cube::new(0.5));
    let q = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
    let x = DVec3::new(0.25, -1.0, 2.0);
    let v = DVec3::new(0.1, 0.2, -0.3);
    let body = RigidBodyBuilder::new(Shape::Custom(cube.clone()), x).orientation(q).velocity(v).build().unwrap();
    w.insert(body).unwrap();

    let d = std::env::temp_dir().join(format!("granula-io-test-shapes-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("s.vtp");
    write_shapes(&f, &w, &[]).unwrap();
    let p = piece(&f);

    // Eight corners, shared by twelve triangles; the sphere is not drawn.
    let pts = p.points.cast_into::<f64>().unwrap();
    assert_eq!(pts.len(), 8 * 3);
    for (k, c) in cube.corners.iter().enumerate() {
        // x + q c, computed independently of the writer with glam's rotation matrix: the
        // two round differently, by a few ulps of the unit coordinates (1e-15 bounds it).
        let expected = x + glam::DMat3::from_quat(q) * *c;
        let got = DVec3::new(pts[3 * k], pts[3 * k + 1], pts[3 * k + 2]);
        assert!((got - expected).length() < 1e-15, "corner {k}: {got} vs {expected}");
        // And the corner is at the cube's distance from the centre, √3/2.
        assert!(((got - x).length() - 0.75f64.sqrt()).abs() < 1e-15);
    }
    match p.polys {
        Some(VertexNumbers::XML { connectivity, offsets }) => {
            assert_eq!(offsets, (1..=12).map(|k| 3 * k).collect::<Vec<u64>>());
            let want: Vec<u64> = cube.triangles.iter().flatten().map(|&k| k as u64).collect();
            assert_eq!(connectivity, want);
        }
        other => panic!("polys: {other:?}"),
    }
    // Every face outward: its normal from the written points points away from the centre.
    for t in &cube.triangles {
        let c = |k: u32| DVec3::new(pts[3 * k as usize], pts[3 * k as usize + 1], pts[3 * k as usize + 2]);
        let n = (c(t[1]) - c(t[0])).cross(c(t[2]) - c(t[0]));
        assert!(n.dot(c(t[0]) - x) > 0.0, "triangle {t:?} turned inward");
    }
    let ids = array(&p.data.cell, "id");
    assert_eq!(ids, vec![1.0; 12]);
    let vel = array(&p.data.cell, "velocity");
    assert_eq!(vel.len(), 36);
    for k in 0..12 {
        assert_eq!(vel[3 * k..3 * k + 3], v.to_array());
    }
    std::fs::remove_dir_all(d).unwrap();
}
