//! A fuzzer of scenes with polyhedra: seeded mutations of polyhedra scenes (every built-in
//! kind, OBJ and STL files, a packing of random convex polyhedra, and the example
//! `polyhedra_settling_md.toml`), each read from a file with the polyhedra maker
//! (`load_scene`, the path `granula run` takes) and, when valid, started as a run. Every
//! case must end in a started run or in an error naming the scene file (and so the key and
//! line) or, for a state the runner refuses, the body and its key; never in a panic. A refused case writes nothing: its output folder is absent or
//! empty afterwards.
//!
//! Mutations: a number replaced by 0, -1, 1e308, NaN, inf, huge counts; a string replaced by
//! another shape kind, a mesh file that is missing, empty, open, inverted, garbage or a
//! folder, or the empty string; a line deleted or duplicated; a key renamed; a line cut.

use crate::common;

use granula_run::{load_scene, Run};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Mutated scenes per seed scene (5 seeds).
const CASES: usize = 400;

const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "-inf",
    "1e-300",
    "5e-324",
    "4294967295",
    "18446744073709551615",
    "100001",
    "10001",
    "3",
    "4",
    "7",
    "0.0",
    "-0.0",
    "1e60",
    "1e-60",
    "\"\"",
];

const STRINGS: &[&str] = &[
    "",
    "box",
    "cube",
    "tetrahedron",
    "octahedron",
    "icosahedron",
    "dodecahedron",
    "prism",
    "l_block",
    "random_convex",
    "icosphere",
    "obj",
    "stl",
    "sphere",
    "cube.obj",
    "cube.stl",
    "missing.obj",
    "missing.stl",
    "empty.stl",
    "empty.obj",
    "open.obj",
    "inverted.stl",
    "garbage.obj",
    "folder.obj",
    "../cube.obj",
    "/",
    "grain",
    "nope",
    "fixed",
    "kinematic",
    "dynamic",
];

const CUBE_OBJ: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";

/// A binary STL of the unit cube, faces reversed when `inverted`.
fn cube_stl(inverted: bool) -> Vec<u8> {
    let c = |i: u32| [(i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32];
    let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [1, 3, 7, 5], [3, 2, 6, 7], [2, 0, 4, 6]];
    let mut b = vec![0u8; 80];
    b.extend(12u32.to_le_bytes());
    for q in quads {
        for t in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
            let t = if inverted { [t[0], t[2], t[1]] } else { t };
            b.extend([0u8; 12]);
            b.extend(t.iter().flat_map(|&i| c(i)).flat_map(|x| x.to_le_bytes()));
            b.extend([0u8; 2]);
        }
    }
    b
}

const HEAD: &str = r#"[simulation]
dt = 5e-6
steps = 10

[solver]
kind = "md"
skin = 2e-4

[[materials]]
name = "grain"
young_modulus = 1e7

[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
"#;

/// Seed scenes: every shape kind once, mesh files, a packing of polyhedra.
fn seeds() -> Vec<(&'static str, String)> {
    let shapes = r#"
[[polyhedra]]
name = "a"
shape = { kind = "box", size = [0.002, 0.001, 0.0015] }
position = [0.0, 0.0, 0.01]
rotation = [0.1, 0.2, 0.3]
[[polyhedra]]
shape = { kind = "tetrahedron", size = 0.002 }
position = [0.01, 0.0, 0.01]
[[polyhedra]]
shape = { kind = "octahedron", size = 0.002 }
position = [0.02, 0.0, 0.01]
[[polyhedra]]
shape = { kind = "icosahedron", size = 0.001 }
position = [0.03, 0.0, 0.01]
[[polyhedra]]
shape = { kind = "dodecahedron", size = 0.001 }
position = [0.04, 0.0, 0.01]
velocity = [0.0, 0.0, -0.1]
"#;
    let more = r#"
[[polyhedra]]
name = "p"
shape = { kind = "prism", sides = 6, radius = 0.001, height = 0.002 }
position = [0.0, 0.01, 0.01]
motion = "fixed"
[[polyhedra]]
shape = { kind = "l_block", size = 0.001 }
position = [0.01, 0.01, 0.01]
[[polyhedra]]
shape = { kind = "random_convex", radius = 0.001, points = 12, seed = 5 }
position = [0.02, 0.01, 0.01]
[[polyhedra]]
shape = { kind = "icosphere", radius = 0.001, subdivisions = 1 }
position = [0.03, 0.01, 0.01]
material = "grain"
"#;
    let meshes = r#"
[[polyhedra]]
name = "m"
shape = { kind = "obj", file = "cube.obj", scale = 0.002 }
position = [0.0, 0.02, 0.01]
[[polyhedra]]
shape = { kind = "stl", file = "cube.stl", scale = 0.002 }
position = [0.01, 0.02, 0.01]
angular_velocity = [0.0, 0.0, 3.0]
"#;
    let packing = r#"
[[packings]]
count = 6
seed = 2
region = { shape = "box", min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }
size = { distribution = "uniform", min = 0.0009, max = 0.0013 }
polyhedra = { points = 12 }
"#;
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/polyhedra_settling_md.toml");
    vec![
        ("shapes", format!("{HEAD}{shapes}")),
        ("more", format!("{HEAD}{more}")),
        ("meshes", format!("{HEAD}{meshes}")),
        ("packing", format!("{HEAD}{packing}")),
        ("example", std::fs::read_to_string(example).unwrap()),
    ]
}

/// A byte range of a text.
type Span = (usize, usize);

/// Byte spans of numbers, of strings' contents and of keys in a scene text.
fn spans(text: &str) -> (Vec<Span>, Vec<Span>, Vec<Span>) {
    let b = text.as_bytes();
    let (mut numbers, mut strings, mut keys) = (Vec::new(), Vec::new(), Vec::new());
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'"' {
            let close = text[i + 1..].find('"').map_or(b.len(), |k| i + 1 + k);
            strings.push((i + 1, close));
            i = close + 1;
        } else if (c.is_ascii_digit() || c == b'-') && i > 0 && !b[i - 1].is_ascii_alphanumeric() && b[i - 1] != b'_' {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b"._+-".contains(&b[j])) {
                j += 1;
            }
            numbers.push((i, j));
            i = j;
        } else if line_start && c.is_ascii_alphabetic() {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            keys.push((i, j));
            i = j;
        } else {
            i += 1;
        }
        line_start = i > 0 && i <= b.len() && b[i - 1] == b'\n';
    }
    (numbers, strings, keys)
}

fn pick<'a, T>(rng: &mut ChaCha8Rng, v: &'a [T]) -> Option<&'a T> {
    (!v.is_empty()).then(|| &v[rng.random_range(0..v.len())])
}

fn mutate(text: &str, rng: &mut ChaCha8Rng) -> Option<(String, String)> {
    let (numbers, strings, keys) = spans(text);
    let splice = |(a, b): (usize, usize), with: &str| format!("{}{with}{}", &text[..a], &text[b..]);
    match rng.random_range(0..8) {
        0..=2 => {
            let &s = pick(rng, &numbers)?;
            let &n = pick(rng, NUMBERS)?;
            Some((splice(s, n), format!("number {:?} -> {n}", &text[s.0..s.1])))
        }
        3 | 4 => {
            let &s = pick(rng, &strings)?;
            let &n = pick(rng, STRINGS)?;
            Some((splice(s, n), format!("string {:?} -> {n:?}", &text[s.0..s.1])))
        }
        5 => {
            let &s = pick(rng, &keys)?;
            let &(a, b) = pick(rng, &keys)?;
            let name = if rng.random_bool(0.5) { text[a..b].to_string() } else { "colour".into() };
            Some((splice(s, &name), format!("key {:?} -> {name}", &text[s.0..s.1])))
        }
        6 => {
            let lines: Vec<&str> = text.lines().collect();
            let k = rng.random_range(0..lines.len());
            let mut v: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
            let what = if rng.random_bool(0.5) {
                v.remove(k);
                "deleted"
            } else {
                v.insert(k, lines[k].to_string());
                "duplicated"
            };
            Some((v.join("\n"), format!("line {:?} {what}", lines[k])))
        }
        _ => {
            let cuts: Vec<usize> = text.char_indices().map(|(k, _)| k).filter(|&k| k > text.len() / 3).collect();
            let &cut = pick(rng, &cuts)?;
            let end = text[cut..].find('\n').map_or(text.len(), |k| cut + k);
            Some((format!("{}{}", &text[..cut], &text[end..]), format!("cut at byte {cut}")))
        }
    }
}

/// Whether a folder is absent or empty.
fn nothing_in(dir: &Path) -> bool {
    std::fs::read_dir(dir).map_or(true, |mut d| d.next().is_none())
}

#[test]
fn mutated_polyhedra_scenes_never_panic_and_refused_ones_write_nothing() {
    let dir = common::tmp("polyfuzz", "meshes");
    std::fs::create_dir_all(dir.join("folder.obj")).unwrap();
    std::fs::write(dir.join("cube.obj"), CUBE_OBJ).unwrap();
    std::fs::write(dir.join("cube.stl"), cube_stl(false)).unwrap();
    std::fs::write(dir.join("inverted.stl"), cube_stl(true)).unwrap();
    std::fs::write(dir.join("open.obj"), CUBE_OBJ.rsplit_once("f 4 1 5 8").unwrap().0).unwrap();
    std::fs::write(dir.join("garbage.obj"), "v 0 0 zero\nf 1 2\n").unwrap();
    std::fs::write(dir.join("empty.obj"), "").unwrap();
    std::fs::write(dir.join("empty.stl"), "").unwrap();
    let scene_file = dir.join("fuzz.toml");
    let out = dir.join("out");
    let (mut started, mut refused) = (0usize, 0usize);
    let mut failures = Vec::new();
    for (s, (name, original)) in seeds().into_iter().enumerate() {
        // The seed itself is valid.
        std::fs::write(&scene_file, &original).unwrap();
        if let Err(e) = load_scene(&scene_file) {
            panic!("seed {name} is refused: {e}");
        }
        let mut rng = ChaCha8Rng::seed_from_u64(0x9017_0000 + s as u64);
        for k in 0..CASES {
            let mut text = original.clone();
            let mut log = Vec::new();
            let n = rng.random_range(1..4);
            while log.len() < n {
                if let Some((t, what)) = mutate(&text, &mut rng) {
                    text = t;
                    log.push(what);
                }
            }
            std::fs::write(&scene_file, &text).unwrap();
            let label = format!("{name} case {k} ({})", log.join("; "));
            let r =
                catch_unwind(AssertUnwindSafe(|| load_scene(&scene_file).and_then(|scene| Run::start(scene, &out))));
            match r {
                Ok(Ok(_run)) => started += 1,
                Ok(Err(e)) => {
                    refused += 1;
                    let msg = e.to_string();
                    // A scene error names the file (with the key and line); a state refused by
                    // the runner (a non-finite initial energy) names the body and its key.
                    let names_key = ["(polyhedra[", "(packings[", "(planes["].iter().any(|k| msg.contains(k))
                        || msg.contains(", polyhedra[");
                    let names_file = msg.contains(&scene_file.display().to_string());
                    if !(names_file || (msg.contains("body ") && names_key)) {
                        failures
                            .push(format!("{label}: an error that names neither the scene file nor the body: {msg}"));
                    }
                    if !nothing_in(&out) {
                        failures.push(format!("{label}: refused ({msg}) but the output folder has files"));
                    }
                }
                Err(_) => failures.push(format!("{label}: PANIC\n{text}")),
            }
            let _ = std::fs::remove_dir_all(&out);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("polyhedra scene fuzz: {started} started, {refused} refused, {} failures", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Both outcomes occur: the mutations are neither all harmless nor all fatal.
    assert!(started > 0 && refused > 0, "{started} started, {refused} refused");
}
