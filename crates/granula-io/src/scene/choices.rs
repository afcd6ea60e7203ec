//! The named choices of `[solver]`, one enum per key. A name that is not a variant is a
//! parse error that names the key, its line, and lists the valid names (serde's "unknown
//! variant `x`, expected one of …"), before anything is built or run. Each enum's default
//! is the scene format's default for its key.

use serde::{Deserialize, Serialize};

/// `[solver] normal` (MD): the normal elastic force.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NormalKind {
    /// Hertz, stiffness from the pair's effective modulus E*.
    #[default]
    Hertz,
    /// Linear spring of stiffness `normal_stiffness`.
    Hooke,
    /// F_n = k_V V on the overlap volume V (YADE's Polyhedra law, the 3D form of 002
    /// eq. 5), k_V = `volume_stiffness` (N/m³) or, without it, E*/R* per contact. Contacts
    /// that carry no volume (spheres, point contacts) use the spherical cap of depth δ
    /// and radius R*. Damping: `"hunt_crossley"` or `"fixed"`.
    Volumetric,
    /// The conservative overlap-volume law (`granula_laws::VolumeEnergy`): the energy
    /// U(V) = k_V V²/(2π R*²) of the overlap volume, its force a uniform pressure k_V V/(π R*²)
    /// on the contact surface with that pressure's line of action and twist, so that an
    /// undamped pile keeps its energy. k_V and damping as for `"volumetric"`.
    VolumeEnergy,
    /// The overlap-area spring of the planar world (002 eq. 5), F_n = k_n A / l_c with
    /// k_n = `normal_stiffness`, on the overlap area A of polygons (discs: the lens of the
    /// two circles, `granula_laws::AreaSpring`). Planar scenes only.
    Area,
}

/// `[solver] polyhedron_contacts` (MD): how pairs of polyhedra and polyhedra on planes
/// make contacts.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PolyhedronContactKind {
    /// A point per vertex inside the other body and per crossing of edges (003 §4).
    #[default]
    Points,
    /// One contact per pair from the overlap volume (convex polyhedra only; planes with
    /// any polyhedron): needs an overlap-volume law, `normal = "volume_energy"` or
    /// `"volumetric"`. Acts at the intersection's centroid (YADE's law).
    Volume,
    /// `"volume"` under `normal = "volume_energy"`, as [`MdSpec::polyhedron_contacts`]
    /// resolves it: the contacts act on the line of a uniform pressure on the contact
    /// surface, with its twist (the force and couple of an energy of the volume). Not a
    /// name of the scene file.
    ///
    /// [`MdSpec::polyhedron_contacts`]: super::spec::MdSpec::polyhedron_contacts
    #[serde(skip)]
    VolumePressure,
}

/// `[solver] tangential` (MD): the tangential force.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TangentialKind {
    /// Spring with history, capped by Coulomb.
    #[default]
    CundallStrack,
    /// The plain Cundall-Strack spring of 003 eq. 4: the force is capped by Coulomb, the
    /// elongation is never truncated (a reversed slide is pushed on until it has come back
    /// as far as it slid).
    UnboundedCundallStrack,
    /// Brendel and Dippel's spring of 003 eqs. 5-6: stretched while sticking, held at the
    /// Coulomb radius while sliding, so that a reversed slide sticks at once.
    BrendelDippel,
    /// Viscous friction capped by Coulomb, no history.
    Viscous,
    /// No tangential force.
    None,
    /// Cundall's spring as 002 writes it for the planar world (002 eqs. 6-7,
    /// `granula_laws::PlanarCundall`): k_t = `tangential_stiffness_ratio` × k_n, the
    /// Coulomb limit on the elastic forces, and the viscous force −m_r ν_t v_t with
    /// ν_t/ν_n = k_t/k_n beside it (002 eq. 2). Planar scenes only; needs
    /// `normal_stiffness`.
    PlanarCundall,
    /// The predictor-based elongation of 002 §4 (`granula_laws::PlanarPredictor`): the
    /// elongation from the branch vectors and turns between force evaluations (002 eqs.
    /// 14-15) instead of the integrated velocity, with the limit and dashpot of
    /// `planar_cundall` and its keys. Planar scenes only.
    PlanarPredictor,
}

/// `[solver] damping` (MD): the normal damping model.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DampingKind {
    /// Viscous, calibrated so that a head-on impact under the no-attraction clamp rebounds
    /// with the pair's restitution.
    #[default]
    Calibrated,
    /// `calibrated` with the dashpot's impulse integrated over the step (Hertz only): the
    /// restitution of a single impact does not depend on where the first touch falls
    /// within a step.
    CalibratedImpulse,
    /// Viscous, the damping ratio of the linear oscillator (Tsuji's form for Hertz).
    Tsuji,
    /// The same coefficient as `tsuji`, under LIGGGHTS' name for it.
    Liggghts,
    /// Hunt-Crossley, F_d = F_e 3(1 − e²)/(4 δ̇₀) δ̇.
    HuntCrossley,
    /// γ_n = `damping_coefficient`.
    Fixed,
    /// The viscous force of 002 eqs. 2-3, F_v = −m* ν v_n, with the damping rate ν
    /// (1/s) that gives the pairs' restitution to a linear contact of stiffness
    /// `normal_stiffness` and reduced mass `reduced_mass` (002 eq. 8,
    /// `granula_laws::ReducedMassViscous`). With `normal = "area"` or `"hooke"` and
    /// `tension = "allow"` (002's force may pull at the end of a contact).
    ReducedMass,
}

/// `[solver] tension` (MD): whether the normal force may pull.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TensionKind {
    /// The total normal force is clamped at zero.
    #[default]
    NoAttraction,
    /// The dashpot may pull while the contact closes.
    Allow,
}

/// `[solver] tangential_damping` (MD): the dashpot of the Cundall-Strack spring.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TangentialDampingKind {
    /// No tangential dashpot.
    #[default]
    None,
    /// γ_t = γ_n √(k_t/k_n): the normal damping ratio, tangentially.
    SameDampingRatio,
    /// γ_t = `tangential_damping_ratio` × γ_n.
    Ratio,
}

/// `[solver] integrator` (MD).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum IntegratorKind {
    /// Velocity Verlet.
    #[default]
    Verlet,
    /// Gear predictor-corrector with 4 values.
    Gear4,
    /// Gear predictor-corrector with 5 values.
    Gear5,
    /// Gear predictor-corrector with 6 values.
    Gear6,
}

/// `[solver] load_order` (MD): how each body sums the loads of its pairs.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LoadOrderKind {
    /// By blocks of the candidate list (the fastest; the same bits on any thread count).
    #[default]
    Blocks,
    /// In partner order: the same bits on any thread count and on any number of MPI ranks,
    /// so a one-process run equals `mpirun -np N` of the same scene bit for bit.
    Partner,
}

/// `[solver] broadphase` (MD and NSCD).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BroadphaseKind {
    /// Sweep and prune.
    #[default]
    SweepAndPrune,
    /// Linked cells.
    LinkedCells,
    /// Every pair (the O(n²) oracle).
    BruteForce,
}

/// `[solver] law` (NSCD): the non-smooth contact law.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NscdLawKind {
    /// Signorini's condition with Coulomb friction.
    #[default]
    SignoriniCoulomb,
    /// Signorini-Coulomb with the pairs' cohesion (`cohesion_force`, `cohesion_range`).
    Cohesive,
    /// Signorini-Coulomb with rolling and torsion friction (`rolling_friction`,
    /// `torsion_friction`).
    Rolling,
}

/// `[solver] criterion` (NSCD): when the iterations of a step stop.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CriterionKind {
    /// Relative change of each contact's impulse below the tolerance.
    Local,
    /// Mean relative change below the tolerance.
    Global,
    /// Exactly `max_iterations` sweeps.
    FixedIterations,
    /// The natural-map residual of the whole step's problem below the tolerance (Acary and
    /// Brogliato 2008 §13.3, Siconos' `fc3d_compute_error`): a measure of the whole
    /// solution, not of the largest change of one contact. The default.
    #[default]
    NaturalMap,
}

/// `[solver] sweep` (NSCD): the order of the contacts in a sweep.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SweepKind {
    /// The contact list's order (the default; with `momentum`, the fastest measured).
    #[default]
    Forward,
    /// A new random order each sweep (the sweeps of 000 §3.3's models).
    Random,
}

/// `[solver] gap` (NSCD): the gap in the Signorini condition.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GapKind {
    /// max(g, 0): existing overlaps are not pushed apart.
    #[default]
    Positive,
    /// The raw gap: overlaps are removed within a step.
    Correcting,
}

/// `[solver] impact` (NSCD): the impact law.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ImpactKind {
    /// Perfectly inelastic.
    #[default]
    None,
    /// Newton's law with each pair's `restitution` (U_n⁺ = −e U_n⁻, 004 §2.2.2.2).
    Newton,
    /// Poisson's law with each pair's `restitution` (restitution impulse = e times the
    /// compression impulse, 004 §2.2.2.2).
    Poisson,
    /// Stronge's energetic law with each pair's `restitution` (restitution work = −e²
    /// times the compression work, 004 §2.2.2.2).
    Stronge,
}

impl ImpactKind {
    /// The scene name: `"none"`, `"newton"`, `"poisson"` or `"stronge"`.
    pub fn name(&self) -> &'static str {
        match self {
            ImpactKind::None => "none",
            ImpactKind::Newton => "newton",
            ImpactKind::Poisson => "poisson",
            ImpactKind::Stronge => "stronge",
        }
    }
}

/// `[solver] cohesion_rule` (NSCD, `law = "cohesive"`): what a bond that has started to
/// open does.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CohesionRuleKind {
    /// 001 §1.8's rectangle: an opened bond is held with −F_C ≤ R_n ≤ 0, not pulled back.
    #[default]
    Rectangle,
    /// The attraction −F_C on any bonded contact within d_C: an opened bond is pulled back
    /// once the pull drops below F_C.
    FullPull,
}

/// `[solver] on_cap` (NSCD): what a step does at its iteration cap.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OnCapKind {
    /// Finish the step and count it in the run report.
    #[default]
    Warn,
    /// Stop the run.
    Error,
    /// Keep sweeping up to `hard_cap`.
    Extend,
}

/// The name a scene spells a choice with (its serde name), e.g. `same_damping_ratio`, for
/// messages. Every choice is a unit variant, which serialises to its name; anything else
/// falls back to its `Debug` form.
pub fn choice_name<T: Serialize + std::fmt::Debug>(choice: &T) -> String {
    match toml::Value::try_from(choice) {
        Ok(toml::Value::String(name)) => name,
        _ => format!("{choice:?}"),
    }
}
