//! The `[output]` part of the scene schema.

use serde::{Deserialize, Serialize};

/// `[output]`: what to write and how often. Intervals are in steps.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// VTK frames (particles, contacts, walls) and the `.pvd` collection.
    pub vtk: Option<EverySpec>,
    /// The CSV time series.
    pub series: Option<EverySpec>,
    /// Trajectories of named bodies.
    pub trajectories: Option<TrajectorySpec>,
    /// Contact-force lists.
    pub contacts: Option<EverySpec>,
    /// Stress tensor and packing fraction of regions.
    #[serde(default)]
    pub stress: Vec<StressSpec>,
    /// Mass flow through a horizontal plane (silo discharge).
    pub flow: Option<FlowSpec>,
    /// Periodic checkpoints (besides the one written on Ctrl-C).
    pub checkpoint: Option<EverySpec>,
    /// Per-contact time series and contact start/end events of chosen bodies or pairs.
    pub contact_history: Option<ContactHistorySpec>,
    /// Force, torque and power of the contacts on each wall (`wall_loads.csv`).
    pub wall_loads: Option<EverySpec>,
}

/// An output interval.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EverySpec {
    /// Write every this many steps (≥ 1).
    pub every: u64,
}

/// `[output.trajectories]`: the followed bodies are the union of every selection below.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TrajectorySpec {
    /// Names of the bodies to follow. Default none.
    #[serde(default)]
    pub bodies: Vec<String>,
    /// Ranges `[first, last]` (inclusive) of body numbers (the handle order of
    /// `docs/scene-format.md`). Default none.
    #[serde(default, deserialize_with = "super::exact::vec_of_arrays")]
    pub indices: Vec<[u32; 2]>,
    /// Generators whose spheres are followed: a generator's `name`, or `"lattices[i]"` /
    /// `"packings[i]"`. Default none.
    #[serde(default)]
    pub generators: Vec<String>,
    /// Boxes: the bodies whose centre lies inside one at the start of the run (the
    /// selection is made once and kept). Default none.
    #[serde(default)]
    pub regions: Vec<BoxSpec>,
    /// Interval in steps.
    pub every: u64,
}

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BoxSpec {
    /// Lower corner (m).
    #[serde(deserialize_with = "super::exact::array")]
    pub min: [f64; 3],
    /// Upper corner (m).
    #[serde(deserialize_with = "super::exact::array")]
    pub max: [f64; 3],
}

/// `[output.contact_history]`: the contacts followed are those of a listed body (`bodies`)
/// or between a listed pair (`pairs`); with both lists empty, every contact.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ContactHistorySpec {
    /// Names of bodies: every contact of one of them is followed. Default none.
    #[serde(default)]
    pub bodies: Vec<String>,
    /// Pairs of body names: the contact between the two is followed. Default none.
    #[serde(default, deserialize_with = "super::exact::vec_of_arrays")]
    pub pairs: Vec<[String; 2]>,
    /// Interval of `contact_history.csv` in steps (≥ 1); contact events are tracked at
    /// every step whatever this interval. Default 1.
    #[serde(default = "one")]
    pub every: u64,
}

fn one() -> u64 {
    1
}

/// `[[output.stress]]`: Love-Weber stress and packing fraction of a box.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StressSpec {
    /// Name, used in the file name `stress_<name>.csv`.
    pub name: String,
    /// Lower corner (m).
    #[serde(deserialize_with = "super::exact::array")]
    pub min: [f64; 3],
    /// Upper corner (m).
    #[serde(deserialize_with = "super::exact::array")]
    pub max: [f64; 3],
    /// Interval in steps.
    pub every: u64,
}

/// `[output.flow]`: counts the mass of dynamic spheres whose centre crossed `z` downwards.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Height of the counting plane (m).
    pub z: f64,
    /// Interval in steps.
    pub every: u64,
    /// Spheres whose centre falls below this height are removed (a sink), if given.
    pub remove_below: Option<f64>,
}
