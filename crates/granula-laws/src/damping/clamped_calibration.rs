//! Head-on restitution of viscous damping under the no-attraction clamp, and its inverse:
//! the damping ratio that gives a requested restitution when the normal force may not pull.
//!
//! # Reduced units
//!
//! A head-on impact at speed v of reduced mass m* obeys m* δ̈ = −F_e(δ) − γ_n(δ) δ̇ with
//! δ(0) = 0, δ̇(0) = v. For the two springs of this crate:
//!
//! - Hertz, F_e = k δ^{3/2} (k = 4/3 E*√R*, Hertz theory; 004 §2.2.1), with the Tsuji /
//!   Antypov-Elliott damping γ_n = 2√(5/6) α √(m* S_n), S_n = dF_e/dδ = 3/2 k δ^{1/2}, so
//!   γ_n = √5 α √(m* k) δ^{1/4} (Tsuji et al. 1992, Antypov & Elliott 2011, as in
//!   [`HertzViscous`](crate::HertzViscous); 004 §2.2.1 "same results with a varying K_n").
//!   With δ = δ₀ x and t = t₀ τ, δ₀ = (m* v²/k)^{2/5} (the Hertz length: δ_max = (5/4)^{2/5}
//!   δ₀ when undamped), t₀ = δ₀/v, every parameter cancels but α:
//!   x'' = −x^{3/2} − √5 α x^{1/4} x', x(0) = 0, x'(0) = 1.
//! - Linear, F_e = k δ with γ_n = 2 α √(m* k) (004 §2.2.1; 002 eq. 8): δ₀ = v √(m*/k),
//!   t₀ = √(m*/k), and x'' = −x − 2α x'.
//!
//! Without the clamp the contact ends when x returns to 0. With the clamp (the default
//! [`TensionPolicy::NoAttraction`]) the force F = F_e + F_d ≥ 0 first vanishes at some
//! x > 0 while the overlap shrinks; from then on F_e + F_d stays negative (x' is constant
//! and F_e decreases), so the force stays zero and the bodies leave with the speed they had
//! there. Either way the restitution is e = −x'(τ_end), a function of α only: the same for
//! every impact speed, mass, radius and modulus. [`reduced_impact`](super::reduced_impact)
//! integrates the reduced equation to about 1e-11.
//!
//! The inverse is a bracketed root find in α (e decreases monotonically with α, from 1 at
//! α = 0 to 0 as α → ∞). Laws ask for it per contact, so the results are memoised per
//! restitution value and thread; the computation is a fixed sequence of floating-point
//! operations, so the value is bit-identical on every thread, memo or not.

use super::reduced_impact::{integrate, ContactEnd};
use crate::error::{non_negative, restitution, LawError};
use crate::submodel::TensionPolicy;
use std::cell::{Cell, RefCell};

/// The spring a damping ratio is calibrated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spring {
    /// F_e = k δ, γ_n = 2 α √(m* k).
    Linear,
    /// F_e = k δ^{3/2}, γ_n = 2 √(5/6) α √(m* S_n).
    Hertz,
}

/// A head-on collision in the reduced units of the module doc.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReducedCollision {
    /// Restitution coefficient e = −x'(τ_end) (0 when the contact never ends).
    pub restitution: f64,
    /// Reduced duration τ_end of the contact force, in units of t₀ = δ₀/v (infinite when
    /// the contact never ends). Under the clamp the overlap lasts longer (it closes at the
    /// constant rate −e after the force has vanished).
    pub force_duration: f64,
}

/// √5: the Tsuji coefficient 2√(5/6) times √(3/2) from S_n = 3/2 k δ^{1/2}.
const SQRT_5: f64 = 2.236_067_977_499_79;

impl Spring {
    /// The reduced force F(x, x'), with x clamped at zero inside the powers.
    #[inline]
    fn reduced_force(self, alpha: f64, x: f64, u: f64) -> f64 {
        match self {
            Spring::Linear => x + 2.0 * alpha * u,
            Spring::Hertz => {
                // q = x^{1/4}: F = x^{3/2} + √5 α x^{1/4} x' = q (x q + √5 α x').
                let xp = x.max(0.0);
                let q = xp.sqrt().sqrt();
                q * (xp * q + SQRT_5 * alpha * u)
            }
        }
    }

    fn name(self) -> &'static str {
        match self {
            Spring::Linear => "linear_clamped_damping_ratio",
            Spring::Hertz => "hertz_tsuji_clamped_damping_ratio",
        }
    }
}

/// The reduced collision of `spring` with damping ratio `alpha` under `tension`.
fn reduced_collision(spring: Spring, alpha: f64, tension: TensionPolicy) -> ReducedCollision {
    let end = match tension {
        TensionPolicy::NoAttraction => ContactEnd::ForceVanishes,
        TensionPolicy::AllowDampingTension => ContactEnd::OverlapCloses,
    };
    match integrate(|x, u| spring.reduced_force(alpha, x, u), end) {
        Some(end) => ReducedCollision { restitution: (-end.rate).max(0.0), force_duration: end.time },
        None => ReducedCollision { restitution: 0.0, force_duration: f64::INFINITY },
    }
}

/// Head-on collision of a Hertz contact with Tsuji damping of ratio α ≥ 0
/// (γ_n = 2√(5/6) α √(m* S_n), the form of [`HertzViscous`](crate::HertzViscous)) under
/// `tension`, in reduced units (see the module doc: x'' = −x^{3/2} − √5 α x^{1/4} x').
/// Multiply `force_duration` by t₀ = (m*²/(k² v))^{1/5}, k = 4/3 E*√R*, for seconds.
/// Errors when α is negative or not finite.
pub fn hertz_tsuji_collision(alpha: f64, tension: TensionPolicy) -> Result<ReducedCollision, LawError> {
    non_negative("hertz_tsuji_collision", "damping_ratio", alpha)?;
    Ok(reduced_collision(Spring::Hertz, alpha, tension))
}

/// Damping ratio α of the Tsuji form (γ_n = 2√(5/6) α √(m* S_n)) whose head-on restitution
/// under the no-attraction clamp is `e` (module doc), for e in (0, 1]; α = 0 for e = 1.
/// Errors for e outside (0, 1] or too small to bracket (below about 1.5e-5).
pub fn hertz_tsuji_clamped_damping_ratio(e: f64) -> Result<f64, LawError> {
    reduced_ratio(Spring::Hertz, e)
}

/// Damping ratio α of the linear dashpot (γ_n = 2 α √(m* k_n)) whose head-on restitution
/// under the no-attraction clamp is `e`, for e in (0, 1]. Below e = exp(−2) ≈ 0.135 the
/// dashpot is over-damped (α > 1) and still separates under the clamp; the reduced equation
/// x'' = −x − 2α x' is integrated there (the closed form
/// [`linear_clamped_collision`](crate::params::linear_clamped_collision) covers α < 1).
pub fn linear_clamped_damping_ratio(e: f64) -> Result<f64, LawError> {
    reduced_ratio(Spring::Linear, e)
}

/// Largest α tried when bracketing: under the clamp e(α) falls like 1/(4α²) for large α
/// (measured 2.499e-5 at α = 100), so restitutions down to about 1.5e-5 are reachable.
const ALPHA_MAX: f64 = 128.0;

/// Bracketed root of e(α) = e under the clamp (Illinois variant of regula falsi, which keeps
/// the bracket), uncached.
pub(crate) fn reduced_ratio(spring: Spring, e: f64) -> Result<f64, LawError> {
    restitution(spring.name(), "restitution", e)?;
    if e == 1.0 {
        return Ok(0.0);
    }
    let f = |a: f64| reduced_collision(spring, a, TensionPolicy::NoAttraction).restitution - e;
    // e(0) = 1 exactly (no damping, energy is conserved).
    let (mut lo, mut f_lo) = (0.0, 1.0 - e);
    let mut hi = 0.25;
    let mut f_hi = f(hi);
    while f_hi > 0.0 {
        (lo, f_lo) = (hi, f_hi);
        hi *= 2.0;
        if hi > ALPHA_MAX {
            return Err(LawError::InvalidParameter {
                model: spring.name(),
                param: "restitution",
                value: e,
                expected: "a restitution reachable with a damping ratio up to 128 (e > ~1.5e-5)",
            });
        }
        f_hi = f(hi);
    }
    // Illinois: after two updates of the same end, halve the other end's value.
    let mut side = 0i8;
    for _ in 0..200 {
        if f_hi == 0.0 || hi - lo <= 4.0 * f64::EPSILON * hi {
            break;
        }
        let mid = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
        let mid = if mid > lo && mid < hi { mid } else { 0.5 * (lo + hi) };
        let f_mid = f(mid);
        if f_mid > 0.0 {
            (lo, f_lo) = (mid, f_mid);
            if side == -1 {
                f_hi *= 0.5;
            }
            side = -1;
        } else {
            (hi, f_hi) = (mid, f_mid);
            if side == 1 {
                f_lo *= 0.5;
            }
            side = 1;
        }
    }
    Ok(if f_lo.abs() < f_hi.abs() { lo } else { hi })
}

/// Entries kept per thread and spring; a simulation uses few materials. Past this the
/// table restarts (still correct, only slower).
const MEMO_CAPACITY: usize = 64;

/// The (bits of e, α) a fresh thread starts with: e = 1 gives α = 0 exactly.
const LAST_START: (u64, f64) = (0x3FF0_0000_0000_0000, 0.0);

thread_local! {
    // The last (e, α) of each spring, for the common single-material case: a `Cell` of
    // plain data with a constant initialiser needs no lazy-init check nor destructor
    // registration, so a hit costs one thread-local load and a compare.
    static HERTZ_LAST: Cell<(u64, f64)> = const { Cell::new(LAST_START) };
    static LINEAR_LAST: Cell<(u64, f64)> = const { Cell::new(LAST_START) };
    // Every e seen so far (bounded), read on a miss of the above.
    static HERTZ_TABLE: RefCell<Vec<(u64, f64)>> = const { RefCell::new(Vec::new()) };
    static LINEAR_TABLE: RefCell<Vec<(u64, f64)>> = const { RefCell::new(Vec::new()) };
}

/// The last (e, α) cell of `spring`.
#[inline(always)]
fn last_cell(spring: Spring) -> &'static std::thread::LocalKey<Cell<(u64, f64)>> {
    match spring {
        Spring::Hertz => &HERTZ_LAST,
        Spring::Linear => &LINEAR_LAST,
    }
}

/// The table look-up (and root find on a first sight) behind a miss of the last value;
/// out of line so that the hit path of the laws stays small.
#[cold]
#[inline(never)]
fn memo_miss(spring: Spring, e: f64) -> f64 {
    let key = e.to_bits();
    let lookup = |table: &RefCell<Vec<(u64, f64)>>| {
        let mut table = table.borrow_mut();
        match table.iter().find(|(k, _)| *k == key) {
            Some(&(_, a)) => a,
            None => {
                let a = reduced_ratio(spring, e).unwrap_or(f64::NAN);
                if table.len() == MEMO_CAPACITY {
                    table.clear();
                }
                table.push((key, a));
                a
            }
        }
    };
    let a = match spring {
        Spring::Hertz => HERTZ_TABLE.with(lookup),
        Spring::Linear => LINEAR_TABLE.with(lookup),
    };
    last_cell(spring).with(|l| l.set((key, a)));
    a
}

/// [`hertz_tsuji_clamped_damping_ratio`] or [`linear_clamped_damping_ratio`], memoised per
/// thread; NaN for a restitution outside (0, 1] (a law's `check_pair` rejects those first).
#[inline]
pub(crate) fn clamped_damping_ratio_memo(spring: Spring, e: f64) -> f64 {
    let (key, a) = last_cell(spring).with(Cell::get);
    if key == e.to_bits() {
        a
    } else {
        memo_miss(spring, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{damping_ratio_from_restitution, linear_clamped_collision};

    const CLAMP: TensionPolicy = TensionPolicy::NoAttraction;
    const FREE: TensionPolicy = TensionPolicy::AllowDampingTension;

    #[test]
    fn undamped_hertz_is_elastic_with_the_hertz_duration() {
        let c = hertz_tsuji_collision(0.0, CLAMP).unwrap();
        // e = 1 by energy conservation; the integrator's tolerance is 1e-12 per step.
        assert!((c.restitution - 1.0).abs() < 1e-10);
        // t_c = 2.9432751843 δ_max/v with δ_max = (5/4)^{2/5} δ₀ (VALIDATION M2), in t₀ = δ₀/v.
        let tc = 2.943_275_184_324_706 * 1.25f64.powf(0.4);
        assert!((c.force_duration - tc).abs() < 1e-9, "{} vs {tc}", c.force_duration);
    }

    #[test]
    fn hertz_tsuji_restitution_is_the_linear_dashpots() {
        // With w = (2/√5) x^{5/4}, du/dw = −(w + 2α u)/u: the phase-plane equation of the
        // linear dashpot x'' = −x − 2α x', with the same start (w = 0, u = 1) and the same
        // ends (w = 0; w + 2α u = 0 where the force vanishes). So both restitutions equal the
        // linear ones: exp(−πα/√(1 − α²)) (002 eq. 8) and linear_clamped_collision.
        for a in [0.05, damping_ratio_from_restitution(0.5), 0.5, 0.9] {
            let clamped = hertz_tsuji_collision(a, CLAMP).unwrap().restitution;
            let free = hertz_tsuji_collision(a, FREE).unwrap().restitution;
            let e_lin = (-std::f64::consts::PI * a / (1.0 - a * a).sqrt()).exp();
            let e_cl = linear_clamped_collision(1.0, 2.0 * a, 1.0).0;
            // Integration tolerance 1e-12 per step over a few hundred steps: 1e-9 margin.
            assert!((clamped - e_cl).abs() < 1e-9, "α = {a}: {clamped} vs {e_cl}");
            assert!((free - e_lin).abs() < 1e-9, "α = {a}: {free} vs {e_lin}");
            assert!(clamped > free, "the clamp raises the restitution");
        }
        // The case of the benchmark: a plain 0.5 gives 0.5503 under the clamp.
        let e = hertz_tsuji_collision(damping_ratio_from_restitution(0.5), CLAMP).unwrap().restitution;
        assert!((e - 0.5503).abs() < 1e-4, "{e}");
    }

    #[test]
    fn over_damped_linear_dashpot_still_separates_under_the_clamp() {
        // α = 1 (critical): the clamped limit of linear_clamped_collision is e^{−2}, which
        // the integration reaches from both sides of α = 1 continuously.
        let at_one = |s: Spring, a: f64| reduced_collision(s, a, CLAMP).restitution;
        assert!((at_one(Spring::Linear, 1.0) - (-2.0f64).exp()).abs() < 1e-9);
        let (below, above) = (at_one(Spring::Linear, 1.0 - 1e-6), at_one(Spring::Linear, 1.0 + 1e-6));
        // de/dα ≈ −0.2 near α = 1: a 1e-6 step changes e by ~2e-7 at most.
        assert!(below > above && below - above < 1e-6);
    }

    #[test]
    fn inverse_round_trips_and_is_monotone() {
        let mut last = 0.0;
        for e in [0.999, 0.95, 0.8, 0.5, 0.3, 0.1, 0.05, 0.01, 1e-3] {
            let a = hertz_tsuji_clamped_damping_ratio(e).unwrap();
            let back = hertz_tsuji_collision(a, CLAMP).unwrap().restitution;
            // The root find stops at a bracket of 4 ulps; the forward map is smooth, so the
            // round trip is exact to its own accuracy (1e-11), far within the 1e-6 asked.
            assert!((back - e).abs() < 1e-10, "e = {e}: {back}");
            assert!(a > last, "α grows as e falls");
            last = a;
            // The calibrated α exceeds the linear-oscillator α: the clamp needs more damping.
            assert!(a > damping_ratio_from_restitution(e));
            // Same restitution map as the linear dashpot (see above): same ratio.
            let lin = linear_clamped_damping_ratio(e).unwrap();
            assert!((lin - a).abs() < 1e-8 * (1.0 + a), "e = {e}: {lin} vs {a}");
        }
        assert_eq!(hertz_tsuji_clamped_damping_ratio(1.0).unwrap(), 0.0);
        assert_eq!(linear_clamped_damping_ratio(1.0).unwrap(), 0.0);
    }

    #[test]
    fn bad_input_is_an_error() {
        for e in [0.0, -0.1, 1.0 + 1e-12, 1.5, f64::NAN, f64::INFINITY, 1e-7] {
            let err = hertz_tsuji_clamped_damping_ratio(e).unwrap_err();
            assert!(
                matches!(err, LawError::InvalidParameter { param: "restitution", value, .. }
                    if value.to_bits() == e.to_bits()),
                "{err}"
            );
            assert!(linear_clamped_damping_ratio(e).is_err());
        }
        for a in [-1e-3, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                hertz_tsuji_collision(a, CLAMP),
                Err(LawError::InvalidParameter { param: "damping_ratio", .. })
            ));
        }
        assert!(clamped_damping_ratio_memo(Spring::Hertz, 1.5).is_nan());
    }

    #[test]
    fn memo_is_bit_identical_on_every_thread() {
        let es = [0.5, 0.7, 0.5, 0.9, 0.7];
        let direct: Vec<u64> = es.iter().map(|&e| reduced_ratio(Spring::Hertz, e).unwrap().to_bits()).collect();
        let here: Vec<u64> = es.iter().map(|&e| clamped_damping_ratio_memo(Spring::Hertz, e).to_bits()).collect();
        let there = std::thread::spawn(move || {
            es.iter().map(|&e| clamped_damping_ratio_memo(Spring::Hertz, e).to_bits()).collect::<Vec<u64>>()
        })
        .join()
        .unwrap();
        assert_eq!(direct, here);
        assert_eq!(direct, there);
    }
}
