//! Mesh files: Wavefront OBJ (through `tobj`) and STL, ASCII or binary (through `stl_io`).
//! Each reader scales the vertices, then builds the polyhedron with the usual checks.

use crate::error::{PolyError, Result};
use crate::polyhedron::{BodyFrame, Placement, Polyhedron};
use granula_core::math::DVec3;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

fn open(path: &Path) -> Result<BufReader<File>> {
    File::open(path).map(BufReader::new).map_err(|source| PolyError::Io { path: path.to_path_buf(), source })
}

fn check_scale(scale: f64) -> Result<()> {
    if scale.is_finite() && scale > 0.0 {
        Ok(())
    } else {
        Err(PolyError::BadParameter { name: "scale", value: scale, expected: "finite and > 0" })
    }
}

/// Reads an OBJ file: every object in it becomes part of one mesh (polygons are
/// triangulated as fans by the reader; materials are ignored), vertices multiplied by
/// `scale`. Errors: the file cannot be opened ([`PolyError::Io`]), does not parse
/// ([`PolyError::Parse`]), or the mesh fails the checks of [`Polyhedron::from_mesh`].
pub fn read_obj(path: impl AsRef<Path>, scale: f64, frame: BodyFrame) -> Result<(Polyhedron, Placement)> {
    let path = path.as_ref();
    check_scale(scale)?;
    let mut reader = open(path)?;
    let options = tobj::LoadOptions { triangulate: true, single_index: false, ..Default::default() };
    let (models, _) = tobj::load_obj_buf(&mut reader, &options, |_| Err(tobj::LoadError::OpenFileFailed))
        .map_err(|e| PolyError::Parse { path: path.to_path_buf(), format: "OBJ", message: e.to_string() })?;
    let mut vertices = Vec::new();
    let mut faces = Vec::new();
    for m in &models {
        let base = vertices.len() as u32;
        let pos = &m.mesh.positions;
        vertices.extend(pos.chunks_exact(3).map(|c| DVec3::new(c[0] as f64, c[1] as f64, c[2] as f64) * scale));
        faces.extend(m.mesh.indices.chunks_exact(3).map(|t| [t[0] + base, t[1] + base, t[2] + base]));
    }
    Polyhedron::from_mesh(vertices, faces, frame)
}

/// Reads an STL file (ASCII or binary); coincident corners of adjacent triangles are merged
/// into one vertex by the reader (exact match of the stored single-precision coordinates),
/// vertices multiplied by `scale`. Errors as for [`read_obj`].
pub fn read_stl(path: impl AsRef<Path>, scale: f64, frame: BodyFrame) -> Result<(Polyhedron, Placement)> {
    let path = path.as_ref();
    check_scale(scale)?;
    let mut reader = open(path)?;
    let mesh = stl_io::read_stl(&mut reader).map_err(|e| PolyError::Parse {
        path: path.to_path_buf(),
        format: "STL",
        message: e.to_string(),
    })?;
    let vertices = mesh.vertices.iter().map(|v| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64) * scale).collect();
    let faces = mesh.faces.iter().map(|t| t.vertices.map(|i| i as u32)).collect();
    Polyhedron::from_mesh(vertices, faces, frame)
}
