//! Scene files: parsing (TOML with serde, unknown keys rejected), validation with errors
//! that name the file, key and line, and construction of the [`World`].

mod bodies;
mod body_spec;
mod check;
mod choices;
pub mod exact;
mod feed_spec;
mod feeds;
pub mod limits;
mod linear_contact;
mod loads;
mod mesh_spec;
mod models;
mod output_spec;
mod overlap;
mod parse_error;
mod periodic;
mod polygon_spec;
mod polygons;
mod polyhedra_spec;
mod selection;
mod shape_maker;
mod source;
pub mod spec;
mod spec_text;
mod sweeps;
mod unused;
mod validate;
mod wall_motion;

pub use bodies::BodyPlan;
pub use check::Check;
pub use feeds::RSA_JAMMING_FRACTION;
pub use linear_contact::{contact_time, damping_rate, LinearContact};
pub use loads::{apply_loads, Load};
pub use models::PLANAR_ONLY;
pub use overlap::OVERLAP_TOLERANCE;
pub use polygons::polygon_of;
pub use shape_maker::{MadeShape, ShapeMaker};
pub use source::{line_column, line_of, KeyPath, Seg};
use spec::SceneSpec;
pub use sweeps::{sweep_estimate, sweeps_for_depth, SweepEstimate};

use crate::error::{IoError, Result};
use glam::DVec3;
use granula_core::{Material, MaterialId, PairMaterial, World};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A parsed and fully validated scene: every body is built and checked (including initial
/// overlaps), so that running it can only fail in the physics.
///
/// A scene read from a string ([`Scene::parse`]; [`Scene::load`] reads a file) and turned
/// into a world (`granula-run` composes its solver and runs it):
///
/// ```
/// use granula_io::Scene;
///
/// # fn main() -> Result<(), granula_io::IoError> {
/// let text = r#"
/// [simulation]
/// dt = 1e-5
/// end_time = 0.01
///
/// [solver]
/// kind = "md"
///
/// [[planes]]
/// name = "floor"
/// point = [0.0, 0.0, 0.0]
/// normal = [0.0, 0.0, 1.0]
///
/// [[spheres]]
/// name = "ball"
/// radius = 0.01
/// position = [0.0, 0.0, 0.05]
/// "#;
/// let scene = Scene::parse("drop.toml", text)?;
/// assert_eq!(scene.steps, 1000); // end_time / dt
/// let ball = scene.body_named("ball").expect("named in the scene"); // gets BodyHandle(ball)
/// assert_eq!(scene.bodies[ball].name.as_deref(), Some("ball"));
/// let world = scene.build_world()?;
/// assert_eq!(world.bodies.len(), 2);
///
/// // Errors name the file, the line and the key: a negative radius.
/// let bad = Scene::parse("drop.toml", &text.replace("radius = 0.01", "radius = -0.01"));
/// let message = bad.unwrap_err().to_string();
/// assert!(message.starts_with("drop.toml") && message.contains("radius"), "{message}");
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Scene {
    /// The file name used in messages.
    pub file: String,
    /// The scene text (kept for checkpoints and messages).
    pub text: String,
    /// The parsed file.
    pub spec: SceneSpec,
    /// Number of steps to run.
    pub steps: u64,
    /// Materials in id order.
    pub materials: Vec<Material>,
    /// Pair overrides (material ids and values).
    pub pairs: Vec<(u16, u16, PairMaterial)>,
    /// Bodies in insertion order: body `i` gets `BodyHandle(i)`.
    pub bodies: Vec<BodyPlan>,
    /// Time-dependent loads (`[[loads]]`), validated against the bodies.
    pub loads: Vec<Load>,
    /// Feeds (`[[feeds]]`): spheres inserted while the run goes on.
    pub feeds: Vec<granula_feed::FeedConfig>,
    /// Outlets (`[[outlets]]`): regions whose dynamic bodies are removed.
    pub outlets: Vec<granula_feed::OutletConfig>,
    /// The maker of polyhedral shapes the scene was read with, if any: its generators are
    /// registered in the world's narrowphase when the scene has polyhedra.
    pub shapes: Option<Arc<dyn ShapeMaker>>,
    /// The linear contact that `[solver] damping = "reduced_mass"` calibrates (002 eqs. 8,
    /// 10), `None` for other scenes.
    pub linear_contact: Option<LinearContact>,
    /// The time step (s): `[simulation] dt`, or `dt_fraction` × t_c.
    dt: f64,
}

/// The [`IoError::Parse`] of a scene text (`file` names it) that `toml` refused: the line
/// and column of the fault and the parser's message, with the key path added where the
/// message does not name it (an unknown key or name inside a tagged table, a value of the
/// wrong type or an array of the wrong length).
pub fn schema_error(file: &str, text: &str, e: &toml::de::Error) -> IoError {
    let at = e.span().map_or(0, |s| s.start);
    let message = e.message().trim();
    let (line, column, message) = parse_error::locate(text, at, message).unwrap_or_else(|| {
        let (line, column) = e.span().map_or((1, 1), |s| line_column(text, s.start));
        // A value of the wrong type or length: the message says what is wrong, the key is
        // added.
        match e.span().and_then(|s| parse_error::key_at(text, s.start)) {
            Some(key) if message.starts_with("invalid") => (line, column, format!("key `{key}`: {message}")),
            _ => (line, column, message.to_string()),
        }
    });
    IoError::Parse { file: file.to_string(), line, column, message }
}

impl Scene {
    /// Reads and validates a scene file: a regular file of at most
    /// [`MAX_SCENE_BYTES`](crate::MAX_SCENE_BYTES) (see [`read_input`](crate::read_input)).
    pub fn load(path: impl AsRef<Path>) -> Result<Scene> {
        Scene::load_with(path, None)
    }

    /// [`Scene::load`] with a maker of polyhedral shapes (mesh files are relative to the
    /// scene file's folder).
    pub fn load_with(path: impl AsRef<Path>, shapes: Option<Arc<dyn ShapeMaker>>) -> Result<Scene> {
        let path = path.as_ref();
        let text = crate::input::read_input_text(path, crate::input::MAX_SCENE_BYTES)?;
        Scene::parse_with(&path.display().to_string(), &text, shapes)
    }

    /// Parses and validates scene text; `file` names it in messages. A scene with
    /// polyhedra needs [`Scene::parse_with`] and a [`ShapeMaker`].
    pub fn parse(file: &str, text: &str) -> Result<Scene> {
        Scene::parse_with(file, text, None)
    }

    /// [`Scene::parse`] with a maker of polyhedral shapes; mesh files are relative to the
    /// folder of `file`.
    pub fn parse_with(file: &str, text: &str, shapes: Option<Arc<dyn ShapeMaker>>) -> Result<Scene> {
        refuse_old_planar_format(file, text)?;
        let spec: SceneSpec = toml::from_str(text).map_err(|e| schema_error(file, text, &e))?;
        Scene::validate(file, text, spec, shapes)
    }

    /// A scene whose `spec` a program built instead of reading text, validated as
    /// [`Scene::parse_with`] validates a file: the same checks and errors, each naming the
    /// key path (`spheres[12].radius`). Its [`text`](Scene::text) is
    /// [`SceneSpec::to_toml`]'s, which the scene readers read back to the same spec (so a
    /// checkpoint of the scene resumes it), and the lines in its messages are lines of that
    /// text; `file` names it in messages, and mesh files are relative to its folder. No text
    /// is parsed: the cost of a file's parsing (seconds for 10⁶ spheres) is saved.
    pub fn from_spec_with(file: &str, spec: SceneSpec, shapes: Option<Arc<dyn ShapeMaker>>) -> Result<Scene> {
        let text = spec.to_toml().map_err(|e| IoError::Parse {
            file: file.to_string(),
            line: 1,
            column: 1,
            message: format!("the scene cannot be written as TOML: {e}"),
        })?;
        Scene::validate(file, &text, spec, shapes)
    }

    fn validate(file: &str, text: &str, spec: SceneSpec, shapes: Option<Arc<dyn ShapeMaker>>) -> Result<Scene> {
        let names: Vec<String> = if spec.materials.is_empty() {
            vec![Material::default().name]
        } else {
            spec.materials.iter().map(|m| m.name.clone()).collect()
        };
        let c = Check::new(file, text, names);
        let given_dt = validate::simulation(&c, &spec)?;
        let early_steps = given_dt.map(|dt| validate::steps(&c, &spec, dt, "dt")).transpose()?;
        validate::solver(&c, &spec.solver)?;
        models::validate(&c, &spec.solver)?;
        models::planar_only(&c, &spec.solver, spec.simulation.planar)?;
        unused::cohesive_impact(&c, &spec.solver)?;
        validate::unused_restitution(&c, &spec)?;
        unused::unused_properties(&c, &spec)?;
        let materials = if spec.materials.is_empty() {
            vec![Material::default()]
        } else {
            validate::materials(&c, &spec.materials)?
        };
        let pairs = validate::pairs(&c, &materials, &spec.pairs)?;
        // Counted before anything is generated, so that a huge count is an error, not an
        // aborted allocation.
        limits::body_count(&c, &spec)?;
        let plans = body_plans(&c, &spec, shapes.as_deref(), file)?;
        let mut seen: HashSet<&str> = HashSet::new();
        for p in &plans {
            if let Some(n) = &p.name {
                if !seen.insert(n.as_str()) {
                    let path = parse_origin(&p.origin).key("name");
                    return Err(c.invalid(&path, n, "is already the name of another body"));
                }
            }
        }
        let r_max = plans.iter().filter_map(|p| particle_radius(&p.body)).reduce(f64::max);
        validate::skin(&c, &spec.solver, r_max)?;
        periodic::validate(&c, &spec, &plans, r_max)?;
        if !spec.simulation.accept_overlaps {
            overlap::check_overlaps(file, text, &plans)?;
        }
        let names: Vec<Option<String>> = plans.iter().map(|p| p.name.clone()).collect();
        validate::outputs(&c, &spec.output, &names, spec.simulation.planar)?;
        selection::validate(&c, &spec, &plans)?;
        selection::rigid_materials(&c, &spec, &plans)?;
        let loads = loads::validate(&c, &spec.loads, &plans)?;
        let mut scene = Scene {
            file: file.to_string(),
            text: text.to_string(),
            spec,
            steps: early_steps.unwrap_or(0),
            materials,
            pairs,
            bodies: plans,
            loads,
            feeds: Vec::new(),
            outlets: Vec::new(),
            shapes,
            linear_contact: None,
            dt: given_dt.unwrap_or(f64::NAN),
        };
        scene.resolve_time_step(&c)?;
        let context = feeds::FeedContext {
            materials: &scene.materials,
            dt: scene.dt,
            steps: scene.steps,
            shapes: scene.shapes.as_ref(),
        };
        scene.feeds = feeds::feeds(&c, &scene.spec, &context)?;
        scene.outlets = feeds::outlets(&c, &scene.spec)?;
        scene.check_polyhedra_overlaps()?;
        Ok(scene)
    }

    /// The linear contact of `damping = "reduced_mass"` and, with `dt_fraction`, the time
    /// step and the number of steps (both need the bodies' masses).
    fn resolve_time_step(&mut self, c: &Check) -> Result<()> {
        self.linear_contact = linear_contact::validate(c, &self.spec, || self.build_world())?;
        if let Some(f) = self.spec.simulation.dt_fraction {
            self.dt = linear_contact::dt_from_fraction(c, f, self.linear_contact.as_ref())?;
            self.steps = validate::steps(c, &self.spec, self.dt, "dt_fraction")?;
        }
        Ok(())
    }

    /// `true` when the scene has bodies of a custom shape (polyhedra, polygons, mesh walls).
    pub fn has_custom_shapes(&self) -> bool {
        self.bodies.iter().any(|p| matches!(p.body.shape, granula_core::Shape::Custom(_)))
    }

    /// `true` when the scene has mesh walls (`[[meshes]]`).
    pub fn has_mesh_walls(&self) -> bool {
        !self.spec.meshes.is_empty()
    }

    /// `true` when the scene has custom shapes that are not walls (polyhedra, polygons),
    /// or feeds that insert polyhedra.
    fn has_custom_particles(&self) -> bool {
        self.bodies.iter().any(|p| matches!(&p.body.shape, granula_core::Shape::Custom(c) if !c.is_wall()))
            || self.feeds_polyhedra()
    }

    /// `true` when a feed inserts polyhedra (`[[feeds]] polyhedra`).
    fn feeds_polyhedra(&self) -> bool {
        self.spec.feeds.iter().any(|f| f.polyhedra.is_some())
    }

    /// `true` when the scene has polygons (`[[polygons]]`, lattices of polygon sites).
    pub fn has_polygons(&self) -> bool {
        self.bodies.iter().any(|p| polygons::polygon_of(&p.body.shape).is_some())
    }

    /// Polyhedra may not overlap another body, nor spheres a mesh wall, at the start by more
    /// than [`POLYHEDRON_OVERLAP_TOLERANCE`] of the smaller particle radius (a wall has
    /// none), as the exact
    /// contact generators of the maker measure it; the error names both bodies' keys.
    /// Skipped when the scene sets `accept_overlaps`.
    fn check_polyhedra_overlaps(&self) -> Result<()> {
        if !self.has_custom_shapes() || self.spec.simulation.accept_overlaps {
            return Ok(());
        }
        let world = self.build_world()?;
        let b = &world.bodies;
        let radius: Vec<f64> = self.bodies.iter().map(|p| particle_radius(&p.body).unwrap_or(f64::INFINITY)).collect();
        let boxes: Vec<_> = (0..b.len()).map(|i| b.aabb(i)).collect();
        let custom = |i: usize| matches!(b.shape[i], granula_core::Shape::Custom(_));
        let mut points = Vec::new();
        let mut test = |i: usize, j: usize| -> Result<()> {
            if !(custom(i) || custom(j)) || !world.narrowphase().supports(&b.shape[i], &b.shape[j]) {
                return Ok(());
            }
            points.clear();
            if world.narrowphase().collide(b, i, j, 0.0, &mut points).is_err() {
                return Ok(());
            }
            let depth = points.iter().map(|g| -g.gap).fold(0.0, f64::max);
            if depth > POLYHEDRON_OVERLAP_TOLERANCE * radius[i].min(radius[j]) {
                let (first, second) = (i.min(j), i.max(j));
                let key = self.bodies[second].origin.clone();
                let key_path = key.split(' ').next().unwrap_or(&key).to_string();
                let line = line_of(&self.text, &parse_origin(&key_path));
                return Err(IoError::InitialOverlap {
                    at: crate::error::Location { file: self.file.clone(), key, line },
                    other: self.bodies[first].origin.clone(),
                    overlap: depth,
                });
            }
            Ok(())
        };
        // Bounded bodies swept along x by their boxes; walls against every bounded body.
        let bounded = |i: &usize| boxes[*i].min.is_finite() && boxes[*i].max.is_finite();
        let mut sorted: Vec<usize> = (0..b.len()).filter(bounded).collect();
        sorted.sort_by(|&i, &j| boxes[i].min.x.total_cmp(&boxes[j].min.x).then(i.cmp(&j)));
        for (k, &i) in sorted.iter().enumerate() {
            for &j in &sorted[k + 1..] {
                if boxes[j].min.x > boxes[i].max.x {
                    break;
                }
                let (a, c) = (&boxes[i], &boxes[j]);
                if a.min.y <= c.max.y && c.min.y <= a.max.y && a.min.z <= c.max.z && c.min.z <= a.max.z {
                    test(i, j)?;
                }
            }
        }
        for w in (0..b.len()).filter(|i| !bounded(i)) {
            for &i in &sorted {
                test(w, i)?;
            }
        }
        Ok(())
    }

    /// Builds the world: materials, pair overrides, then the bodies in order.
    pub fn build_world(&self) -> Result<World> {
        let s = &self.spec.simulation;
        let mut b = World::builder();
        if self.has_polygons() {
            let mut narrowphase = granula_core::Narrowphase::new();
            polygons::register_polygon_generators(&mut narrowphase, &self.spec.solver)?;
            b = b.narrowphase(narrowphase);
        } else if let (true, Some(maker)) = (self.has_custom_shapes() || self.feeds_polyhedra(), &self.shapes) {
            let mut narrowphase = granula_core::Narrowphase::new();
            let contacts = match &self.spec.solver {
                spec::SolverSpec::Md(m) => m.polyhedron_contacts(),
                spec::SolverSpec::Nscd(_) => spec::PolyhedronContactKind::Points,
            };
            if self.has_custom_particles() {
                maker.register(&mut narrowphase, contacts)?;
            }
            if self.has_mesh_walls() {
                maker.register_mesh_walls(&mut narrowphase)?;
            }
            b = b.narrowphase(narrowphase);
        }
        let mut b = b
            .gravity(DVec3::from_array(s.gravity))
            .planar(s.planar)
            .max_overlap_ratio(s.max_overlap_ratio)
            .energy_reads(s.energy_reads)
            .energy_guard((s.energy_guard_every > 0).then_some(granula_core::EnergyGuard {
                every: s.energy_guard_every,
                max_gain: s.energy_guard_max_gain,
            }));
        for m in &self.materials {
            b = b.material(m.clone());
        }
        let domain = periodic::domain(&self.spec).map_err(granula_core::CoreError::from)?;
        for (axis, p) in domain.periodic_axes() {
            b = b.periodic(axis, p.lo, p.hi);
        }
        if let Some(s) = domain.shear() {
            b = b.shear(s.flow, s.gradient, s.rate);
        }
        let mut world = b.build()?;
        for &(a, c, p) in &self.pairs {
            world.materials.set_pair(MaterialId(a), MaterialId(c), p)?;
        }
        for plan in &self.bodies {
            world.insert(plan.body.clone())?;
        }
        if s.accept_overlaps {
            world.accept_overlaps();
        }
        Ok(world)
    }

    /// Notes on keys the scene sets that its solver does not use but that are accepted
    /// (elastic constants under contact dynamics), one line each naming the key and its
    /// line; `granula check` and `granula run` print them.
    pub fn notes(&self) -> Vec<String> {
        let c = Check::new(&self.file, &self.text, Vec::new());
        unused::notes(&c, &self.spec)
    }

    /// The time step (s): `[simulation] dt`, or `dt_fraction` × the contact time.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Index (and handle number) of the body with this name.
    pub fn body_named(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name.as_deref() == Some(name))
    }

    /// The smallest sphere radius of the scene, if it has spheres.
    pub fn min_radius(&self) -> Option<f64> {
        self.bodies.iter().filter_map(|b| b.body.shape.sphere_radius()).reduce(f64::min)
    }
}

/// Initial overlap allowed between a polyhedron and another body, as a fraction of the
/// smaller particle radius: the exact depth of a polyhedron contact carries the round-off
/// of its plane tests (about 1e-12 of the size), and scene files otherwise ask bodies not to
/// touch, so 1e-9 separates "touching" from "placed into each other" as for spheres.
pub const POLYHEDRON_OVERLAP_TOLERANCE: f64 = 1e-9;

/// The radius of a particle's bounding sphere: a sphere's radius, the largest distance of
/// a custom shape's surface vertex from its centre; `None` for walls.
fn particle_radius(b: &granula_core::RigidBody) -> Option<f64> {
    if let granula_core::Shape::Custom(c) = &b.shape {
        if c.is_wall() {
            return None;
        }
    }
    if let Some(p) = polygons::polygon_of(&b.shape) {
        return Some(p.polygon().circumradius());
    }
    match &b.shape {
        granula_core::Shape::Sphere { radius } => Some(*radius),
        granula_core::Shape::Custom(c) => {
            c.surface().map(|m| m.vertices.iter().map(|v| v.length()).fold(0.0, f64::max))
        }
        _ => None,
    }
}

/// `spheres[3]` → the key path `spheres[3]`.
fn parse_origin(origin: &str) -> KeyPath {
    let (name, rest) = origin.split_once('[').unwrap_or((origin, ""));
    let key: &'static str = match name {
        "spheres" => "spheres",
        "planes" => "planes",
        "polyhedra" => "polyhedra",
        "packings" => "packings",
        "lattices" => "lattices",
        "polygons" => "polygons",
        "meshes" => "meshes",
        _ => "cylinders",
    };
    let mut p = KeyPath::root().key(key);
    if let Ok(i) = rest.trim_end_matches(']').parse() {
        p = p.index(i);
    }
    p
}

/// The bodies of a scene in handle order: spheres, planes, cylinders, lattices, packings,
/// polyhedra, polygons, meshes (mesh walls come last, so that adding one to a scene keeps
/// the handles of its other bodies).
fn body_plans(c: &Check, spec: &SceneSpec, shapes: Option<&dyn ShapeMaker>, file: &str) -> Result<Vec<BodyPlan>> {
    let planar = spec.simulation.planar;
    let root = KeyPath::root();
    let mut plans = Vec::new();
    for (i, s) in spec.spheres.iter().enumerate() {
        plans.push(bodies::sphere(c, &root.key("spheres").index(i), s)?);
    }
    for (i, s) in spec.planes.iter().enumerate() {
        plans.push(bodies::plane(c, &root.key("planes").index(i), s)?);
    }
    for (i, s) in spec.cylinders.iter().enumerate() {
        plans.push(bodies::cylinder(c, &root.key("cylinders").index(i), s)?);
    }
    for (i, s) in spec.lattices.iter().enumerate() {
        plans.extend(bodies::lattice_bodies(c, &root.key("lattices").index(i), s, planar)?);
    }
    for (i, s) in spec.packings.iter().enumerate() {
        plans.extend(bodies::packing_bodies(c, &root.key("packings").index(i), s, planar, shapes)?);
    }
    let base = Path::new(file).parent().map(PathBuf::from).unwrap_or_default();
    for (i, s) in spec.polyhedra.iter().enumerate() {
        let path = root.key("polyhedra").index(i);
        let Some(maker) = shapes else {
            return Err(c.invalid(&path, s.name.as_deref().unwrap_or("polyhedron"), bodies::NO_MAKER));
        };
        plans.push(bodies::polyhedron(c, &path, s, maker, &base, planar)?);
    }
    for (i, s) in spec.polygons.iter().enumerate() {
        plans.push(polygons::polygon(c, &root.key("polygons").index(i), s, planar)?);
    }
    for (i, s) in spec.meshes.iter().enumerate() {
        let path = root.key("meshes").index(i);
        refuse_mesh_walls(c, spec, &path, s)?;
        plans.push(bodies::mesh_wall(c, &path, s, shapes, &base, planar)?);
    }
    Ok(plans)
}

/// The scenes a mesh wall may not be in: scenes with polyhedra and overlap-volume contacts
/// (a polyhedron touches a mesh wall at points, under either solver). The error names the
/// `[[meshes]]` entry.
fn refuse_mesh_walls(c: &Check, spec: &SceneSpec, path: &KeyPath, s: &spec::MeshWallSpec) -> Result<()> {
    let packed = spec.packings.iter().any(|p| p.polyhedra.is_some());
    if spec.polyhedra.is_empty() && !packed {
        return Ok(());
    }
    match &spec.solver {
        spec::SolverSpec::Md(m) if m.polyhedron_contacts() != spec::PolyhedronContactKind::Points => {
            let other = if packed { "a packing of polyhedra ([[packings]] polyhedra)" } else { "[[polyhedra]]" };
            Err(c.invalid(
                path,
                &s.file,
                format!(
                    "the scene has {other}, and polyhedra touch mesh walls at points: mesh walls need [solver] \
                     polyhedron_contacts = \"points\""
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// A file of the former planar format (a top-level `dimension` key) is refused with the
/// way to write it now, naming the key and its line.
fn refuse_old_planar_format(file: &str, text: &str) -> Result<()> {
    let Ok(table) = toml::from_str::<toml::Table>(text) else { return Ok(()) };
    let Some(value) = table.get("dimension") else { return Ok(()) };
    let c = Check::new(file, text, Vec::new());
    Err(c.invalid(
        &KeyPath::root().key("dimension"),
        value.to_string(),
        "the separate planar format is gone: a 2D scene is a scene with [simulation] planar = true \
         (polygons in [[polygons]], the 002 law as [solver] normal = \"area\"); \
         see docs/scene-format.md, \"Planar scenes (2D mode)\"",
    ))
}
