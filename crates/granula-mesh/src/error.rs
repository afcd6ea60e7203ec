//! The errors of reading and checking a mesh wall.

use granula_polyhedra::{PolyError, TriangleOrigin};
use std::fmt;
use std::path::PathBuf;

/// Where a triangle came from: its index among the triangles given (a file's triangles in
/// file order, an OBJ polygon as its fan), and, for a file, the file and the line (text) or
/// bytes (binary STL) of its statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrianglePlace {
    /// Index of the triangle among those given, from 0.
    pub triangle: usize,
    /// The file, when the mesh was read from one.
    pub path: Option<PathBuf>,
    /// Where in the file, when known.
    pub origin: Option<TriangleOrigin>,
}

impl fmt::Display for TrianglePlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "triangle {}", self.triangle)?;
        match (&self.path, &self.origin) {
            (Some(path), Some(origin)) => write!(f, " ({}, {origin})", path.display()),
            (Some(path), None) => write!(f, " ({})", path.display()),
            (None, Some(origin)) => write!(f, " ({origin})"),
            (None, None) => Ok(()),
        }
    }
}

/// Why a mesh wall could not be read or built. Every variant about a triangle names it
/// with its file and line ([`TrianglePlace`]).
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// The file could not be read.
    #[error("cannot read mesh file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The file was read but does not parse in its format (the message names the line
    /// where it can).
    #[error("mesh file {path} does not parse as {format}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// `"STL"` or `"OBJ"`.
        format: &'static str,
        /// What is wrong, and where.
        message: String,
    },
    /// The file name has no extension the reader knows (`.stl`, `.obj`, any case).
    #[error("mesh file {path}: unknown format (expected a .stl or .obj file)")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// A parameter is out of its range.
    #[error("mesh parameter {name} = {value}: expected {expected}")]
    BadParameter {
        /// The parameter.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The range it must lie in.
        expected: &'static str,
    },
    /// A corner of a triangle has a non-finite coordinate (NaN, infinite, or beyond the
    /// range of `f64` once scaled).
    #[error("{place}: corner {corner} has a non-finite coordinate {value:?}")]
    NonFinite {
        /// The triangle.
        place: TrianglePlace,
        /// Which corner, 0 to 2.
        corner: usize,
        /// The corner's coordinates (scaled).
        value: [f64; 3],
    },
    /// A corner of a triangle refers to no vertex (a mesh given as arrays).
    #[error("{place}: corner {corner} refers to vertex {index}, but there are {vertices} vertices")]
    BadIndex {
        /// The triangle.
        place: TrianglePlace,
        /// Which corner, 0 to 2.
        corner: usize,
        /// The index.
        index: u32,
        /// The number of vertices.
        vertices: usize,
    },
    /// A triangle has zero area (two corners at one point, or three on a line), and the
    /// options refuse such triangles ([`DegenerateTriangles::Refuse`](crate::DegenerateTriangles::Refuse)).
    #[error("{place}: zero area ({reason})")]
    DegenerateTriangle {
        /// The triangle.
        place: TrianglePlace,
        /// Which kind of degeneracy.
        reason: &'static str,
    },
    /// No triangle is left (an empty file, or every triangle had zero area).
    #[error("mesh{}: no triangle of non-zero area ({given} given)", in_file(.path))]
    Empty {
        /// The file, when the mesh was read from one.
        path: Option<PathBuf>,
        /// Triangles given.
        given: usize,
    },
    /// More triangles than a wall's feature keys can number (2²⁸).
    #[error("mesh{}: {given} triangles, more than the {max} a wall can hold", in_file(.path))]
    TooManyTriangles {
        /// The file, when the mesh was read from one.
        path: Option<PathBuf>,
        /// Triangles given.
        given: usize,
        /// The limit.
        max: usize,
    },
}

/// `" in file F"` or nothing.
fn in_file(path: &Option<PathBuf>) -> String {
    path.as_ref().map_or(String::new(), |p| format!(" in file {}", p.display()))
}

impl From<PolyError> for MeshError {
    /// The reader's errors (it reports only these two kinds for a file's triangles).
    fn from(e: PolyError) -> Self {
        match e {
            PolyError::Io { path, source } => MeshError::Io { path, source },
            PolyError::Parse { path, format, message } => MeshError::Parse { path, format, message },
            other => MeshError::Parse { path: PathBuf::new(), format: "mesh", message: other.to_string() },
        }
    }
}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, MeshError>;
