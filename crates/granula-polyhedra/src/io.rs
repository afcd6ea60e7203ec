//! Mesh files: Wavefront OBJ (through `tobj`) and STL, ASCII or binary (through `stl_io`).
//! Each reader of triangles ([`read_obj_triangles`], [`read_stl_triangles`]) gives them as
//! the file has them ([`MeshFile`]); the polyhedron readers scale the vertices, then build
//! the polyhedron with the usual checks.
//!
//! Both readers look at the file first, so that a malformed file is an error naming the file
//! and, where it can, the line; never a panic, and never a file read in part: an OBJ face
//! must have at least three vertex indices, each nonzero and referring to a vertex defined
//! before it; a binary STL must be exactly as long as its triangle count says; an ASCII STL
//! may hold one solid only (nothing but blank lines after its `endsolid`).

use crate::error::{PolyError, Result};
use crate::polyhedron::{BodyFrame, Placement, Polyhedron};
use granula_core::math::DVec3;
use std::collections::HashMap;
use std::path::Path;

/// Largest mesh file read (bytes): a binary STL of about 20 million triangles, far more than
/// a particle shape has; the bound keeps a wrong path (a huge log, a disk image) from
/// exhausting the memory.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// The whole file, or [`PolyError::Io`] naming it. Only a regular file is read (a device such
/// as `/dev/zero` or a pipe would never end or never start), and at most
/// [`MAX_FILE_BYTES`] of it ([`PolyError::Parse`] beyond).
fn read_bytes(path: &Path, format: &'static str) -> Result<Vec<u8>> {
    use std::io::Read;
    let io = |source| PolyError::Io { path: path.to_path_buf(), source };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(parse_error(path, format, "not a regular file".to_string()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path).map_err(io)?.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(parse_error(path, format, format!("larger than {MAX_FILE_BYTES} bytes")));
    }
    Ok(bytes)
}

fn parse_error(path: &Path, format: &'static str, message: String) -> PolyError {
    PolyError::Parse { path: path.to_path_buf(), format, message }
}

fn check_scale(scale: f64) -> Result<()> {
    if scale.is_finite() && scale > 0.0 {
        Ok(())
    } else {
        Err(PolyError::BadParameter { name: "scale", value: scale, expected: "finite and > 0" })
    }
}

/// The OBJ text handed to the parser, after checking every face against the vertices
/// defined before it. Face tokens keep their vertex index only (texture and normal indices
/// are not used; the parser's arithmetic on absurd ones overflows). Continued lines (ending
/// in `\`) are joined. Points (`p`) and lines (`l`) are refused: they are not faces of a
/// closed surface, and the parser would turn them into degenerate triangles.
fn checked_obj_text(path: &Path, text: &str) -> Result<ObjText> {
    let mut out = String::with_capacity(text.len());
    let mut positions: Vec<Option<[f32; 3]>> = Vec::new();
    let mut fans: Vec<ObjFan> = Vec::new();
    let mut vertices: i64 = 0;
    let mut pending = String::new();
    let mut first_line = 0;
    for (k, raw) in text.lines().enumerate() {
        if pending.is_empty() {
            first_line = k + 1;
        }
        if let Some(head) = raw.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(raw);
        let line = std::mem::take(&mut pending);
        let at = |message: String| parse_error(path, "OBJ", format!("line {first_line}: {message}"));
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                vertices += 1;
                let xyz: Vec<Option<f32>> = words.clone().take(3).map(|w| w.parse().ok()).collect();
                positions.push(match xyz[..] {
                    [Some(x), Some(y), Some(z)] => Some([x, y, z]),
                    _ => None,
                });
                out.push_str(&line);
            }
            Some("f") => {
                out.push('f');
                let mut corners = Vec::new();
                for w in words {
                    let v = w.split('/').next().unwrap_or("");
                    let i: i64 = v.parse().map_err(|_| at(format!("face vertex {w:?} is not an integer index")))?;
                    if i == 0 || i > vertices || i < -vertices {
                        return Err(at(format!(
                            "face vertex index {i} is out of range: {vertices} vertices are defined before this line \
                             (indices start at 1; negative ones count back from the last)"
                        )));
                    }
                    out.push(' ');
                    out.push_str(v);
                    // From 0, counting back from the last vertex for a negative index.
                    corners.push(if i > 0 { i - 1 } else { vertices + i } as usize);
                }
                if corners.len() < 3 {
                    return Err(at(format!("a face needs at least 3 vertices, this one has {}", corners.len())));
                }
                fans.push(ObjFan { line: first_line, corners });
            }
            Some(w @ ("p" | "l")) => {
                return Err(at(format!("`{w}` (points or lines) is not a face of a closed surface")));
            }
            _ => out.push_str(&line),
        }
        out.push('\n');
    }
    if !pending.is_empty() {
        return Err(parse_error(path, "OBJ", format!("line {first_line}: the file ends in a continued line")));
    }
    Ok(ObjText { text: out, positions, fans })
}

/// An OBJ file as checked by [`checked_obj_text`]: the text for the parser, and what is
/// needed to name the line of a triangle.
struct ObjText {
    text: String,
    /// The `v` lines' coordinates as the parser reads them (`f32`), `None` where a
    /// coordinate is not a plain number.
    positions: Vec<Option<[f32; 3]>>,
    /// The `f` lines in file order.
    fans: Vec<ObjFan>,
}

/// One `f` line: its number (from 1) and its corners (vertex indices from 0).
struct ObjFan {
    line: usize,
    corners: Vec<usize>,
}

impl ObjText {
    /// The line of each triangle of `faces` (positions `vertices`, unscaled), if the parser
    /// split the `f` lines into fans (c₀, cⱼ, cⱼ₊₁) in file order: checked triangle by
    /// triangle against the corners' coordinates, so that a line is never named wrongly
    /// (`None` when the parser's triangles are not those fans).
    fn triangle_lines(&self, vertices: &[[f32; 3]], faces: &[[u32; 3]]) -> Option<Vec<usize>> {
        let mut lines = Vec::with_capacity(faces.len());
        let mut next = faces.iter();
        for fan in &self.fans {
            for j in 1..fan.corners.len() - 1 {
                let want = [fan.corners[0], fan.corners[j], fan.corners[j + 1]];
                let got = next.next()?;
                for (w, g) in want.iter().zip(got) {
                    // By bits, so that a NaN the checks downstream refuse still has its line.
                    let want = self.positions.get(*w).copied().flatten()?.map(f32::to_bits);
                    if want != vertices.get(*g as usize)?.map(f32::to_bits) {
                        return None;
                    }
                }
                lines.push(fan.line);
            }
        }
        next.next().is_none().then_some(lines)
    }
}

/// `e` naming the file `path` when it is about the whole mesh and has room for a file.
fn in_file(path: &Path, e: PolyError) -> PolyError {
    match e {
        PolyError::Shells { shells, path: None } => PolyError::Shells { shells, path: Some(path.to_path_buf()) },
        other => other,
    }
}

/// `e` with the lines of the faces it names, when it names faces and their lines are known.
fn at_lines(path: &Path, e: PolyError, lines: Option<&[usize]>) -> PolyError {
    let e = in_file(path, e);
    let faces = match &e {
        PolyError::BadFaceIndex { face, .. }
        | PolyError::DegenerateFace { face, .. }
        | PolyError::OpenEdge { face, .. } => {
            vec![*face]
        }
        PolyError::InconsistentEdge { first, second, .. } => vec![*first, *second],
        _ => return e,
    };
    let Some(lines) = lines else { return e };
    let Some(mut named) = faces.iter().map(|f| lines.get(*f).copied()).collect::<Option<Vec<usize>>>() else {
        return e;
    };
    named.dedup();
    PolyError::AtLines { path: path.to_path_buf(), lines: named, source: Box::new(e) }
}

/// The triangles of a mesh file as read, before any check of the surface they make: the
/// vertices (file units, not scaled), the triangles as vertex indices in file order, and
/// where each triangle came from in the file. What [`read_obj`] and [`read_stl`] build
/// polyhedra from, and what a reader of open surfaces (walls) starts from.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshFile {
    /// `"OBJ"` or `"STL"`.
    pub format: &'static str,
    /// Vertex positions as the file gives them (single precision widened to `f64`).
    pub vertices: Vec<DVec3>,
    /// Triangles as indices into `vertices`, in file order (an OBJ polygon as its fan).
    pub triangles: Vec<[u32; 3]>,
    /// Where each triangle is in the file (see [`TriangleOrigin`]), aligned with
    /// `triangles`; empty when it is not known (an OBJ file whose parser did not split
    /// its polygons into fans in file order).
    pub origins: Vec<TriangleOrigin>,
}

/// Where a triangle of a [`MeshFile`] is in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriangleOrigin {
    /// A text file: the line (from 1) of the OBJ `f` statement or of the ASCII STL
    /// `facet` statement.
    Line(usize),
    /// A binary STL: the byte offset of the triangle's 50-byte record.
    Byte(usize),
}

impl std::fmt::Display for TriangleOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TriangleOrigin::Line(line) => write!(f, "line {line}"),
            TriangleOrigin::Byte(at) => write!(f, "bytes {at}..{}", at + STL_TRIANGLE),
        }
    }
}

impl MeshFile {
    /// The file lines of the triangles, when every origin is a line.
    fn lines(&self) -> Option<Vec<usize>> {
        if self.origins.len() != self.triangles.len() {
            return None;
        }
        self.origins
            .iter()
            .map(|o| match o {
                TriangleOrigin::Line(l) => Some(*l),
                TriangleOrigin::Byte(_) => None,
            })
            .collect()
    }
}

/// Reads the triangles of an OBJ file ([`MeshFile`]): every object in it becomes part of
/// one mesh (polygons are triangulated as fans by the reader; materials, texture
/// coordinates and normals are ignored). Errors: the file cannot be opened
/// ([`PolyError::Io`]) or does not parse ([`PolyError::Parse`], naming the line for a bad
/// face). The triangles are not checked: see [`read_obj`] for a polyhedron.
pub fn read_obj_triangles(path: impl AsRef<Path>) -> Result<MeshFile> {
    let path = path.as_ref();
    let bytes = read_bytes(path, "OBJ")?;
    let text = std::str::from_utf8(&bytes).map_err(|e| parse_error(path, "OBJ", format!("not UTF-8 text: {e}")))?;
    let checked = checked_obj_text(path, text)?;
    let options = tobj::LoadOptions { triangulate: true, single_index: false, ..Default::default() };
    let (models, _) =
        tobj::load_obj_buf(&mut checked.text.as_bytes(), &options, |_| Err(tobj::LoadError::OpenFileFailed))
            .map_err(|e| parse_error(path, "OBJ", e.to_string()))?;
    let mut read: Vec<[f32; 3]> = Vec::new();
    let mut faces = Vec::new();
    for m in &models {
        let base = read.len() as u32;
        read.extend(m.mesh.positions.chunks_exact(3).map(|c| [c[0], c[1], c[2]]));
        faces.extend(m.mesh.indices.chunks_exact(3).map(|t| [t[0] + base, t[1] + base, t[2] + base]));
    }
    let origins = checked.triangle_lines(&read, &faces).unwrap_or_default().into_iter().map(TriangleOrigin::Line);
    Ok(MeshFile {
        format: "OBJ",
        vertices: read.iter().map(|c| DVec3::new(c[0] as f64, c[1] as f64, c[2] as f64)).collect(),
        origins: origins.collect(),
        triangles: faces,
    })
}

/// Reads an OBJ file ([`read_obj_triangles`]) as a polyhedron, vertices multiplied by
/// `scale`. Errors: those of [`read_obj_triangles`], or the mesh fails the checks of
/// [`Polyhedron::from_mesh`]; a failed check that names faces (a degenerate face, an open
/// or inconsistent edge) comes as [`PolyError::AtLines`] with the lines of the `f`
/// statements they came from (the inner error numbers faces as the triangles of the fans,
/// in file order).
pub fn read_obj(path: impl AsRef<Path>, scale: f64, frame: BodyFrame) -> Result<(Polyhedron, Placement)> {
    let path = path.as_ref();
    check_scale(scale)?;
    let file = read_obj_triangles(path)?;
    let lines = file.lines();
    let vertices = file.vertices.iter().map(|v| *v * scale).collect();
    Polyhedron::from_mesh(vertices, file.triangles, frame).map_err(|e| at_lines(path, e, lines.as_deref()))
}

/// Bytes of a binary STL header and triangle count, and of one triangle.
const STL_HEADER: usize = 84;
const STL_TRIANGLE: usize = 50;

/// The bytes handed to the STL parser. A file exactly as long as a binary STL with the
/// triangle count of its bytes 80..84 is binary (its header may begin with `solid`, as
/// some exporters write it: that is blanked so the parser does not take it for ASCII).
/// Otherwise a file beginning with `solid` is ASCII, and must end at its `endsolid` line;
/// anything else is a binary STL whose length does not match its count. A `vertex` line
/// of an ASCII file whose coordinates are not finite single-precision numbers is an error
/// naming the line. Also returns where each triangle is: the byte offsets of the binary
/// records, or the lines of the `facet` statements of the ASCII text.
fn checked_stl_bytes(path: &Path, mut bytes: Vec<u8>) -> Result<(Vec<u8>, Vec<TriangleOrigin>)> {
    let declared =
        (bytes.len() >= STL_HEADER).then(|| u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as u64);
    if let Some(n) = declared {
        if bytes.len() as u64 == STL_HEADER as u64 + STL_TRIANGLE as u64 * n {
            bytes[0] = 0;
            let origins = (0..n as usize).map(|k| TriangleOrigin::Byte(STL_HEADER + STL_TRIANGLE * k)).collect();
            return Ok((bytes, origins));
        }
    }
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(bytes.len());
    if bytes[start..].starts_with(b"solid") {
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| parse_error(path, "STL", format!("begins with `solid` but is not UTF-8 text: {e}")))?;
        let mut lines = text.lines().enumerate().skip_while(|(_, l)| l.trim().is_empty());
        // The parser wants `solid ` and a name on the first line: an unnamed solid gets one.
        let first = lines.next().map_or("", |(_, l)| l.trim());
        let mut out = if first == "solid" { String::from("solid unnamed\n") } else { format!("{first}\n") };
        let mut ended = false;
        let mut origins = Vec::new();
        for (k, line) in lines {
            if ended {
                if !line.trim().is_empty() {
                    return Err(parse_error(
                        path,
                        "STL",
                        format!("line {}: content after `endsolid` (only one solid per file is read)", k + 1),
                    ));
                }
                continue;
            }
            let mut words = line.split_whitespace();
            let word = words.next();
            ended = word == Some("endsolid");
            if word == Some("facet") {
                origins.push(TriangleOrigin::Line(k + 1));
            }
            // The parser refuses a coordinate that is not a finite single-precision number
            // without saying where: the line is named here.
            if word == Some("vertex") {
                if let Some(w) = words.take(3).find(|w| !w.parse::<f32>().is_ok_and(f32::is_finite)) {
                    return Err(parse_error(
                        path,
                        "STL",
                        format!("line {}: vertex coordinate {w:?} is not a finite single-precision number", k + 1),
                    ));
                }
            }
            out.push_str(line);
            out.push('\n');
        }
        return Ok((out.into_bytes(), origins));
    }
    Err(parse_error(
        path,
        "STL",
        match declared {
            Some(n) => format!(
                "binary STL declaring {n} triangles should be {} bytes long, the file has {} bytes",
                STL_HEADER as u64 + STL_TRIANGLE as u64 * n,
                bytes.len()
            ),
            None => format!("{} bytes: too short for a binary STL, and it does not begin with `solid`", bytes.len()),
        },
    ))
}

/// Reads the triangles of an STL file, ASCII or binary ([`MeshFile`]); coincident corners
/// of adjacent triangles are merged into one vertex (exact match of the stored
/// single-precision coordinates, −0 and +0 being the same). Errors: the file cannot be
/// opened ([`PolyError::Io`]) or does not parse ([`PolyError::Parse`]: among others a
/// binary file whose length does not match its triangle count, an ASCII file with more
/// than one solid). The triangles are not checked: see [`read_stl`] for a polyhedron.
pub fn read_stl_triangles(path: impl AsRef<Path>) -> Result<MeshFile> {
    let path = path.as_ref();
    let (bytes, origins) = checked_stl_bytes(path, read_bytes(path, "STL")?)?;
    let mesh =
        stl_io::read_stl(&mut std::io::Cursor::new(bytes)).map_err(|e| parse_error(path, "STL", e.to_string()))?;
    // The parser tells vertices apart by their bits, so −0 and +0 would be two vertices
    // and the triangles meeting there would not share an edge: merged here.
    let mut merged: HashMap<[u32; 3], u32> = HashMap::with_capacity(mesh.vertices.len());
    let mut vertices = Vec::with_capacity(mesh.vertices.len());
    let index: Vec<u32> = mesh
        .vertices
        .iter()
        .map(|v| {
            let key = [v[0], v[1], v[2]].map(|x| (x + 0.0).to_bits());
            *merged.entry(key).or_insert_with(|| {
                vertices.push(DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64));
                vertices.len() as u32 - 1
            })
        })
        .collect();
    let triangles: Vec<[u32; 3]> = mesh.faces.iter().map(|t| t.vertices.map(|i| index[i])).collect();
    // The parser reads every facet it meets, so the counts agree; kept honest otherwise.
    let origins = if origins.len() == triangles.len() { origins } else { Vec::new() };
    Ok(MeshFile { format: "STL", vertices, triangles, origins })
}

/// Reads an STL file ([`read_stl_triangles`]) as a polyhedron, vertices multiplied by
/// `scale`. Errors: those of [`read_stl_triangles`], and the checks of
/// [`Polyhedron::from_mesh`] (naming the file where it names the whole mesh).
pub fn read_stl(path: impl AsRef<Path>, scale: f64, frame: BodyFrame) -> Result<(Polyhedron, Placement)> {
    let path = path.as_ref();
    check_scale(scale)?;
    let file = read_stl_triangles(path)?;
    let vertices = file.vertices.iter().map(|v| *v * scale).collect();
    Polyhedron::from_mesh(vertices, file.triangles, frame).map_err(|e| in_file(path, e))
}
