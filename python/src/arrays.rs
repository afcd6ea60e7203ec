//! numpy arrays over granula's memory: a view of the body columns or a buffer of its own.

use crate::simulation::*;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// Memory a numpy array reads: the simulation's columns (a view) or a buffer of its own
/// (a copy).
pub(crate) enum Owned {
    F64(Vec<f64>),
    U32(Vec<u32>),
    U8(Vec<u8>),
    Bool(Vec<bool>),
}

impl Owned {
    pub(crate) fn ptr_and_type(&self) -> (usize, &'static str) {
        match self {
            Owned::F64(v) => (v.as_ptr() as usize, "<f8"),
            Owned::U32(v) => (v.as_ptr() as usize, "<u4"),
            Owned::U8(v) => (v.as_ptr() as usize, "|u1"),
            Owned::Bool(v) => (v.as_ptr() as usize, "|b1"),
        }
    }

    /// A read-only numpy array of this buffer, of shape `shape`.
    pub(crate) fn array(self, py: Python<'_>, shape: Vec<usize>) -> PyResult<PyObject> {
        let (ptr, typestr) = self.ptr_and_type();
        let holder = ArrayMemory { interface: interface(py, ptr, typestr, &shape)?, _keep: Keep::Owned(self) };
        asarray(py, holder)
    }
}

/// What keeps an array's memory alive.
pub(crate) enum Keep {
    Owned(#[allow(dead_code)] Owned),
    Simulation(#[allow(dead_code)] Py<Simulation>),
}

/// The base object of granula's numpy arrays: numpy reads `__array_interface__` and keeps
/// this object as the array's base, which keeps the memory alive.
#[pyclass(module = "granula", frozen)]
pub(crate) struct ArrayMemory {
    pub(crate) interface: Py<PyDict>,
    pub(crate) _keep: Keep,
}

#[pymethods]
impl ArrayMemory {
    #[getter]
    pub(crate) fn __array_interface__(&self, py: Python<'_>) -> Py<PyDict> {
        self.interface.clone_ref(py)
    }
}

pub(crate) fn interface(py: Python<'_>, ptr: usize, typestr: &str, shape: &[usize]) -> PyResult<Py<PyDict>> {
    let d = PyDict::new(py);
    d.set_item("shape", PyTuple::new(py, shape)?)?;
    d.set_item("typestr", typestr)?;
    // Read-only: writes go through the validating setters.
    d.set_item("data", (ptr, true))?;
    d.set_item("version", 3)?;
    Ok(d.unbind())
}

pub(crate) fn asarray(py: Python<'_>, holder: ArrayMemory) -> PyResult<PyObject> {
    let holder = Bound::new(py, holder)?;
    Ok(py.import("numpy")?.call_method1("asarray", (holder,))?.unbind())
}
