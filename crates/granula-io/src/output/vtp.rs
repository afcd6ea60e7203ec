//! A writer of VTK XML PolyData (`.vtp`) in ASCII, with every float printed in Rust's
//! shortest round-trip form so that values parse back bit-exactly.

use std::fmt::Write;

/// A named data array with 1 or 3 components.
#[derive(Clone, Debug, PartialEq)]
pub enum VtkArray {
    /// Float64 scalars.
    Scalars(&'static str, Vec<f64>),
    /// Float64 3-vectors.
    Vectors(&'static str, Vec<[f64; 3]>),
    /// Int64 scalars.
    Ids(&'static str, Vec<i64>),
}

/// The content of one `.vtp` piece: points, cells (vertices, lines, polygons) and arrays.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolyData {
    /// Point coordinates.
    pub points: Vec<[f64; 3]>,
    /// One vertex cell per listed point.
    pub verts: Vec<i64>,
    /// Line cells (point index pairs).
    pub lines: Vec<[i64; 2]>,
    /// Polygon cells (point index lists).
    pub polys: Vec<Vec<i64>>,
    /// Arrays over points.
    pub point_data: Vec<VtkArray>,
    /// Arrays over cells (in VTK's cell order: verts, lines, polys).
    pub cell_data: Vec<VtkArray>,
}

fn array(out: &mut String, a: &VtkArray) {
    let (ty, name, comps) = match a {
        VtkArray::Scalars(n, _) => ("Float64", n, 1),
        VtkArray::Vectors(n, _) => ("Float64", n, 3),
        VtkArray::Ids(n, _) => ("Int64", n, 1),
    };
    let _ = write!(
        out,
        "        <DataArray type=\"{ty}\" Name=\"{name}\" NumberOfComponents=\"{comps}\" format=\"ascii\">"
    );
    match a {
        VtkArray::Scalars(_, v) => v.iter().for_each(|x| {
            let _ = write!(out, "{x:?} ");
        }),
        VtkArray::Vectors(_, v) => v.iter().for_each(|x| {
            let _ = write!(out, "{:?} {:?} {:?} ", x[0], x[1], x[2]);
        }),
        VtkArray::Ids(_, v) => v.iter().for_each(|x| {
            let _ = write!(out, "{x} ");
        }),
    }
    out.push_str("</DataArray>\n");
}

fn cells(out: &mut String, tag: &str, cells: &[&[i64]]) {
    let _ = writeln!(out, "      <{tag}>");
    out.push_str("        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">");
    for c in cells {
        for i in *c {
            let _ = write!(out, "{i} ");
        }
    }
    out.push_str("</DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">");
    let mut off = 0;
    for c in cells {
        off += c.len();
        let _ = write!(out, "{off} ");
    }
    let _ = writeln!(out, "</DataArray>\n      </{tag}>");
}

impl PolyData {
    /// The `.vtp` XML text.
    pub fn to_xml(&self) -> String {
        let mut out = String::with_capacity(64 * self.points.len() + 1024);
        out.push_str("<?xml version=\"1.0\"?>\n");
        out.push_str(
            "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n",
        );
        out.push_str("  <PolyData>\n");
        let _ = writeln!(
            out,
            "    <Piece NumberOfPoints=\"{}\" NumberOfVerts=\"{}\" NumberOfLines=\"{}\" NumberOfStrips=\"0\" NumberOfPolys=\"{}\">",
            self.points.len(),
            self.verts.len(),
            self.lines.len(),
            self.polys.len()
        );
        out.push_str("      <PointData>\n");
        self.point_data.iter().for_each(|a| array(&mut out, a));
        out.push_str("      </PointData>\n      <CellData>\n");
        self.cell_data.iter().for_each(|a| array(&mut out, a));
        out.push_str("      </CellData>\n      <Points>\n");
        array(&mut out, &VtkArray::Vectors("Points", self.points.clone()));
        out.push_str("      </Points>\n");
        let verts: Vec<[i64; 1]> = self.verts.iter().map(|&v| [v]).collect();
        cells(&mut out, "Verts", &verts.iter().map(|v| &v[..]).collect::<Vec<_>>());
        cells(&mut out, "Lines", &self.lines.iter().map(|l| &l[..]).collect::<Vec<_>>());
        cells(&mut out, "Polys", &self.polys.iter().map(|p| &p[..]).collect::<Vec<_>>());
        out.push_str("    </Piece>\n  </PolyData>\n</VTKFile>\n");
        out
    }
}
