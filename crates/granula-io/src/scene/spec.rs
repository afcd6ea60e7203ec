//! The scene file schema: plain serde structs mirroring the TOML, one per table. Every
//! struct rejects unknown keys. Field docs state units and defaults; `docs/scene-format.md`
//! documents the same fields with a complete example.

use super::body_spec::yes;
pub use super::body_spec::*;
pub use super::choices::*;
pub use super::feed_spec::*;
pub use super::mesh_spec::*;
pub use super::output_spec::*;
pub use super::polygon_spec::*;
pub use super::polyhedra_spec::*;
use serde::{Deserialize, Serialize};

/// A whole scene file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SceneSpec {
    /// Clock, gravity, planar mode.
    pub simulation: SimulationSpec,
    /// The solver and its parameters.
    pub solver: SolverSpec,
    /// Materials; the first is the default for bodies that name none.
    #[serde(default)]
    pub materials: Vec<MaterialSpec>,
    /// Explicit pair values overriding the mixing rule.
    #[serde(default)]
    pub pairs: Vec<PairSpec>,
    /// Spheres one by one.
    #[serde(default)]
    pub spheres: Vec<SphereSpec>,
    /// Infinite plane walls.
    #[serde(default)]
    pub planes: Vec<PlaneSpec>,
    /// Cylindrical walls.
    #[serde(default)]
    pub cylinders: Vec<CylinderSpec>,
    /// Regular lattices of spheres.
    #[serde(default)]
    pub lattices: Vec<LatticeSpec>,
    /// Random loose packings without overlaps.
    #[serde(default)]
    pub packings: Vec<PackingSpec>,
    /// Polyhedral bodies one by one.
    #[serde(default)]
    pub polyhedra: Vec<PolyhedronSpec>,
    /// Convex polygons one by one (planar scenes only).
    #[serde(default)]
    pub polygons: Vec<PolygonSpec>,
    /// Fixed walls made of triangle meshes (STL, OBJ).
    #[serde(default)]
    pub meshes: Vec<MeshWallSpec>,
    /// Time-dependent loads on named bodies.
    #[serde(default)]
    pub loads: Vec<LoadSpec>,
    /// Spheres inserted while the run goes on.
    #[serde(default)]
    pub feeds: Vec<FeedSpec>,
    /// Regions whose dynamic bodies are removed while the run goes on.
    #[serde(default)]
    pub outlets: Vec<OutletSpec>,
    /// Outputs and their intervals.
    #[serde(default)]
    pub output: OutputSpec,
}

/// `[[loads]]`: a force and torque added to a named body's constant ones from `start` to
/// `end`, switched on as a step or along a linear ramp of duration `ramp`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LoadSpec {
    /// Name of the loaded body (a dynamic sphere or plane).
    pub body: String,
    /// Force at full load (N). Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub force: [f64; 3],
    /// Torque at full load (N m). Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub torque: [f64; 3],
    /// Switch-on time (s), ≥ 0. Default 0.
    #[serde(default)]
    pub start: f64,
    /// Switch-off time (s), > start. Default: never.
    pub end: Option<f64>,
    /// Duration of the linear ramp from zero to full load (s), ≥ 0. Default 0 (a step).
    #[serde(default)]
    pub ramp: f64,
}

/// `[simulation]`: the clock and the world.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SimulationSpec {
    /// Time step Δt (s), > 0; exactly one of `dt` and `dt_fraction` is given.
    pub dt: Option<f64>,
    /// The time step as a fraction of the contact time t_c of a linear contact law
    /// (002 eq. 10: t_c = π/√(k_n/m_r − ν²/4), with the `[solver]` stiffness, reduced mass
    /// and damping rate), Δt = `dt_fraction` × t_c: MD with `normal = "area"` or `"hooke"`
    /// and `damping = "reduced_mass"` only. 002 takes 1/50.
    pub dt_fraction: Option<f64>,
    /// End time (s); exactly one of `end_time` and `steps` is given.
    pub end_time: Option<f64>,
    /// Number of steps; exactly one of `end_time` and `steps` is given.
    pub steps: Option<u64>,
    /// Gravitational acceleration (m/s²). Default `[0, 0, -9.81]`.
    #[serde(default = "default_gravity", deserialize_with = "super::exact::array")]
    pub gravity: [f64; 3],
    /// Planar (2D) mode: spheres are discs of unit thickness in the x-y plane. Default false.
    #[serde(default)]
    pub planar: bool,
    /// Largest overlap allowed, as a fraction of the smaller radius, before the run stops as
    /// blown up. Default 0.5.
    #[serde(default = "default_overlap_ratio")]
    pub max_overlap_ratio: f64,
    /// Steps between two checks of the runaway-energy guard (`granula_core::EnergyGuard`;
    /// MD only), 0 to turn it off. Default 100.
    #[serde(default = "default_guard_every")]
    pub energy_guard_every: u64,
    /// Growth of the energy balance, as a fraction of the energy in play over an interval,
    /// that counts as a strike of the guard (two in a row stop the run). Default 0.5.
    #[serde(default = "default_guard_gain")]
    pub energy_guard_max_gain: f64,
    /// On which steps the guard's one-step check measures the energies
    /// (`granula_core::EnergyReads`): `"every_step"` (default) or `"when_read"` (on the
    /// guard's interval steps only).
    #[serde(default)]
    pub energy_reads: granula_core::EnergyReads,
    /// Accept the initial overlaps of the bodies: a state written by a run (soft contacts
    /// overlap by design), of granula or of another code. The scene's initial-overlap check
    /// is skipped, and so is the world's check before the first step
    /// (`granula_core::World::accept_overlaps`); `max_overlap_ratio` still applies at every
    /// step. Default false: initial bodies must not overlap.
    #[serde(default)]
    pub accept_overlaps: bool,
    /// Periodic axes, each with its range `[lo, hi]` (m), e.g.
    /// `periodic = { x = [0.0, 0.1] }` (MD only; see `granula_core::periodic`). Default none.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    #[serde(deserialize_with = "super::exact::map_of_arrays")]
    pub periodic: std::collections::BTreeMap<String, [f64; 2]>,
    /// Lees-Edwards shear rate γ̇ = ∂v_x/∂y (1/s) of a domain periodic along x and y
    /// (`granula_core::PeriodicDomain::with_shear`, flow x, gradient y): the images one
    /// period up y are shifted along x by γ̇ L_y t. MD only. Default none.
    pub shear_rate: Option<f64>,
}

fn default_gravity() -> [f64; 3] {
    [0.0, 0.0, -9.81]
}
impl MdSpec {
    /// Which of rolling, twisting and cohesion the law has (`resistances` turns on all three).
    pub fn resistance_models(&self) -> (bool, bool, bool) {
        let all = self.resistances;
        (all || self.rolling, all || self.twisting, all || self.cohesion)
    }
}

fn default_overlap_ratio() -> f64 {
    0.5
}
fn default_guard_every() -> u64 {
    granula_core::EnergyGuard::default().every
}
fn default_guard_gain() -> f64 {
    granula_core::EnergyGuard::default().max_gain
}

/// `[solver]`: which method, with its parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SolverSpec {
    /// Smooth DEM (molecular dynamics).
    Md(MdSpec),
    /// Non-smooth contact dynamics.
    Nscd(NscdSpec),
}

/// `[solver] kind = "md"`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MdSpec {
    /// Normal elastic force: `"hertz"` or `"hooke"`. Default `"hertz"`.
    #[serde(default)]
    pub normal: NormalKind,
    /// Normal stiffness k_n (N/m) for `"hooke"` and `"area"` (002 eq. 5); Hertz derives its
    /// stiffness from E*.
    pub normal_stiffness: Option<f64>,
    /// Reference reduced mass m_r (kg) of `damping = "reduced_mass"` (002 eq. 8): the
    /// damping rate ν that gives the pairs' restitution to a contact of this reduced mass.
    /// Default: half the mean mass of the dynamic bodies (two bodies of the mean mass).
    pub reduced_mass: Option<f64>,
    /// k_V (N/m³) of `normal = "volumetric"`, > 0; default E*/R* per contact.
    pub volume_stiffness: Option<f64>,
    /// Contacts of polyhedra: `"points"` (vertex and edge contacts) or `"volume"` (one
    /// contact per pair from the overlap volume, for an overlap-volume law; convex
    /// polyhedra only). Default ([`MdSpec::polyhedron_contacts`]): `"volume"` under an
    /// overlap-volume law, `"points"` under the others.
    pub polyhedron_contacts: Option<PolyhedronContactKind>,
    /// Tangential force: `"cundall_strack"` (spring with history, Coulomb cap),
    /// `"unbounded_cundall_strack"` (003 eq. 4: the force capped, the spring never
    /// truncated), `"brendel_dippel"` (003 eqs. 5-6: the spring held at the Coulomb radius
    /// while sliding), `"viscous"` (viscous friction capped by Coulomb, no history) or `"none"`. Default
    /// `"cundall_strack"`. Normal damping always comes from the pair's restitution
    /// coefficient (restitution 1: no damping).
    #[serde(default)]
    pub tangential: TangentialKind,
    /// Shorthand for `rolling`, `twisting` and `cohesion` all true. Default false.
    #[serde(default)]
    pub resistances: bool,
    /// Add rolling resistance (001 eqs. 1.38-1.40, §1.7: a couple capped at μ_r F_n) with
    /// each pair material's `rolling_friction`. Only with `tangential = "cundall_strack"`.
    /// Default false.
    #[serde(default)]
    pub rolling: bool,
    /// Add twisting resistance (001 eqs. 1.41-1.42) with each pair material's
    /// `torsion_friction`. Only with `tangential = "cundall_strack"`. Default false.
    #[serde(default)]
    pub twisting: bool,
    /// Add constant cohesion (the smooth analogue of 001 §1.8) with each pair material's
    /// `cohesion_force` and `cohesion_range`. Only with `tangential = "cundall_strack"`.
    /// Default false.
    #[serde(default)]
    pub cohesion: bool,
    /// Tangential viscosity η_t (1/s) of the `"viscous"` friction: F_t = −η_t m* v_t, capped
    /// at μ F_n. Default 1000.
    #[serde(default = "default_eta_t")]
    pub tangential_viscosity: f64,
    /// Normal damping model (`granula_laws::damping`): `"calibrated"` (viscous, damping ratio
    /// calibrated so that a head-on impact under the no-attraction clamp rebounds with the
    /// pair's restitution), `"tsuji"` (viscous, the damping ratio of the linear oscillator,
    /// −ln e/√(π² + ln² e): for Hertz the Tsuji form γ_n = 2√(5/6) β √(S_n m*)), `"liggghts"`
    /// (the same coefficient, under LIGGGHTS' name for it), `"hunt_crossley"`
    /// (F_d = F_e 3(1 − e²)/(4 δ̇₀) δ̇, 003 eq. 3) or `"fixed"` (γ_n = `damping_coefficient`).
    /// Default `"calibrated"`.
    #[serde(default)]
    pub damping: DampingKind,
    /// γ_n (N s/m) of `damping = "fixed"`.
    pub damping_coefficient: Option<f64>,
    /// Tension policy: `"no_attraction"` (the total normal force is clamped at zero, contacts
    /// never pull) or `"allow"` (the dashpot may pull while the contact closes).
    /// Default `"no_attraction"`.
    #[serde(default)]
    pub tension: TensionKind,
    /// k_t/k_n of the `"cundall_strack"` spring; default: 2(1 − ν)/(2 − ν) from the pair's
    /// Poisson ratio (Mindlin).
    pub tangential_stiffness_ratio: Option<f64>,
    /// Tangential dashpot of the `"cundall_strack"` spring: `"none"`, `"same_damping_ratio"`
    /// (γ_t = γ_n √(k_t/k_n), the normal damping ratio tangentially, as LIGGGHTS'
    /// hertz/history) or `"ratio"` (γ_t = `tangential_damping_ratio` × γ_n). Default `"none"`.
    #[serde(default)]
    pub tangential_damping: TangentialDampingKind,
    /// γ_t/γ_n of `tangential_damping = "ratio"`, ≥ 0.
    pub tangential_damping_ratio: Option<f64>,
    /// Integrator: `"verlet"` (velocity Verlet), `"gear4"`, `"gear5"` or `"gear6"` (Gear
    /// predictor-corrector, 002 App. A). Default `"verlet"`.
    #[serde(default)]
    pub integrator: IntegratorKind,
    /// Broadphase: `"sweep_and_prune"`, `"linked_cells"` or `"brute_force"`. Default
    /// `"sweep_and_prune"`.
    #[serde(default)]
    pub broadphase: BroadphaseKind,
    /// Verlet skin (m) added to bounding boxes; pairs are searched again only after a body
    /// moved more than half of it. Default 1e-4.
    #[serde(default = "default_skin")]
    pub skin: f64,
    /// Non-viscous body damping α (004 §2.3.2.4), 0 to disable. Default 0.
    #[serde(default)]
    pub local_damping: f64,
    /// Threads of the force computation (results are identical for any count); default:
    /// all cores.
    pub threads: Option<usize>,
    /// Summation order of each body's pair loads: `"blocks"` (default) or `"partner"` (the
    /// order of distributed runs, for a one-process run equal to them bit for bit).
    #[serde(default)]
    pub load_order: LoadOrderKind,
    /// Bodies stored in the order of the broadphase cells (layer, row, cell), at the first
    /// step and again after every `reorder_every` rebuilds of the candidate list, so that
    /// bodies that touch sit close in memory (`MdConfig::reorder_every` of granula-md). Only
    /// the order of the force sums changes. Worth it for bodies generated or read in random
    /// order (up to 1.5 times faster at 27 000 spheres, 2.8 times at 10⁶); ≥ 1. Default:
    /// never. Not for distributed runs.
    pub reorder_every: Option<u32>,
}

impl MdSpec {
    /// The contacts of polyhedra: the key's value, or by default `"volume"` under an
    /// overlap-volume law (`normal = "volume_energy"` or `"volumetric"`) and `"points"`
    /// under the others; `"volume"` under `"volume_energy"` is
    /// [`PolyhedronContactKind::VolumePressure`].
    pub fn polyhedron_contacts(&self) -> PolyhedronContactKind {
        let volume_law = matches!(self.normal, NormalKind::VolumeEnergy | NormalKind::Volumetric);
        match self.polyhedron_contacts.unwrap_or(if volume_law {
            PolyhedronContactKind::Volume
        } else {
            PolyhedronContactKind::Points
        }) {
            PolyhedronContactKind::Volume if self.normal == NormalKind::VolumeEnergy => {
                PolyhedronContactKind::VolumePressure
            }
            kind => kind,
        }
    }
}

fn default_skin() -> f64 {
    1e-4
}

fn default_eta_t() -> f64 {
    1000.0
}

/// `[solver] kind = "nscd"`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NscdSpec {
    /// Non-smooth contact law: `"signorini_coulomb"` (Signorini's condition with Coulomb
    /// friction), `"cohesive"` (the same with each pair's `cohesion_force` within
    /// `cohesion_range`, 001 §1.8) or `"rolling"` (the same with each pair's
    /// `rolling_friction` and `torsion_friction`, 001 §1.7). A material or pair property the
    /// chosen law does not use is an error. Default `"signorini_coulomb"`.
    #[serde(default)]
    pub law: NscdLawKind,
    /// θ of the θ-method, in [0.5, 1]. Default 1 (implicit Euler, 000 eqs. 1-2).
    #[serde(default = "default_theta")]
    pub theta: f64,
    /// Convergence criterion: `"natural_map"` (the natural-map residual of the step's
    /// problem), `"local"`, `"global"` or `"fixed_iterations"` (000 eqs. 35-37). Default
    /// `"natural_map"`.
    #[serde(default)]
    pub criterion: CriterionKind,
    /// Tolerance of the criterion, > 0. Default 1e-4.
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
    /// Iteration cap N_I per step, ≥ 1. Default 1000.
    #[serde(default = "default_max_iterations")]
    pub max_iterations: u32,
    /// Sweep order: `"forward"` (the contact list's order) or `"random"` (a new random
    /// order each sweep, as in 000 §2.5). Default `"forward"`.
    #[serde(default)]
    pub sweep: SweepKind,
    /// Small-force cutoff δ (N) of the local criterion (000 eq. 35). Default 1e-9.
    #[serde(default = "default_cutoff")]
    pub cutoff: f64,
    /// Seed of the random sweep order. Default 0.
    #[serde(default)]
    pub seed: u64,
    /// Gap in the Signorini condition: `"positive"` (g_pos = max(g, 0), 000 eq. 33: existing
    /// overlaps are not pushed apart) or `"correcting"` (the raw gap: overlaps removed
    /// within a step). Default `"positive"`.
    #[serde(default)]
    pub gap: GapKind,
    /// Impact law (004 §2.2.2.2): `"none"` (perfectly inelastic, 000 eq. 34), `"newton"`
    /// (U_n⁺ = −e U_n⁻ on every contact closing within a step, e the pair's `restitution`),
    /// `"poisson"` (restitution impulse = e × compression impulse) or `"stronge"`
    /// (restitution work = −e² × compression work). With `"none"` a material or pair that
    /// sets `restitution` is an error; only `"none"` is available with `law = "cohesive"`
    /// (the cohesive law is inelastic), and `"poisson"` / `"stronge"` are not with
    /// `law = "rolling"`. Default `"none"`.
    #[serde(default)]
    pub impact: ImpactKind,
    /// With `law = "cohesive"`, what a bond that has started to open (0 < g ≤ d_C) does:
    /// `"rectangle"` (001 §1.8: held with −F_C ≤ R_n ≤ 0, not pulled back) or
    /// `"full_pull"` (−F_C on every bonded contact within d_C, so an opened bond is pulled
    /// back once the pull drops below F_C). Only with `law = "cohesive"`. Default
    /// `"rectangle"`.
    #[serde(default)]
    pub cohesion_rule: Option<CohesionRuleKind>,
    /// Start each step's iterations from the previous step's impulses. Default true.
    #[serde(default = "yes")]
    pub warm_start: bool,
    /// Broadphase, as for MD. Default `"sweep_and_prune"`.
    #[serde(default)]
    pub broadphase: BroadphaseKind,
    /// Extra detection margin (m) on top of the solver's automatic one. Default 0.
    #[serde(default)]
    pub margin: f64,
    /// What a step does when `max_iterations` is reached before `tolerance`: `"warn"`
    /// (finish the step, count it in the run report), `"error"` (stop the run) or
    /// `"extend"` (keep sweeping up to `hard_cap`). Default `"warn"`.
    #[serde(default)]
    pub on_cap: OnCapKind,
    /// With `on_cap = "extend"`, the largest number of sweeps of a step, ≥ `max_iterations`.
    /// Default 10 × `max_iterations`.
    #[serde(default)]
    pub hard_cap: Option<u32>,
    /// Nesterov momentum on the impulses between sweeps, with adaptive restart. Default
    /// true (set false for the plain sweeps of 000 §3.3's models).
    #[serde(default = "yes")]
    pub momentum: bool,
}

fn default_theta() -> f64 {
    1.0
}
fn default_tolerance() -> f64 {
    1e-4
}
fn default_max_iterations() -> u32 {
    1000
}
fn default_cutoff() -> f64 {
    1e-9
}

/// `[[materials]]`: one material; omitted fields take the core's defaults (glass-like).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MaterialSpec {
    /// Unique name.
    pub name: String,
    /// Density (kg/m³). Default 2500.
    pub density: Option<f64>,
    /// Static friction coefficient. Default 0.5.
    pub friction: Option<f64>,
    /// Dynamic friction coefficient. Default: equal to `friction`.
    pub dynamic_friction: Option<f64>,
    /// Rolling friction length (m). Default 0.
    pub rolling_friction: Option<f64>,
    /// Torsion friction length (m). Default 0.
    pub torsion_friction: Option<f64>,
    /// Normal restitution coefficient in (0, 1]. Default 0.5.
    pub restitution: Option<f64>,
    /// Young's modulus (Pa). Default 1e7.
    pub young_modulus: Option<f64>,
    /// Poisson's ratio. Default 0.3.
    pub poisson_ratio: Option<f64>,
    /// Cohesion force F_C (N). Default 0.
    pub cohesion_force: Option<f64>,
    /// Cohesion range d_C (m). Default 0.
    pub cohesion_range: Option<f64>,
    /// Infinitely stiff (a truly rigid wall): the contacts of this material take their
    /// elastic values from the other material alone (E* = E/(1 − ν²)); its own
    /// `young_modulus` and `poisson_ratio` are then an error. Only for walls: a sphere of a
    /// rigid material is an error. Default false.
    #[serde(default)]
    pub rigid: bool,
}

/// `[[pairs]]`: explicit values for one pair of materials; omitted fields keep the mixed
/// value.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PairSpec {
    /// The two material names (may be equal).
    #[serde(deserialize_with = "super::exact::array")]
    pub materials: [String; 2],
    /// Static friction coefficient.
    pub friction: Option<f64>,
    /// Dynamic friction coefficient.
    pub dynamic_friction: Option<f64>,
    /// Rolling friction length (m).
    pub rolling_friction: Option<f64>,
    /// Torsion friction length (m).
    pub torsion_friction: Option<f64>,
    /// Restitution coefficient.
    pub restitution: Option<f64>,
    /// Cohesion force (N).
    pub cohesion_force: Option<f64>,
    /// Cohesion range (m).
    pub cohesion_range: Option<f64>,
    /// Young's modulus E (Pa) of the pair, with `poisson_ratio`: the pair's contacts behave
    /// as between two bodies of this E and ν, E* = E/(2(1 − ν²)) and
    /// G* = E/(4(2 − ν)(1 + ν)), whatever the materials' own values.
    pub young_modulus: Option<f64>,
    /// Poisson's ratio ν of the pair, in (−1, 0.5), with `young_modulus`.
    pub poisson_ratio: Option<f64>,
}
