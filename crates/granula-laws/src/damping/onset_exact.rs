//! The Hertz (Tsuji) dashpot with its impulse integrated over the step, so that the
//! restitution of a single impact does not depend on where the first touch falls between
//! two force evaluations.

use crate::damping::HertzViscous;
use crate::error::LawError;
use crate::history::SubHistory;
use crate::submodel::{DampingModel, NormalDamping, NormalElastic, TensionPolicy};
use glam::DQuat;
use granula_core::{ContactKinematics, PairMaterial};

/// History of [`HertzViscousImpulse`]: whether the contact was in overlap at its previous
/// force evaluation (the composed law resets it when the contact opens).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Touching {
    /// True from the contact's second force evaluation on.
    pub touching: bool,
}

impl SubHistory for Touching {
    /// A flag of the pair: the same from either body.
    fn reversed(&self) -> Self {
        *self
    }
    /// A flag: invariant under rotations.
    fn rotated(&self, _: DQuat) -> Self {
        *self
    }
}

/// The Tsuji dashpot of [`HertzViscous`] (same γ_n, same restitution claims), with the
/// force of a step equal to the dashpot's impulse over [t − Δt/2, t + Δt/2] divided by Δt.
///
/// Since γ_n = g δ^{1/4} (γ_n = 2 √(5/6) α_n √(m* S_n) with the Hertz stiffness
/// S_n = 2E* √(R* δ)), the dashpot force is an exact derivative,
/// F_d = γ_n δ̇ = d/dt (⅘ g δ^{5/4}), so its impulse over the step is
///
/// F_d Δt = ⅘ g (δ₊^{5/4} − δ₋^{5/4}),  δ± = max(δ ± δ̇ Δt/2, 0),
///
/// with δ₋ = 0 at the contact's first evaluation: the impulse since the first touch,
/// whatever the phase of the touch within the step. The sampled force γ_n(δ) δ̇ misses a
/// part of that onset impulse ∝ Δt^{5/4} whose sign depends on the phase, which spreads
/// single impacts over −0.71 % to +1.09 % of e = 0.1 at Δt = t_c/100 under velocity Verlet
/// (`docs/contact-laws.md`, "Restitution against the time step"); with this form every
/// single impact there is within 0.1 %, second order in Δt. Elsewhere the two forms differ
/// by O(Δt²). It costs two fractional powers per contact, so the default Hertz-Mindlin law
/// keeps the sampled form (the one LIGGGHTS uses, for like-for-like comparisons).
///
/// Meant for a Hertz spring ([`Hertz`](crate::Hertz), [`HertzLmgc`](crate::HertzLmgc)):
/// with another normal model γ_n does not grow as δ^{1/4} and the impulse is not exact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HertzViscousImpulse {
    sampled: HertzViscous,
}

impl HertzViscousImpulse {
    /// The integrated form of a [`HertzViscous`] dashpot.
    pub fn new(sampled: HertzViscous) -> Self {
        HertzViscousImpulse { sampled }
    }

    /// The integrated form of [`HertzViscous::calibrated_from_material`]: the head-on
    /// restitution of a clamped Hertz contact is the material's.
    pub fn calibrated_from_material() -> Self {
        Self::new(HertzViscous::calibrated_from_material())
    }

    /// The sampled dashpot this one integrates.
    pub fn sampled(&self) -> HertzViscous {
        self.sampled
    }
}

impl DampingModel for HertzViscousImpulse {
    type History = Touching;
    fn name(&self) -> &'static str {
        "hertz_viscous_impulse"
    }
    /// F_d = ⅘ g (δ₊^{5/4} − δ₋^{5/4}) / Δt (see the type's documentation); the coefficient
    /// reported to the tangential models and to the stability cap is the sampled γ_n(δ).
    #[inline]
    fn damping(&self, k: &ContactKinematics<'_>, rate: f64, el: &NormalElastic, h: &mut Touching) -> NormalDamping {
        let sampled = self.sampled.damping(k, rate, el, &mut ());
        let d = k.overlap;
        // g = γ_n / δ^{1/4}; the composed law calls the dashpot only with δ > 0.
        let g = sampled.coefficient / d.sqrt().sqrt();
        let half = 0.5 * rate * k.dt;
        let upper = (d + half).max(0.0).powf(1.25);
        let lower = if h.touching { (d - half).max(0.0).powf(1.25) } else { 0.0 };
        h.touching = true;
        NormalDamping { force: 0.8 * g * (upper - lower) / k.dt, coefficient: sampled.coefficient }
    }
    /// The sampled dashpot's claim: both forms give the same restitution as Δt → 0.
    fn claimed_restitution(&self, material: &PairMaterial, tension: TensionPolicy) -> Option<f64> {
        self.sampled.claimed_restitution(material, tension)
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        self.sampled.check_pair(material)
    }
}
