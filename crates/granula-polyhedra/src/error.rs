//! The one error type of this crate.

use std::path::PathBuf;
use thiserror::Error;

/// Everything that can go wrong when building or reading a polyhedron. Mesh errors name
/// the face (index into the face list) or the edge (its two vertex indices) at fault.
#[derive(Debug, Error)]
pub enum PolyError {
    /// A mesh file could not be opened or read.
    #[error("cannot read mesh file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// A mesh file was read but does not parse in its format.
    #[error("mesh file {path} does not parse as {format}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// `"OBJ"` or `"STL"`.
        format: &'static str,
        /// The parser's reason.
        message: String,
    },
    /// A parameter is outside its domain (a scale, a size, a count).
    #[error("{name} = {} is invalid: expected {expected}", readable(*value))]
    BadParameter {
        /// Which parameter.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What it should be.
        expected: &'static str,
    },
    /// The mesh has fewer than four vertices or faces (no closed surface has fewer).
    #[error("the mesh has {vertices} vertices and {faces} faces: a closed surface needs at least 4 of each")]
    Empty {
        /// Number of vertices.
        vertices: usize,
        /// Number of faces.
        faces: usize,
    },
    /// A vertex has a NaN or infinite coordinate.
    #[error("vertex {vertex} has a non-finite coordinate")]
    NonFiniteVertex {
        /// The vertex index.
        vertex: usize,
    },
    /// The mesh is so large or so small that its volume or moments of inertia (which grow as
    /// the fifth power of its size) would overflow or underflow in double precision.
    #[error(
        "the mesh's extent {extent:e} is outside [{min:e}, {max:e}]: its volume and moments of inertia \
         cannot be represented (check the units or the scale)"
    )]
    BadExtent {
        /// The largest extent of the mesh's bounding box.
        extent: f64,
        /// The smallest extent accepted.
        min: f64,
        /// The largest extent accepted.
        max: f64,
    },
    /// A face refers to a vertex that does not exist, or twice to the same vertex.
    #[error("face {face} has invalid vertex indices {indices:?} ({vertices} vertices)")]
    BadFaceIndex {
        /// The face index.
        face: usize,
        /// Its three vertex indices.
        indices: [u32; 3],
        /// Number of vertices in the mesh.
        vertices: usize,
    },
    /// A face has (numerically) zero area.
    #[error("face {face} is degenerate: area {area:e} (relative to the mesh size squared)")]
    DegenerateFace {
        /// The face index.
        face: usize,
        /// Its relative area.
        area: f64,
    },
    /// An edge belongs to one face only: the mesh has a hole there.
    #[error("edge ({a}, {b}) of face {face} has no neighbouring face: the mesh is not closed")]
    OpenEdge {
        /// First vertex of the edge, as traversed by the face.
        a: u32,
        /// Second vertex.
        b: u32,
        /// The only face that has it.
        face: usize,
    },
    /// Two faces traverse an edge in the same direction: they are inconsistently oriented
    /// (one is inverted), or more than two faces share the edge.
    #[error(
        "edge ({a}, {b}) is traversed in the same direction by faces {first} and {second}: \
         inconsistent orientation or an edge shared by more than two faces"
    )]
    InconsistentEdge {
        /// First vertex of the directed edge.
        a: u32,
        /// Second vertex.
        b: u32,
        /// The first face that traverses it.
        first: usize,
        /// The second face that traverses it.
        second: usize,
    },
    /// The mesh is closed but made of several shells (sets of faces connected through
    /// shared edges): a hollow body (a surface inside another) or several bodies in one
    /// mesh. A polyhedron is one closed shell.
    #[error(
        "{}the mesh has {shells} separate closed shells (a hollow body, or several bodies in one mesh); \
         a polyhedron must be one closed shell",
        in_file(path.as_deref())
    )]
    Shells {
        /// Number of shells.
        shells: usize,
        /// The mesh file, when the mesh was read from one.
        path: Option<PathBuf>,
    },
    /// The enclosed volume is not positive: all faces inverted (inward normals), or a flat mesh.
    #[error("the enclosed volume {volume:e} is not positive: faces inverted or the mesh is flat")]
    NonPositiveVolume {
        /// The signed volume.
        volume: f64,
    },
    /// The mesh is closed and encloses a positive volume, but its second moments are not
    /// those of a solid (the covariance ∫ (x − c)(x − c)ᵀ dV has a principal value ≤ 0): the
    /// surface intersects itself or folds over, so parts of it count negatively.
    #[error(
        "the mesh is not the surface of a solid: its second moment has the relative principal minor {minor:e} <= 0 \
         (the surface intersects itself or folds over)"
    )]
    NotASolid {
        /// The first non-positive leading principal minor of the covariance, scaled by its
        /// largest diagonal entry.
        minor: f64,
    },
    /// A point cloud too small or too flat for a convex hull.
    #[error("no convex hull: {reason}")]
    DegenerateHull {
        /// Why.
        reason: &'static str,
    },
    /// A shape handed to the core as a body must be in its principal axes (the core's
    /// mass properties are principal moments about the body axes).
    #[error(
        "the polyhedron is not in its principal axes (largest product of inertia {product:e} per unit density): \
         build it with BodyFrame::PrincipalAxes"
    )]
    NotPrincipalAxes {
        /// The largest off-diagonal entry of the inertia tensor per unit density.
        product: f64,
    },
    /// A mesh check failed on faces of a mesh file: the lines of the file the faces came
    /// from (faces in `source` are numbered as triangles, after polygons were split into
    /// fans).
    #[error("mesh file {}, {}: {source}", path.display(), line_list(lines))]
    AtLines {
        /// The file.
        path: PathBuf,
        /// The lines (from 1) of the faces at fault.
        lines: Vec<usize>,
        /// The mesh check's error.
        source: Box<PolyError>,
    },
    /// The principal-axes decomposition was refused by the core (non-finite inertia).
    #[error(transparent)]
    Core(#[from] granula_core::CoreError),
}

/// A value as written in messages: in exponent form when very large or very small, so that
/// 1e308 does not print as 309 digits.
fn readable(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-4..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// "mesh file <path>: " when the mesh came from a file.
fn in_file(path: Option<&std::path::Path>) -> String {
    path.map_or_else(String::new, |p| format!("mesh file {}: ", p.display()))
}

/// "line 4" or "lines 4 and 9".
fn line_list(lines: &[usize]) -> String {
    match lines {
        [one] => format!("line {one}"),
        _ => {
            let all: Vec<String> = lines.iter().map(usize::to_string).collect();
            format!("lines {}", all.join(" and "))
        }
    }
}

/// Result with [`PolyError`].
pub type Result<T> = std::result::Result<T, PolyError>;
