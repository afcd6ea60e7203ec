//! Corrector coefficients of the Gear predictor-corrector for second-order equations.

/// The corrector weights α₀ … α_{n−1} of an n-value Gear predictor-corrector for r̈ = f(r, ṙ)
/// (002 Appendix A; Gear 1971 via Allen & Tildesley, Table E.1).
///
/// The scheme carries the scaled derivatives r_k = Δt^k r⁽ᵏ⁾/k!, k = 0 … n−1. The predictor
/// is the Taylor (Pascal-triangle) update; after the force evaluation the difference
/// Δ = (r̈ Δt²/2) − r₂ᵖ corrects every value, r_k = r_kᵖ + α_k Δ (002 Appendix A).
/// The local error of an n-value scheme is of order Δt^n, so the nominal global orders are
/// 3, 4 and 5 for 4, 5 and 6 values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GearCoefficients {
    /// Number of values carried (4, 5 or 6).
    pub values: usize,
    /// α₀ … α_{values−1}; entries beyond `values` are zero.
    pub alpha: [f64; 6],
}

impl GearCoefficients {
    /// 4 values (nominal order 3): 1/6, 5/6, 1, 1/3.
    pub const FOUR: GearCoefficients =
        GearCoefficients { values: 4, alpha: [1.0 / 6.0, 5.0 / 6.0, 1.0, 1.0 / 3.0, 0.0, 0.0] };

    /// 5 values (nominal order 4): 19/120, 3/4, 1, 1/2, 1/12.
    pub const FIVE: GearCoefficients =
        GearCoefficients { values: 5, alpha: [19.0 / 120.0, 0.75, 1.0, 0.5, 1.0 / 12.0, 0.0] };

    /// 6 values (nominal order 5) as in 002 Appendix A, for forces that depend on velocity,
    /// r̈ = f(r, ṙ) (viscous damping, friction): α₀ = 3/16, 251/360, 1, 11/18, 1/6, 1/60.
    pub const SIX: GearCoefficients =
        GearCoefficients { values: 6, alpha: [3.0 / 16.0, 251.0 / 360.0, 1.0, 11.0 / 18.0, 1.0 / 6.0, 1.0 / 60.0] };

    /// 6 values with α₀ = 3/20 instead of 3/16: Gear's original choice for forces that depend
    /// on positions only, r̈ = f(r) (Allen & Tildesley, Table E.1, note). 002 integrates
    /// r̈ = f(r, ṙ) and therefore uses 3/16 ([`GearCoefficients::SIX`]); with purely elastic
    /// forces the 3/20 variant has a smaller error constant.
    pub const SIX_POSITION_ONLY: GearCoefficients =
        GearCoefficients { values: 6, alpha: [3.0 / 20.0, 251.0 / 360.0, 1.0, 11.0 / 18.0, 1.0 / 6.0, 1.0 / 60.0] };

    /// The nominal order of the global error, `values − 1`.
    pub fn nominal_order(&self) -> usize {
        self.values - 1
    }
}

/// Binomial coefficients C(j, k) for j, k < 6 (the predictor's Pascal triangle).
pub(crate) const PASCAL: [[f64; 6]; 6] = [
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 2.0, 1.0, 0.0, 0.0, 0.0],
    [1.0, 3.0, 3.0, 1.0, 0.0, 0.0],
    [1.0, 4.0, 6.0, 4.0, 1.0, 0.0],
    [1.0, 5.0, 10.0, 10.0, 5.0, 1.0],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_derivative_weight_is_one_for_every_scheme() {
        // α₂ = 1 makes the corrected acceleration equal the evaluated one: a defining
        // property of Gear's second-order correctors.
        for c in [GearCoefficients::FOUR, GearCoefficients::FIVE, GearCoefficients::SIX] {
            assert_eq!(c.alpha[2], 1.0);
            assert!(c.alpha[c.values..].iter().all(|&a| a == 0.0));
        }
    }

    #[test]
    fn pascal_rows_sum_to_powers_of_two() {
        for (j, row) in PASCAL.iter().enumerate() {
            assert_eq!(row.iter().sum::<f64>(), (1u32 << j) as f64);
        }
    }
}
