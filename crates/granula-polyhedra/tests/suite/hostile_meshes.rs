//! Regressions found by the mesh fuzzer (`mesh_fuzz.rs`): each test names the input and the
//! answer it must get.

use glam::DVec3;
use granula_polyhedra::{read_obj, read_stl};
use granula_polyhedra::{shapes, BodyFrame, PolyError, Polyhedron};

use crate::temp_file;
use temp_file::TempFile;

/// The unit cube's 12 triangles, counter-clockwise seen from outside, corners at 0 and 1.
fn cube_triangles() -> Vec<[[f32; 3]; 3]> {
    let c = |i: u32| [(i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32];
    let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [1, 3, 7, 5], [3, 2, 6, 7], [2, 0, 4, 6]];
    quads.iter().flat_map(|q| [[c(q[0]), c(q[1]), c(q[2])], [c(q[0]), c(q[2]), c(q[3])]]).collect()
}

fn binary_stl(header: &[u8], count: u32, tris: &[[[f32; 3]; 3]]) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    b[..header.len()].copy_from_slice(header);
    b.extend(count.to_le_bytes());
    for t in tris {
        b.extend([0u8; 12]);
        b.extend(t.iter().flatten().flat_map(|x| x.to_le_bytes()));
        b.extend([0u8; 2]);
    }
    b
}

fn ascii_stl(name: &str, tris: &[[[f32; 3]; 3]], zero: &str) -> String {
    let mut s = format!("{name}\n");
    for t in tris {
        s.push_str("facet normal 0 0 0\nouter loop\n");
        for v in t {
            let w = v.map(|x| if x == 0.0 { zero.to_string() } else { x.to_string() });
            s.push_str(&format!("vertex {} {} {}\n", w[0], w[1], w[2]));
        }
        s.push_str("endloop\nendfacet\n");
    }
    s + "endsolid\n"
}

fn parse_message(e: PolyError, file: &TempFile) -> String {
    let msg = e.to_string();
    assert!(matches!(e, PolyError::Parse { .. }), "{msg}");
    assert!(msg.contains(&file.0.display().to_string()), "{msg}");
    msg
}

#[test]
fn binary_stl_with_a_count_below_its_triangles_is_refused_not_cut() {
    // 12 triangles stored, 11 declared: the last one used to be dropped silently (and an
    // extra triangle after a valid cube accepted).
    let f = TempFile::new("short_count.stl", &binary_stl(b"x", 11, &cube_triangles()));
    let msg = parse_message(read_stl(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap_err(), &f);
    assert!(msg.contains("11 triangles") && msg.contains("684 bytes"), "{msg}");
    let mut more = cube_triangles();
    more.push(more[0]);
    let f = TempFile::new("trailing.stl", &binary_stl(b"x", 12, &more));
    parse_message(read_stl(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap_err(), &f);
    // A count above the triangles stored: refused as well.
    let f = TempFile::new("long_count.stl", &binary_stl(b"x", u32::MAX, &cube_triangles()));
    parse_message(read_stl(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap_err(), &f);
}

#[test]
fn binary_stl_whose_header_begins_with_solid_is_read() {
    // Some exporters write "solid <name>" in a binary header; it used to be taken for ASCII.
    let f = TempFile::new("solid_header.stl", &binary_stl(b"solid exported", 12, &cube_triangles()));
    let (p, _) = read_stl(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap();
    // The unit cube: exact up to round-off of the moments' sums.
    assert!((p.volume() - 1.0).abs() < 1e-14, "{}", p.volume());
}

#[test]
fn ascii_stl_with_negative_zeros_is_one_closed_mesh() {
    // "-0" on every zero coordinate of the first six triangles: −0 and +0 used to be two
    // vertices, which left the mesh open.
    let tris = cube_triangles();
    let text = ascii_stl("solid cube", &tris[..6], "-0") + &ascii_stl("solid cube", &tris[6..], "0");
    let text = text.replacen("endsolid\nsolid cube\n", "", 1);
    let f = TempFile::new("neg_zero.stl", text.as_bytes());
    let (p, _) = read_stl(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap();
    assert_eq!(p.vertices().len(), 8);
}

#[test]
fn ascii_stl_unnamed_solid_is_read_and_a_second_solid_is_refused() {
    let tris = cube_triangles();
    let f = TempFile::new("unnamed.stl", ascii_stl("solid", &tris, "0").as_bytes());
    read_stl(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap();
    // Two solids: the second used to be dropped silently.
    let two = ascii_stl("solid a", &tris, "0") + &ascii_stl("solid b", &tris, "0");
    let f = TempFile::new("two_solids.stl", two.as_bytes());
    let msg = parse_message(read_stl(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap_err(), &f);
    assert!(msg.contains("line 87") && msg.contains("endsolid"), "{msg}");
}

const TETRA: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n";

#[test]
fn obj_texture_and_normal_indices_are_ignored() {
    // Absurd texture and normal indices: 0 and 6148914691236517207 (3 times it overflows).
    // The parser's arithmetic on them overflowed (a panic with overflow checks on).
    let text = format!(
        "{TETRA}vt 0 0\nvn 0 0 1\nvn 0 0 1\nf 1/0/6148914691236517207 3/1/1 2/1/1\nf 1//2 2//2 4//2\nf 1 4 3\nf 2 3 4\n"
    );
    let f = TempFile::new("indices.obj", text.as_bytes());
    let (p, _) = read_obj(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap();
    // The unit right tetrahedron: volume 1/6 up to round-off.
    assert!((p.volume() - 1.0 / 6.0).abs() < 1e-15);
}

#[test]
fn obj_bad_faces_name_their_line() {
    let faces = "f 1 3 2\nf 1 2 4\nf 1 4 3\n";
    for (last, wants) in [
        ("f 2 3 0", "line 8: face vertex index 0 is out of range"),
        ("f 2 3 5", "line 8: face vertex index 5 is out of range"),
        ("f 2 3 -5", "line 8: face vertex index -5 is out of range"),
        ("f 2 3", "line 8: a face needs at least 3 vertices, this one has 2"),
        ("f 2 3 x", "line 8: face vertex \"x\" is not an integer"),
        ("l 2 3", "line 8: `l`"),
        ("f 2 3 \\", "line 8: the file ends in a continued line"),
    ] {
        let f = TempFile::new("bad_face.obj", format!("{TETRA}{faces}{last}\n").as_bytes());
        let msg = parse_message(read_obj(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap_err(), &f);
        assert!(msg.contains(wants), "{wants:?} not in {msg}");
    }
    // Negative indices count back from the last vertex: the same tetrahedron.
    let f = TempFile::new("relative.obj", format!("{TETRA}{faces}f -3 -2 -1\n").as_bytes());
    read_obj(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap();
}

/// The unit cube with vertices 4 and 5 (0-based 3 and 4) swapped in the vertex list: still
/// closed and consistently oriented, volume 1/6 > 0, but the surface intersects itself.
#[test]
fn a_self_intersecting_closed_mesh_is_not_a_solid() {
    let v: Vec<DVec3> = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 0, 1], [0, 1, 0], [1, 0, 1], [1, 1, 1], [0, 1, 1]]
        .iter()
        .map(|c| DVec3::new(c[0] as f64, c[1] as f64, c[2] as f64))
        .collect();
    let quads = [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]];
    let f: Vec<[u32; 3]> = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
    // It used to be accepted with negative moments of inertia.
    let e = Polyhedron::from_mesh(v, f, BodyFrame::CentreOfMass).unwrap_err();
    assert!(matches!(e, PolyError::NotASolid { .. }), "{e}");
}

#[test]
fn meshes_too_large_or_small_for_their_moments_are_refused() {
    // A tetrahedron of size 1e70: its moments (size⁵) overflowed to infinity and it was
    // accepted; one of 1e-70: its moments underflowed to zero.
    for s in [1e70, 1e-70] {
        let v = vec![DVec3::ZERO, DVec3::X * s, DVec3::Y * s, DVec3::Z * s];
        let f = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
        let e = Polyhedron::from_mesh(v, f, BodyFrame::CentreOfMass).unwrap_err();
        assert!(matches!(e, PolyError::BadExtent { .. }) && e.to_string().contains("extent"), "{e}");
    }
    let e = shapes::cube(1e100).unwrap_err();
    assert!(matches!(e, PolyError::BadExtent { .. }), "{e}");
}

#[test]
fn absurd_counts_are_refused_before_allocating() {
    // u32::MAX points or sides used to allocate about 100 GB (an abort, not an error).
    let e = shapes::random_convex(u32::MAX as usize, 1.0, 0).unwrap_err();
    assert!(e.to_string().contains("points") && e.to_string().contains("100000"), "{e}");
    let e = shapes::prism(u32::MAX, 1.0, 1.0).unwrap_err();
    assert!(e.to_string().contains("sides") && e.to_string().contains("10000"), "{e}");
    // The bounds themselves are accepted.
    shapes::prism(shapes::MAX_PRISM_SIDES, 1.0, 1.0).unwrap();
}

#[test]
fn huge_parameters_print_in_exponent_form() {
    // A radius of -1e308 used to print as 309 digits.
    let e = shapes::prism(6, -1e308, 1.0).unwrap_err().to_string();
    assert!(e.contains("circumradius = -1e308 is invalid"), "{e}");
    let e = shapes::cube(f64::NAN).unwrap_err().to_string();
    assert!(e.contains("edge = NaN"), "{e}");
    let e = shapes::cube(-0.5).unwrap_err().to_string();
    assert!(e.contains("edge = -0.5"), "{e}");
}

#[test]
fn a_mesh_path_that_is_not_a_regular_file_is_refused() {
    // A folder, and (on Unix) /dev/zero, which used to be read without end.
    let dir = std::env::temp_dir().join(format!("granula-hostile-dir-{}.obj", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let e = read_obj(&dir, 1.0, BodyFrame::CentreOfMass).unwrap_err();
    assert!(matches!(e, PolyError::Parse { .. }) && e.to_string().contains("not a regular file"), "{e}");
    let _ = std::fs::remove_dir(&dir);
    let zero = std::path::Path::new("/dev/zero");
    if zero.exists() {
        let e = read_stl(zero, 1.0, BodyFrame::CentreOfMass).unwrap_err();
        assert!(e.to_string().contains("/dev/zero") && e.to_string().contains("not a regular file"), "{e}");
    }
}

/// An OBJ of the unit cube with a second cube of half its edge inside, centred: the inner
/// shell outward (its volume added: 12.5 % too much mass) or inward (a true cavity).
fn hollow_cube_obj(inner_outward: bool) -> String {
    let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [1, 3, 7, 5], [3, 2, 6, 7], [2, 0, 4, 6]];
    let mut text = String::new();
    for (k, (scale, shift, flip)) in [(1.0, 0.0, false), (0.5, 0.25, !inner_outward)].into_iter().enumerate() {
        for i in 0..8 {
            let c = |bit: u32| ((i >> bit) & 1) as f64 * scale + shift;
            text.push_str(&format!("v {} {} {}\n", c(0), c(1), c(2)));
        }
        for q in quads {
            let v = q.map(|i| i + 1 + 8 * k);
            let mut face = [v[0], v[1], v[2], v[3]];
            if flip {
                face.reverse();
            }
            text.push_str(&format!("f {} {} {} {}\n", face[0], face[1], face[2], face[3]));
        }
    }
    text
}

#[test]
fn a_mesh_with_an_inner_shell_is_refused_naming_the_file_and_the_shells() {
    for inner_outward in [true, false] {
        let f = TempFile::new("hollow.obj", hollow_cube_obj(inner_outward).as_bytes());
        let e = read_obj(&f.0, 1.0, BodyFrame::PrincipalAxes).expect_err("a hollow cube is refused");
        let msg = e.to_string();
        assert!(matches!(&e, PolyError::Shells { shells: 2, path: Some(p) } if *p == f.0), "{msg}");
        assert!(msg.contains("hollow.obj") && msg.contains("2 separate closed shells"), "{msg}");
    }
    // Two cubes side by side in one STL: two shells too.
    let mut tris = cube_triangles();
    tris.extend(cube_triangles().iter().map(|t| t.map(|v| [v[0] + 2.0, v[1], v[2]])));
    let f = TempFile::new("two.stl", &binary_stl(b"", tris.len() as u32, &tris));
    let e = read_stl(&f.0, 1.0, BodyFrame::CentreOfMass).expect_err("two cubes are refused");
    assert!(matches!(&e, PolyError::Shells { shells: 2, path: Some(p) } if *p == f.0), "{e}");
    // From a mesh in memory: no file to name.
    let cube = shapes::cube(1.0).unwrap();
    let mut vertices = cube.vertices().to_vec();
    let mut faces = cube.faces().to_vec();
    let n = vertices.len() as u32;
    vertices.extend(cube.vertices().iter().map(|v| *v + DVec3::new(3.0, 0.0, 0.0)));
    faces.extend(cube.faces().iter().map(|f| f.map(|i| i + n)));
    let e = Polyhedron::from_mesh(vertices, faces, BodyFrame::CentreOfMass).expect_err("refused");
    assert!(matches!(e, PolyError::Shells { shells: 2, path: None }), "{e}");
    assert!(e.to_string().starts_with("the mesh has 2 separate"), "{e}");
}
