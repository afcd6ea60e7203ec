//! The Python module `granula`: a scene run by the library's own runner (`granula_run::Run`),
//! its bodies as numpy arrays, its contacts, energy ledger and step report, checkpoints
//! shared with the `granula` command, and the library's errors as Python exceptions.
//!
//! No physics is done here: every step is `Run::step`, so a scene gives the same bits from
//! Python as from the command line.

use glam::{DQuat, DVec3};
use granula_core::{BodySet, ContactStatus, MotionKind, StepReport};
use granula_io::scene::spec::SolverSpec;
use granula_io::IoError;
use granula_run::{ExistingOutput, Run};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use std::path::PathBuf;
use std::time::{Duration, Instant};

// The numpy views read the body columns in place: a `Vec<DVec3>` must be n rows of three
// f64 (glam's DVec3 is `repr(C)` { x, y, z }) and a `Vec<DQuat>` n rows of four (x, y, z, w).
const _: () = assert!(std::mem::size_of::<DVec3>() == 24 && std::mem::align_of::<DVec3>() == 8);
const _: () = assert!(std::mem::size_of::<DQuat>() == 32 && std::mem::align_of::<DQuat>() == 8);

create_exception!(granula, GranulaError, PyException, "Base class of granula's errors.");
create_exception!(
    granula,
    SceneError,
    GranulaError,
    "An invalid scene: a TOML error, an unknown key, a value out of range, overlapping bodies. \
     Attributes `file`, `key`, `line` (None when not known)."
);
create_exception!(
    granula,
    SimulationError,
    GranulaError,
    "A step failed (a blow-up, a non-finite energy, a body too fast, a solver error) or the \
     simulation was used after `close()`. Attribute `step`: the steps taken when it happened."
);
create_exception!(
    granula,
    CheckpointError,
    GranulaError,
    "A checkpoint that cannot be read or continued (damaged, of another format, of a changed \
     mesh file). Attribute `path`."
);
create_exception!(
    granula,
    FileError,
    GranulaError,
    "A file or the output folder: not found, not a regular file, not empty, locked by another \
     run, not writable. Attribute `path`."
);

/// `granula.StateError`, a subclass of both `GranulaError` and `ValueError`: a write to the
/// state that does not fit (shape, non-finite value, a body that is not dynamic).
static STATE_ERROR: GILOnceCell<Py<PyType>> = GILOnceCell::new();

fn state_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    STATE_ERROR
        .get_or_try_init(py, || {
            let bases = PyTuple::new(py, [py.get_type::<GranulaError>(), py.get_type::<PyValueError>()])?;
            let ns = PyDict::new(py);
            ns.set_item("__module__", "granula")?;
            ns.set_item(
                "__doc__",
                "A write to the state that does not fit: wrong shape, a non-finite value, a \
                 body that is not dynamic. Also a ValueError.",
            )?;
            let t = py.get_type::<PyType>().call1(("StateError", bases, ns))?;
            Ok::<_, PyErr>(t.downcast_into::<PyType>()?.unbind())
        })
        .map(|t| t.bind(py))
}

fn state_error(py: Python<'_>, message: String) -> PyErr {
    match state_error_type(py) {
        Ok(t) => PyErr::from_type(t.clone(), message),
        Err(e) => e,
    }
}

/// Where an error came from: building a scene (a core error is then the scene's fault) or
/// stepping it.
#[derive(Clone, Copy)]
enum During {
    Scene,
    Step(u64),
}

/// `err` with the attribute `key` set to `value`.
fn with<'py, T: IntoPyObject<'py>>(py: Python<'py>, err: PyErr, key: &str, value: T) -> PyErr {
    // Setting an attribute on a fresh exception instance does not fail.
    let _ = err.value(py).setattr(key, value);
    err
}

/// The library's error as the Python exception of its kind, with its message and the
/// attributes that locate it.
fn to_py(py: Python<'_>, e: IoError, during: During) -> PyErr {
    let message = e.to_string();
    let scene = |file: Option<&str>, key: Option<&str>, line: Option<usize>| {
        let err = with(py, SceneError::new_err(message.clone()), "file", file);
        let err = with(py, err, "key", key);
        with(py, err, "line", line)
    };
    match &e {
        IoError::Parse { file, line, message: m, .. } => {
            // The scene reader's message starts with the key when it knows it.
            let key = m.strip_prefix("key `").and_then(|r| r.split_once('`')).map(|(k, _)| k);
            scene(Some(file), key, Some(*line))
        }
        IoError::Invalid { at, .. } | IoError::InitialOverlap { at, .. } | IoError::PackingFailed { at, .. } => {
            scene(Some(&at.file), Some(&at.key), at.line)
        }
        IoError::Checkpoint { path, .. } | IoError::CheckpointDamaged { path, .. } => {
            with(py, CheckpointError::new_err(message), "path", path.to_string_lossy())
        }
        IoError::File { path, .. } | IoError::InputFile { path, .. } | IoError::OutputFolder { path, .. } => {
            with(py, FileError::new_err(message), "path", path.to_string_lossy())
        }
        IoError::NonFinite { step, .. } => with(py, SimulationError::new_err(message), "step", *step),
        IoError::Core(_) | IoError::Solver(_) => match during {
            During::Scene => scene(None, None, None),
            During::Step(step) => with(py, SimulationError::new_err(message), "step", step),
        },
    }
}

/// A pointer to the run, moved into the closure of `allow_threads`. That closure runs on
/// the calling thread, while the caller holds the simulation's only mutable borrow, so
/// nothing else reaches the run meanwhile.
struct RunPtr(*mut Run);
// SAFETY: see above; the pointer never leaves the calling thread.
unsafe impl Send for RunPtr {}

/// How a stretch of steps without the GIL ended.
enum Stretch {
    Done,
    Interrupted(PyErr),
    Failed(IoError, u64),
}

/// The interval between two looks at Python's signal handlers while steps run.
const SIGNAL_CHECK: Duration = Duration::from_millis(10);

/// A scene run: the world, its solver, its outputs and checkpoints.
#[pyclass(module = "granula", unsendable)]
pub struct Simulation {
    run: Option<Run>,
    /// Whether the body columns keep their storage for the whole run (no reordering, no
    /// removal), so that numpy views of them stay valid.
    stable_columns: bool,
    /// The body columns of a closed run, kept for the views that may read them.
    retired: Option<BodySet>,
    /// Whether the last step of each call, and each step a callback sees, publishes its
    /// contacts (`Simulation.contacts`).
    #[pyo3(get, set)]
    keep_contacts: bool,
}

impl Simulation {
    fn new(run: Run) -> Self {
        let s = &run.scene.spec;
        let reorders = matches!(&s.solver, SolverSpec::Md(md) if md.reorder_every.is_some());
        let removes = s.output.flow.as_ref().is_some_and(|f| f.remove_below.is_some());
        let stable_columns = !reorders && !removes;
        Simulation { run: Some(run), stable_columns, retired: None, keep_contacts: true }
    }

    fn live(&self) -> PyResult<&Run> {
        self.run.as_ref().ok_or_else(|| SimulationError::new_err("this simulation was closed"))
    }

    fn live_mut(&mut self) -> PyResult<&mut Run> {
        self.run.as_mut().ok_or_else(|| SimulationError::new_err("this simulation was closed"))
    }
}

/// Steps `slf` up to step `target`, without the GIL, calling `callback(sim)` after every
/// step that is a multiple of `every`; the last step publishes its contacts.
fn drive(
    slf: &Bound<'_, Simulation>,
    target: u64,
    every: Option<u64>,
    callback: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let py = slf.py();
    loop {
        let mut sim = slf.try_borrow_mut()?;
        let publish = sim.keep_contacts;
        let run = sim.live_mut()?;
        let now = run.world.step_count();
        if now >= target {
            return Ok(());
        }
        let stop = match every {
            Some(k) => target.min((now / k + 1) * k),
            None => target,
        };
        let ptr = RunPtr(run as *mut Run);
        let outcome = py.allow_threads(move || {
            let ptr = ptr;
            // SAFETY: `RunPtr`: the run is borrowed mutably by this thread for the call.
            let run = unsafe { &mut *ptr.0 };
            let mut last_check = Instant::now();
            while run.world.step_count() < stop {
                let last = publish && run.world.step_count() + 1 == stop;
                if let Err(e) = run.step_publishing(last) {
                    return Stretch::Failed(e, run.world.step_count());
                }
                if run.world.step_count() < stop && last_check.elapsed() >= SIGNAL_CHECK {
                    last_check = Instant::now();
                    if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                        return Stretch::Interrupted(e);
                    }
                }
            }
            Stretch::Done
        });
        match outcome {
            Stretch::Done => {}
            Stretch::Interrupted(e) => return Err(e),
            Stretch::Failed(e, step) => return Err(to_py(py, e, During::Step(step))),
        }
        // The end of the scene: the final checkpoint, as the `granula` command writes it.
        if run.is_done() {
            let step = run.world.step_count();
            run.save_checkpoint().map_err(|e| to_py(py, e, During::Step(step)))?;
        }
        drop(sim);
        if let (Some(k), Some(f)) = (every, callback) {
            if stop % k == 0 {
                let answer = f.call1((slf,))?;
                if answer.is_instance_of::<PyBool>() && !answer.extract::<bool>()? {
                    return Ok(());
                }
            }
        }
        py.check_signals()?;
    }
}

/// A Python value of a scene dict as TOML.
fn to_toml(v: &Bound<'_, PyAny>, key: &str) -> PyResult<toml::Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(toml::Value::Integer(v.extract()?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract()?));
    }
    if let Ok(d) = v.downcast::<PyDict>() {
        let mut t = toml::Table::new();
        for (k, x) in d.iter() {
            let k: String = k.extract().map_err(|_| scene_dict_error(key, "a key that is not a string"))?;
            let path = if key.is_empty() { k.clone() } else { format!("{key}.{k}") };
            if x.is_none() {
                continue;
            }
            t.insert(k, to_toml(&x, &path)?);
        }
        return Ok(toml::Value::Table(t));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = v.try_iter()?.collect::<PyResult<_>>()?;
        let values =
            items.iter().enumerate().map(|(i, x)| to_toml(x, &format!("{key}[{i}]"))).collect::<PyResult<_>>()?;
        return Ok(toml::Value::Array(values));
    }
    // numpy arrays and scalars.
    if v.hasattr("tolist")? {
        return to_toml(&v.call_method0("tolist")?, key);
    }
    Err(scene_dict_error(
        key,
        &format!("a value of type {} (expected a number, string, bool, list or dict)", v.get_type()),
    ))
}

fn scene_dict_error(key: &str, problem: &str) -> PyErr {
    Python::with_gil(|py| {
        let err = SceneError::new_err(format!("<dict>: key `{key}`: {problem}"));
        let err = with(py, err, "file", "<dict>");
        let err = with(py, err, "key", key);
        with(py, err, "line", None::<usize>)
    })
}

/// The output folder: `out`, or a new temporary folder.
fn out_dir(py: Python<'_>, out: Option<PathBuf>) -> PyResult<PathBuf> {
    match out {
        Some(o) => Ok(o),
        None => {
            let d = py.import("tempfile")?.call_method1("mkdtemp", ("", "granula-"))?;
            Ok(PathBuf::from(d.extract::<String>()?))
        }
    }
}

#[pymethods]
impl Simulation {
    /// Reads a scene (a path to a TOML file, or a dict of the same structure) and builds
    /// the world and solver; writes the initial outputs to `out`.
    #[staticmethod]
    #[pyo3(signature = (scene, out = None, overwrite = false))]
    fn from_scene(py: Python<'_>, scene: &Bound<'_, PyAny>, out: Option<PathBuf>, overwrite: bool) -> PyResult<Self> {
        let parsed = if let Ok(d) = scene.downcast::<PyDict>() {
            let table = match to_toml(d.as_any(), "")? {
                toml::Value::Table(t) => t,
                _ => unreachable!("a dict converts to a table"),
            };
            let text = toml::to_string(&table).map_err(|e| scene_dict_error("", &e.to_string()))?;
            granula_run::parse_scene("<dict>", &text)
        } else {
            let path: PathBuf = scene.extract()?;
            granula_run::load_scene(&path)
        }
        .map_err(|e| to_py(py, e, During::Scene))?;
        let out = out_dir(py, out)?;
        let existing = if overwrite { ExistingOutput::Overwrite } else { ExistingOutput::Refuse };
        let run = Run::start_with(parsed, &out, existing).map_err(|e| to_py(py, e, During::Scene))?;
        Ok(Simulation::new(run))
    }

    /// Continues from a checkpoint file (written by `save` or by the `granula` command),
    /// writing to `out` or, by default, to the checkpoint's own output folder.
    #[staticmethod]
    #[pyo3(signature = (path, out = None))]
    fn load(py: Python<'_>, path: PathBuf, out: Option<PathBuf>) -> PyResult<Self> {
        let run = Run::resume(&path, out.as_deref()).map_err(|e| to_py(py, e, During::Scene))?;
        Ok(Simulation::new(run))
    }

    /// Writes a checkpoint file, the same bytes as the `granula` command's `checkpoint.bin`
    /// for the same state and output folder.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let run = self.live()?;
        let step = run.world.step_count();
        run.checkpoint().and_then(|c| c.save(&path)).map_err(|e| to_py(py, e, During::Step(step)))
    }

    /// Takes `n` steps (at most the steps left in the scene).
    #[pyo3(signature = (n = 1))]
    fn step(slf: &Bound<'_, Self>, n: u64) -> PyResult<()> {
        let target = {
            let sim = slf.try_borrow()?;
            let run = sim.live()?;
            let (now, end) = (run.world.step_count(), run.scene.steps);
            if n > end - now {
                return Err(PyValueError::new_err(format!(
                    "{n} steps asked at step {now}, but the scene ends at step {end} ({} left)",
                    end - now
                )));
            }
            now + n
        };
        drive(slf, target, None, None)
    }

    /// Steps until the time `until` (default: the scene's end), calling `callback(sim)`
    /// after every step whose number is a multiple of `every`; a callback returning False
    /// stops the run there.
    #[pyo3(signature = (until = None, every = None, callback = None))]
    fn run(
        slf: &Bound<'_, Self>,
        until: Option<f64>,
        every: Option<u64>,
        callback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let target = {
            let sim = slf.try_borrow()?;
            let run = sim.live()?;
            let (dt, end) = (run.scene.dt(), run.scene.steps);
            match until {
                None => end,
                Some(t) if !t.is_finite() => {
                    return Err(PyValueError::new_err(format!("until = {t} is not a finite time")))
                }
                Some(t) => {
                    let k = (t / dt - 1e-9).ceil().max(0.0);
                    if k > end as f64 {
                        return Err(PyValueError::new_err(format!(
                            "until = {t} s is after the scene's end ({} s, step {end})",
                            end as f64 * dt
                        )));
                    }
                    k as u64
                }
            }
        };
        if every == Some(0) {
            return Err(PyValueError::new_err("every must be at least 1"));
        }
        if callback.is_some() != every.is_some() {
            return Err(PyValueError::new_err("every and callback go together"));
        }
        drive(slf, target, every, callback)
    }

    /// Ends the run: releases the output folder (its lock) and frees the world. Any later
    /// use raises SimulationError; the numpy views made before stay readable.
    fn close(&mut self) {
        if let Some(mut run) = self.run.take() {
            // Views of the columns may still be read: their buffers are kept (a Vec moved
            // keeps its heap buffer), the rest of the run is dropped.
            self.retired = Some(std::mem::take(&mut run.world.bodies));
        }
    }

    /// The bodies: numpy arrays of their state, one row per body in storage order.
    #[getter]
    fn bodies(slf: &Bound<'_, Self>) -> PyResult<Bodies> {
        slf.try_borrow()?.live()?;
        Ok(Bodies { sim: slf.clone().unbind() })
    }

    /// The contacts of the last step, as numpy arrays (copies).
    #[getter]
    fn contacts(&self, py: Python<'_>) -> PyResult<Contacts> {
        let run = self.live()?;
        let b = &run.world.bodies;
        let records = run.solver.contacts().unwrap_or(&[]);
        let n = records.len();
        let id = |k: u32| b.handle.get(k as usize).map_or(u32::MAX, |h| h.0);
        let mut i = Vec::with_capacity(n);
        let mut j = Vec::with_capacity(n);
        let (mut point, mut normal, mut force, mut tangential) = (vec![], vec![], vec![], vec![]);
        let (mut normal_force, mut overlap, mut status) = (vec![], vec![], vec![]);
        for c in records {
            i.push(id(c.body1));
            j.push(id(c.body2));
            let fn_ = c.force.dot(c.normal);
            let ft = c.force - fn_ * c.normal;
            point.extend_from_slice(&c.point.to_array());
            normal.extend_from_slice(&c.normal.to_array());
            force.extend_from_slice(&c.force.to_array());
            tangential.extend_from_slice(&ft.to_array());
            normal_force.push(fn_);
            overlap.push(-c.gap);
            status.push(match c.status {
                ContactStatus::Open => 0u8,
                ContactStatus::Sticking => 1,
                ContactStatus::Sliding => 2,
                ContactStatus::Cohesive => 3,
            });
        }
        let v3 = |v: Vec<f64>| Owned::F64(v).array(py, vec![n, 3]);
        let v1 = |v: Vec<f64>| Owned::F64(v).array(py, vec![n]);
        Ok(Contacts {
            i: Owned::U32(i).array(py, vec![n])?,
            j: Owned::U32(j).array(py, vec![n])?,
            point: v3(point)?,
            normal: v3(normal)?,
            force: v3(force)?,
            normal_force: v1(normal_force)?,
            tangential_force: v3(tangential)?,
            overlap: v1(overlap)?,
            status: Owned::U8(status).array(py, vec![n])?,
            step: run.world.step_count(),
            published: run.solver.contacts().is_some(),
        })
    }

    /// The energy ledger (J): kinetic, potential, stored elastic, dissipated per mechanism
    /// and in all, external work, and the balance that stays constant in a closed system.
    #[getter]
    fn energy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let w = &self.live()?.world;
        let l = &w.ledger;
        let d = &l.dissipated;
        let out = PyDict::new(py);
        let kt = w.kinetic_energy_translational();
        let kr = w.kinetic_energy_rotational();
        let pot = w.potential_energy();
        let items = [
            ("kinetic_translational", kt),
            ("kinetic_rotational", kr),
            ("potential", pot),
            ("elastic_stored", l.stored_elastic),
            ("dissipated", d.total()),
            ("dissipated_normal", d.normal),
            ("dissipated_sliding", d.sliding),
            ("dissipated_rolling", d.rolling),
            ("dissipated_twisting", d.twisting),
            ("dissipated_cohesion", d.cohesion),
            ("dissipated_body_damping", d.body_damping),
            ("external_work", l.external_work),
            ("balance", kt + kr + pot + l.stored_elastic + d.total() - l.external_work),
        ];
        for (k, v) in items {
            out.set_item(k, v)?;
        }
        Ok(out)
    }

    /// The last step's report: contact counts, largest overlap, the iterations, residual and
    /// force balance of contact dynamics (NSCD), the energy of the step, its warnings.
    #[getter]
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        report_dict(py, &self.live()?.last_report)
    }

    /// Steps taken.
    #[getter]
    fn step_count(&self) -> PyResult<u64> {
        Ok(self.live()?.world.step_count())
    }

    /// Simulated time (s).
    #[getter]
    fn time(&self) -> PyResult<f64> {
        Ok(self.live()?.world.time())
    }

    /// The scene's time step (s).
    #[getter]
    fn dt(&self) -> PyResult<f64> {
        Ok(self.live()?.scene.dt())
    }

    /// The scene's number of steps.
    #[getter]
    fn steps(&self) -> PyResult<u64> {
        Ok(self.live()?.scene.steps)
    }

    /// The scene's end time (s).
    #[getter]
    fn end_time(&self) -> PyResult<f64> {
        let r = self.live()?;
        Ok(r.scene.steps as f64 * r.scene.dt())
    }

    /// True when every step of the scene is done.
    #[getter]
    fn done(&self) -> PyResult<bool> {
        Ok(self.live()?.is_done())
    }

    /// The output folder (absolute).
    #[getter]
    fn out_dir(&self) -> PyResult<PathBuf> {
        Ok(self.live()?.out_dir.clone())
    }

    /// The scene's TOML text (for a dict, the text it was converted to).
    #[getter]
    fn scene_text(&self) -> PyResult<String> {
        Ok(self.live()?.scene.text.clone())
    }

    /// The solver, as the `granula` command describes it.
    #[getter]
    fn solver(&self) -> PyResult<String> {
        Ok(self.live()?.solver.describe())
    }

    /// The warnings of the steps so far, one line each (the `granula` command's summary).
    #[getter]
    fn warnings(&self) -> PyResult<Vec<String>> {
        Ok(self.live()?.warnings.lines())
    }

    /// Whether `bodies.position` and the other columns are views of the library's memory
    /// (True) or copies (False: the scene reorders or removes bodies, so the columns move).
    #[getter]
    fn views(&self) -> bool {
        self.stable_columns
    }

    fn __repr__(&self) -> String {
        match &self.run {
            None => "<granula.Simulation (closed)>".into(),
            Some(r) => format!(
                "<granula.Simulation {}: {} bodies, step {} of {}, t = {} s, {}>",
                r.scene.file,
                r.world.bodies.len(),
                r.world.step_count(),
                r.scene.steps,
                r.world.time(),
                r.solver.describe()
            ),
        }
    }
}

fn report_dict<'py>(py: Python<'py>, r: &StepReport) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("contacts", r.contacts)?;
    out.set_item("pairs", r.pairs)?;
    let s = PyDict::new(py);
    s.set_item("open", r.status.open)?;
    s.set_item("sticking", r.status.sticking)?;
    s.set_item("sliding", r.status.sliding)?;
    s.set_item("cohesive", r.status.cohesive)?;
    out.set_item("status", s)?;
    out.set_item("max_overlap", r.max_overlap)?;
    out.set_item("max_overlap_ratio", r.max_overlap_ratio)?;
    out.set_item("max_overlap_pair", r.max_overlap_pair.map(|(a, b)| (a.0, b.0)))?;
    out.set_item("broadphase_rebuilds", r.broadphase_rebuilds)?;
    out.set_item("iterations", r.iterations)?;
    out.set_item("residual", r.residual)?;
    out.set_item("support_force", r.support_force.to_array())?;
    out.set_item("applied_load", r.applied_load.to_array())?;
    out.set_item("support_imbalance", r.support_imbalance())?;
    out.set_item("dissipated", r.dissipated.total())?;
    out.set_item("stored_elastic", r.stored_elastic)?;
    out.set_item("external_work", r.external_work)?;
    out.set_item("warnings", r.warnings.iter().map(|w| format!("{w:?}")).collect::<Vec<_>>())?;
    Ok(out)
}

/// Memory a numpy array reads: the simulation's columns (a view) or a buffer of its own
/// (a copy).
enum Owned {
    F64(Vec<f64>),
    U32(Vec<u32>),
    U8(Vec<u8>),
    Bool(Vec<bool>),
}

impl Owned {
    fn ptr_and_type(&self) -> (usize, &'static str) {
        match self {
            Owned::F64(v) => (v.as_ptr() as usize, "<f8"),
            Owned::U32(v) => (v.as_ptr() as usize, "<u4"),
            Owned::U8(v) => (v.as_ptr() as usize, "|u1"),
            Owned::Bool(v) => (v.as_ptr() as usize, "|b1"),
        }
    }

    /// A read-only numpy array of this buffer, of shape `shape`.
    fn array(self, py: Python<'_>, shape: Vec<usize>) -> PyResult<PyObject> {
        let (ptr, typestr) = self.ptr_and_type();
        let holder = ArrayMemory { interface: interface(py, ptr, typestr, &shape)?, _keep: Keep::Owned(self) };
        asarray(py, holder)
    }
}

/// What keeps an array's memory alive.
enum Keep {
    Owned(#[allow(dead_code)] Owned),
    Simulation(#[allow(dead_code)] Py<Simulation>),
}

/// The base object of granula's numpy arrays: numpy reads `__array_interface__` and keeps
/// this object as the array's base, which keeps the memory alive.
#[pyclass(module = "granula", frozen)]
struct ArrayMemory {
    interface: Py<PyDict>,
    _keep: Keep,
}

#[pymethods]
impl ArrayMemory {
    #[getter]
    fn __array_interface__(&self, py: Python<'_>) -> Py<PyDict> {
        self.interface.clone_ref(py)
    }
}

fn interface(py: Python<'_>, ptr: usize, typestr: &str, shape: &[usize]) -> PyResult<Py<PyDict>> {
    let d = PyDict::new(py);
    d.set_item("shape", PyTuple::new(py, shape)?)?;
    d.set_item("typestr", typestr)?;
    // Read-only: writes go through the validating setters.
    d.set_item("data", (ptr, true))?;
    d.set_item("version", 3)?;
    Ok(d.unbind())
}

fn asarray(py: Python<'_>, holder: ArrayMemory) -> PyResult<PyObject> {
    let holder = Bound::new(py, holder)?;
    Ok(py.import("numpy")?.call_method1("asarray", (holder,))?.unbind())
}

/// The contacts of the last step (copies). Rows are contact points; `i` and `j` are the ids
/// of body 1 and body 2, the normal points from body 1 to body 2, forces act on body 2.
#[pyclass(module = "granula", frozen)]
struct Contacts {
    /// Id of body 1 (uint32).
    #[pyo3(get)]
    i: PyObject,
    /// Id of body 2 (uint32).
    #[pyo3(get)]
    j: PyObject,
    /// Contact point (m), shape (m, 3).
    #[pyo3(get)]
    point: PyObject,
    /// Unit normal from body 1 to body 2, shape (m, 3).
    #[pyo3(get)]
    normal: PyObject,
    /// Force on body 2 (N), shape (m, 3).
    #[pyo3(get)]
    force: PyObject,
    /// Normal component f·n of the force on body 2 (N): positive when pushed apart.
    #[pyo3(get)]
    normal_force: PyObject,
    /// Tangential part f − (f·n) n of the force on body 2 (N), shape (m, 3).
    #[pyo3(get)]
    tangential_force: PyObject,
    /// Overlap −gap (m): positive when the surfaces overlap.
    #[pyo3(get)]
    overlap: PyObject,
    /// The law's status: 0 open, 1 sticking, 2 sliding, 3 cohesive (`granula.CONTACT_STATUS`).
    #[pyo3(get)]
    status: PyObject,
    /// The step these contacts belong to.
    #[pyo3(get)]
    step: u64,
    /// False when the solver published no contacts for that step (no step yet since the
    /// start or a load).
    #[pyo3(get)]
    published: bool,
}

#[pymethods]
impl Contacts {
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.i.bind(py).len()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("<granula.Contacts: {} contacts of step {}>", self.__len__(py)?, self.step))
    }
}

/// A column of the body set.
#[derive(Clone, Copy)]
enum Column {
    Position,
    Velocity,
    AngularVelocity,
    Force,
    Torque,
    Orientation,
    Radius,
    Mass,
}

impl Column {
    fn name(self) -> &'static str {
        match self {
            Column::Position => "position",
            Column::Velocity => "velocity",
            Column::AngularVelocity => "angular_velocity",
            Column::Force => "force",
            Column::Torque => "torque",
            Column::Orientation => "orientation",
            Column::Radius => "radius",
            Column::Mass => "mass",
        }
    }

    /// The column's first f64 and the f64 per row.
    fn memory(self, b: &BodySet) -> (*const f64, usize) {
        fn v3(v: &[DVec3]) -> (*const f64, usize) {
            (v.as_ptr().cast(), 3)
        }
        match self {
            Column::Position => v3(&b.position),
            Column::Velocity => v3(&b.velocity),
            Column::AngularVelocity => v3(&b.angular_velocity),
            Column::Force => v3(&b.force),
            Column::Torque => v3(&b.torque),
            Column::Orientation => (b.orientation.as_ptr().cast(), 4),
            Column::Radius => (b.radius.as_ptr(), 1),
            Column::Mass => (b.mass.as_ptr(), 1),
        }
    }

    fn writable(self, b: &mut BodySet) -> Option<&mut Vec<DVec3>> {
        match self {
            Column::Position => Some(&mut b.position),
            Column::Velocity => Some(&mut b.velocity),
            Column::AngularVelocity => Some(&mut b.angular_velocity),
            _ => None,
        }
    }
}

/// The bodies of a simulation (walls included), one row each in storage order. Each
/// attribute is a read-only numpy array: a view of the library's memory when
/// `Simulation.views` is True (it follows the steps), else a copy.
#[pyclass(module = "granula", frozen)]
struct Bodies {
    sim: Py<Simulation>,
}

impl Bodies {
    fn column(&self, py: Python<'_>, c: Column) -> PyResult<PyObject> {
        let sim = self.sim.bind(py).try_borrow()?;
        let b = &sim.live()?.world.bodies;
        let n = b.len();
        let (ptr, width) = c.memory(b);
        let shape = if width == 1 { vec![n] } else { vec![n, width] };
        if sim.stable_columns {
            let holder = ArrayMemory {
                interface: interface(py, ptr as usize, "<f8", &shape)?,
                _keep: Keep::Simulation(self.sim.clone_ref(py)),
            };
            asarray(py, holder)
        } else {
            // SAFETY: `ptr` is the start of a live column of n rows of `width` f64.
            let values = unsafe { std::slice::from_raw_parts(ptr, n * width) }.to_vec();
            Owned::F64(values).array(py, shape)
        }
    }

    fn set(&self, py: Python<'_>, c: Column, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let name = c.name();
        let np = py.import("numpy")?;
        let arr = np
            .call_method1("asarray", (value, "float64"))
            .map_err(|e| state_error(py, format!("{name}: not an array of numbers ({e})")))?;
        let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
        let mut sim = self.sim.bind(py).try_borrow_mut()?;
        let b = &mut sim.live_mut()?.world.bodies;
        let n = b.len();
        if shape != [n, 3] {
            return Err(state_error(
                py,
                format!(
                    "{name}: shape ({}), expected ({n}, 3) (one row per body)",
                    shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        let bytes = np.call_method1("ascontiguousarray", (arr, "<f8"))?.call_method0("tobytes")?;
        let bytes = bytes.downcast::<PyBytes>()?.as_bytes();
        let rows: Vec<DVec3> = bytes
            .chunks_exact(24)
            .map(|r| {
                let f = |k: usize| f64::from_le_bytes(r[8 * k..8 * k + 8].try_into().unwrap_or([0; 8]));
                DVec3::new(f(0), f(1), f(2))
            })
            .collect();
        for (k, r) in rows.iter().enumerate() {
            if !r.is_finite() {
                return Err(state_error(py, format!("{name} of body {} (row {k}): {r} is not finite", b.handle[k].0)));
            }
        }
        let motion = b.motion.clone();
        let handles = b.handle.clone();
        let Some(col) = c.writable(b) else {
            return Err(state_error(py, format!("{name} is read-only")));
        };
        for (k, (old, new)) in col.iter().zip(&rows).enumerate() {
            if motion[k] != MotionKind::Dynamic && old != new {
                return Err(state_error(
                    py,
                    format!(
                        "{name} of body {} (row {k}): the body is not dynamic (a wall, fixed or kinematic body moves \
                         as its scene says)",
                        handles[k].0
                    ),
                ));
            }
        }
        col.copy_from_slice(&rows);
        Ok(())
    }
}

#[pymethods]
impl Bodies {
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.sim.bind(py).try_borrow()?.live()?.world.bodies.len())
    }

    /// Body ids (the handles the scene gave them, uint32; a copy).
    #[getter]
    fn id(&self, py: Python<'_>) -> PyResult<PyObject> {
        let sim = self.sim.bind(py).try_borrow()?;
        let b = &sim.live()?.world.bodies;
        let ids: Vec<u32> = b.handle.iter().map(|h| h.0).collect();
        let n = ids.len();
        Owned::U32(ids).array(py, vec![n])
    }

    /// True for dynamic bodies, False for walls, fixed and kinematic bodies (a copy).
    #[getter]
    fn dynamic(&self, py: Python<'_>) -> PyResult<PyObject> {
        let sim = self.sim.bind(py).try_borrow()?;
        let b = &sim.live()?.world.bodies;
        let d: Vec<bool> = b.motion.iter().map(|m| *m == MotionKind::Dynamic).collect();
        let n = d.len();
        Owned::Bool(d).array(py, vec![n])
    }

    /// Positions of the centres of mass (m), shape (n, 3).
    #[getter]
    fn get_position(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Position)
    }

    #[setter]
    fn set_position(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(py, Column::Position, value)
    }

    /// Velocities (m/s), shape (n, 3).
    #[getter]
    fn get_velocity(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Velocity)
    }

    #[setter]
    fn set_velocity(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(py, Column::Velocity, value)
    }

    /// Angular velocities, world frame (rad/s), shape (n, 3).
    #[getter]
    fn get_angular_velocity(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::AngularVelocity)
    }

    #[setter]
    fn set_angular_velocity(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(py, Column::AngularVelocity, value)
    }

    /// Total force of the last step (N), shape (n, 3).
    #[getter]
    fn force(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Force)
    }

    /// Total torque of the last step (N m), shape (n, 3).
    #[getter]
    fn torque(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Torque)
    }

    /// Orientations as unit quaternions (x, y, z, w), shape (n, 4).
    #[getter]
    fn orientation(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Orientation)
    }

    /// Radii (m); for a body that is not a sphere, the radius of its bounding sphere.
    #[getter]
    fn radius(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Radius)
    }

    /// Masses (kg).
    #[getter]
    fn mass(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Mass)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("<granula.Bodies: {} bodies>", self.__len__(py)?))
    }
}

/// granula from Python.
#[pymodule]
fn granula(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Simulation>()?;
    m.add_class::<Bodies>()?;
    m.add_class::<Contacts>()?;
    m.add("GranulaError", py.get_type::<GranulaError>())?;
    m.add("SceneError", py.get_type::<SceneError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("CheckpointError", py.get_type::<CheckpointError>())?;
    m.add("FileError", py.get_type::<FileError>())?;
    m.add("StateError", state_error_type(py)?)?;
    m.add("CONTACT_STATUS", ("open", "sticking", "sliding", "cohesive"))?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
