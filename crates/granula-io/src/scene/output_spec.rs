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
}

/// An output interval.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EverySpec {
    /// Write every this many steps (≥ 1).
    pub every: u64,
}

/// `[output.trajectories]`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TrajectorySpec {
    /// Names of the bodies to follow.
    pub bodies: Vec<String>,
    /// Interval in steps.
    pub every: u64,
}

/// `[[output.stress]]`: Love-Weber stress and packing fraction of a box.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StressSpec {
    /// Name, used in the file name `stress_<name>.csv`.
    pub name: String,
    /// Lower corner (m).
    pub min: [f64; 3],
    /// Upper corner (m).
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
