//! `Bodies`: the body columns as numpy arrays (views where the memory stays put).

use crate::arrays::*;
use crate::errors::*;
use crate::simulation::*;
use glam::DVec3;
use granula_core::{BodySet, MotionKind};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// A column of the body set.
#[derive(Clone, Copy)]
pub(crate) enum Column {
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
    pub(crate) fn name(self) -> &'static str {
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
    pub(crate) fn memory(self, b: &BodySet) -> (*const f64, usize) {
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

    pub(crate) fn writable(self, b: &mut BodySet) -> Option<&mut Vec<DVec3>> {
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
pub(crate) struct Bodies {
    pub(crate) sim: Py<Simulation>,
}

impl Bodies {
    pub(crate) fn column(&self, py: Python<'_>, c: Column) -> PyResult<PyObject> {
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

    pub(crate) fn set(&self, py: Python<'_>, c: Column, value: &Bound<'_, PyAny>) -> PyResult<()> {
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
    pub(crate) fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.sim.bind(py).try_borrow()?.live()?.world.bodies.len())
    }

    /// Body ids (the handles the scene gave them, uint32; a copy).
    #[getter]
    pub(crate) fn id(&self, py: Python<'_>) -> PyResult<PyObject> {
        let sim = self.sim.bind(py).try_borrow()?;
        let b = &sim.live()?.world.bodies;
        let ids: Vec<u32> = b.handle.iter().map(|h| h.0).collect();
        let n = ids.len();
        Owned::U32(ids).array(py, vec![n])
    }

    /// True for dynamic bodies, False for walls, fixed and kinematic bodies (a copy).
    #[getter]
    pub(crate) fn dynamic(&self, py: Python<'_>) -> PyResult<PyObject> {
        let sim = self.sim.bind(py).try_borrow()?;
        let b = &sim.live()?.world.bodies;
        let d: Vec<bool> = b.motion.iter().map(|m| *m == MotionKind::Dynamic).collect();
        let n = d.len();
        Owned::Bool(d).array(py, vec![n])
    }

    /// Positions of the centres of mass (m), shape (n, 3).
    #[getter]
    pub(crate) fn get_position(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Position)
    }

    #[setter]
    pub(crate) fn set_position(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(py, Column::Position, value)
    }

    /// Velocities (m/s), shape (n, 3).
    #[getter]
    pub(crate) fn get_velocity(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Velocity)
    }

    #[setter]
    pub(crate) fn set_velocity(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(py, Column::Velocity, value)
    }

    /// Angular velocities, world frame (rad/s), shape (n, 3).
    #[getter]
    pub(crate) fn get_angular_velocity(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::AngularVelocity)
    }

    #[setter]
    pub(crate) fn set_angular_velocity(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(py, Column::AngularVelocity, value)
    }

    /// Total force of the last step (N), shape (n, 3).
    #[getter]
    pub(crate) fn force(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Force)
    }

    /// Total torque of the last step (N m), shape (n, 3).
    #[getter]
    pub(crate) fn torque(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Torque)
    }

    /// Orientations as unit quaternions (x, y, z, w), shape (n, 4).
    #[getter]
    pub(crate) fn orientation(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Orientation)
    }

    /// Radii (m); for a body that is not a sphere, the radius of its bounding sphere.
    #[getter]
    pub(crate) fn radius(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Radius)
    }

    /// Masses (kg).
    #[getter]
    pub(crate) fn mass(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.column(py, Column::Mass)
    }

    pub(crate) fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("<granula.Bodies: {} bodies>", self.__len__(py)?))
    }
}
