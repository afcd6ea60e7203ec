//! OBJ and STL readers: good files, scale, and named errors for bad input.

use glam::DVec3;
use granula_polyhedra::{read_obj, read_stl};
use granula_polyhedra::{BodyFrame, PolyError};

use crate::temp_file;
use temp_file::TempFile;

/// A unit cube as an OBJ file with quads (the reader triangulates them).
const CUBE_OBJ: &str = "\
# unit cube
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
";

#[test]
fn obj_cube_with_scale() {
    let f = TempFile::new("cube.obj", CUBE_OBJ.as_bytes());
    let (p, at) = read_obj(&f.0, 0.1, BodyFrame::CentreOfMass).unwrap();
    assert_eq!(p.faces().len(), 12);
    assert!((p.volume() - 1e-3).abs() < 1e-16);
    assert!((at.offset - DVec3::splat(0.05)).length() < 1e-16);
    assert!(p.is_convex());
}

#[test]
fn obj_errors_are_named() {
    let missing = std::env::temp_dir().join("granula-polyhedra-no-such-file.obj");
    assert!(matches!(read_obj(&missing, 1.0, BodyFrame::CentreOfMass), Err(PolyError::Io { .. })));
    let garbage = TempFile::new("garbage.obj", b"v 0 0 zero\nf 1 2 3\n");
    let e = read_obj(&garbage.0, 1.0, BodyFrame::CentreOfMass).unwrap_err();
    assert!(matches!(e, PolyError::Parse { format: "OBJ", .. }), "{e}");
    // Open: the last face missing.
    let open = CUBE_OBJ.rsplit_once("f 4 1 5 8").unwrap().0.to_string();
    let f = TempFile::new("open.obj", open.as_bytes());
    let e = read_obj(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap_err();
    let PolyError::AtLines { lines, source, .. } = &e else { panic!("{e}") };
    assert!(matches!(**source, PolyError::OpenEdge { .. }), "{e}");
    // An edge of one of the five faces left (lines 10 to 14) has no neighbour.
    assert!(lines.len() == 1 && (10..=14).contains(&lines[0]), "{e}");
    assert!(e.to_string().contains("not closed") && e.to_string().contains(&format!("line {}", lines[0])));
    // Inverted: every face reversed (consistent, but inward).
    let inverted: String = CUBE_OBJ
        .lines()
        .map(|l| match l.strip_prefix("f ") {
            Some(idx) => format!("f {}\n", idx.split(' ').rev().collect::<Vec<_>>().join(" ")),
            None => format!("{l}\n"),
        })
        .collect();
    let f = TempFile::new("inverted.obj", inverted.as_bytes());
    assert!(matches!(read_obj(&f.0, 1.0, BodyFrame::CentreOfMass), Err(PolyError::NonPositiveVolume { .. })));
    // One face flipped: inconsistent orientation, naming the edge.
    let flipped = CUBE_OBJ.replace("f 5 6 7 8", "f 8 7 6 5");
    let f = TempFile::new("flipped.obj", flipped.as_bytes());
    let e = read_obj(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap_err();
    let PolyError::AtLines { lines, source, .. } = &e else { panic!("{e}") };
    assert!(matches!(**source, PolyError::InconsistentEdge { .. }), "{e}");
    // The flipped face is line 11; the other face of the edge is another `f` line.
    assert!(lines.contains(&11) && lines.iter().all(|l| (10..=15).contains(l)), "{e}");
    let f = TempFile::new("scale.obj", CUBE_OBJ.as_bytes());
    assert!(matches!(read_obj(&f.0, 0.0, BodyFrame::CentreOfMass), Err(PolyError::BadParameter { .. })));
}

/// The line named for a bad face counts the lines of the file (comments, blank and
/// continued lines included), not the triangles the polygons were split into.
#[test]
fn obj_face_errors_name_the_file_line() {
    // A pentagon (three triangles) and quads before the bad face, a comment and a blank
    // line in between, one face continued over two lines: the cube with its top split.
    let text = "\
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
v 0.5 0 1
# the top as a pentagon through the midpoint of one edge
f 7 8 5 9 6

f 1 4 3 \\
  2
f 1 2 6 9 5
f 2 3 7 6
f 3 4 4 7
f 4 1 5 8
";
    let f = TempFile::new("badface.obj", text.as_bytes());
    let e = read_obj(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap_err();
    let PolyError::AtLines { lines, source, .. } = &e else { panic!("{e}") };
    // `f 3 4 4 7` (line 17) names vertex 4 twice: its first triangle (3, 4, 4) is the
    // 11th (3 + 2 + 3 + 2 triangles before it).
    assert_eq!(lines, &[17], "{e}");
    assert!(matches!(**source, PolyError::BadFaceIndex { face: 10, .. }), "{e}");
    assert!(e.to_string().contains("badface.obj, line 17: face 10"), "{e}");
    // The same file with that face mended reads, so only that line was at fault.
    let f = TempFile::new("mended.obj", text.replace("f 3 4 4 7", "f 3 4 8 7").as_bytes());
    let (p, _) = read_obj(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap();
    assert!((p.volume() - 1.0).abs() < 1e-15, "{}", p.volume());
}

fn ascii_stl(tris: &[[[f64; 3]; 3]]) -> String {
    let mut s = String::from("solid t\n");
    for t in tris {
        s.push_str("facet normal 0 0 0\nouter loop\n");
        for v in t {
            s.push_str(&format!("vertex {} {} {}\n", v[0], v[1], v[2]));
        }
        s.push_str("endloop\nendfacet\n");
    }
    s.push_str("endsolid t\n");
    s
}

#[test]
fn stl_tetrahedron_ascii_and_errors() {
    let (o, x, y, z) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
    let tris = [[o, y, x], [o, x, z], [o, z, y], [x, y, z]];
    let f = TempFile::new("tet.stl", ascii_stl(&tris).as_bytes());
    let (p, at) = read_stl(&f.0, 2.0, BodyFrame::CentreOfMass).unwrap();
    assert_eq!(p.vertices().len(), 4);
    assert!((p.volume() - 8.0 / 6.0).abs() < 1e-14);
    assert!((at.offset - DVec3::splat(0.5)).length() < 1e-14);
    let f = TempFile::new("open.stl", ascii_stl(&tris[..3]).as_bytes());
    assert!(read_stl(&f.0, 1.0, BodyFrame::CentreOfMass).is_err());
    let f = TempFile::new("bad.stl", b"solid x\nfacet nonsense\n");
    let e = read_stl(&f.0, 1.0, BodyFrame::CentreOfMass).unwrap_err();
    assert!(matches!(e, PolyError::Parse { format: "STL", .. }), "{e}");
    let missing = std::env::temp_dir().join("granula-polyhedra-no-such-file.stl");
    assert!(matches!(read_stl(&missing, 1.0, BodyFrame::CentreOfMass), Err(PolyError::Io { .. })));
}
