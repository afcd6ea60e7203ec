//! The schema of planar scene files (serde, unknown keys rejected). Every field is
//! documented in `docs/scene-format.md`, section "Planar scenes (2D mode)".

use serde::Deserialize;

/// The whole file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlanarSpec {
    /// Must be 2: what tells the runner that the file is a planar scene.
    pub dimension: u32,
    pub simulation: SimulationSpec,
    /// Required by MD; optional under contact dynamics (friction and restitution only).
    pub law: Option<LawSpec>,
    #[serde(default)]
    pub solver: SolverSpec,
    #[serde(default)]
    pub domain: DomainSpec,
    #[serde(default)]
    pub bodies: Vec<BodySpec>,
    #[serde(default)]
    pub lattices: Vec<LatticeSpec>,
    #[serde(default)]
    pub rough_walls: Vec<RoughWallSpec>,
    #[serde(default)]
    pub walls: Vec<WallSpec>,
    #[serde(default)]
    pub output: OutputSpec,
}

/// `[simulation]`: time step, length of the run, gravity.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SimulationSpec {
    pub dt: Option<f64>,
    pub dt_fraction: Option<f64>,
    pub steps: Option<u64>,
    pub duration: Option<f64>,
    #[serde(default, deserialize_with = "granula_io::scene::exact::array")]
    pub gravity: [f64; 2],
    pub threads: Option<usize>,
}

/// Tangential rule of the law.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TangentialSpec {
    /// Cundall's spring (002 eqs. 6-7).
    #[default]
    Cundall,
    /// The predictor-based elongation (002 §4).
    Predictor,
}

/// `[law]`: the contact law of 002 (MD), or friction and restitution (contact dynamics).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LawSpec {
    pub normal_stiffness: Option<f64>,
    pub restitution: Option<f64>,
    pub normal_damping: Option<f64>,
    pub reduced_mass: Option<f64>,
    pub tangential_ratio: Option<f64>,
    pub friction: Option<f64>,
    pub tangential: Option<TangentialSpec>,
}

/// `[solver] kind`.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SolverKind {
    /// Soft contacts, Gear (002).
    #[default]
    Md,
    /// Rigid contacts, Moreau-Jean and nonlinear Gauss-Seidel (004 §2.3.3).
    Nscd,
}

/// `[solver] impact` of contact dynamics.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ImpactSpec {
    /// Perfectly inelastic (000 eq. 34).
    #[default]
    None,
    /// Newton's law with `law.restitution`.
    Newton,
}

/// `[solver] on_cap` of contact dynamics.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum OnCapSpec {
    /// Finish the step, count it, summarise at the end.
    #[default]
    Warn,
    /// Stop the run.
    Error,
    /// Sweep on up to `hard_cap`.
    Extend,
}

/// `[solver]`: the same key names as a 3D scene's `[solver]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SolverSpec {
    #[serde(default)]
    pub kind: SolverKind,
    pub theta: Option<f64>,
    pub tolerance: Option<f64>,
    pub max_iterations: Option<u32>,
    pub warm_start: Option<bool>,
    pub margin: Option<f64>,
    pub impact: Option<ImpactSpec>,
    pub on_cap: Option<OnCapSpec>,
    pub hard_cap: Option<u32>,
}

/// One periodic axis.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PeriodSpec {
    #[serde(default)]
    pub min: f64,
    pub length: f64,
}

/// `[domain]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DomainSpec {
    pub periodic_x: Option<PeriodSpec>,
    pub periodic_y: Option<PeriodSpec>,
    pub shear_rate: Option<f64>,
}

/// Kind of shape.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ShapeKind {
    Disc,
    Regular,
    Random,
    Vertices,
}

/// `shape = { kind = ..., ... }`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ShapeSpec {
    pub kind: ShapeKind,
    pub radius: Option<f64>,
    pub sides: Option<usize>,
    pub sides_max: Option<usize>,
    #[serde(default = "one")]
    pub elongation: f64,
    #[serde(default)]
    pub seed: u64,
    #[serde(default, deserialize_with = "granula_io::scene::exact::option_vec_of_arrays")]
    pub vertices: Option<Vec<[f64; 2]>>,
}

fn one() -> f64 {
    1.0
}

fn default_density() -> f64 {
    1000.0
}

/// `[[bodies]]`: one body.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BodySpec {
    pub shape: ShapeSpec,
    #[serde(deserialize_with = "granula_io::scene::exact::array")]
    pub position: [f64; 2],
    #[serde(default)]
    pub angle: f64,
    #[serde(default, deserialize_with = "granula_io::scene::exact::array")]
    pub velocity: [f64; 2],
    #[serde(default)]
    pub angular_velocity: f64,
    #[serde(default = "default_density")]
    pub density: f64,
    pub mass: Option<f64>,
    #[serde(default)]
    pub prescribed: bool,
    #[serde(default)]
    pub lock_rotation: bool,
    #[serde(default, deserialize_with = "granula_io::scene::exact::option_array")]
    pub force: Option<[f64; 2]>,
}

/// `[[lattices]]`: a triangular lattice of free bodies.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LatticeSpec {
    pub shape: ShapeSpec,
    pub columns: usize,
    pub rows: usize,
    #[serde(deserialize_with = "granula_io::scene::exact::array")]
    pub origin: [f64; 2],
    pub spacing: f64,
    #[serde(default = "default_density")]
    pub density: f64,
    #[serde(default = "yes")]
    pub random_angle: bool,
    #[serde(default)]
    pub seed: u64,
}

fn yes() -> bool {
    true
}

/// `[[rough_walls]]`: a row of glued particles moving at a prescribed velocity.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RoughWallSpec {
    pub shape: ShapeSpec,
    pub count: usize,
    #[serde(deserialize_with = "granula_io::scene::exact::array")]
    pub start: [f64; 2],
    pub spacing: f64,
    #[serde(default, deserialize_with = "granula_io::scene::exact::array")]
    pub velocity: [f64; 2],
    #[serde(default = "default_density")]
    pub density: f64,
    #[serde(default = "yes")]
    pub random_angle: bool,
    #[serde(default)]
    pub seed: u64,
}

/// `[[walls]]`: a straight wall (a half-plane), fixed or translating at `velocity`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WallSpec {
    #[serde(deserialize_with = "granula_io::scene::exact::array")]
    pub point: [f64; 2],
    #[serde(deserialize_with = "granula_io::scene::exact::array")]
    pub normal: [f64; 2],
    #[serde(default, deserialize_with = "granula_io::scene::exact::array")]
    pub velocity: [f64; 2],
}

/// Positions written to the VTK files.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PositionFrame {
    /// Mapped into the periodic box (what a picture of the cell needs).
    #[default]
    Wrapped,
    /// The continuous trajectories (what a diffusion analysis needs).
    Unwrapped,
}

/// `[output]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OutputSpec {
    pub series_every: Option<u64>,
    pub vtk_every: Option<u64>,
    #[serde(default)]
    pub positions: PositionFrame,
    pub stress_area: Option<f64>,
}
