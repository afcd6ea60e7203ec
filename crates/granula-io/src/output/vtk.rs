//! VTK frames: particles (spheres as points with their radius), shapes (the triangles of
//! custom shapes such as polyhedra, in their current pose), contacts (line cells between
//! the two centres, or centre to contact point for a wall and a custom shape) and walls
//! (planes as squares, cylinders as polygon bands).

use super::contacts::ContactRecord;
use super::vtp::{PolyData, VtkArray};
use super::write_atomic;
use crate::error::Result;
use glam::DVec3;
use granula_core::Contact;
use granula_core::{Shape, World};
use std::path::Path;

/// How large to draw walls, which are infinite or open-ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallDisplay {
    /// Half-size (m) of the square drawn for a plane, and half-length of an infinite
    /// cylinder.
    pub half_size: f64,
    /// Segments around a cylinder.
    pub segments: usize,
}

/// Writes the spheres of `world` to a `.vtp` file: point data `id` (the body handle),
/// `radius`, `velocity`, `angular_velocity` and `force` (the contact force of the last step).
/// In a periodic world ([`World::periodic`]) the points are the centres wrapped into the
/// periodic range and the point data `unwrapped_position` holds the continuous positions
/// (a displacement is a difference of those).
pub fn write_particles(path: &Path, world: &World) -> Result<()> {
    let b = &world.bodies;
    let idx: Vec<usize> = (0..b.len()).filter(|&i| b.shape[i].sphere_radius().is_some()).collect();
    let periodic = world.periodic.is_periodic();
    // In a periodic world, the points are the positions wrapped into the box (what a viewer
    // should draw), under Lees-Edwards shear with the velocities in the box too
    // (`PeriodicDomain::wrap_state`); the unwrapped positions follow as point data.
    let in_box = |i: usize| {
        if periodic {
            let (x, v, _) = world.periodic.wrap_state(b.position[i], b.velocity[i], world.time());
            (x, v)
        } else {
            (b.position[i], b.velocity[i])
        }
    };
    let mut pd = PolyData {
        points: idx.iter().map(|&i| in_box(i).0.to_array()).collect(),
        verts: (0..idx.len() as i64).collect(),
        point_data: vec![
            VtkArray::Ids("id", idx.iter().map(|&i| b.handle[i].0 as i64).collect()),
            VtkArray::Scalars("radius", idx.iter().map(|&i| b.radius[i]).collect()),
            VtkArray::Vectors("velocity", idx.iter().map(|&i| in_box(i).1.to_array()).collect()),
            VtkArray::Vectors("angular_velocity", idx.iter().map(|&i| b.angular_velocity[i].to_array()).collect()),
            VtkArray::Vectors("force", idx.iter().map(|&i| b.force[i].to_array()).collect()),
        ],
        ..Default::default()
    };
    if periodic {
        let unwrapped = idx.iter().map(|&i| b.position[i].to_array()).collect();
        pd.point_data.push(VtkArray::Vectors("unwrapped_position", unwrapped));
    }
    write_atomic(path, &pd.to_xml())
}

/// Writes every body of a custom shape that has a surface ([`granula_core::CustomShape::surface`],
/// e.g. a polyhedron) as its triangles in the body's current pose (x = position +
/// orientation · x_body), one polygon cell per triangle, and every polygon of a planar
/// world (`granula_polygons::PolygonShape`) as its outline in the plane z = 0, one polygon
/// cell per body, with cell data `id` (the body handle), `velocity`, `angular_velocity` and
/// `force` (the contact force of the last step) of the body it belongs to. Each body's
/// vertices are written once and shared by its cells. In a periodic world the bodies are
/// drawn at their centres wrapped into the periodic range (as `write_particles` draws the
/// spheres). A wall of a custom shape with a surface (a mesh wall of `granula-mesh`) is
/// drawn here by its triangles, once per frame like the other bodies; spheres, planes and
/// cylinders are not in this file.
///
/// Two more cell arrays spread the loads of `contacts` (the step's contact records, body
/// indices of `world`) over the faces of the shapes that name a contact point's face
/// ([`granula_core::CustomShape::surface_face`], mesh walls): `face_force`, the sum of the
/// forces the contacts put on the face (N), and `pressure`, its component along the face's
/// normal over the face's area, as a magnitude (Pa). Both are zero on the faces of other
/// shapes.
pub fn write_shapes(path: &Path, world: &World, contacts: &[ContactRecord]) -> Result<()> {
    let b = &world.bodies;
    let mut pd = PolyData::default();
    let (mut ids, mut vel, mut ang, mut force) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut face_force, mut pressure) = (Vec::new(), Vec::new());
    let periodic = world.periodic.is_periodic();
    for i in 0..b.len() {
        let Shape::Custom(c) = &b.shape[i] else { continue };
        let (x, v) = if periodic {
            let (x, v, _) = world.periodic.wrap_state(b.position[i], b.velocity[i], world.time());
            (x, v)
        } else {
            (b.position[i], b.velocity[i])
        };
        let q = b.orientation[i];
        let first = pd.points.len() as i64;
        let cells: Vec<Vec<i64>> = if let Some(p) = crate::scene::polygon_of(&b.shape[i]) {
            let outline = p.polygon().vertices();
            pd.points.extend(outline.iter().map(|v| (x + q * v.extend(0.0)).to_array()));
            vec![(first..first + outline.len() as i64).collect()]
        } else if let Some(mesh) = c.surface() {
            pd.points.extend(mesh.vertices.iter().map(|&v| (x + q * v).to_array()));
            mesh.triangles.iter().map(|t| t.iter().map(|&k| first + k as i64).collect()).collect()
        } else {
            continue;
        };
        let (faces, pressures) = face_loads(world, i, contacts, cells.len());
        face_force.extend(faces.iter().map(|f| f.to_array()));
        pressure.extend(pressures);
        for cell in cells {
            pd.polys.push(cell);
            ids.push(b.handle[i].0 as i64);
            vel.push(v.to_array());
            ang.push(b.angular_velocity[i].to_array());
            force.push(b.force[i].to_array());
        }
    }
    pd.cell_data = vec![
        VtkArray::Ids("id", ids),
        VtkArray::Vectors("velocity", vel),
        VtkArray::Vectors("angular_velocity", ang),
        VtkArray::Vectors("force", force),
        VtkArray::Vectors("face_force", face_force),
        VtkArray::Scalars("pressure", pressure),
    ];
    write_atomic(path, &pd.to_xml())
}

/// The loads of `contacts` on the `faces` cells of body `i`: per face, the sum of the
/// forces on it and the magnitude of their normal component over the face's area. Zero
/// for a body whose shape does not name faces ([`granula_core::CustomShape::surface_face`]).
fn face_loads(world: &World, i: usize, contacts: &[ContactRecord], faces: usize) -> (Vec<DVec3>, Vec<f64>) {
    let b = &world.bodies;
    let mut force = vec![DVec3::ZERO; faces];
    let mut pressure = vec![0.0; faces];
    let Shape::Custom(c) = &b.shape[i] else { return (force, pressure) };
    let Some(mesh) = c.surface() else { return (force, pressure) };
    let (x, q) = (b.position[i], b.orientation[i]);
    for r in contacts {
        // The record's force is on body 2; body 1 gets the opposite.
        let on_body = if r.body1 as usize == i {
            -r.force
        } else if r.body2 as usize == i {
            r.force
        } else {
            continue;
        };
        if let Some(f) = c.surface_face(q.inverse() * (r.point - x)).filter(|&f| f < faces) {
            force[f] += on_body;
        }
    }
    for (f, t) in mesh.triangles.iter().enumerate().take(faces) {
        let [p0, p1, p2] = t.map(|k| mesh.vertices[k as usize]);
        let area_vector = 0.5 * (p1 - p0).cross(p2 - p0);
        let area = area_vector.length();
        if area > 0.0 && force[f] != DVec3::ZERO {
            pressure[f] = (q.inverse() * force[f]).dot(area_vector / area).abs() / area;
        }
    }
    (force, pressure)
}

/// Writes contacts as line cells with cell data `normal_force`, `tangential_force` (on
/// body 2), `gap` and the two body ids.
pub fn write_contacts(path: &Path, world: &World, contacts: &[ContactRecord]) -> Result<()> {
    let b = &world.bodies;
    let mut pd = PolyData::default();
    for c in contacts {
        // A sphere's or a custom body's end is its centre; a wall's (a mesh wall's too) end is
        // the contact point.
        let end = |i: u32| {
            let i = i as usize;
            let particle = match &b.shape[i] {
                Shape::Sphere { .. } => true,
                Shape::Custom(s) => !s.is_wall(),
                _ => false,
            };
            if particle {
                b.position[i]
            } else {
                c.point
            }
        };
        let k = pd.points.len() as i64;
        pd.points.push(end(c.body1).to_array());
        pd.points.push(end(c.body2).to_array());
        pd.lines.push([k, k + 1]);
    }
    pd.cell_data = vec![
        VtkArray::Ids("body1", contacts.iter().map(|c| b.handle[c.body1 as usize].0 as i64).collect()),
        VtkArray::Ids("body2", contacts.iter().map(|c| b.handle[c.body2 as usize].0 as i64).collect()),
        VtkArray::Vectors("normal_force", contacts.iter().map(|c| c.normal_force().to_array()).collect()),
        VtkArray::Vectors("tangential_force", contacts.iter().map(|c| c.tangential_force().to_array()).collect()),
        VtkArray::Scalars("gap", contacts.iter().map(|c| c.gap).collect()),
    ];
    write_atomic(path, &pd.to_xml())
}

/// Writes planes and cylinders as polygons, with cell data `id` (the body handle) and
/// `velocity`.
pub fn write_walls(path: &Path, world: &World, display: &WallDisplay) -> Result<()> {
    let b = &world.bodies;
    let mut pd = PolyData::default();
    let mut ids = Vec::new();
    let mut vel = Vec::new();
    for i in 0..b.len() {
        let (x, q) = (b.position[i], b.orientation[i]);
        let polys: Vec<Vec<DVec3>> = match &b.shape[i] {
            Shape::Plane { normal } => {
                let n = (q * *normal).normalize();
                let (t, s) = n.any_orthonormal_pair();
                let h = display.half_size;
                vec![vec![x + h * (t + s), x + h * (s - t), x - h * (t + s), x + h * (t - s)]]
            }
            Shape::Cylinder(c) => {
                let a = (q * c.axis).normalize();
                let (t, s) = a.any_orthonormal_pair();
                let h = c.half_length.unwrap_or(display.half_size);
                let m = display.segments.max(3);
                (0..m)
                    .map(|k| {
                        let ang = |k: usize| std::f64::consts::TAU * k as f64 / m as f64;
                        let r0 = c.radius * (ang(k).cos() * t + ang(k).sin() * s);
                        let r1 = c.radius * (ang(k + 1).cos() * t + ang(k + 1).sin() * s);
                        vec![x + r0 - h * a, x + r1 - h * a, x + r1 + h * a, x + r0 + h * a]
                    })
                    .collect()
            }
            _ => continue,
        };
        for p in polys {
            let k = pd.points.len() as i64;
            pd.polys.push((k..k + p.len() as i64).collect());
            pd.points.extend(p.iter().map(|v| v.to_array()));
            ids.push(b.handle[i].0 as i64);
            vel.push(b.velocity[i].to_array());
        }
    }
    pd.cell_data = vec![VtkArray::Ids("id", ids), VtkArray::Vectors("velocity", vel)];
    write_atomic(path, &pd.to_xml())
}
