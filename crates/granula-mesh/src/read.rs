//! Mesh files: STL (ASCII or binary) and Wavefront OBJ, parsed by `granula-polyhedra`'s
//! readers of triangles, then checked and repaired as a wall (an open surface is fine).

use crate::error::{MeshError, Result};
use crate::mesh::{MeshOptions, TriangleMesh};
use granula_polyhedra::{read_obj_triangles, read_stl_triangles, MeshFile};
use std::path::Path;

/// Reads a mesh file by its extension (`.stl` or `.obj`, any case): [`read_stl`] or
/// [`read_obj`]. Other extensions: [`MeshError::UnknownFormat`].
pub fn read_mesh(path: impl AsRef<Path>, options: &MeshOptions) -> Result<TriangleMesh> {
    let path = path.as_ref();
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("stl") => read_stl(path, options),
        Some("obj") => read_obj(path, options),
        _ => Err(MeshError::UnknownFormat { path: path.to_path_buf() }),
    }
}

/// Reads an STL file, ASCII or binary, as a wall mesh: the file's triangles
/// ([`granula_polyhedra::read_stl_triangles`]: a binary file must be exactly as long as
/// its triangle count says, an ASCII file holds one solid), then the checks and repairs of
/// [`TriangleMesh::new`], whose errors name the file and the triangle's `facet` line
/// (ASCII) or bytes (binary).
pub fn read_stl(path: impl AsRef<Path>, options: &MeshOptions) -> Result<TriangleMesh> {
    let path = path.as_ref();
    from_file(path, read_stl_triangles(path)?, options)
}

/// Reads a Wavefront OBJ file as a wall mesh: every object of the file in one mesh,
/// polygons as fans ([`granula_polyhedra::read_obj_triangles`]: a face refers to vertices
/// defined before it), then the checks and repairs of [`TriangleMesh::new`], whose errors
/// name the file and the line of the triangle's `f` statement.
pub fn read_obj(path: impl AsRef<Path>, options: &MeshOptions) -> Result<TriangleMesh> {
    let path = path.as_ref();
    from_file(path, read_obj_triangles(path)?, options)
}

fn from_file(path: &Path, file: MeshFile, options: &MeshOptions) -> Result<TriangleMesh> {
    TriangleMesh::build(file.vertices, file.triangles, file.origins, Some(path.to_path_buf()), options)
}
