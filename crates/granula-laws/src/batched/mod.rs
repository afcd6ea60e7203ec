//! The batched (structure-of-arrays, vector) form of the common sphere laws: Hertz or a
//! linear spring, viscous normal damping (Tsuji or linear), and the Cundall-Strack spring
//! with or without its tangential dashpot, with empty rolling, twisting and cohesion slots.
//! That covers [`hertz_mindlin`](crate::hertz_mindlin),
//! [`hertz_mindlin_damped`](crate::hertz_mindlin_damped) and
//! [`linear_cundall_strack`](crate::linear_cundall_strack).
//!
//! A sub-model opts in by returning its batch form (`batch_form` on [`NormalModel`],
//! [`DampingModel`] and [`TangentialModel`]); a [`Composed`](crate::Composed) law whose
//! sub-models all do answers `true` to
//! [`ContactLaw::batches`](granula_core::ContactLaw::batches) and runs
//! [`force_batch`] over blocks of [`BATCH_LANES`](granula_core::BATCH_LANES) contacts. Every other law, and every
//! user law, keeps the scalar path.
//!
//! **Agreement with the scalar path.** The kernel performs, lane by lane, the same IEEE
//! operations in the same order as the scalar sub-models (no fused multiply-add, correctly
//! rounded square roots and divisions on every path), with the material-pair constants
//! formed by the same products; it only replaces branches by selects. Its results are
//! therefore *bit-identical* to [`ContactLaw::force`](granula_core::ContactLaw::force) on
//! every vector width (tested on random contacts in `tests/suite/batched_kernel.rs`), so a run
//! gives the same bits whatever the CPU, the thread count or the path.
//!
//! [`NormalModel`]: crate::NormalModel
//! [`DampingModel`]: crate::DampingModel
//! [`TangentialModel`]: crate::TangentialModel

mod dispatch;
mod kernel;

use crate::damping::DampingCoefficient;
use crate::params::tangential_stiffness_ratio;
use crate::tangential::{Friction, SpringState, TangentialDamping, TangentialStiffness};
use granula_core::{vector_width, ContactBatch, ContactStatus, PairMaterial, VectorWidth};
use kernel::{LaneConstants, Lanes};

/// The batch form of a normal elastic model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormalBatch {
    /// Hertz, F = 4/3 E* √(R* δ) δ, with E* given or from the pair material.
    Hertz {
        /// Explicit E* (Pa), or `None` for the material's.
        effective_young: Option<f64>,
    },
    /// Linear spring F = k_n δ.
    Linear {
        /// k_n (N/m).
        stiffness: f64,
    },
}

/// The batch form of a stateless viscous normal damping, F_d = γ_n δ̇.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DampingBatch {
    /// How γ_n is set.
    pub coefficient: DampingCoefficient,
    /// `true` for the Hertz (Tsuji) factor √(5/6) in γ_n, `false` for the linear dashpot.
    pub tsuji: bool,
}

/// The batch form of an incremental tangential spring of the Cundall-Strack kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringBatch {
    /// k_t.
    pub stiffness: TangentialStiffness,
    /// γ_t.
    pub damping: TangentialDamping,
    /// μ_s, μ_d.
    pub friction: Friction,
}

/// A whole law's batch form: the three sub-models' and the tension policy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LawBatch {
    /// Normal elastic model.
    pub normal: NormalBatch,
    /// Normal damping.
    pub damping: DampingBatch,
    /// Tangential spring.
    pub spring: SpringBatch,
    /// `true` under [`TensionPolicy::NoAttraction`](crate::TensionPolicy::NoAttraction).
    pub clamp: bool,
}

impl LawBatch {
    /// The per-lane constants of a material pair: the prefactors of the normal force and
    /// stiffness, the damping factor, the factors of k_t and γ_t and the friction limits,
    /// each formed by the same products as in the scalar sub-models.
    fn constants(&self, material: &PairMaterial) -> LaneConstants {
        let (force, stiffness) = match self.normal {
            NormalBatch::Hertz { effective_young } => {
                let e = effective_young.unwrap_or(material.effective_young);
                (4.0 / 3.0 * e, 2.0 * e)
            }
            NormalBatch::Linear { stiffness } => (stiffness, 0.5 * stiffness),
        };
        let (damping_factor, damping_fixed) = self.damping.coefficient.batch_factors(material, self.damping.tsuji);
        let (kt_factor, kt_fixed) = match self.spring.stiffness {
            TangentialStiffness::FromNormal => (tangential_stiffness_ratio(material.poisson_ratio), 0.0),
            TangentialStiffness::Ratio(r) => (r, 0.0),
            TangentialStiffness::Fixed(k) => (0.0, k),
        };
        let gt_factor = match self.spring.damping {
            TangentialDamping::Ratio(r) => r,
            TangentialDamping::None | TangentialDamping::SameDampingRatio => 0.0,
        };
        let (mu_s, mu_d) = self.spring.friction.coefficients(material);
        LaneConstants { force, stiffness, damping_factor, damping_fixed, kt_factor, kt_fixed, gt_factor, mu_s, mu_d }
    }
}

/// The batched law over `batch`: gathers the constants and spring histories of its lanes
/// (`spring` gives a history's spring), runs the kernel on the CPU's widest vectors
/// ([`vector_width`](granula_core::vector_width)), then writes the springs and the statuses back.
///
/// Formulas (per lane, as the scalar [`Composed`](crate::Composed)): Hertz
/// F_e = 4/3 E* a δ, K_n = 2 E* a with a = √(R* δ) (004 §2.2.1), or F_e = k_n δ;
/// γ_n = 2 c α √(m* K_n) capped at γ_n Δt ≤ m*/4; F_n = max(F_e + γ_n δ̇, 0) under the
/// no-attraction clamp; the Cundall-Strack spring ξ ← ξ_p + 𝒱_t Δt (002 eq. 7) with
/// f_t = −k_t ξ − γ_t 𝒱_t (002 eq. 6) capped at μ F_n.
pub fn force_batch<H>(
    law: &LawBatch,
    batch: &mut ContactBatch,
    materials: &[PairMaterial],
    histories: &mut [H],
    spring: impl Fn(&mut H) -> &mut SpringState,
) {
    force_batch_at(vector_width(), law, batch, materials, histories, spring)
}

/// [`force_batch`] at a given vector width (a width the CPU lacks runs the portable code):
/// for tests and benchmarks that compare the widths in one process.
pub fn force_batch_at<H>(
    width: VectorWidth,
    law: &LawBatch,
    batch: &mut ContactBatch,
    materials: &[PairMaterial],
    histories: &mut [H],
    spring: impl Fn(&mut H) -> &mut SpringState,
) {
    // The thread's lane arrays, borrowed for the call (no 20 KiB to clear per batch; the
    // kernel calls no user code, so the borrow cannot be asked for twice).
    LANES.with(|cell| run_batch(width, law, batch, materials, histories, spring, &mut cell.borrow_mut()))
}

thread_local! {
    /// The kernel's lane arrays, reused from batch to batch on each thread.
    static LANES: std::cell::RefCell<Box<Lanes>> = std::cell::RefCell::new(Box::default());
}

/// [`force_batch_at`] with the thread's lane arrays `lanes`.
fn run_batch<H>(
    width: VectorWidth,
    law: &LawBatch,
    batch: &mut ContactBatch,
    materials: &[PairMaterial],
    histories: &mut [H],
    spring: impl Fn(&mut H) -> &mut SpringState,
    lanes: &mut Lanes,
) {
    let mut last = u32::MAX;
    let mut c = LaneConstants::default();
    for l in 0..batch.len {
        let m = batch.material[l];
        if m != last {
            c = law.constants(&materials[m as usize]);
            last = m;
        }
        lanes.set_constants(l, &c);
        let s = spring(&mut histories[batch.slot[l] as usize]);
        lanes.xi[0][l] = s.xi.x;
        lanes.xi[1][l] = s.xi.y;
        lanes.xi[2][l] = s.xi.z;
        lanes.kt_old[l] = s.stiffness;
    }
    let same_ratio = law.spring.damping == TangentialDamping::SameDampingRatio;
    let hertz = matches!(law.normal, NormalBatch::Hertz { .. });
    dispatch::run(width, hertz, same_ratio, law.clamp, batch, lanes);
    for l in 0..batch.len {
        let s = spring(&mut histories[batch.slot[l] as usize]);
        *s = SpringState {
            xi: granula_core::DVec3::new(lanes.xi[0][l], lanes.xi[1][l], lanes.xi[2][l]),
            stiffness: lanes.kt_old[l],
        };
        // contact_status with no attraction (crate::contact_status).
        batch.status[l] = if !(lanes.repulsion[l] > 0.0) {
            ContactStatus::Open
        } else if lanes.sliding[l] != 0.0 {
            ContactStatus::Sliding
        } else {
            ContactStatus::Sticking
        };
    }
}
