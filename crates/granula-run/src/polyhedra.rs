//! Polyhedra and mesh walls in scene files: the [`ShapeMaker`] that builds
//! `granula-polyhedra` shapes and `granula-mesh` walls for `granula-io`'s scenes and
//! registers their contact generators, and the scene readers
//! that use it ([`parse_scene`], [`load_scene`]).

use glam::DQuat;
use granula_core::CustomShape;
use granula_core::{CoreError, Narrowphase};
use granula_io::scene::spec::{MeshWallSpec, PolyhedronContactKind, ShapeSpec};
use granula_io::scene::{MadeShape, ShapeMaker};
use granula_io::{Result, Scene};
use granula_polyhedra::{
    read_obj, read_stl, register_all, register_all_volume_energy, register_all_volumetric, shapes, BodyFrame,
    Polyhedron, PolyhedronShape,
};
use std::path::Path;
use std::sync::Arc;

/// Builds polyhedra from scene descriptions: the built-ins of `granula_polyhedra::shapes`
/// and OBJ/STL files, each in its principal axes ([`BodyFrame::PrincipalAxes`]) with the
/// rotation that puts it back as described; and the mesh walls of `[[meshes]]`.
#[derive(Clone, Copy, Debug, Default)]
pub struct PolyhedraMaker;

/// A built-in in its centre-of-mass frame → the same in principal axes.
fn principal(p: granula_polyhedra::Result<Polyhedron>) -> granula_polyhedra::Result<(Polyhedron, DQuat)> {
    let p = p?;
    let (q, place) = Polyhedron::from_mesh(p.vertices().to_vec(), p.faces().to_vec(), BodyFrame::PrincipalAxes)?;
    Ok((q, place.rotation))
}

fn made(p: granula_polyhedra::Result<(Polyhedron, DQuat)>) -> std::result::Result<MadeShape, String> {
    let (poly, rotation) = p.map_err(|e| e.to_string())?;
    let radius = poly.bounding_radius();
    let shape = PolyhedronShape::new(Arc::new(poly)).map_err(|e| e.to_string())?;
    Ok(MadeShape { shape: Arc::new(shape), rotation, radius })
}

impl ShapeMaker for PolyhedraMaker {
    fn make(&self, spec: &ShapeSpec, base: &Path) -> std::result::Result<MadeShape, String> {
        let file = |name: &str| base.join(name);
        made(match spec {
            ShapeSpec::Box { size } => principal(shapes::cuboid(glam::DVec3::from_array(*size) / 2.0)),
            ShapeSpec::Cube { size } => principal(shapes::cube(*size)),
            ShapeSpec::Tetrahedron { size } => principal(shapes::tetrahedron(*size)),
            ShapeSpec::Octahedron { size } => principal(shapes::octahedron(*size)),
            ShapeSpec::Icosahedron { size } => principal(shapes::icosahedron(*size)),
            ShapeSpec::Dodecahedron { size } => principal(shapes::dodecahedron(*size)),
            ShapeSpec::Prism { sides, radius, height } => principal(shapes::prism(*sides, *radius, *height)),
            ShapeSpec::LBlock { size } => principal(shapes::l_block(*size)),
            ShapeSpec::RandomConvex { radius, points, seed } => {
                principal(shapes::random_convex(*points as usize, *radius, *seed))
            }
            ShapeSpec::Icosphere { radius, subdivisions } => principal(shapes::icosphere(*radius, *subdivisions)),
            ShapeSpec::Mesh { vertices, faces } => {
                let vertices = vertices.iter().map(|v| glam::DVec3::from_array(*v)).collect();
                Polyhedron::from_mesh(vertices, faces.clone(), BodyFrame::PrincipalAxes)
                    .map(|(p, place)| (p, place.rotation))
            }
            ShapeSpec::Obj { file: f, scale } => {
                read_obj(file(f), *scale, BodyFrame::PrincipalAxes).map(|(p, place)| (p, place.rotation))
            }
            ShapeSpec::Stl { file: f, scale } => {
                read_stl(file(f), *scale, BodyFrame::PrincipalAxes).map(|(p, place)| (p, place.rotation))
            }
        })
    }

    fn random_convex(&self, points: u32, radius: f64, seed: u64) -> std::result::Result<MadeShape, String> {
        made(principal(shapes::random_convex(points as usize, radius, seed)))
    }

    fn register(
        &self,
        narrowphase: &mut Narrowphase,
        contacts: PolyhedronContactKind,
    ) -> std::result::Result<(), CoreError> {
        match contacts {
            PolyhedronContactKind::Points => register_all(narrowphase),
            PolyhedronContactKind::Volume => register_all_volumetric(narrowphase),
            PolyhedronContactKind::VolumePressure => register_all_volume_energy(narrowphase),
        }
    }

    /// The mesh of `spec.file` read with `granula_mesh::read_mesh` (STL or OBJ by the
    /// file's contents, the scale of `spec`, the other options at their defaults:
    /// duplicate vertices merged, zero-area triangles dropped) as a `MeshWall`.
    fn mesh_wall(&self, spec: &MeshWallSpec, base: &Path) -> std::result::Result<Arc<dyn CustomShape>, String> {
        let options = granula_mesh::MeshOptions { scale: spec.scale, ..Default::default() };
        let mesh = granula_mesh::read_mesh(base.join(&spec.file), &options).map_err(|e| e.to_string())?;
        Ok(Arc::new(granula_mesh::MeshWall::new(mesh)))
    }

    fn register_mesh_walls(&self, narrowphase: &mut Narrowphase) -> std::result::Result<(), CoreError> {
        granula_mesh::register_all(narrowphase)
    }
}

/// [`Scene::parse_with`] with the [`PolyhedraMaker`]: a scene that may hold polyhedra.
pub fn parse_scene(file: &str, text: &str) -> Result<Scene> {
    Scene::parse_with(file, text, Some(Arc::new(PolyhedraMaker)))
}

/// [`Scene::load_with`] with the [`PolyhedraMaker`] (mesh files relative to the scene's folder).
pub fn load_scene(path: impl AsRef<Path>) -> Result<Scene> {
    Scene::load_with(path, Some(Arc::new(PolyhedraMaker)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scene with one polyhedron of this `shape` table.
    fn scene(shape: &str) -> Result<Scene> {
        let text = format!(
            "[simulation]\ndt = 1e-5\nsteps = 1\n[solver]\nkind = \"md\"\n\
             [[polyhedra]]\nshape = {shape}\nposition = [0.0, 0.0, 1.0]\nrotation = [0.1, 0.2, 0.3]\n"
        );
        parse_scene("mesh.toml", &text)
    }

    const CUBE_VERTICES: &str =
        "[[0, 0, 0], [2, 0, 0], [2, 2, 0], [0, 2, 0], [0, 0, 2], [2, 0, 2], [2, 2, 2], [0, 2, 2]]";
    const CUBE_FACES: [&str; 12] = [
        "[0, 2, 1]",
        "[0, 3, 2]",
        "[4, 5, 6]",
        "[4, 6, 7]",
        "[0, 1, 5]",
        "[0, 5, 4]",
        "[1, 2, 6]",
        "[1, 6, 5]",
        "[2, 3, 7]",
        "[2, 7, 6]",
        "[3, 0, 4]",
        "[3, 4, 7]",
    ];

    #[test]
    fn a_mesh_in_the_scene_is_the_polyhedron_it_describes() {
        let mesh = format!("{{ kind = \"mesh\", vertices = {CUBE_VERTICES}, faces = [{}] }}", CUBE_FACES.join(", "));
        let from_mesh = scene(&mesh).unwrap().build_world().unwrap();
        let cube = scene("{ kind = \"cube\", size = 2.0 }").unwrap().build_world().unwrap();
        let (a, b) = (&from_mesh.bodies, &cube.bodies);
        assert!((a.mass[0] - b.mass[0]).abs() <= 1e-12 * b.mass[0], "{} {}", a.mass[0], b.mass[0]);
        assert_eq!(a.position[0], b.position[0]);
        // Turned by the same rotation from the same description: the same bounding box.
        let (p, q) = (a.aabb(0), b.aabb(0));
        assert!(p.min.distance(q.min) < 1e-12 && p.max.distance(q.max) < 1e-12, "{p:?} {q:?}");
        // An open mesh (a face left out) is refused, the mesh named by its size.
        let open =
            format!("{{ kind = \"mesh\", vertices = {CUBE_VERTICES}, faces = [{}] }}", CUBE_FACES[1..].join(", "));
        let message = scene(&open).unwrap_err().to_string();
        assert!(
            message.contains("key `polyhedra[0].shape`") && message.contains("mesh of 8 vertices and 11 faces"),
            "{message}"
        );
        // A face of two indices is a schema error naming the shape.
        let short = format!("{{ kind = \"mesh\", vertices = {CUBE_VERTICES}, faces = [[0, 1]] }}");
        let message = scene(&short).unwrap_err().to_string();
        assert!(message.contains("key `polyhedra[0].shape`") && message.contains("exactly 3"), "{message}");
    }
}
