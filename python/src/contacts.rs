//! `Contacts`: the published contacts of the last step as numpy arrays.

use pyo3::prelude::*;

/// The contacts of the last step (copies). Rows are contact points; `i` and `j` are the ids
/// of body 1 and body 2, the normal points from body 1 to body 2, forces act on body 2.
#[pyclass(module = "granula", frozen)]
pub(crate) struct Contacts {
    /// Id of body 1 (uint32).
    #[pyo3(get)]
    pub(crate) i: PyObject,
    /// Id of body 2 (uint32).
    #[pyo3(get)]
    pub(crate) j: PyObject,
    /// Contact point (m), shape (m, 3).
    #[pyo3(get)]
    pub(crate) point: PyObject,
    /// Unit normal from body 1 to body 2, shape (m, 3).
    #[pyo3(get)]
    pub(crate) normal: PyObject,
    /// Force on body 2 (N), shape (m, 3).
    #[pyo3(get)]
    pub(crate) force: PyObject,
    /// Normal component f·n of the force on body 2 (N): positive when pushed apart.
    #[pyo3(get)]
    pub(crate) normal_force: PyObject,
    /// Tangential part f − (f·n) n of the force on body 2 (N), shape (m, 3).
    #[pyo3(get)]
    pub(crate) tangential_force: PyObject,
    /// Overlap −gap (m): positive when the surfaces overlap.
    #[pyo3(get)]
    pub(crate) overlap: PyObject,
    /// The law's status: 0 open, 1 sticking, 2 sliding, 3 cohesive (`granula.CONTACT_STATUS`).
    #[pyo3(get)]
    pub(crate) status: PyObject,
    /// The step these contacts belong to.
    #[pyo3(get)]
    pub(crate) step: u64,
    /// False when the solver published no contacts for that step (no step yet since the
    /// start or a load).
    #[pyo3(get)]
    pub(crate) published: bool,
}

#[pymethods]
impl Contacts {
    pub(crate) fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.i.bind(py).len()
    }

    pub(crate) fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("<granula.Contacts: {} contacts of step {}>", self.__len__(py)?, self.step))
    }
}
