//! Run-time choices of integrator, broadphase, normal spring, history-free dashpot and
//! tangential models of the same history, chosen by the scene file. The first two are called once per step (or per rebuild), not
//! per contact, so a `match` costs nothing measurable. The spring and the dashpot are
//! called per contact: their `match` takes the same branch for every contact of a run, and
//! the batched kernel of sphere contacts reads their batch forms once per batch. Making
//! them run-time choices divides the MD solvers the runner compiles by the springs and by
//! the three viscous dashpots (the cross product of springs, dashpots and tangential
//! models was most of the workspace's build time). Tangential models are grouped the same
//! way where they keep the same history (the three elastic springs; the two models without
//! one), so that checkpoints and the memory per contact stay what they were; the dashpots
//! and tangential models with histories of their own stay generic parameters of the law.

use granula_broadphase::{BruteForce, LinkedCells, SweepAndPrune};
use granula_core::{
    Aabb, AccelerationField, BodySet, BodySums, Broadphase, CoreError, Integrator, IntegratorState, Permutation,
    VelocityOffsets,
};
use granula_core::{ContactKinematics, PairMaterial};
use granula_integrators::{Gear, VelocityVerlet};
use granula_io::scene::spec::{BroadphaseKind, IntegratorKind};
use granula_laws::{
    AreaSpring, BrendelDippel, CundallStrack, DampingBatch, DampingModel, Hertz, HertzViscous, LawError, LinearSpring,
    LinearViscous, NoFriction, NormalBatch, NormalDamping, NormalElastic, NormalModel, NormalState, PlanarCundall,
    ReducedMassViscous, ResistanceOut, SpringBatch, SpringState, TangentialModel, TensionPolicy, ViscousFriction,
    VolumeEnergy, VolumetricSpring,
};

/// The integrators a scene can name.
#[derive(Debug)]
pub enum AnyIntegrator {
    /// Velocity Verlet.
    Verlet(VelocityVerlet),
    /// Gear predictor-corrector (4, 5 or 6 values).
    Gear(Gear),
}

impl AnyIntegrator {
    /// The integrator of `[solver] integrator`.
    pub fn from_name(kind: IntegratorKind) -> Self {
        match kind {
            IntegratorKind::Verlet => AnyIntegrator::Verlet(VelocityVerlet::new()),
            IntegratorKind::Gear4 => AnyIntegrator::Gear(Gear::four()),
            IntegratorKind::Gear5 => AnyIntegrator::Gear(Gear::five()),
            IntegratorKind::Gear6 => AnyIntegrator::Gear(Gear::six()),
        }
    }
}

impl Integrator for AnyIntegrator {
    fn name(&self) -> &'static str {
        match self {
            AnyIntegrator::Verlet(i) => i.name(),
            AnyIntegrator::Gear(i) => i.name(),
        }
    }
    fn predict(&mut self, bodies: &mut BodySet, accel: &AccelerationField, t: f64, dt: f64) {
        match self {
            AnyIntegrator::Verlet(i) => i.predict(bodies, accel, t, dt),
            AnyIntegrator::Gear(i) => i.predict(bodies, accel, t, dt),
        }
    }
    fn correct(&mut self, bodies: &mut BodySet, accel: &AccelerationField, t: f64, dt: f64) {
        match self {
            AnyIntegrator::Verlet(i) => i.correct(bodies, accel, t, dt),
            AnyIntegrator::Gear(i) => i.correct(bodies, accel, t, dt),
        }
    }
    fn predict_summing(
        &mut self,
        bodies: &mut BodySet,
        accel: &AccelerationField,
        t: f64,
        dt: f64,
        start: Option<&mut BodySums>,
    ) {
        match self {
            AnyIntegrator::Verlet(i) => i.predict_summing(bodies, accel, t, dt, start),
            AnyIntegrator::Gear(i) => i.predict_summing(bodies, accel, t, dt, start),
        }
    }
    fn correct_summing(
        &mut self,
        bodies: &mut BodySet,
        accel: &AccelerationField,
        t: f64,
        dt: f64,
        energies: bool,
        end: &mut BodySums,
    ) {
        match self {
            AnyIntegrator::Verlet(i) => i.correct_summing(bodies, accel, t, dt, energies, end),
            AnyIntegrator::Gear(i) => i.correct_summing(bodies, accel, t, dt, energies, end),
        }
    }
    fn force_velocity_offsets(&self) -> Option<VelocityOffsets<'_>> {
        match self {
            AnyIntegrator::Verlet(i) => i.force_velocity_offsets(),
            AnyIntegrator::Gear(i) => i.force_velocity_offsets(),
        }
    }
    fn save_state(&self) -> IntegratorState {
        match self {
            AnyIntegrator::Verlet(i) => i.save_state(),
            AnyIntegrator::Gear(i) => i.save_state(),
        }
    }
    fn restore_state(&mut self, state: &IntegratorState, bodies: &BodySet) -> Result<(), CoreError> {
        match self {
            AnyIntegrator::Verlet(i) => i.restore_state(state, bodies),
            AnyIntegrator::Gear(i) => i.restore_state(state, bodies),
        }
    }
    fn permute_bodies(&mut self, permutation: &Permutation, bodies: &BodySet) {
        match self {
            AnyIntegrator::Verlet(i) => i.permute_bodies(permutation, bodies),
            AnyIntegrator::Gear(i) => i.permute_bodies(permutation, bodies),
        }
    }
}

/// The broadphase backends a scene can name (the large ones boxed, to keep the enum small).
#[derive(Debug)]
pub enum AnyBroadphase {
    /// O(n²) oracle.
    BruteForce(BruteForce),
    /// Sweep and prune (003 §3).
    SweepAndPrune(Box<SweepAndPrune>),
    /// Linked cells.
    LinkedCells(Box<LinkedCells>),
}

impl AnyBroadphase {
    /// The broadphase of `[solver] broadphase`.
    pub fn from_name(kind: BroadphaseKind) -> Self {
        match kind {
            BroadphaseKind::SweepAndPrune => AnyBroadphase::SweepAndPrune(Box::new(SweepAndPrune::new())),
            BroadphaseKind::LinkedCells => AnyBroadphase::LinkedCells(Box::new(LinkedCells::new())),
            BroadphaseKind::BruteForce => AnyBroadphase::BruteForce(BruteForce),
        }
    }
}

impl Broadphase for AnyBroadphase {
    fn name(&self) -> &'static str {
        match self {
            AnyBroadphase::BruteForce(b) => b.name(),
            AnyBroadphase::SweepAndPrune(b) => b.name(),
            AnyBroadphase::LinkedCells(b) => b.name(),
        }
    }
    fn find_pairs(&mut self, boxes: &[Aabb], skip: &[bool], pairs: &mut Vec<(u32, u32)>) {
        match self {
            AnyBroadphase::BruteForce(b) => b.find_pairs(boxes, skip, pairs),
            AnyBroadphase::SweepAndPrune(b) => b.find_pairs(boxes, skip, pairs),
            AnyBroadphase::LinkedCells(b) => b.find_pairs(boxes, skip, pairs),
        }
    }
}

/// The normal springs a scene can name (`[solver] normal`).
#[derive(Clone, Debug)]
pub enum AnyNormal {
    /// `"hooke"`: F = k_n δ.
    Linear(LinearSpring),
    /// `"hertz"`: F = 4/3 E* √(R* δ) δ.
    Hertz(Hertz),
    /// `"area"`: 002 eq. 5 on the overlap area (planar scenes).
    Area(AreaSpring),
    /// `"volumetric"`: the overlap-volume spring of polyhedra.
    Volumetric(VolumetricSpring),
    /// `"volume_energy"`: the conservative overlap-volume law of polyhedra.
    VolumeEnergy(VolumeEnergy),
}

/// `$call` on the spring inside `$self`, whichever it is.
macro_rules! each_normal {
    ($self:expr, $n:ident => $call:expr) => {
        match $self {
            AnyNormal::Linear($n) => $call,
            AnyNormal::Hertz($n) => $call,
            AnyNormal::Area($n) => $call,
            AnyNormal::Volumetric($n) => $call,
            AnyNormal::VolumeEnergy($n) => $call,
        }
    };
}

impl NormalModel for AnyNormal {
    fn name(&self) -> &'static str {
        each_normal!(self, n => n.name())
    }
    #[inline]
    fn elastic(&self, k: &ContactKinematics<'_>) -> NormalElastic {
        each_normal!(self, n => n.elastic(k))
    }
    fn contact_time(&self, material: &PairMaterial, m_eff: f64, r_eff: f64, v_impact: f64) -> f64 {
        each_normal!(self, n => n.contact_time(material, m_eff, r_eff, v_impact))
    }
    fn check_pair(&self, material: &PairMaterial, r_eff: f64, m_eff: f64) -> Result<(), LawError> {
        each_normal!(self, n => n.check_pair(material, r_eff, m_eff))
    }
    fn batch_form(&self) -> Option<NormalBatch> {
        each_normal!(self, n => n.batch_form())
    }
}

/// The viscous dashpots without history a scene can name (`[solver] damping`): the
/// calibrated and Tsuji forms of the Hertz and linear dashpots, and 002's reduced-mass
/// rate. The names and forces are the wrapped model's.
#[derive(Clone, Debug)]
pub enum AnyViscous {
    /// The Hertz dashpot γ √(m* k) ([`HertzViscous`]).
    Hertz(HertzViscous),
    /// The linear dashpot ([`LinearViscous`]).
    Linear(LinearViscous),
    /// 002 eqs. 2-3: −m* ν v_n ([`ReducedMassViscous`]).
    ReducedMass(ReducedMassViscous),
}

impl From<HertzViscous> for AnyViscous {
    fn from(d: HertzViscous) -> Self {
        AnyViscous::Hertz(d)
    }
}

impl From<LinearViscous> for AnyViscous {
    fn from(d: LinearViscous) -> Self {
        AnyViscous::Linear(d)
    }
}

impl From<ReducedMassViscous> for AnyViscous {
    fn from(d: ReducedMassViscous) -> Self {
        AnyViscous::ReducedMass(d)
    }
}

/// `$call` on the dashpot inside `$self`, whichever it is.
macro_rules! each_viscous {
    ($self:expr, $d:ident => $call:expr) => {
        match $self {
            AnyViscous::Hertz($d) => $call,
            AnyViscous::Linear($d) => $call,
            AnyViscous::ReducedMass($d) => $call,
        }
    };
}

impl DampingModel for AnyViscous {
    type History = ();
    fn name(&self) -> &'static str {
        each_viscous!(self, d => d.name())
    }
    #[inline]
    fn damping(&self, k: &ContactKinematics<'_>, rate: f64, elastic: &NormalElastic, h: &mut ()) -> NormalDamping {
        each_viscous!(self, d => d.damping(k, rate, elastic, h))
    }
    fn claimed_restitution(&self, material: &PairMaterial, tension: TensionPolicy) -> Option<f64> {
        each_viscous!(self, d => d.claimed_restitution(material, tension))
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        each_viscous!(self, d => d.check_pair(material))
    }
    fn batch_form(&self) -> Option<DampingBatch> {
        each_viscous!(self, d => d.batch_form())
    }
}

/// The tangential models whose history is one elastic spring ([`SpringState`]): Cundall and
/// Strack's (003 eqs. 5-6), Brendel and Dippel's (003 eq. 4) and the planar Cundall spring
/// (002 eqs. 6-7). The names and forces are the wrapped model's.
#[derive(Clone, Debug)]
pub enum AnySpring {
    /// [`CundallStrack`].
    CundallStrack(CundallStrack),
    /// [`BrendelDippel`].
    BrendelDippel(BrendelDippel),
    /// [`PlanarCundall`].
    PlanarCundall(PlanarCundall),
}

/// `$call` on the spring model inside `$self`, whichever it is.
macro_rules! each_spring {
    ($self:expr, $t:ident => $call:expr) => {
        match $self {
            AnySpring::CundallStrack($t) => $call,
            AnySpring::BrendelDippel($t) => $call,
            AnySpring::PlanarCundall($t) => $call,
        }
    };
}

impl TangentialModel for AnySpring {
    type History = SpringState;
    fn name(&self) -> &'static str {
        each_spring!(self, t => t.name())
    }
    #[inline]
    fn tangential(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut SpringState) -> ResistanceOut {
        each_spring!(self, t => t.tangential(k, normal, h))
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        each_spring!(self, t => t.check_pair(material))
    }
    fn uses_rotations(&self) -> bool {
        each_spring!(self, t => t.uses_rotations())
    }
    fn batch_form(&self) -> Option<SpringBatch> {
        each_spring!(self, t => t.batch_form())
    }
    /// The history's spring: read by the batched kernel only when the model has a batch
    /// form ([`AnySpring::batch_form`]), and the spring is the whole history of all three.
    fn batch_spring(history: &mut SpringState) -> Option<&mut SpringState> {
        Some(history)
    }
}

/// The tangential models without history: viscous friction, and none.
#[derive(Clone, Debug)]
pub enum AnyMemoryless {
    /// [`ViscousFriction`].
    Viscous(ViscousFriction),
    /// [`NoFriction`].
    None(NoFriction),
}

impl TangentialModel for AnyMemoryless {
    type History = ();
    fn name(&self) -> &'static str {
        match self {
            AnyMemoryless::Viscous(t) => t.name(),
            AnyMemoryless::None(t) => t.name(),
        }
    }
    #[inline]
    fn tangential(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut ()) -> ResistanceOut {
        match self {
            AnyMemoryless::Viscous(t) => t.tangential(k, normal, h),
            AnyMemoryless::None(t) => t.tangential(k, normal, h),
        }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        match self {
            AnyMemoryless::Viscous(t) => t.check_pair(material),
            AnyMemoryless::None(t) => t.check_pair(material),
        }
    }
    fn uses_rotations(&self) -> bool {
        match self {
            AnyMemoryless::Viscous(t) => t.uses_rotations(),
            AnyMemoryless::None(t) => t.uses_rotations(),
        }
    }
}
