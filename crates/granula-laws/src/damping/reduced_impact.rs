//! A head-on impact in reduced (dimensionless) units, x'' = −F(x, x'), x(0) = 0, x'(0) = 1,
//! integrated until the contact ends, for restitution coefficients that have no closed form.
//!
//! The integrator is the embedded Runge-Kutta pair of Dormand and Prince (order 5 with an
//! order-4 error estimate, "RK5(4)7M", 1980) with the usual step-size control; the end of
//! the contact is located inside the step where it happens by bisection on the step length
//! (each trial re-takes the order-5 step from the last accepted state), to round-off.

/// What ends the contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ContactEnd {
    /// The repulsive force F(x, x') drops to zero (the no-attraction clamp) or the overlap
    /// closes, whichever comes first.
    ForceVanishes,
    /// The overlap closes, x = 0 (the force may pull).
    OverlapCloses,
}

/// The end of a reduced impact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ReducedEnd {
    /// Reduced time τ of the end of the contact.
    pub time: f64,
    /// Overlap x at that time.
    pub overlap: f64,
    /// Overlap rate x' at that time (negative: separating).
    pub rate: f64,
}

/// Error tolerance (absolute and relative, per component) of the step-size control; x and
/// x' are of order one, so the restitution is accurate to about this level (the unit tests
/// check 1e-10 against the closed form of the linear dashpot).
const TOLERANCE: f64 = 1e-12;
/// The reduced time after which a contact is declared endless (the overlap creeps towards
/// zero without reaching it, as an over-damped oscillator does).
const MAX_TIME: f64 = 1e3;
/// A bound on the number of attempted steps, so that bad input cannot loop for ever.
const MAX_STEPS: usize = 1_000_000;
/// Bisection halvings of the final step: 2⁻⁶⁴ of a step is below round-off.
const BISECTIONS: usize = 64;

// Dormand-Prince RK5(4)7M tableau (the equation is autonomous: the nodes c_i are not needed).
const A21: f64 = 1.0 / 5.0;
const A31: f64 = 3.0 / 40.0;
const A32: f64 = 9.0 / 40.0;
const A41: f64 = 44.0 / 45.0;
const A42: f64 = -56.0 / 15.0;
const A43: f64 = 32.0 / 9.0;
const A51: f64 = 19372.0 / 6561.0;
const A52: f64 = -25360.0 / 2187.0;
const A53: f64 = 64448.0 / 6561.0;
const A54: f64 = -212.0 / 729.0;
const A61: f64 = 9017.0 / 3168.0;
const A62: f64 = -355.0 / 33.0;
const A63: f64 = 46732.0 / 5247.0;
const A64: f64 = 49.0 / 176.0;
const A65: f64 = -5103.0 / 18656.0;
const B1: f64 = 35.0 / 384.0;
const B3: f64 = 500.0 / 1113.0;
const B4: f64 = 125.0 / 192.0;
const B5: f64 = -2187.0 / 6784.0;
const B6: f64 = 11.0 / 84.0;
// Order-5 minus order-4 weights, for the error estimate.
const E1: f64 = 71.0 / 57600.0;
const E3: f64 = -71.0 / 16695.0;
const E4: f64 = 71.0 / 1920.0;
const E5: f64 = -17253.0 / 339200.0;
const E6: f64 = 22.0 / 525.0;
const E7: f64 = -1.0 / 40.0;

/// One Dormand-Prince step of length `h` from (x, u) for x' = u, u' = −F(x, u); returns the
/// order-5 state and the estimated error of each component.
fn step(force: &impl Fn(f64, f64) -> f64, x: f64, u: f64, h: f64) -> ((f64, f64), (f64, f64)) {
    let acc = |x: f64, u: f64| -force(x, u);
    let (k1x, k1u) = (u, acc(x, u));
    let (x2, u2) = (x + h * A21 * k1x, u + h * A21 * k1u);
    let (k2x, k2u) = (u2, acc(x2, u2));
    let (x3, u3) = (x + h * (A31 * k1x + A32 * k2x), u + h * (A31 * k1u + A32 * k2u));
    let (k3x, k3u) = (u3, acc(x3, u3));
    let (x4, u4) = (x + h * (A41 * k1x + A42 * k2x + A43 * k3x), u + h * (A41 * k1u + A42 * k2u + A43 * k3u));
    let (k4x, k4u) = (u4, acc(x4, u4));
    let x5 = x + h * (A51 * k1x + A52 * k2x + A53 * k3x + A54 * k4x);
    let u5 = u + h * (A51 * k1u + A52 * k2u + A53 * k3u + A54 * k4u);
    let (k5x, k5u) = (u5, acc(x5, u5));
    let x6 = x + h * (A61 * k1x + A62 * k2x + A63 * k3x + A64 * k4x + A65 * k5x);
    let u6 = u + h * (A61 * k1u + A62 * k2u + A63 * k3u + A64 * k4u + A65 * k5u);
    let (k6x, k6u) = (u6, acc(x6, u6));
    let xn = x + h * (B1 * k1x + B3 * k3x + B4 * k4x + B5 * k5x + B6 * k6x);
    let un = u + h * (B1 * k1u + B3 * k3u + B4 * k4u + B5 * k5u + B6 * k6u);
    let (k7x, k7u) = (un, acc(xn, un));
    let ex = h * (E1 * k1x + E3 * k3x + E4 * k4x + E5 * k5x + E6 * k6x + E7 * k7x);
    let eu = h * (E1 * k1u + E3 * k3u + E4 * k4u + E5 * k5u + E6 * k6u + E7 * k7u);
    ((xn, un), (ex, eu))
}

/// Integrates x'' = −F(x, x') from x = 0, x' = 1 until the contact ends as `end` says;
/// `None` when it does not end within the reduced time 10³ (a creeping, over-damped
/// contact) or within 10⁶ steps. `force` must accept any x (clamp x at zero inside powers).
pub(crate) fn integrate(force: impl Fn(f64, f64) -> f64, end: ContactEnd) -> Option<ReducedEnd> {
    let ended = |x: f64, u: f64| match end {
        ContactEnd::ForceVanishes => x <= 0.0 || force(x, u) <= 0.0,
        ContactEnd::OverlapCloses => x <= 0.0,
    };
    let (mut t, mut x, mut u) = (0.0f64, 0.0f64, 1.0f64);
    let mut h = 1e-4;
    for _ in 0..MAX_STEPS {
        let ((xn, un), (ex, eu)) = step(&force, x, u, h);
        let scale_x = TOLERANCE * (1.0 + x.abs().max(xn.abs()));
        let scale_u = TOLERANCE * (1.0 + u.abs().max(un.abs()));
        let err = (ex / scale_x).abs().max((eu / scale_u).abs());
        if !err.is_finite() {
            h *= 0.1;
            continue;
        }
        if err <= 1.0 {
            if ended(xn, un) {
                return Some(locate_end(&force, &ended, t, x, u, h));
            }
            (t, x, u) = (t + h, xn, un);
            if t > MAX_TIME {
                return None;
            }
        }
        // Standard controller for an order-5 step: safety 0.9, growth within [0.2, 5].
        let factor = if err == 0.0 { 5.0 } else { (0.9 * err.powf(-0.2)).clamp(0.2, 5.0) };
        h *= factor;
    }
    None
}

/// Bisection on the length s ∈ (0, h] of the last step for the first s at which `ended`
/// holds; (x, u) at time t is the last state before the end.
fn locate_end(
    force: &impl Fn(f64, f64) -> f64,
    ended: &impl Fn(f64, f64) -> bool,
    t: f64,
    x: f64,
    u: f64,
    h: f64,
) -> ReducedEnd {
    let (mut lo, mut hi) = (0.0, h);
    for _ in 0..BISECTIONS {
        let mid = 0.5 * (lo + hi);
        let ((xm, um), _) = step(force, x, u, mid);
        if ended(xm, um) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let ((xe, ue), _) = step(force, x, u, hi);
    ReducedEnd { time: t + hi, overlap: xe, rate: ue }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{damping_ratio_from_restitution, linear_clamped_collision};

    #[test]
    fn linear_dashpot_matches_its_closed_forms() {
        // x'' = −x − 2α x': the linear dashpot with k = m* = 1 and γ = 2α, whose restitution
        // is exp(−πα/√(1 − α²)) with tension (002 eq. 8) and linear_clamped_collision when
        // clamped. Both ends have closed forms, so they test the integrator and the location
        // of the end.
        for e in [0.1, 0.5, 0.9] {
            let a = damping_ratio_from_restitution(e);
            let force = |x: f64, u: f64| x + 2.0 * a * u;
            let free = integrate(force, ContactEnd::OverlapCloses).unwrap();
            // Tolerance 1e-12 per step over ~100 steps: 1e-10 is a 100× margin.
            assert!((-free.rate - e).abs() < 1e-10, "e = {e}: {}", -free.rate);
            let w = (1.0 - a * a).sqrt();
            assert!((free.time - std::f64::consts::PI / w).abs() < 1e-10);
            let (e_cl, t_cl) = linear_clamped_collision(1.0, 2.0 * a, 1.0);
            let clamped = integrate(force, ContactEnd::ForceVanishes).unwrap();
            // Same margin; the end is located to round-off by bisection.
            assert!((-clamped.rate - e_cl).abs() < 1e-10, "e = {e}: {} vs {e_cl}", -clamped.rate);
            assert!((clamped.time - t_cl).abs() < 1e-10);
        }
    }

    #[test]
    fn over_damped_contact_creeps() {
        // α = 2 > 1: the overlap of x'' = −x − 4x' decays like e^{−0.27τ} without crossing
        // zero. Either no end within τ = 10³, or an end where x has fallen below the
        // integrator's absolute tolerance (1e-12), with a rate of the same order: e ≈ 0.
        let end = integrate(|x, u| x + 4.0 * u, ContactEnd::OverlapCloses);
        assert!(end.is_none_or(|end| end.rate.abs() < 1e-9 && end.time > 50.0), "{end:?}");
    }
}
