//! `Simulation`: a scene run stepped from Python, the GIL released while Rust runs.

use crate::arrays::*;
use crate::bodies::*;
use crate::contacts::*;
use crate::errors::*;
use crate::scene::SceneBuilder;
use granula_core::{BodySet, ContactStatus, StepReport};
use granula_io::scene::spec::SolverSpec;
use granula_io::IoError;
use granula_run::{ExistingOutput, Run};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A pointer to the run, moved into the closure of `allow_threads`. That closure runs on
/// the calling thread, while the caller holds the simulation's only mutable borrow, so
/// nothing else reaches the run meanwhile.
pub(crate) struct RunPtr(*mut Run);
// SAFETY: see above; the pointer never leaves the calling thread.
unsafe impl Send for RunPtr {}

/// How a stretch of steps without the GIL ended.
pub(crate) enum Stretch {
    Done,
    Interrupted(PyErr),
    Failed(IoError, u64),
}

/// The interval between two looks at Python's signal handlers while steps run.
pub(crate) const SIGNAL_CHECK: Duration = Duration::from_millis(10);

/// A scene run: the world, its solver, its outputs and checkpoints.
#[pyclass(module = "granula", unsendable)]
pub struct Simulation {
    pub(crate) run: Option<Run>,
    /// Whether the body columns keep their storage for the whole run (no reordering, no
    /// removal), so that numpy views of them stay valid.
    pub(crate) stable_columns: bool,
    /// The body columns of a closed run, kept for the views that may read them.
    pub(crate) retired: Option<BodySet>,
    /// Whether the last step of each call, and each step a callback sees, publishes its
    /// contacts (`Simulation.contacts`).
    #[pyo3(get, set)]
    pub(crate) keep_contacts: bool,
}

impl Simulation {
    pub(crate) fn new(run: Run) -> Self {
        let s = &run.scene.spec;
        let reorders = matches!(&s.solver, SolverSpec::Md(md) if md.reorder_every.is_some());
        let removes = s.output.flow.as_ref().is_some_and(|f| f.remove_below.is_some());
        let stable_columns = !reorders && !removes;
        Simulation { run: Some(run), stable_columns, retired: None, keep_contacts: true }
    }

    pub(crate) fn live(&self) -> PyResult<&Run> {
        self.run.as_ref().ok_or_else(|| SimulationError::new_err("this simulation was closed"))
    }

    pub(crate) fn live_mut(&mut self) -> PyResult<&mut Run> {
        self.run.as_mut().ok_or_else(|| SimulationError::new_err("this simulation was closed"))
    }
}

/// Steps `slf` up to step `target`, without the GIL, calling `callback(sim)` after every
/// step that is a multiple of `every`; the last step publishes its contacts.
pub(crate) fn drive(
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
/// `file` names the scene in messages (`<dict>`, `<scene>`).
pub(crate) fn to_toml(v: &Bound<'_, PyAny>, key: &str, file: &str) -> PyResult<toml::Value> {
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
            let k: String = k.extract().map_err(|_| scene_key_error(file, key, "a key that is not a string"))?;
            let path = if key.is_empty() { k.clone() } else { format!("{key}.{k}") };
            if x.is_none() {
                continue;
            }
            t.insert(k, to_toml(&x, &path, file)?);
        }
        return Ok(toml::Value::Table(t));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = v.try_iter()?.collect::<PyResult<_>>()?;
        let values =
            items.iter().enumerate().map(|(i, x)| to_toml(x, &format!("{key}[{i}]"), file)).collect::<PyResult<_>>()?;
        return Ok(toml::Value::Array(values));
    }
    // numpy arrays and scalars.
    if v.hasattr("tolist")? {
        return to_toml(&v.call_method0("tolist")?, key, file);
    }
    Err(scene_key_error(
        file,
        key,
        &format!("a value of type {} (expected a number, string, bool, list or dict)", v.get_type()),
    ))
}

/// The run of a validated scene, its initial outputs written to `out` (default: a new
/// temporary folder).
pub(crate) fn start(
    py: Python<'_>,
    scene: granula_io::Scene,
    out: Option<PathBuf>,
    overwrite: bool,
) -> PyResult<Simulation> {
    let out = out_dir(py, out)?;
    let existing = if overwrite { ExistingOutput::Overwrite } else { ExistingOutput::Refuse };
    let run = Run::start_with(scene, &out, existing).map_err(|e| to_py(py, e, During::Scene))?;
    Ok(Simulation::new(run))
}

/// The output folder: `out`, or a new temporary folder.
pub(crate) fn out_dir(py: Python<'_>, out: Option<PathBuf>) -> PyResult<PathBuf> {
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
    pub(crate) fn from_scene(
        py: Python<'_>,
        scene: &Bound<'_, PyAny>,
        out: Option<PathBuf>,
        overwrite: bool,
    ) -> PyResult<Self> {
        if let Ok(built) = scene.downcast::<SceneBuilder>() {
            return start(py, built.borrow().validated(py)?, out, overwrite);
        }
        let parsed = if let Ok(d) = scene.downcast::<PyDict>() {
            let table = match to_toml(d.as_any(), "", "<dict>")? {
                toml::Value::Table(t) => t,
                _ => unreachable!("a dict converts to a table"),
            };
            let text = toml::to_string(&table).map_err(|e| scene_key_error("<dict>", "", &e.to_string()))?;
            granula_run::parse_scene("<dict>", &text)
        } else {
            let path: PathBuf = scene.extract()?;
            granula_run::load_scene(&path)
        }
        .map_err(|e| to_py(py, e, During::Scene))?;
        start(py, parsed, out, overwrite)
    }

    /// Continues from a checkpoint file (written by `save` or by the `granula` command),
    /// writing to `out` or, by default, to the checkpoint's own output folder.
    #[staticmethod]
    #[pyo3(signature = (path, out = None))]
    pub(crate) fn load(py: Python<'_>, path: PathBuf, out: Option<PathBuf>) -> PyResult<Self> {
        let run = Run::resume(&path, out.as_deref()).map_err(|e| to_py(py, e, During::Scene))?;
        Ok(Simulation::new(run))
    }

    /// Writes a checkpoint file, the same bytes as the `granula` command's `checkpoint.bin`
    /// for the same state and output folder.
    pub(crate) fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let run = self.live()?;
        let step = run.world.step_count();
        run.checkpoint().and_then(|c| c.save(&path)).map_err(|e| to_py(py, e, During::Step(step)))
    }

    /// Takes `n` steps (at most the steps left in the scene).
    #[pyo3(signature = (n = 1))]
    pub(crate) fn step(slf: &Bound<'_, Self>, n: u64) -> PyResult<()> {
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
    pub(crate) fn run(
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
    pub(crate) fn close(&mut self) {
        if let Some(mut run) = self.run.take() {
            // Views of the columns may still be read: their buffers are kept (a Vec moved
            // keeps its heap buffer), the rest of the run is dropped.
            self.retired = Some(std::mem::take(&mut run.world.bodies));
        }
    }

    /// The bodies: numpy arrays of their state, one row per body in storage order.
    #[getter]
    pub(crate) fn bodies(slf: &Bound<'_, Self>) -> PyResult<Bodies> {
        slf.try_borrow()?.live()?;
        Ok(Bodies { sim: slf.clone().unbind() })
    }

    /// The contacts of the last step, as numpy arrays (copies).
    #[getter]
    pub(crate) fn contacts(&self, py: Python<'_>) -> PyResult<Contacts> {
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
    pub(crate) fn energy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
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
    pub(crate) fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        report_dict(py, &self.live()?.last_report)
    }

    /// Steps taken.
    #[getter]
    pub(crate) fn step_count(&self) -> PyResult<u64> {
        Ok(self.live()?.world.step_count())
    }

    /// Simulated time (s).
    #[getter]
    pub(crate) fn time(&self) -> PyResult<f64> {
        Ok(self.live()?.world.time())
    }

    /// The scene's time step (s).
    #[getter]
    pub(crate) fn dt(&self) -> PyResult<f64> {
        Ok(self.live()?.scene.dt())
    }

    /// The scene's number of steps.
    #[getter]
    pub(crate) fn steps(&self) -> PyResult<u64> {
        Ok(self.live()?.scene.steps)
    }

    /// The scene's end time (s).
    #[getter]
    pub(crate) fn end_time(&self) -> PyResult<f64> {
        let r = self.live()?;
        Ok(r.scene.steps as f64 * r.scene.dt())
    }

    /// True when every step of the scene is done.
    #[getter]
    pub(crate) fn done(&self) -> PyResult<bool> {
        Ok(self.live()?.is_done())
    }

    /// The output folder (absolute).
    #[getter]
    pub(crate) fn out_dir(&self) -> PyResult<PathBuf> {
        Ok(self.live()?.out_dir.clone())
    }

    /// The scene's TOML text (for a dict, the text it was converted to).
    #[getter]
    pub(crate) fn scene_text(&self) -> PyResult<String> {
        Ok(self.live()?.scene.text.clone())
    }

    /// The solver, as the `granula` command describes it.
    #[getter]
    pub(crate) fn solver(&self) -> PyResult<String> {
        Ok(self.live()?.solver.describe())
    }

    /// The warnings of the steps so far, one line each (the `granula` command's summary).
    #[getter]
    pub(crate) fn warnings(&self) -> PyResult<Vec<String>> {
        Ok(self.live()?.warnings.lines())
    }

    /// Whether `bodies.position` and the other columns are views of the library's memory
    /// (True) or copies (False: the scene reorders or removes bodies, so the columns move).
    #[getter]
    pub(crate) fn views(&self) -> bool {
        self.stable_columns
    }

    pub(crate) fn __repr__(&self) -> String {
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

pub(crate) fn report_dict<'py>(py: Python<'py>, r: &StepReport) -> PyResult<Bound<'py, PyDict>> {
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
