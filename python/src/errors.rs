//! granula's errors as Python exceptions: the exception classes and the conversion of the
//! library's errors, with the attributes that locate them.

use granula_io::IoError;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyTuple, PyType};

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
pub(crate) static STATE_ERROR: GILOnceCell<Py<PyType>> = GILOnceCell::new();

pub(crate) fn state_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
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

pub(crate) fn state_error(py: Python<'_>, message: String) -> PyErr {
    match state_error_type(py) {
        Ok(t) => PyErr::from_type(t.clone(), message),
        Err(e) => e,
    }
}

/// Where an error came from: building a scene (a core error is then the scene's fault) or
/// stepping it.
#[derive(Clone, Copy)]
pub(crate) enum During {
    Scene,
    Step(u64),
}

/// `err` with the attribute `key` set to `value`.
pub(crate) fn with<'py, T: IntoPyObject<'py>>(py: Python<'py>, err: PyErr, key: &str, value: T) -> PyErr {
    // Setting an attribute on a fresh exception instance does not fail.
    let _ = err.value(py).setattr(key, value);
    err
}

/// The library's error as the Python exception of its kind, with its message and the
/// attributes that locate it.
pub(crate) fn to_py(py: Python<'_>, e: IoError, during: During) -> PyErr {
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
        IoError::Core(_) | IoError::Solver(_) | IoError::Feed(_) => match during {
            During::Scene => scene(None, None, None),
            During::Step(step) => with(py, SimulationError::new_err(message), "step", step),
        },
    }
}

/// A SceneError of a scene given in Python (`file`: `<dict>` for a dict, `<scene>` for a
/// `granula.Scene`) at the key path `key`, with no line.
pub(crate) fn scene_key_error(file: &str, key: &str, problem: &str) -> PyErr {
    Python::with_gil(|py| {
        let message =
            if key.is_empty() { format!("{file}: {problem}") } else { format!("{file}: key `{key}`: {problem}") };
        let err = with(py, SceneError::new_err(message), "file", file);
        let err = with(py, err, "key", (!key.is_empty()).then_some(key));
        with(py, err, "line", None::<usize>)
    })
}
