//! [`Composed`]: a contact law assembled from sub-models, and its `ContactLaw` impl.

use crate::error::LawError;
use crate::history::ComposedHistory;
use crate::params::dt_upper_bound;
use crate::submodel::TensionPolicy;
use crate::submodel::{
    CohesionModel, DampingModel, NoCohesion, NoRolling, NoTwisting, NormalModel, NormalState, RollingModel,
    TangentialModel, TwistingModel,
};
use granula_core::{ContactForce, ContactKinematics, ContactLaw, ContactStatus, Dissipation, PairMaterial};

/// A contact law composed of a normal model `N`, a normal damping `D`, a tangential model
/// `T`, and optional rolling `R`, twisting `W` and cohesion `C` models.
///
/// Per contact and step (the order is fixed by the data each part needs):
/// 1. elastic normal force F_e(δ) from `N` and damping F_d(δ, δ̇) from `D`;
/// 2. repulsive force F = F_e + F_d, clamped at zero under [`TensionPolicy::NoAttraction`];
/// 3. cohesion attraction F_C from `C` (within its range, overlapping or not);
/// 4. tangential force, rolling and twisting couples from `T`, `R`, `W`, with the friction
///    load F = R_n + F_C (001 §1.8);
/// 5. force on body 2 = (F − F_C) n + f_t; couple on body 2 = T_r + T_w;
/// 6. the status ([`contact_status`]): cohesive when the cohesion holds the pair in
///    tension (F − F_C < 0 with F_C > 0), open when the normal force is not positive,
///    sliding when the tangential model is at its limit, sticking otherwise.
///
/// Energy: every part reports what it dissipates during the step and what it stores; the
/// normal damping dissipates F_d δ̇ Δt (the clamped value of F_d). When the gap is positive
/// (only cohesion acts) the histories restart from their defaults.
///
/// A Hertz-Mindlin law with rolling resistance, every parameter from the pair material, and
/// the force it gives for a contact of two 1 cm spheres (R* = 5 mm) overlapping by 1 µm
/// with no relative motion (`contact(overlap, relative_velocity)` builds the
/// [`ContactKinematics`]):
///
/// ```
/// use granula_core::ContactLaw;
/// use granula_laws::prelude::*;
///
/// # use granula_core::{ContactKinematics, DVec3, Material, PairMaterial};
/// # let material = PairMaterial::mix(&Material::default(), &Material::default());
/// # let contact = |overlap: f64, relative_velocity: DVec3| ContactKinematics {
/// #     normal: DVec3::Z,
/// #     overlap,
/// #     relative_velocity,
/// #     relative_angular_velocity: DVec3::ZERO,
/// #     branch1: DVec3::new(0.0, 0.0, 0.01),
/// #     branch2: DVec3::new(0.0, 0.0, -0.01),
/// #     effective_radius: 0.005,
/// #     effective_mass: 0.005,
/// #     material: &material,
/// #     pair: &(),
/// #     dt: 1e-6,
/// #     rotation1: DVec3::ZERO,
/// #     rotation2: DVec3::ZERO,
/// #     overlap_volume: 0.0,
/// # };
/// let law = Composed::new(Hertz::from_material(), HertzViscous::from_material(), CundallStrack::from_material())
///     .with_rolling(RollingResistance::from_material());
/// assert_eq!(law.name(), "hertz+hertz_viscous+cundall_strack+rolling_resistance");
///
/// let mut history = Default::default();
/// let f = law.force(&contact(1e-6, DVec3::ZERO), &mut history);
/// // Hertz: F = 4/3 E* √R* δ^{3/2} along the normal (the law writes it with √(R* δ), so
/// // the two agree to a few roundings: 1e-12 relative).
/// let hertz = 4.0 / 3.0 * material.effective_young * (0.005f64).sqrt() * 1e-9;
/// assert!((f.force.z - hertz).abs() < 1e-12 * hertz);
/// assert_eq!((f.force.x, f.force.y), (0.0, 0.0)); // no sliding, no friction force
/// assert!(f.stored > 0.0); // the elastic energy of the overlap, for the ledger
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Composed<N, D, T, R = NoRolling, W = NoTwisting, C = NoCohesion> {
    /// Elastic normal force.
    pub normal: N,
    /// Normal damping.
    pub damping: D,
    /// Friction.
    pub tangential: T,
    /// Rolling resistance.
    pub rolling: R,
    /// Twisting resistance.
    pub twisting: W,
    /// Cohesion.
    pub cohesion: C,
    /// Clamping of the normal force.
    pub tension: TensionPolicy,
}

impl<N, D, T> Composed<N, D, T> {
    /// A law without rolling, twisting or cohesion, with no attractive normal force.
    pub fn new(normal: N, damping: D, tangential: T) -> Self {
        Composed {
            normal,
            damping,
            tangential,
            rolling: NoRolling,
            twisting: NoTwisting,
            cohesion: NoCohesion,
            tension: TensionPolicy::NoAttraction,
        }
    }
}

impl<N, D, T, R, W, C> Composed<N, D, T, R, W, C> {
    /// The same law with a rolling model.
    pub fn with_rolling<R2>(self, rolling: R2) -> Composed<N, D, T, R2, W, C> {
        let Composed { normal, damping, tangential, twisting, cohesion, tension, .. } = self;
        Composed { normal, damping, tangential, rolling, twisting, cohesion, tension }
    }

    /// The same law with a twisting model.
    pub fn with_twisting<W2>(self, twisting: W2) -> Composed<N, D, T, R, W2, C> {
        let Composed { normal, damping, tangential, rolling, cohesion, tension, .. } = self;
        Composed { normal, damping, tangential, rolling, twisting, cohesion, tension }
    }

    /// The same law with a cohesion model.
    pub fn with_cohesion<C2>(self, cohesion: C2) -> Composed<N, D, T, R, W, C2> {
        let Composed { normal, damping, tangential, rolling, twisting, tension, .. } = self;
        Composed { normal, damping, tangential, rolling, twisting, cohesion, tension }
    }

    /// The same law with another tension policy.
    pub fn with_tension(mut self, tension: TensionPolicy) -> Self {
        self.tension = tension;
        self
    }
}

impl<N, D, T, R, W, C> Composed<N, D, T, R, W, C>
where
    N: NormalModel,
    D: DampingModel,
    T: TangentialModel,
    R: RollingModel,
    W: TwistingModel,
    C: CohesionModel,
{
    /// The law's batch form ([`LawBatch`](crate::LawBatch)): `Some` when the normal, damping and
    /// tangential models all have one and the rolling, twisting and cohesion slots are
    /// empty.
    pub fn batch_form(&self) -> Option<crate::batched::LawBatch> {
        let empty = self.rolling.name() == NoRolling.name()
            && self.twisting.name() == NoTwisting.name()
            && self.cohesion.name() == NoCohesion.name();
        if !empty {
            return None;
        }
        Some(crate::batched::LawBatch {
            normal: self.normal.batch_form()?,
            damping: self.damping.batch_form()?,
            spring: self.tangential.batch_form()?,
            clamp: self.tension == TensionPolicy::NoAttraction,
        })
    }

    /// Checks that every sub-model can handle a pair with these material values, effective
    /// radius and reduced mass; the error names the sub-model and the field. Call it once
    /// per material pair and shape pair before simulating (the law itself does not fail).
    pub fn check_pair(&self, material: &PairMaterial, r_eff: f64, m_eff: f64) -> Result<(), LawError> {
        self.normal.check_pair(material, r_eff, m_eff)?;
        self.damping.check_pair(material)?;
        self.tangential.check_pair(material)?;
        self.rolling.check_pair(material, r_eff)?;
        self.twisting.check_pair(material, r_eff)?;
        self.cohesion.check_pair(material)
    }

    /// The head-on restitution the damping model claims under this law's tension policy
    /// (see each damping model for how exactly; e.g. the plain linear dashpot under
    /// [`TensionPolicy::NoAttraction`] claims the value of
    /// [`linear_clamped_collision`](crate::params::linear_clamped_collision), Hertz with
    /// plain Tsuji damping the computed clamped value, and the forms calibrated to the clamp
    /// ([`DampingCoefficient::FromRestitutionClamped`](crate::DampingCoefficient)) the
    /// requested e).
    pub fn claimed_restitution(&self, material: &PairMaterial) -> Option<f64> {
        self.damping.claimed_restitution(material, self.tension)
    }

    /// Duration (s) of an undamped head-on contact (002 eq. 10 with η = 0; Hertz: M2).
    pub fn contact_time(&self, material: &PairMaterial, m_eff: f64, r_eff: f64, v_impact: f64) -> f64 {
        self.normal.contact_time(material, m_eff, r_eff, v_impact)
    }

    /// The largest recommended time step, t_c/5 (002 §2 below eq. 10), for a solver to warn
    /// when Δt exceeds it. Accurate collisions need Δt ≈ t_c/50 (VALIDATION M1).
    pub fn recommended_dt(&self, material: &PairMaterial, m_eff: f64, r_eff: f64, v_impact: f64) -> f64 {
        dt_upper_bound(self.contact_time(material, m_eff, r_eff, v_impact))
    }
}

/// Largest normal damping per step, γ_n Δt / m*, that a composed law applies; a larger
/// coefficient (a restitution near zero: e = 1e-4 needs a damping ratio of 46 under the
/// no-attraction clamp) is scaled down to it.
///
/// Why: an explicit step damps the relative normal velocity by the factor 1 − γ_n Δt/m*
/// per step (velocity Verlet with the damping at the half-step velocity; the spring adds
/// (ω Δt)²: the map is stable for (ω Δt)² + 2 γ_n Δt/m* < 4). A dashpot with
/// γ_n Δt/m* > 2 thus amplifies the velocity it should remove, and at the recommended
/// Δt = t_c/5 (ω Δt ≈ 0.8 at the peak Hertz stiffness of the impact) this happens for
/// damping ratios above about 1.25 (e < ~0.08 calibrated to the clamp). A particle in a packing feels the sum of its contacts' dashpots, about Z/2 of
/// them along one direction (Z ≈ 6 contacts), hence the margin of 0.25: with the cap the
/// damping of a whole packing stays within the stable range at every Δt where the springs
/// are stable. A contact so capped is still over-damped (it removes a quarter of the
/// relative normal velocity per step), so it still ends with a restitution near zero;
/// below the cap (every restitution ≥ 0.1 at Δt ≤ t_c/50, ≥ 0.01 at Δt ≤ t_c/400, at the
/// impact's peak stiffness) the law is unchanged.
pub const MAX_DAMPING_STEP: f64 = 0.25;

impl<N, D, T, R, W, C> ContactLaw for Composed<N, D, T, R, W, C>
where
    N: NormalModel,
    D: DampingModel,
    T: TangentialModel,
    R: RollingModel,
    W: TwistingModel,
    C: CohesionModel,
{
    type History = ComposedHistory<D::History, T::History, R::History, W::History>;
    type Pair = ();

    fn name(&self) -> String {
        let mut s = format!("{}+{}+{}", self.normal.name(), self.damping.name(), self.tangential.name());
        for (part, empty) in [
            (self.rolling.name(), NoRolling.name()),
            (self.twisting.name(), NoTwisting.name()),
            (self.cohesion.name(), NoCohesion.name()),
        ] {
            if part != empty {
                s.push('+');
                s.push_str(part);
            }
        }
        s
    }

    fn range(&self, material: &PairMaterial) -> f64 {
        self.cohesion.range(material)
    }

    /// Only the tangential model may read the rotation increments.
    fn uses_rotations(&self) -> bool {
        self.tangential.uses_rotations()
    }
    /// `true` when the normal, damping and tangential models all have a batch form and the
    /// rolling, twisting and cohesion slots are empty ([`LawBatch`](crate::LawBatch)).
    fn batches(&self) -> bool {
        self.batch_form().is_some()
    }
    /// The batched kernel of [`LawBatch`](crate::LawBatch) when [`ContactLaw::batches`], bit-identical
    /// to [`Composed::force`] lane by lane; otherwise the scalar loop.
    fn force_batch(
        &self,
        batch: &mut granula_core::ContactBatch,
        materials: &[PairMaterial],
        _pairs: &[()],
        histories: &mut [Self::History],
    ) {
        match self.batch_form() {
            Some(form) if histories.first_mut().is_none_or(|h| T::batch_spring(&mut h.tangential).is_some()) => {
                crate::batched::force_batch(&form, batch, materials, histories, |h| {
                    T::batch_spring(&mut h.tangential).expect("checked on the first history")
                })
            }
            _ => {
                for l in 0..batch.len {
                    let k = granula_core::ContactKinematics {
                        normal: batch.normal_of(l),
                        overlap: batch.overlap[l],
                        relative_velocity: batch.velocity_of(l),
                        relative_angular_velocity: granula_core::DVec3::ZERO,
                        branch1: granula_core::DVec3::ZERO,
                        branch2: granula_core::DVec3::ZERO,
                        effective_radius: batch.effective_radius[l],
                        effective_mass: batch.effective_mass[l],
                        material: &materials[batch.material[l] as usize],
                        pair: &(),
                        dt: batch.dt,
                        rotation1: granula_core::DVec3::ZERO,
                        rotation2: granula_core::DVec3::ZERO,
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
    }

    // Always inlined: the solvers call it once per contact in their hot loop, and keeping
    // the returned loads in registers measurably cuts the cost of a contact.
    #[inline(always)]
    fn force(&self, k: &ContactKinematics<'_>, h: &mut Self::History) -> ContactForce {
        let n = k.normal;
        let coh = self.cohesion.cohesion(k);
        if !(k.overlap > 0.0) {
            *h = Self::History::default();
            return ContactForce {
                force: -coh.attraction * n,
                stored: coh.stored,
                status: contact_status(-coh.attraction, coh.attraction, false),
                ..Default::default()
            };
        }
        let rate = -k.relative_velocity.dot(n);
        let el = self.normal.elastic(k);
        let mut d = self.damping.damping(k, rate, &el, &mut h.damping);
        // Explicit stability of the dashpot: a coefficient with γ Δt > MAX_DAMPING_STEP m*
        // would make the step's velocity update overshoot (see `MAX_DAMPING_STEP`).
        let cap = MAX_DAMPING_STEP * k.effective_mass;
        if d.coefficient * k.dt > cap {
            let s = cap / (d.coefficient * k.dt);
            d.force *= s;
            d.coefficient *= s;
        }
        let mut repulsion = el.force + d.force;
        if self.tension == TensionPolicy::NoAttraction && repulsion < 0.0 {
            repulsion = 0.0;
        }
        let damping_force = repulsion - el.force;
        let state = NormalState {
            load: repulsion.max(0.0),
            stiffness: el.stiffness,
            damping: d.coefficient,
            elastic: el.force,
        };
        let t = self.tangential.tangential(k, &state, &mut h.tangential);
        let r = self.rolling.rolling(k, &state, &mut h.rolling);
        let w = self.twisting.twisting(k, &state, &mut h.twisting);
        ContactForce {
            force: (repulsion - coh.attraction) * n + t.value,
            torque: r.value + w.value,
            dissipated: Dissipation {
                normal: damping_force * rate * k.dt,
                sliding: t.dissipated,
                rolling: r.dissipated,
                twisting: w.dissipated,
                cohesion: 0.0,
                body_damping: 0.0,
            },
            stored: el.stored + t.stored + r.stored + w.stored + coh.stored,
            status: contact_status(repulsion - coh.attraction, coh.attraction, t.sliding),
        }
    }
}

/// The status of a composed law's contact from its net normal force `normal` = F − F_C on
/// body 2 along n (N), its cohesion attraction F_C ≥ 0 and the tangential model's limit
/// flag: [`ContactStatus::Cohesive`] when the cohesion holds the pair in tension
/// (F − F_C < 0 with F_C > 0), [`ContactStatus::Open`] when the normal force is not
/// positive otherwise (no contact force, or a pulling dashpot under
/// [`TensionPolicy::AllowDampingTension`]), [`ContactStatus::Sliding`] at the friction
/// limit, [`ContactStatus::Sticking`] below it.
#[inline(always)]
pub fn contact_status(normal: f64, attraction: f64, sliding: bool) -> ContactStatus {
    if normal < 0.0 && attraction > 0.0 {
        ContactStatus::Cohesive
    } else if !(normal > 0.0) {
        ContactStatus::Open
    } else if sliding {
        ContactStatus::Sliding
    } else {
        ContactStatus::Sticking
    }
}
