//! The Python module `granula`: a scene run by the library's own runner (`granula_run::Run`),
//! its bodies as numpy arrays, its contacts, energy ledger and step report, checkpoints
//! shared with the `granula` command, and the library's errors as Python exceptions.
//!
//! No physics is done here: every step is `Run::step`, so a scene gives the same bits from
//! Python as from the command line.

mod arrays;
mod bodies;
mod contacts;
mod errors;
mod scene;
mod simulation;

use bodies::Bodies;
use contacts::Contacts;
use errors::*;
use glam::{DQuat, DVec3};
use pyo3::prelude::*;
use scene::SceneBuilder;
use simulation::Simulation;

// The numpy views read the body columns in place: a `Vec<DVec3>` must be n rows of three
// f64 (glam's DVec3 is `repr(C)` { x, y, z }) and a `Vec<DQuat>` n rows of four (x, y, z, w).
const _: () = assert!(std::mem::size_of::<DVec3>() == 24 && std::mem::align_of::<DVec3>() == 8);
const _: () = assert!(std::mem::size_of::<DQuat>() == 32 && std::mem::align_of::<DQuat>() == 8);

/// granula from Python.
#[pymodule]
fn granula(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Simulation>()?;
    m.add_class::<SceneBuilder>()?;
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
