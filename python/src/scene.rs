//! `granula.Scene`: a scene built by a program. Spheres come from numpy arrays straight into
//! the scene's spec (no TOML text is written or read for them); walls, polyhedra, materials
//! and the settings come from keyword arguments, each table read by the scene schema when it
//! is added (an unknown keyword is refused at once, naming its key). `build` hands the spec
//! to the library's validation (`granula_io::Scene::from_spec_with`), the checks and
//! messages of a scene file.

use crate::errors::*;
use crate::simulation::*;
use granula_io::scene::spec::{SceneSpec, SimulationSpec, SolverSpec, SphereSpec};
use granula_io::IoError;
use granula_run::PolyhedraMaker;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use serde::de::DeserializeOwned;
use std::path::PathBuf;
use std::sync::Arc;

/// The name of a built scene in messages; mesh files are relative to the working folder.
pub(crate) const BUILT: &str = "<scene>";

/// The arrays of tables `Scene.add` takes, as the scene file names them.
const TABLES: [&str; 13] = [
    "materials",
    "pairs",
    "spheres",
    "planes",
    "cylinders",
    "lattices",
    "packings",
    "polyhedra",
    "polygons",
    "meshes",
    "loads",
    "feeds",
    "outlets",
];

/// A scene built by a program: settings, materials, bodies and generators appended to a
/// scene spec, validated as a scene file is when built.
#[pyclass(module = "granula", name = "Scene")]
pub struct SceneBuilder {
    pub(crate) spec: SceneSpec,
}

/// `a.b`, or `b` when `a` is empty.
fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}.{b}")
    }
}

/// The keyword arguments `keys` (and the dict `settings`) as a TOML table whose keys sit
/// under `at` in messages; None values are left out (the key's default).
fn table_of(settings: Option<&Bound<'_, PyAny>>, keys: Option<&Bound<'_, PyDict>>, at: &str) -> PyResult<toml::Table> {
    let mut table = toml::Table::new();
    for source in [settings, keys.map(|k| k.as_any())].into_iter().flatten() {
        if source.is_none() {
            continue;
        }
        let Ok(d) = source.downcast::<PyDict>() else {
            return Err(scene_key_error(BUILT, at, &format!("settings must be a dict, not {}", source.get_type())));
        };
        for (k, v) in d.iter() {
            let k: String = k.extract().map_err(|_| scene_key_error(BUILT, at, "a key that is not a string"))?;
            if v.is_none() {
                continue;
            }
            let value = to_toml(&v, &join(at, &k), BUILT)?;
            table.insert(k, value);
        }
    }
    Ok(table)
}

/// `table` read by the scene schema as a `T` (the keys of `[[planes]]`, say): the errors of
/// a scene file (unknown key, wrong type or length, missing key), named by their key path
/// under `at` (`planes[3].normal`).
fn read_table<T: DeserializeOwned>(at: &str, table: toml::Table) -> PyResult<T> {
    let text = toml::to_string(&table).map_err(|e| scene_key_error(BUILT, at, &e.to_string()))?;
    toml::from_str::<T>(&text).map_err(|e| {
        let message = match granula_io::scene::schema_error(BUILT, &text, &e) {
            IoError::Parse { message, .. } => message,
            other => other.to_string(),
        };
        // The reader's message names the key within the table (`key `normal`: ...`) or the
        // missing one (`missing field `point``).
        if let Some((key, problem)) = message.strip_prefix("key `").and_then(|r| r.split_once("`: ")) {
            return scene_key_error(BUILT, &join(at, key), problem);
        }
        if let Some((key, _)) = message.strip_prefix("missing field `").and_then(|r| r.split_once('`')) {
            return scene_key_error(BUILT, &join(at, key), &message);
        }
        // Inside a tagged table (a polyhedron's `shape`) the reader reports the table's
        // header: the table is the key.
        let header = e.span().and_then(|span| {
            let line = text[..span.start.min(text.len())].rsplit('\n').next().unwrap_or("");
            let rest = text[span.start.min(text.len())..].split('\n').next().unwrap_or("");
            format!("{line}{rest}").trim().strip_prefix('[')?.strip_suffix(']').map(str::to_string)
        });
        match header {
            Some(table) if !table.starts_with('[') => scene_key_error(BUILT, &join(at, &table), &message),
            _ => scene_key_error(BUILT, at, &message),
        }
    })
}

/// A float64 array of `value` (anything numpy reads as numbers), C-contiguous, with its
/// shape; ValueError naming the argument otherwise.
fn float_array(py: Python<'_>, value: &Bound<'_, PyAny>, arg: &str) -> PyResult<(Vec<f64>, Vec<usize>)> {
    let np = py.import("numpy")?;
    let arr = np
        .call_method1("asarray", (value, "float64"))
        .map_err(|e| PyValueError::new_err(format!("{arg}: not an array of numbers ({e})")))?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    let bytes = np.call_method1("ascontiguousarray", (arr, "<f8"))?.call_method0("tobytes")?;
    let bytes = bytes.downcast::<PyBytes>()?.as_bytes();
    let values = bytes.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8]))).collect();
    Ok((values, shape))
}

fn shape_text(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

/// Rows of three of `value`: an (n, 3) array, or one (3,) row (`rows` None: the count is
/// the array's) or one row for all `rows` (a broadcast).
fn vectors(py: Python<'_>, value: &Bound<'_, PyAny>, arg: &str, rows: Option<usize>) -> PyResult<Vec<[f64; 3]>> {
    let (v, shape) = float_array(py, value, arg)?;
    let as_rows = |v: &[f64]| v.chunks_exact(3).map(|r| [r[0], r[1], r[2]]).collect::<Vec<_>>();
    match (shape.as_slice(), rows) {
        ([3], None) => Ok(vec![[v[0], v[1], v[2]]]),
        ([3], Some(n)) => Ok(vec![[v[0], v[1], v[2]]; n]),
        ([n, 3], None) => Ok(as_rows(&v[..3 * n])),
        ([n, 3], Some(m)) if *n == m => Ok(as_rows(&v)),
        _ => {
            let expected = match rows {
                None => "(n, 3) or (3,)".to_string(),
                Some(n) => format!("({n}, 3) (one row per sphere) or (3,) (the same for all)"),
            };
            Err(PyValueError::new_err(format!("{arg}: shape {}, expected {expected}", shape_text(&shape))))
        }
    }
}

/// An (m, 3) array of integers (the triangles of a mesh) as TOML rows.
fn index_rows(py: Python<'_>, value: &Bound<'_, PyAny>, arg: &str) -> PyResult<toml::Value> {
    let np = py.import("numpy")?;
    let arr = np.call_method1("asarray", (value,))?;
    let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    if !matches!(kind.as_str(), "i" | "u") || !matches!(shape.as_slice(), [_, 3]) {
        return Err(PyValueError::new_err(format!(
            "{arg}: an array of dtype kind '{kind}' and shape {}, expected integer indices of shape (m, 3)",
            shape_text(&shape)
        )));
    }
    let rows: Vec<Vec<i64>> = arr.call_method1("astype", ("int64",))?.call_method0("tolist")?.extract()?;
    Ok(toml::Value::Array(
        rows.into_iter().map(|r| toml::Value::Array(r.into_iter().map(toml::Value::Integer).collect())).collect(),
    ))
}

fn float_rows(rows: &[[f64; 3]]) -> toml::Value {
    toml::Value::Array(
        rows.iter().map(|r| toml::Value::Array(r.iter().map(|x| toml::Value::Float(*x)).collect())).collect(),
    )
}

impl SceneBuilder {
    /// Appends a table of the array `kind` (`planes`, ...), read by the schema.
    fn append(&mut self, kind: &str, table: toml::Table) -> PyResult<()> {
        let s = &mut self.spec;
        macro_rules! push {
            ($list:expr) => {{
                let at = format!("{kind}[{}]", $list.len());
                $list.push(read_table(&at, table)?)
            }};
        }
        match kind {
            "materials" => push!(s.materials),
            "pairs" => push!(s.pairs),
            "spheres" => push!(s.spheres),
            "planes" => push!(s.planes),
            "cylinders" => push!(s.cylinders),
            "lattices" => push!(s.lattices),
            "packings" => push!(s.packings),
            "polyhedra" => push!(s.polyhedra),
            "polygons" => push!(s.polygons),
            "meshes" => push!(s.meshes),
            "loads" => push!(s.loads),
            "feeds" => push!(s.feeds),
            "outlets" => push!(s.outlets),
            _ => {
                return Err(scene_key_error(
                    BUILT,
                    kind,
                    &format!("not an array of tables of a scene; one of {}", TABLES.join(", ")),
                ))
            }
        }
        Ok(())
    }

    /// The validated scene (the library's checks, without the GIL).
    pub(crate) fn validated(&self, py: Python<'_>) -> PyResult<granula_io::Scene> {
        let spec = self.spec.clone();
        py.allow_threads(move || granula_io::Scene::from_spec_with(BUILT, spec, Some(Arc::new(PolyhedraMaker))))
            .map_err(|e| to_py(py, e, During::Scene))
    }
}

#[pymethods]
impl SceneBuilder {
    /// A scene with these `[simulation]` settings (a dict and/or keywords: dt, end_time or
    /// steps, gravity, ...), an MD solver with its defaults, no bodies and no outputs.
    #[new]
    #[pyo3(signature = (settings = None, /, **keys))]
    fn new(settings: Option<&Bound<'_, PyAny>>, keys: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let simulation: SimulationSpec = read_table("simulation", table_of(settings, keys, "simulation")?)?;
        let mut kind = toml::Table::new();
        kind.insert("kind".into(), toml::Value::String("md".into()));
        let solver: SolverSpec = read_table("solver", kind)?;
        Ok(SceneBuilder {
            spec: SceneSpec {
                simulation,
                solver,
                materials: vec![],
                pairs: vec![],
                spheres: vec![],
                planes: vec![],
                cylinders: vec![],
                lattices: vec![],
                packings: vec![],
                polyhedra: vec![],
                polygons: vec![],
                meshes: vec![],
                loads: vec![],
                feeds: vec![],
                outlets: vec![],
                output: Default::default(),
            },
        })
    }

    /// Replaces the `[simulation]` settings.
    #[pyo3(signature = (settings = None, /, **keys))]
    fn simulation<'py>(
        mut slf: PyRefMut<'py, Self>,
        settings: Option<&Bound<'_, PyAny>>,
        keys: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        slf.spec.simulation = read_table("simulation", table_of(settings, keys, "simulation")?)?;
        Ok(slf)
    }

    /// Replaces the `[solver]`: its kind ("md" or "nscd", or a dict with `kind`) and keys.
    #[pyo3(signature = (kind = None, /, **keys))]
    fn solver<'py>(
        mut slf: PyRefMut<'py, Self>,
        kind: Option<&Bound<'_, PyAny>>,
        keys: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let mut table = match kind {
            Some(k) if k.is_instance_of::<PyString>() => {
                let mut t = table_of(None, keys, "solver")?;
                t.insert("kind".into(), toml::Value::String(k.extract()?));
                t
            }
            other => table_of(other, keys, "solver")?,
        };
        if !table.contains_key("kind") {
            table.insert("kind".into(), toml::Value::String("md".into()));
        }
        slf.spec.solver = read_table("solver", table)?;
        Ok(slf)
    }

    /// Replaces the `[output]` settings (series, vtk, trajectories, ...).
    #[pyo3(signature = (settings = None, /, **keys))]
    fn output<'py>(
        mut slf: PyRefMut<'py, Self>,
        settings: Option<&Bound<'_, PyAny>>,
        keys: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        slf.spec.output = read_table("output", table_of(settings, keys, "output")?)?;
        Ok(slf)
    }

    /// Appends a material (the first is the default of bodies that name none).
    #[pyo3(signature = (name, **keys))]
    fn material<'py>(
        mut slf: PyRefMut<'py, Self>,
        name: String,
        keys: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let at = format!("materials[{}]", slf.spec.materials.len());
        let mut table = table_of(None, keys, &at)?;
        table.insert("name".into(), toml::Value::String(name));
        slf.append("materials", table)?;
        Ok(slf)
    }

    /// Appends the values of a pair of materials, overriding their mixing.
    #[pyo3(signature = (first, second, **keys))]
    fn pair<'py>(
        mut slf: PyRefMut<'py, Self>,
        first: String,
        second: String,
        keys: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let at = format!("pairs[{}]", slf.spec.pairs.len());
        let mut table = table_of(None, keys, &at)?;
        table.insert("materials".into(), toml::Value::Array(vec![first.into(), second.into()]));
        slf.append("pairs", table)?;
        Ok(slf)
    }

    /// Appends spheres: one row each of `position` (n, 3) and `radius` (n,) or a number;
    /// `velocity` and `angular_velocity` (n, 3) or (3,) for all; `name` a str for one
    /// sphere or a sequence of n (str or None); the other keys of `[[spheres]]` (material,
    /// motion, force, torque, mass, lock_rotation, lock_axes) are the same for all.
    #[pyo3(signature = (position, radius, velocity = None, angular_velocity = None, *, name = None, **keys))]
    #[allow(clippy::too_many_arguments)]
    fn spheres<'py>(
        mut slf: PyRefMut<'py, Self>,
        py: Python<'py>,
        position: &Bound<'_, PyAny>,
        radius: &Bound<'_, PyAny>,
        velocity: Option<&Bound<'_, PyAny>>,
        angular_velocity: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        keys: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let first = slf.spec.spheres.len();
        let position = vectors(py, position, "position", None)?;
        let n = position.len();
        let (r, shape) = float_array(py, radius, "radius")?;
        let radius = match shape.as_slice() {
            [] => vec![r[0]; n],
            [m] if *m == n => r,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "radius: shape {}, expected ({n},) (one per sphere) or a number",
                    shape_text(&shape)
                )))
            }
        };
        let zero = || vec![[0.0; 3]; n];
        let velocity = velocity.map(|v| vectors(py, v, "velocity", Some(n))).transpose()?.unwrap_or_else(zero);
        let angular =
            angular_velocity.map(|v| vectors(py, v, "angular_velocity", Some(n))).transpose()?.unwrap_or_else(zero);
        let names: Vec<Option<String>> = match name {
            None => vec![None; n],
            Some(s) if s.is_instance_of::<PyString>() => {
                if n != 1 {
                    return Err(PyValueError::new_err(format!(
                        "name: one name for {n} spheres; give a sequence of {n}"
                    )));
                }
                vec![Some(s.extract()?)]
            }
            Some(s) => {
                let names: Vec<Option<String>> = s
                    .extract()
                    .map_err(|_| PyValueError::new_err("name: a str, or a sequence of str or None, one per sphere"))?;
                if names.len() != n {
                    return Err(PyValueError::new_err(format!("name: {} names for {n} spheres", names.len())));
                }
                names
            }
        };
        // The keys common to all, read by the schema once (errors name the batch's first
        // sphere), on a stand-in of the per-sphere keys.
        let at = format!("spheres[{first}]");
        let mut table = table_of(None, keys, &at)?;
        table.insert("radius".into(), toml::Value::Float(1.0));
        table.insert("position".into(), toml::Value::Array(vec![toml::Value::Float(0.0); 3]));
        let template: SphereSpec = read_table(&at, table)?;
        let spheres = &mut slf.spec.spheres;
        spheres.reserve(n);
        for (k, name) in names.into_iter().enumerate() {
            spheres.push(SphereSpec {
                name,
                radius: radius[k],
                position: position[k],
                velocity: velocity[k],
                angular_velocity: angular[k],
                ..template.clone()
            });
        }
        Ok(slf)
    }

    /// Appends a plane wall through `point` with `normal` towards the particles; the other
    /// keys of `[[planes]]` (name, material, motion, velocity, ...).
    #[pyo3(signature = (point, normal, **keys))]
    fn plane<'py>(
        mut slf: PyRefMut<'py, Self>,
        point: &Bound<'_, PyAny>,
        normal: &Bound<'_, PyAny>,
        keys: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let at = format!("planes[{}]", slf.spec.planes.len());
        let mut table = table_of(None, keys, &at)?;
        table.insert("point".into(), to_toml(point, &join(&at, "point"), BUILT)?);
        table.insert("normal".into(), to_toml(normal, &join(&at, "normal"), BUILT)?);
        slf.append("planes", table)?;
        Ok(slf)
    }

    /// Appends a cylindrical wall; the other keys of `[[cylinders]]` (length, inside, ...).
    #[pyo3(signature = (center, axis, radius, **keys))]
    fn cylinder<'py>(
        mut slf: PyRefMut<'py, Self>,
        center: &Bound<'_, PyAny>,
        axis: &Bound<'_, PyAny>,
        radius: &Bound<'_, PyAny>,
        keys: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let at = format!("cylinders[{}]", slf.spec.cylinders.len());
        let mut table = table_of(None, keys, &at)?;
        table.insert("center".into(), to_toml(center, &join(&at, "center"), BUILT)?);
        table.insert("axis".into(), to_toml(axis, &join(&at, "axis"), BUILT)?);
        table.insert("radius".into(), to_toml(radius, &join(&at, "radius"), BUILT)?);
        slf.append("cylinders", table)?;
        Ok(slf)
    }

    /// Appends a polyhedron with its centre of mass at `position`: of a `shape` of the scene
    /// format (a dict with `kind`: "cube", "obj", ...), or of a triangle mesh, `vertices`
    /// (k, 3) and `faces` (m, 3) indices, counter-clockwise seen from outside.
    #[pyo3(signature = (position, shape = None, *, vertices = None, faces = None, **keys))]
    fn polyhedron<'py>(
        mut slf: PyRefMut<'py, Self>,
        py: Python<'py>,
        position: &Bound<'_, PyAny>,
        shape: Option<&Bound<'_, PyAny>>,
        vertices: Option<&Bound<'_, PyAny>>,
        faces: Option<&Bound<'_, PyAny>>,
        keys: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let at = format!("polyhedra[{}]", slf.spec.polyhedra.len());
        let mut table = table_of(None, keys, &at)?;
        let shape = match (shape, vertices, faces) {
            (Some(s), None, None) => to_toml(s, &join(&at, "shape"), BUILT)?,
            (None, Some(v), Some(f)) => {
                let mut mesh = toml::Table::new();
                mesh.insert("kind".into(), toml::Value::String("mesh".into()));
                mesh.insert("vertices".into(), float_rows(&vectors(py, v, "vertices", None)?));
                mesh.insert("faces".into(), index_rows(py, f, "faces")?);
                toml::Value::Table(mesh)
            }
            _ => {
                return Err(PyValueError::new_err(
                    "a polyhedron takes a shape, or vertices and faces (a triangle mesh), not both",
                ))
            }
        };
        table.insert("shape".into(), shape);
        table.insert("position".into(), to_toml(position, &join(&at, "position"), BUILT)?);
        slf.append("polyhedra", table)?;
        Ok(slf)
    }

    /// Appends a table to one of the scene's arrays of tables, as a scene file writes it:
    /// "lattices", "packings", "loads", "feeds", "outlets", "meshes", "polygons", or those of
    /// the other methods ("spheres" one at a time, "planes", ...).
    #[pyo3(signature = (kind, settings = None, /, **keys))]
    fn add<'py>(
        mut slf: PyRefMut<'py, Self>,
        kind: &str,
        settings: Option<&Bound<'_, PyAny>>,
        keys: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let table = table_of(settings, keys, kind)?;
        slf.append(kind, table)?;
        Ok(slf)
    }

    /// The scene as TOML text (what `granula run` reads; a built simulation's `scene_text`).
    fn to_toml(&self) -> PyResult<String> {
        self.spec.to_toml().map_err(|e| scene_key_error(BUILT, "", &e.to_string()))
    }

    /// Validates the scene (the checks of a scene file) and starts its run, writing the
    /// initial outputs to `out` (default: a new temporary folder).
    #[pyo3(signature = (out = None, overwrite = false))]
    fn build(&self, py: Python<'_>, out: Option<PathBuf>, overwrite: bool) -> PyResult<Simulation> {
        start(py, self.validated(py)?, out, overwrite)
    }

    /// Validates the scene without running it; returns the number of bodies.
    fn check(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.validated(py)?.bodies.len())
    }

    fn __repr__(&self) -> String {
        let s = &self.spec;
        let mut parts = Vec::new();
        let counts = [
            ("spheres", s.spheres.len()),
            ("planes", s.planes.len()),
            ("cylinders", s.cylinders.len()),
            ("polyhedra", s.polyhedra.len()),
            ("lattices", s.lattices.len()),
            ("packings", s.packings.len()),
            ("materials", s.materials.len()),
        ];
        for (name, n) in counts {
            if n > 0 {
                parts.push(format!("{n} {name}"));
            }
        }
        let solver = match &s.solver {
            SolverSpec::Md(_) => "md",
            SolverSpec::Nscd(_) => "nscd",
        };
        format!(
            "<granula.Scene: {}, solver {solver}>",
            if parts.is_empty() { "empty".into() } else { parts.join(", ") }
        )
    }
}
