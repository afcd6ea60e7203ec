//! A mesh fuzzer: seeded mutations of small valid OBJ and STL files (ASCII and binary), of
//! vertex and face lists handed to `Polyhedron::from_mesh`, and of the parameters of the
//! built-in shapes and the convex hull. Every case must end in a valid polyhedron (finite,
//! positive volume) or in an error that names what is at fault (the file, the face, the
//! edge, the vertex, the parameter); never in a panic.
//!
//! Mutations: lines deleted, duplicated or swapped; numbers replaced by 0, -1, 1e308, NaN,
//! inf, huge counts or nothing; face indices out of range, negative or zero, with texture
//! and normal indices; faces with fewer than three vertices; duplicate vertices; collinear
//! faces; a face added on an existing edge (non-manifold); files cut at a random byte;
//! binary STL with a wrong triangle count, bytes flipped or non-finite floats; scales 0,
//! negative, NaN; hulls of 0 to 3 points, coplanar or collinear points; absurd counts.

use glam::DVec3;
use granula_polyhedra::{read_obj, read_stl};
use granula_polyhedra::{shapes, BodyFrame, PolyError, Polyhedron};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// Mutated files per seed file (5 seed files, so 5 × this many file cases).
const FILE_CASES: usize = 600;
/// Mutated in-memory meshes.
const MESH_CASES: usize = 1500;
/// Built-in shapes and hulls with hostile parameters.
const SHAPE_CASES: usize = 1500;

const CUBE_OBJ: &str = "# unit cube\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";

const TETRA_OBJ: &str = "o tet\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\n\
f 1/1/1 3/2/1 2/3/1\nf 1/1/1 2/2/1 4/3/1\nf 1/1/1 4/2/1 3/3/1\nf 2/1/1 3/2/1 4/3/1\n";

const OCTA_OBJ: &str = "v 1 0 0\nv -1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nv 0 0 -1\n\
f 1 3 5\nf 3 2 5\nf 2 4 5\nf 4 1 5\nf 3 1 6\nf 2 3 6\nf 4 2 6\nf 1 4 6\n";

/// The unit cube's 12 triangles, counter-clockwise seen from outside.
fn cube_triangles() -> Vec<[[f32; 3]; 3]> {
    let c = |i: u32| [(i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32];
    let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [1, 3, 7, 5], [3, 2, 6, 7], [2, 0, 4, 6]];
    quads.iter().flat_map(|q| [[c(q[0]), c(q[1]), c(q[2])], [c(q[0]), c(q[2]), c(q[3])]]).collect()
}

fn ascii_stl(tris: &[[[f32; 3]; 3]]) -> String {
    let mut s = String::from("solid cube\n");
    for t in tris {
        s.push_str("  facet normal 0 0 0\n    outer loop\n");
        for v in t {
            s.push_str(&format!("      vertex {} {} {}\n", v[0], v[1], v[2]));
        }
        s.push_str("    endloop\n  endfacet\n");
    }
    s.push_str("endsolid cube\n");
    s
}

fn binary_stl(tris: &[[[f32; 3]; 3]]) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    b[..6].copy_from_slice(b"binary");
    b.extend((tris.len() as u32).to_le_bytes());
    for t in tris {
        b.extend([0f32; 3].iter().flat_map(|x| x.to_le_bytes()));
        b.extend(t.iter().flatten().flat_map(|x| x.to_le_bytes()));
        b.extend([0u8, 0]);
    }
    b
}

/// Replacements of a number in a text file.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "1e308",
    "-1e308",
    "1e38",
    "1e39",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "",
    "1e-300",
    "-0",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "6148914691236517207",
    "0.5",
    "2",
    "x",
    "1/0",
    "1//0",
    "1/1/6148914691236517207",
];

/// Scales handed to the readers.
const SCALES: &[f64] = &[1.0, 0.001, 0.0, -1.0, f64::NAN, f64::INFINITY, 1e-300, 1e300, 1e-200, 1e200, 1e-100];

fn pick<'a, T>(rng: &mut ChaCha8Rng, v: &'a [T]) -> &'a T {
    &v[rng.random_range(0..v.len())]
}

/// Byte spans of the numbers (and face index tokens) of a text.
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() || (b[i] == b'-' && i + 1 < b.len() && b[i + 1].is_ascii_digit());
        if starts && (i == 0 || b[i - 1].is_ascii_whitespace() || b[i - 1] == b'/') {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'.' || b[j] == b'-' || b[j] == b'+') {
                j += 1;
            }
            spans.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    spans
}

/// One random mutation of a text mesh file.
fn mutate_text(text: &str, rng: &mut ChaCha8Rng) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let join = |v: Vec<String>| v.join("\n") + "\n";
    let owned = || lines.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match rng.random_range(0..12) {
        0..=3 => {
            let spans = number_spans(text);
            if spans.is_empty() {
                return text.to_string();
            }
            let (a, b) = *pick(rng, &spans);
            format!("{}{}{}", &text[..a], pick(rng, NUMBERS), &text[b..])
        }
        4 => {
            let mut v = owned();
            if !v.is_empty() {
                v.remove(rng.random_range(0..v.len()));
            }
            join(v)
        }
        5 => {
            let mut v = owned();
            if !v.is_empty() {
                let k = rng.random_range(0..v.len());
                let at = rng.random_range(0..=v.len());
                v.insert(at, v[k].clone());
            }
            join(v)
        }
        6 => {
            let mut v = owned();
            if v.len() > 1 {
                let (a, b) = (rng.random_range(0..v.len()), rng.random_range(0..v.len()));
                v.swap(a, b);
            }
            join(v)
        }
        7 => {
            // A face line cut to fewer vertices, or reversed (inverted), or extended.
            let mut v = owned();
            let faces: Vec<usize> = (0..v.len()).filter(|&k| v[k].starts_with("f ")).collect();
            if let Some(&k) = faces.get(rng.random_range(0..faces.len().max(1))) {
                let toks: Vec<&str> = v[k].split_whitespace().skip(1).collect();
                if toks.is_empty() {
                    return join(v);
                }
                v[k] = match rng.random_range(0..3) {
                    0 => format!("f {}", toks[..rng.random_range(0..toks.len())].join(" ")),
                    1 => format!("f {}", toks.iter().rev().copied().collect::<Vec<_>>().join(" ")),
                    _ => format!("f {} {}", toks.join(" "), toks[0]),
                };
            }
            join(v)
        }
        8 => {
            // A face on an existing edge (non-manifold), or a collinear face.
            let mut v = owned();
            v.push(if rng.random_bool(0.5) { "f 1 2 3".into() } else { "v 0.5 0 0\nf 1 2 -1".into() });
            join(v)
        }
        9 => {
            // Cut at a random byte (on a character boundary).
            let cuts: Vec<usize> = text.char_indices().map(|(k, _)| k).collect();
            if cuts.is_empty() {
                return String::new();
            }
            text[..*pick(rng, &cuts)].to_string()
        }
        10 => {
            // Two vertices made equal (duplicate vertices, degenerate faces).
            let mut v = owned();
            let verts: Vec<usize> =
                (0..v.len()).filter(|&k| v[k].starts_with("v ") || v[k].trim_start().starts_with("vertex")).collect();
            if verts.len() > 1 {
                let (a, b) = (*pick(rng, &verts), *pick(rng, &verts));
                v[a] = v[b].clone();
            }
            join(v)
        }
        _ => {
            // Garbage: a stray keyword, an empty file, or bytes that are not text.
            match rng.random_range(0..3) {
                0 => format!("{text}\nendsolid\nsolid again\nfacet\n"),
                1 => String::new(),
                _ => {
                    let mid = (0..=text.len() / 2).rev().find(|&k| text.is_char_boundary(k)).unwrap_or(0);
                    format!("{}\u{0}\u{fffd}{}", &text[..mid], &text[mid..])
                }
            }
        }
    }
}

/// One random mutation of a binary STL file.
fn mutate_binary(bytes: &[u8], rng: &mut ChaCha8Rng) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let n = (b.len().saturating_sub(84) / 50) as u32;
    match rng.random_range(0..6) {
        0 => {
            let count = *pick(rng, &[0, 1, n.saturating_sub(1), n + 1, n * 2, u32::MAX, 1 << 31]);
            b[80..84].copy_from_slice(&count.to_le_bytes());
        }
        1 => b.truncate(rng.random_range(0..b.len())),
        2 => {
            for _ in 0..rng.random_range(1..8) {
                let k = rng.random_range(0..b.len());
                b[k] = rng.random();
            }
        }
        3 => {
            // A non-finite or huge float in a vertex slot.
            let tri = rng.random_range(0..n.max(1)) as usize;
            let slot = 84 + 50 * tri + 12 + 4 * rng.random_range(0..9);
            let x = *pick(rng, &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, -0.0, 0.0, 1e-45]);
            if slot + 4 <= b.len() {
                b[slot..slot + 4].copy_from_slice(&x.to_le_bytes());
            }
        }
        4 => b[..6].copy_from_slice(b"solid "),
        _ => {
            // A triangle duplicated (count raised to match) or the last one dropped.
            if rng.random_bool(0.5) && n > 0 {
                let t = b[84..134].to_vec();
                b.extend(t);
                b[80..84].copy_from_slice(&(n + 1).to_le_bytes());
            } else if n > 0 {
                b.truncate(b.len() - 50);
                b[80..84].copy_from_slice(&(n - 1).to_le_bytes());
            }
        }
    }
    b
}

/// Whether an error says what is at fault: the file for a file that cannot be read or
/// parsed, otherwise the face, edge, vertex, parameter or property of the mesh.
fn names_the_fault(e: &PolyError, file: Option<&Path>) -> bool {
    let msg = e.to_string();
    match e {
        PolyError::Io { .. } | PolyError::Parse { .. } => file.is_some_and(|f| msg.contains(&f.display().to_string())),
        PolyError::BadFaceIndex { .. } | PolyError::DegenerateFace { .. } => msg.contains("face "),
        PolyError::OpenEdge { .. } | PolyError::InconsistentEdge { .. } => msg.contains("edge ("),
        PolyError::NonFiniteVertex { .. } => msg.contains("vertex "),
        PolyError::BadParameter { name, .. } => msg.contains(name),
        PolyError::Empty { .. } => msg.contains("vertices") && msg.contains("faces"),
        PolyError::NonPositiveVolume { .. } => msg.contains("volume"),
        PolyError::BadExtent { .. } => msg.contains("extent"),
        PolyError::NotASolid { .. } => msg.contains("not the surface of a solid"),
        PolyError::DegenerateHull { .. } => msg.contains("hull"),
        PolyError::AtLines { path, lines, source } => {
            msg.contains(&path.display().to_string())
                && lines.iter().all(|l| msg.contains(&l.to_string()))
                && names_the_fault(source, None)
        }
        _ => !msg.is_empty() && !msg.contains("panicked"),
    }
}

/// How the cases ended.
#[derive(Default, Debug)]
struct Tally {
    ok: usize,
    refused: usize,
    failures: Vec<String>,
}

impl Tally {
    fn record(&mut self, label: &str, r: std::thread::Result<Result<Polyhedron, PolyError>>, file: Option<&Path>) {
        match r {
            Ok(Ok(p)) => {
                let i = p.inertia_per_density();
                let moments = [i.x_axis.x, i.y_axis.y, i.z_axis.z];
                let sound = moments.iter().all(|m| m.is_finite() && *m > 0.0);
                if p.volume().is_finite() && p.volume() > 0.0 && p.bounding_radius().is_finite() && sound {
                    self.ok += 1;
                } else {
                    self.failures.push(format!("{label}: accepted with volume {}, moments {moments:?}", p.volume()));
                }
            }
            Ok(Err(e)) => {
                self.refused += 1;
                if !names_the_fault(&e, file) {
                    self.failures.push(format!("{label}: an error that does not say where: {e}"));
                }
            }
            Err(p) => {
                let why =
                    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                self.failures.push(format!("{label}: PANIC {why:?}"));
            }
        }
    }

    fn check(self, what: &str) {
        println!("{what}: {} accepted, {} refused, {} failures", self.ok, self.refused, self.failures.len());
        assert!(self.failures.is_empty(), "{what}:\n{}", self.failures.join("\n"));
    }
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("granula-mesh-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn quiet<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    catch_unwind(AssertUnwindSafe(f))
}

#[test]
fn mutated_mesh_files_never_panic() {
    let d = dir();
    let cube = cube_triangles();
    let seeds: Vec<(&str, Vec<u8>, bool)> = vec![
        ("cube.obj", CUBE_OBJ.as_bytes().to_vec(), true),
        ("tetra.obj", TETRA_OBJ.as_bytes().to_vec(), true),
        ("octa.obj", OCTA_OBJ.as_bytes().to_vec(), true),
        ("cube_ascii.stl", ascii_stl(&cube).into_bytes(), true),
        ("cube_binary.stl", binary_stl(&cube), false),
    ];
    // The seeds themselves are valid.
    for (name, bytes, _) in &seeds {
        let path = d.join(name);
        std::fs::write(&path, bytes).unwrap();
        let r = if name.ends_with(".obj") {
            read_obj(&path, 1.0, BodyFrame::CentreOfMass)
        } else {
            read_stl(&path, 1.0, BodyFrame::CentreOfMass)
        };
        assert!(r.is_ok(), "{name}: {:?}", r.err());
    }
    let mut tally = Tally::default();
    for (s, (name, bytes, text)) in seeds.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(0x6d65_7368 + s as u64);
        for k in 0..FILE_CASES {
            let mutated = if *text {
                let mut t = String::from_utf8(bytes.clone()).unwrap();
                for _ in 0..rng.random_range(1..4) {
                    t = mutate_text(&t, &mut rng);
                }
                t.into_bytes()
            } else {
                mutate_binary(bytes, &mut rng)
            };
            let scale = if rng.random_bool(0.8) { 1.0 } else { *pick(&mut rng, SCALES) };
            let frame = if rng.random_bool(0.5) { BodyFrame::CentreOfMass } else { BodyFrame::PrincipalAxes };
            let path = d.join(format!("{k}-{name}"));
            std::fs::write(&path, &mutated).unwrap();
            let r = quiet(|| {
                if name.ends_with(".obj") { read_obj(&path, scale, frame) } else { read_stl(&path, scale, frame) }
                    .map(|(p, _)| p)
            });
            let label = format!("{name} case {k} (scale {scale}):\n{}\n", String::from_utf8_lossy(&mutated));
            // A line named for a face is an `f` statement of the file.
            if let Ok(Err(PolyError::AtLines { lines, .. })) = &r {
                let text = String::from_utf8_lossy(&mutated);
                let statement = |l: usize| text.lines().nth(l - 1).map(|s| s.trim_start().starts_with("f "));
                assert!(lines.iter().all(|l| statement(*l) == Some(true)), "{label}: lines {lines:?}");
            }
            tally.record(&label, r, Some(&path));
            let _ = std::fs::remove_file(&path);
        }
    }
    let _ = std::fs::remove_dir_all(&d);
    tally.check("mesh files");
}

/// The octahedron as vertex and face lists.
fn octahedron() -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let v = vec![DVec3::X, -DVec3::X, DVec3::Y, -DVec3::Y, DVec3::Z, -DVec3::Z];
    let f = vec![[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]];
    (v, f)
}

const VALUES: &[f64] =
    &[0.0, -0.0, -1.0, 1.0, 1e308, -1e308, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e-300, 5e-324, 1e200, 1e-160];

#[test]
fn mutated_meshes_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x0f_ace5);
    let mut tally = Tally::default();
    for k in 0..MESH_CASES {
        let (mut v, mut f) = octahedron();
        let mut log = Vec::new();
        for _ in 0..rng.random_range(1..4) {
            match rng.random_range(0..9) {
                0 => {
                    let i = rng.random_range(0..v.len());
                    let c = rng.random_range(0..3);
                    v[i][c] = *pick(&mut rng, VALUES);
                    log.push(format!("vertex {i}[{c}] = {}", v[i][c]));
                }
                1 => {
                    let i = rng.random_range(0..f.len());
                    let c = rng.random_range(0..3);
                    f[i][c] = *pick(&mut rng, &[0, 1, 6, 7, u32::MAX, u32::MAX - 1, f[i][(c + 1) % 3]]);
                    log.push(format!("face {i} = {:?}", f[i]));
                }
                2 if !f.is_empty() => {
                    f.remove(rng.random_range(0..f.len()));
                    log.push("a face removed".into());
                }
                3 => {
                    let i = rng.random_range(0..f.len().max(1));
                    if let Some(&t) = f.get(i) {
                        f.push(t);
                        log.push(format!("face {i} duplicated"));
                    }
                }
                4 => {
                    let i = rng.random_range(0..f.len().max(1));
                    if let Some(t) = f.get_mut(i) {
                        t.swap(0, 1);
                        log.push(format!("face {i} flipped"));
                    }
                }
                5 => {
                    for t in &mut f {
                        t.swap(0, 1);
                    }
                    log.push("all faces flipped".into());
                }
                6 => {
                    // Scaled by a huge or tiny factor.
                    let s = *pick(&mut rng, &[1e-300, 1e-120, 1e-60, 1e60, 1e120, 1e200, 1e300]);
                    v.iter_mut().for_each(|p| *p *= s);
                    log.push(format!("scaled by {s}"));
                }
                7 => {
                    // Moved far from the origin.
                    let o = DVec3::splat(*pick(&mut rng, &[1e8, 1e16, 1e300]));
                    v.iter_mut().for_each(|p| *p += o);
                    log.push(format!("moved by {o}"));
                }
                _ => {
                    // A vertex moved onto another (collinear, zero-area faces).
                    let (a, b) = (rng.random_range(0..v.len()), rng.random_range(0..v.len()));
                    v[a] = v[b];
                    log.push(format!("vertex {a} = vertex {b}"));
                }
            }
        }
        let frame = if rng.random_bool(0.5) { BodyFrame::CentreOfMass } else { BodyFrame::PrincipalAxes };
        let r = quiet(|| Polyhedron::from_mesh(v, f, frame).map(|(p, _)| p));
        tally.record(&format!("mesh case {k} ({})", log.join("; ")), r, None);
    }
    tally.check("meshes");
}

#[test]
fn built_in_shapes_and_hulls_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5a_a9e5);
    let mut tally = Tally::default();
    let sizes: &[f64] = &[1.0, 0.01, 0.0, -1.0, f64::NAN, f64::INFINITY, 1e-300, 1e300, 1e-100, 1e100, 1e-60, 1e60];
    for k in 0..SHAPE_CASES {
        let a = *pick(&mut rng, sizes);
        let b = *pick(&mut rng, sizes);
        let c = *pick(&mut rng, sizes);
        let count = *pick(&mut rng, &[0u32, 1, 2, 3, 4, 5, 12, 40, 200, 1_000_000, u32::MAX]);
        let seed: u64 = rng.random();
        let kind = rng.random_range(0..11);
        let label = format!("shape case {k}: kind {kind}, sizes {a} {b} {c}, count {count}, seed {seed}");
        let r = quiet(|| match kind {
            0 => shapes::cuboid(DVec3::new(a, b, c)),
            1 => shapes::cube(a),
            2 => shapes::tetrahedron(a),
            3 => shapes::octahedron(a),
            4 => shapes::icosahedron(a),
            5 => shapes::dodecahedron(a),
            6 => shapes::prism(count, a, b),
            7 => shapes::l_block(a),
            8 => shapes::random_convex(count as usize, a, seed),
            9 => shapes::icosphere(a, count.min(7)),
            _ => {
                // Hulls of small, flat, collinear or repeated clouds.
                let n = (count as usize).min(40);
                let mut p: Vec<DVec3> = (0..n)
                    .map(|_| DVec3::new(rng.random::<f64>(), rng.random::<f64>(), rng.random::<f64>()) * a)
                    .collect();
                match rng.random_range(0..4) {
                    0 => p.iter_mut().for_each(|q| q.z = 0.0),
                    1 => p.iter_mut().for_each(|q| *q = DVec3::splat(q.x)),
                    2 => p.iter_mut().for_each(|q| *q = DVec3::splat(b)),
                    _ => {}
                }
                shapes::convex_hull_of(&p)
            }
        });
        tally.record(&label, r, None);
    }
    tally.check("shapes");
}
