//! The smooth (MD) contact law trait: force and torque from contact kinematics and history.

use crate::body_set::BodySet;
use crate::contact::{point_relative_velocity, ContactGeometry, ContactStatus};
use crate::contact_batch::ContactBatch;
use crate::energy::Dissipation;
use crate::material::PairMaterial;
use crate::math::{DQuat, DVec3};
use crate::pair_parameters::PairParameters;
use std::fmt::Debug;

/// Everything a smooth contact law may use about one contact at one instant. `P` is the
/// law's own pair parameter ([`ContactLaw::Pair`]); `()` for the laws that have none.
#[derive(Clone, Copy, Debug)]
pub struct ContactKinematics<'a, P = ()> {
    /// Unit normal from body 1 to body 2.
    pub normal: DVec3,
    /// Overlap δ = −g (m); positive when the surfaces interpenetrate.
    pub overlap: f64,
    /// Relative velocity at the contact point, 𝒱 = v₂ + ω₂×l₂ − v₁ − ω₁×l₁ (000 eq. 3).
    pub relative_velocity: DVec3,
    /// Relative angular velocity ω₂ − ω₁.
    pub relative_angular_velocity: DVec3,
    /// Branch vector of body 1 (centre to contact point).
    pub branch1: DVec3,
    /// Branch vector of body 2.
    pub branch2: DVec3,
    /// Effective radius R* (m).
    pub effective_radius: f64,
    /// Effective (reduced) mass m* = (1/m₁ + 1/m₂)⁻¹ (kg); the particle's mass against a wall.
    pub effective_mass: f64,
    /// Material values of the pair.
    pub material: &'a PairMaterial,
    /// The law's own parameters for this pair of materials ([`PairParameters`]), computed
    /// once per material pair by the solver.
    pub pair: &'a P,
    /// Time step Δt (s).
    pub dt: f64,
    /// Rotation of body 1 since the previous force evaluation of this pair's solver, as a
    /// world-frame rotation vector θ (rad): log(q₁ q₁,prev⁻¹). The increment θᵖ(t+Δt) − θ(t)
    /// of 002 eq. 15 (under a predictor-corrector, between two predicted orientations).
    /// Zero at the first evaluation, and where the caller does not track orientations.
    pub rotation1: DVec3,
    /// Rotation of body 2 since the previous force evaluation (see `rotation1`).
    pub rotation2: DVec3,
    /// Volume of the bodies' intersection (m³), from
    /// [`ContactGeometry::overlap_volume`]: 0 when the contact generator does not compute it.
    pub overlap_volume: f64,
}

impl<'a> ContactKinematics<'a> {
    /// The kinematics of a contact of geometry `g` between two bodies moving with
    /// velocities v₁, v₂ and angular velocities ω₁, ω₂ (`motion1`, `motion2` as (v, ω)):
    /// overlap δ = −g, relative velocity 𝒱 = v₂ + ω₂ × l₂ − (v₁ + ω₁ × l₁) (000 eq. 3),
    /// relative angular velocity ω₂ − ω₁; the rotation increments are zero (set
    /// [`ContactKinematics::rotation1`] and `rotation2` after, if tracked).
    #[inline(always)]
    pub fn from_motion(
        g: &ContactGeometry,
        motion1: (DVec3, DVec3),
        motion2: (DVec3, DVec3),
        effective_mass: f64,
        material: &'a PairMaterial,
        dt: f64,
    ) -> Self {
        let ((v1, w1), (v2, w2)) = (motion1, motion2);
        ContactKinematics {
            normal: g.normal,
            overlap: -g.gap,
            relative_velocity: point_relative_velocity(v1, w1, g.branch1, v2, w2, g.branch2),
            relative_angular_velocity: w2 - w1,
            branch1: g.branch1,
            branch2: g.branch2,
            effective_radius: g.effective_radius,
            effective_mass,
            material,
            pair: &(),
            dt,
            rotation1: DVec3::ZERO,
            rotation2: DVec3::ZERO,
            overlap_volume: g.overlap_volume,
        }
    }

    /// The kinematics of the contact of geometry `g` between bodies `i` (1) and `j` (2) of
    /// `bodies`, from their current velocities ([`ContactKinematics::from_motion`]).
    #[inline(always)]
    pub fn new(
        bodies: &BodySet,
        i: usize,
        j: usize,
        g: &ContactGeometry,
        effective_mass: f64,
        material: &'a PairMaterial,
        dt: f64,
    ) -> Self {
        let motion = |k: usize| (bodies.velocity[k], bodies.angular_velocity[k]);
        Self::from_motion(g, motion(i), motion(j), effective_mass, material, dt)
    }

    /// The same contact carrying the law's pair parameter `pair` (the value the solver
    /// computed for this contact's pair of materials).
    #[inline(always)]
    pub fn with_pair<P: PairParameters>(self, pair: &'a P) -> ContactKinematics<'a, P> {
        ContactKinematics {
            normal: self.normal,
            overlap: self.overlap,
            relative_velocity: self.relative_velocity,
            relative_angular_velocity: self.relative_angular_velocity,
            branch1: self.branch1,
            branch2: self.branch2,
            effective_radius: self.effective_radius,
            effective_mass: self.effective_mass,
            material: self.material,
            pair,
            dt: self.dt,
            rotation1: self.rotation1,
            rotation2: self.rotation2,
            overlap_volume: self.overlap_volume,
        }
    }
}

impl<P> ContactKinematics<'_, P> {
    /// The same contact after a rigid rotation `q` of the pair: every vector turned by `q`,
    /// scalars unchanged. An objective law gives the turned force (the conformance kit's
    /// objectivity check).
    pub fn rotated(&self, q: DQuat) -> Self {
        ContactKinematics {
            normal: q * self.normal,
            relative_velocity: q * self.relative_velocity,
            relative_angular_velocity: q * self.relative_angular_velocity,
            branch1: q * self.branch1,
            branch2: q * self.branch2,
            rotation1: q * self.rotation1,
            rotation2: q * self.rotation2,
            ..*self
        }
    }

    /// The same contact seen with the bodies swapped: normal, relative velocities reversed,
    /// branch vectors and rotations exchanged. A law symmetric in its bodies gives the
    /// opposite force.
    pub fn swapped(&self) -> Self {
        ContactKinematics {
            normal: -self.normal,
            relative_velocity: -self.relative_velocity,
            relative_angular_velocity: -self.relative_angular_velocity,
            branch1: self.branch2,
            branch2: self.branch1,
            rotation1: self.rotation2,
            rotation2: self.rotation1,
            ..*self
        }
    }
}

/// What a contact law returns for one contact.
///
/// `force` and `torque` move the bodies; `dissipated` and `stored` only feed the world's
/// energy ledger ([`World::ledger`](crate::World::ledger)) and, through it, the
/// runaway-energy guard ([`EnergyGuard`](crate::EnergyGuard)), which stops a run whose
/// balance kinetic + potential + stored + dissipated − work grows. A law that leaves them at
/// zero while its force stores or dissipates energy must say so with
/// [`ContactLaw::keeps_ledger`], or the guard reads the released spring energy as energy
/// created from nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactForce {
    /// Force on body 2 applied at the contact point; body 1 receives the opposite.
    pub force: DVec3,
    /// Pure couple on body 2 (rolling and twisting resistance); body 1 receives the opposite.
    pub torque: DVec3,
    /// Energy dissipated by this contact during this step, per mechanism (J): the work of
    /// the dissipative part of the force over the step, e.g. γ δ̇² Δt for a dashpot, or
    /// μ F_n times the slip for sliding friction.
    pub dissipated: Dissipation,
    /// Elastic energy stored in the contact after this step (J): the potential of the
    /// conservative part of the force, e.g. ½ k δ² for a linear spring, (8/15) E* √R* δ^(5/2)
    /// for Hertz, plus ½ |f_t|²/k_t for a tangential spring.
    pub stored: f64,
    /// What the law decided: open, sticking, sliding (the tangential model at its limit) or
    /// cohesive (held in tension). Solvers count and publish it as given. Defaults to
    /// [`ContactStatus::Sticking`]; a law with a friction limit or an attraction sets it.
    pub status: ContactStatus,
}

/// A smooth contact law. Implement this trait to plug a new law into the MD solver; the
/// built-in laws of `granula-laws` are ordinary implementations of it.
///
/// Contract: the law is called once per step for each contact with gap g ≤
/// [`ContactLaw::range`]; it updates the contact's history in place (e.g. the tangential
/// spring). When a contact moves out of range its history is reset to `History::default()`.
///
/// **Energy ledger.** Besides the force, a law reports the energy its contact stores
/// ([`ContactForce::stored`]) and dissipates ([`ContactForce::dissipated`]). The MD solver
/// sums them into the world's ledger, and the world's runaway-energy guard
/// ([`EnergyGuard`](crate::EnergyGuard)) stops the run when the balance (kinetic,
/// potential, stored and dissipated energy less the work done) grows by itself, the mark
/// of an unstable step. A law that
/// fills only the force must return `false` from [`ContactLaw::keeps_ledger`]: the solver
/// then does not claim to close the ledger and the guard stays off for it (the other
/// guards, on non-finite state, overlap and travel, stay on). A host may also turn the
/// guard off for any law with `World::energy_guard = None`.
///
/// # Example
///
/// A linear spring that only pushes, reporting the elastic energy it stores so that the
/// world's energy ledger balances (it dissipates nothing, so `dissipated` stays zero):
///
/// ```
/// use granula_core::{ContactForce, ContactKinematics, ContactLaw, DVec3, Material, PairMaterial};
///
/// #[derive(Debug)]
/// struct Spring {
///     stiffness: f64, // N/m
/// }
///
/// impl ContactLaw for Spring {
///     type History = (); // nothing carried from step to step
///     type Pair = (); // no per-material-pair parameter besides the PairMaterial
///     fn name(&self) -> String {
///         "spring".into()
///     }
///     fn force(&self, k: &ContactKinematics<'_>, _history: &mut ()) -> ContactForce {
///         let overlap = k.overlap.max(0.0);
///         ContactForce {
///             force: self.stiffness * overlap * k.normal, // pushes body 2 away from body 1
///             stored: 0.5 * self.stiffness * overlap * overlap,
///             ..Default::default()
///         }
///     }
/// }
///
/// let material = PairMaterial::mix(&Material::default(), &Material::default());
/// let contact = ContactKinematics {
///     normal: DVec3::Z,
///     overlap: 1e-4,
///     relative_velocity: DVec3::ZERO,
///     relative_angular_velocity: DVec3::ZERO,
///     branch1: DVec3::new(0.0, 0.0, 0.01),
///     branch2: DVec3::new(0.0, 0.0, -0.01),
///     effective_radius: 0.005,
///     effective_mass: 0.005,
///     material: &material,
///     pair: &(), // the law declares no pair parameter of its own
///     dt: 1e-5,
///     rotation1: DVec3::ZERO,
///     rotation2: DVec3::ZERO,
///     overlap_volume: 0.0,
/// };
/// let f = Spring { stiffness: 1e5 }.force(&contact, &mut ());
/// assert_eq!(f.force, DVec3::new(0.0, 0.0, 10.0)); // 1e5 N/m × 0.1 mm (exact after rounding)
/// assert_eq!(f.stored, 0.5 * 1e5 * 1e-4 * 1e-4);
///
/// /// The same force without a ledger: it says so, and the energy guard stays off for it.
/// struct Unbooked {
///     stiffness: f64,
/// }
///
/// impl ContactLaw for Unbooked {
///     type History = ();
///     type Pair = ();
///     fn name(&self) -> String {
///         "unbooked spring".into()
///     }
///     fn keeps_ledger(&self) -> bool {
///         false
///     }
///     fn force(&self, k: &ContactKinematics<'_>, _history: &mut ()) -> ContactForce {
///         ContactForce { force: self.stiffness * k.overlap.max(0.0) * k.normal, ..Default::default() }
///     }
/// }
/// assert!(Spring { stiffness: 1.0 }.keeps_ledger() && !Unbooked { stiffness: 1.0 }.keeps_ledger());
/// ```
///
/// Plug it into the MD solver like a built-in law: `MdSolver::new(Spring { stiffness: 1e5 },
/// integrator, broadphase, config)`; `granula_laws::conformance::check_law` tests it.
pub trait ContactLaw: Send + Sync {
    /// Per-contact state carried from step to step.
    type History: Copy + Default + Send + Sync + Debug + PartialEq;

    /// The law's own per-material-pair parameters, read from the materials' user
    /// properties ([`PairParameters`]) and seen as [`ContactKinematics::pair`]; `()` for a
    /// law that needs only the [`PairMaterial`].
    type Pair: PairParameters;

    /// A stable name, e.g. `"hertz+hertz_damping+cundall_strack"`, used by scene files and
    /// checkpoints.
    fn name(&self) -> String;

    /// Largest gap (m) at which the law still acts (0 for contact-only laws; the cohesion
    /// range for cohesive ones).
    fn range(&self, _material: &PairMaterial) -> f64 {
        0.0
    }

    /// Whether [`ContactLaw::force`] reads the rotation increments
    /// ([`ContactKinematics::rotation1`], `rotation2`). A solver may skip measuring them,
    /// and pass zero, when it is `false`. The default, `true`, is always correct.
    fn uses_rotations(&self) -> bool {
        true
    }

    /// Whether [`ContactForce::stored`] and [`ContactForce::dissipated`] account for the
    /// energy the force stores and dissipates, so that the world's energy balance closes
    /// and its runaway-energy guard applies (the MD solver forwards this as
    /// [`Solver::closes_energy_balance`](crate::Solver::closes_energy_balance)). Default
    /// `true`; a law that fills only the force returns `false`.
    fn keeps_ledger(&self) -> bool {
        true
    }

    /// The force and couple of one contact, updating its history.
    fn force(&self, k: &ContactKinematics<'_, Self::Pair>, history: &mut Self::History) -> ContactForce;

    /// Whether the solver should hand this law its sphere contacts in blocks through
    /// [`ContactLaw::force_batch`]. Default `false`: the solver calls [`ContactLaw::force`]
    /// per contact. A law may return `true` only if its force reads nothing a
    /// [`ContactBatch`] does not hold (no branch vectors, no relative angular velocity, no
    /// rotation increments) and is zero-range ([`ContactLaw::range`] 0), and if
    /// `force_batch` gives [`ContactLaw::force`]'s results to round-off.
    fn batches(&self) -> bool {
        false
    }

    /// The batched form: the forces, energies and statuses of the `batch.len` contacts of
    /// `batch` (all with overlap > 0), updating `histories[batch.slot[l]]` for each lane `l`;
    /// `materials` and `pairs` are the material table's pair values and the law's pair
    /// parameters, indexed by `batch.material`. The default runs [`ContactLaw::force`] lane
    /// by lane (branch vectors, angular velocity and rotations zero, see
    /// [`ContactLaw::batches`]).
    fn force_batch(
        &self,
        batch: &mut ContactBatch,
        materials: &[PairMaterial],
        pairs: &[Self::Pair],
        histories: &mut [Self::History],
    ) {
        for l in 0..batch.len {
            let m = batch.material[l] as usize;
            let k = ContactKinematics {
                normal: batch.normal_of(l),
                overlap: batch.overlap[l],
                relative_velocity: batch.velocity_of(l),
                relative_angular_velocity: DVec3::ZERO,
                branch1: DVec3::ZERO,
                branch2: DVec3::ZERO,
                effective_radius: batch.effective_radius[l],
                effective_mass: batch.effective_mass[l],
                material: &materials[m],
                pair: &pairs[m],
                dt: batch.dt,
                rotation1: DVec3::ZERO,
                rotation2: DVec3::ZERO,
                // Batches hold sphere pairs, whose generators compute no volume.
                overlap_volume: 0.0,
            };
            let cf = self.force(&k, &mut histories[batch.slot[l] as usize]);
            batch.force[0][l] = cf.force.x;
            batch.force[1][l] = cf.force.y;
            batch.force[2][l] = cf.force.z;
            batch.stored[l] = cf.stored;
            batch.dissipated_normal[l] = cf.dissipated.normal;
            batch.dissipated_sliding[l] = cf.dissipated.sliding;
            batch.status[l] = cf.status;
        }
    }
}
