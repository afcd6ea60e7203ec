//! Mesh files: the same mesh as ASCII STL, binary STL and OBJ gives the same wall; errors
//! name the file, the triangle and its line (or bytes); the repairs are listed.

use granula_core::{CustomShape, DQuat, DVec3};
use granula_mesh::{
    read_mesh, read_obj, read_stl, DegenerateTriangles, MeshError, MeshOptions, MeshWall, TriangleMesh, TriangleOrigin,
};
use std::path::PathBuf;

fn asset(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/meshes").join(name)
}

/// `contents` written to a file `name` of this process's own temporary folder.
fn temp(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("granula-mesh-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// A binary STL of `triangles` (corner coordinates), normals left zero.
fn binary_stl(triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
    let mut bytes = vec![0u8; 80];
    bytes.extend_from_slice(&(triangles.len() as u32).to_le_bytes());
    for t in triangles {
        bytes.extend_from_slice(&[0u8; 12]);
        for c in t {
            for x in c {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        bytes.extend_from_slice(&[0u8; 2]);
    }
    bytes
}

#[test]
fn the_same_mesh_as_ascii_stl_binary_stl_and_obj_gives_the_same_wall() {
    let options = MeshOptions::default();
    let ascii = read_stl(asset("trough_ascii.stl"), &options).unwrap();
    let binary = read_mesh(asset("trough_binary.stl"), &options).unwrap();
    let obj = read_obj(asset("trough.obj"), &options).unwrap();
    for other in [&binary, &obj] {
        assert_eq!(ascii.vertices(), other.vertices());
        assert_eq!(ascii.triangles(), other.triangles());
        assert_eq!(ascii.normals(), other.normals());
    }
    // Two slopes of 45° meeting at 90°: two regions, 4 triangles, 6 vertices, 9 edges.
    assert_eq!((ascii.triangles().len(), ascii.vertices().len(), ascii.edge_count()), (4, 6, 9));
    assert_eq!((ascii.region(0), ascii.region(1), ascii.region(2), ascii.region(3)), (0, 0, 1, 1));
    assert_eq!(ascii.report().vertices_merged, 0);
    // Where the third triangle is in each file: its `facet` line, its record, its `f` line.
    assert_eq!(ascii.place(2).origin, Some(TriangleOrigin::Line(16)));
    assert_eq!(binary.place(2).origin, Some(TriangleOrigin::Byte(84 + 2 * 50)));
    assert_eq!(obj.place(2).origin, Some(TriangleOrigin::Line(9)));
    // Scaled from millimetres and placed: the wall's box holds every placed vertex.
    let mm = read_stl(asset("trough_ascii.stl"), &MeshOptions { scale: 1e-3, ..options }).unwrap();
    assert_eq!(mm.vertices()[0], DVec3::new(-0.5e-3, -0.5e-3, 0.5e-3));
    let position = DVec3::new(1.0, 2.0, 3.0);
    let orientation = DQuat::from_rotation_x(0.3) * DQuat::from_rotation_y(-0.7) * DQuat::from_rotation_z(1.1);
    let wall = MeshWall::new(mm);
    let aabb = wall.aabb(position, orientation);
    for v in wall.mesh().vertices() {
        let x = position + orientation * *v;
        assert!(aabb.inflated(1e-15).contains(&granula_core::Aabb { min: x, max: x }), "{x} outside {aabb:?}");
    }
}

#[test]
fn a_non_finite_corner_is_named_by_file_triangle_and_line_or_bytes() {
    let text = "solid s\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertex 0 1 0\n  endloop\n endfacet\n facet normal 0 0 1\n  outer loop\n   vertex 1 0 0\n   vertex NaN 1 0\n   vertex 0 1 0\n  endloop\n endfacet\nendsolid s\n";
    let path = temp("nan_ascii.stl", text.as_bytes());
    // In ASCII STL the reader names the line of the vertex (the 12th).
    let err = read_stl(&path, &MeshOptions::default()).unwrap_err();
    assert!(matches!(err, MeshError::Parse { .. }), "{err}");
    let message = err.to_string();
    assert!(message.contains("line 12") && message.contains(&path.display().to_string()), "{message}");
    // In OBJ, the triangle and the line of its `f` statement.
    let path = temp("nan.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv nan 1 0\nf 1 2 3\n\nf 2 4 3\n");
    let err = read_obj(&path, &MeshOptions::default()).unwrap_err();
    match &err {
        MeshError::NonFinite { place, corner, .. } => {
            assert_eq!((place.triangle, *corner), (1, 1));
            assert_eq!(place.origin, Some(TriangleOrigin::Line(7)));
            assert_eq!(place.path.as_deref(), Some(path.as_path()));
        }
        other => panic!("{other}"),
    }
    let message = err.to_string();
    assert!(message.contains("triangle 1") && message.contains("line 7"), "{message}");
    assert!(message.contains(&path.display().to_string()), "{message}");
    // In binary STL, the triangle and its bytes.
    let tri = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let bad = [[1.0, 0.0, 0.0], [f32::INFINITY, 1.0, 0.0], [0.0, 1.0, 0.0]];
    let path = temp("inf_binary.stl", &binary_stl(&[tri, tri, bad]));
    let message = read_stl(&path, &MeshOptions::default()).unwrap_err().to_string();
    assert!(message.contains("triangle 2") && message.contains("bytes 184..234"), "{message}");
    // A coordinate finite in the file but not once scaled.
    let path = temp("huge.stl", &binary_stl(&[[[0.0, 0.0, 0.0], [1e30, 0.0, 0.0], [0.0, 1.0, 0.0]]]));
    let err = read_stl(&path, &MeshOptions { scale: 1e300, ..Default::default() }).unwrap_err();
    assert!(matches!(err, MeshError::NonFinite { corner: 1, .. }), "{err}");
}

#[test]
fn zero_area_triangles_are_dropped_and_listed_or_refused_with_their_line() {
    // Line 7: a good triangle; line 8: three corners on a line; line 9: a triangle with a
    // corner 1e-6 m from another (within the default 1e-6 of the 2.24 m diagonal: merged).
    let text = "# test\nv 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nv 2.000001 0 0\nf 1 2 4\nf 1 2 3\nf 4 3 5\n";
    let path = temp("slivers.obj", text.as_bytes());
    let mesh = read_obj(&path, &MeshOptions::default()).unwrap();
    assert_eq!(mesh.triangles().len(), 1);
    let dropped = &mesh.report().dropped;
    assert_eq!(dropped.len(), 2, "{dropped:?}");
    assert_eq!((dropped[0].place.triangle, dropped[0].place.origin), (1, Some(TriangleOrigin::Line(8))));
    assert_eq!(dropped[0].reason, "corners on one line");
    assert_eq!((dropped[1].place.triangle, dropped[1].place.origin), (2, Some(TriangleOrigin::Line(9))));
    assert_eq!(dropped[1].reason, "two corners merged into one vertex");
    assert_eq!(mesh.report().vertices_merged, 1);
    assert_eq!(mesh.report().triangles_given, 3);
    // Refused: the first one, named.
    let refuse = MeshOptions { degenerate: DegenerateTriangles::Refuse, ..Default::default() };
    let message = read_obj(&path, &refuse).unwrap_err().to_string();
    assert!(
        message.contains("triangle 1") && message.contains("line 8") && message.contains("slivers.obj"),
        "{message}"
    );
    // Without merging within a tolerance the near corner stays and its sliver (area 5e-7 m²)
    // is kept.
    let exact = MeshOptions { weld_tolerance: 0.0, ..Default::default() };
    let mesh = read_obj(&path, &exact).unwrap();
    assert_eq!((mesh.triangles().len(), mesh.report().dropped.len(), mesh.report().vertices_merged), (2, 1, 0));
    // Nothing left: an error naming the file.
    let path = temp("only_sliver.obj", b"v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n");
    let err = read_obj(&path, &MeshOptions::default()).unwrap_err();
    assert!(matches!(err, MeshError::Empty { given: 1, .. }), "{err}");
    assert!(err.to_string().contains("only_sliver.obj"), "{err}");
}

#[test]
fn duplicate_vertices_are_merged_so_that_neighbours_share_their_edge() {
    // Two triangles given with their own copies of the shared edge's ends, one copy off by
    // 1e-8 (below 1e-6 of the diagonal √2): merged, 4 vertices, 5 edges, one region.
    let v =
        vec![DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::ZERO, DVec3::new(1.0, 1.0 + 1e-8, 0.0), DVec3::Y];
    let mesh = TriangleMesh::new(v.clone(), vec![[0, 1, 2], [3, 4, 5]], &MeshOptions::default()).unwrap();
    assert_eq!((mesh.vertices().len(), mesh.edge_count(), mesh.region_count()), (4, 5, 1));
    assert_eq!(mesh.report().vertices_merged, 2);
    // Exact merging only: the off copy stays, the triangles share one vertex, not the edge.
    let exact = MeshOptions { weld_tolerance: 0.0, ..Default::default() };
    let mesh = TriangleMesh::new(v, vec![[0, 1, 2], [3, 4, 5]], &exact).unwrap();
    assert_eq!((mesh.vertices().len(), mesh.edge_count(), mesh.report().vertices_merged), (5, 6, 1));
}

#[test]
fn bad_input_is_an_error_never_a_panic() {
    let square = || (vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0u32, 1, 2]]);
    for (name, options) in [
        ("scale", MeshOptions { scale: 0.0, ..Default::default() }),
        ("scale", MeshOptions { scale: f64::NAN, ..Default::default() }),
        ("weld_tolerance", MeshOptions { weld_tolerance: -1.0, ..Default::default() }),
        ("smooth_angle", MeshOptions { smooth_angle: 4.0, ..Default::default() }),
    ] {
        let (v, t) = square();
        match TriangleMesh::new(v, t, &options) {
            Err(MeshError::BadParameter { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{other:?}"),
        }
    }
    let (v, _) = square();
    let err = TriangleMesh::new(v, vec![[0, 1, 2], [0, 1, 7]], &MeshOptions::default()).unwrap_err();
    assert_eq!(err.to_string(), "triangle 1: corner 2 refers to vertex 7, but there are 3 vertices");
    let err = TriangleMesh::new(Vec::new(), Vec::new(), &MeshOptions::default()).unwrap_err();
    assert!(matches!(err, MeshError::Empty { given: 0, path: None }));
    // Unknown extension, missing file, a binary STL shorter than its count says.
    let path = temp("mesh.ply", b"ply\n");
    assert!(matches!(read_mesh(&path, &MeshOptions::default()), Err(MeshError::UnknownFormat { .. })));
    let missing = std::env::temp_dir().join("granula-mesh-no-such-file.stl");
    assert!(matches!(read_mesh(&missing, &MeshOptions::default()), Err(MeshError::Io { .. })));
    let mut short = binary_stl(&[[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]);
    short.truncate(120);
    let path = temp("short.stl", &short);
    let err = read_stl(&path, &MeshOptions::default()).unwrap_err();
    assert!(matches!(err, MeshError::Parse { .. }) && err.to_string().contains("short.stl"), "{err}");
}
