//! Radius distributions for random packings.

use rand::Rng;

/// Most draws of one lognormal radius before [`SizeDistribution::sample`] gives up.
pub const MAX_REDRAWS: u32 = 1_000_000;

/// A validated radius distribution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeDistribution {
    /// Uniform in [min, max].
    Uniform {
        /// Smallest radius (m).
        min: f64,
        /// Largest radius (m).
        max: f64,
    },
    /// `large` with probability `fraction_large`, else `small`.
    Bidisperse {
        /// Small radius (m).
        small: f64,
        /// Large radius (m).
        large: f64,
        /// Probability of the large radius.
        fraction_large: f64,
    },
    /// ln r ~ N(ln median, sigma²), truncated to [min, max] by redrawing.
    Lognormal {
        /// Median (m).
        median: f64,
        /// Standard deviation of ln r.
        sigma: f64,
        /// Smallest radius (m).
        min: f64,
        /// Largest radius (m).
        max: f64,
    },
}

impl SizeDistribution {
    /// The largest radius the distribution can return.
    pub fn max_radius(&self) -> f64 {
        match *self {
            SizeDistribution::Uniform { max, .. } | SizeDistribution::Lognormal { max, .. } => max,
            SizeDistribution::Bidisperse { small, large, .. } => small.max(large),
        }
    }

    /// The smallest radius the distribution can return.
    pub fn min_radius(&self) -> f64 {
        match *self {
            SizeDistribution::Uniform { min, .. } | SizeDistribution::Lognormal { min, .. } => min,
            SizeDistribution::Bidisperse { small, large, .. } => small.min(large),
        }
    }

    /// Draws one radius. The lognormal draw uses the Box-Muller transform
    /// z = √(−2 ln u₁) cos(2π u₂) and redraws outside [min, max], at most
    /// [`MAX_REDRAWS`] times; after that it returns the median clamped to [min, max]. A
    /// scene's distribution is validated to put at least 1e-3 of its probability in
    /// [min, max] (`scene::limits::MIN_LOGNORMAL_ACCEPTANCE`), so that fallback has a
    /// probability below e^-1000; it only bounds the time taken by an unvalidated one.
    pub fn sample<R: Rng>(&self, rng: &mut R) -> f64 {
        match *self {
            SizeDistribution::Uniform { min, max } => min + (max - min) * rng.random::<f64>(),
            SizeDistribution::Bidisperse { small, large, fraction_large } => {
                if rng.random::<f64>() < fraction_large {
                    large
                } else {
                    small
                }
            }
            SizeDistribution::Lognormal { median, sigma, min, max } => {
                for _ in 0..MAX_REDRAWS {
                    // 1 - u is in (0, 1], so the logarithm is finite.
                    let u1 = 1.0 - rng.random::<f64>();
                    let u2 = rng.random::<f64>();
                    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                    let r = median * (sigma * z).exp();
                    if (min..=max).contains(&r) {
                        return r;
                    }
                }
                median.max(min).min(max)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn sample_moments_match_the_distributions() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let n = 20_000;
        let u = SizeDistribution::Uniform { min: 1.0, max: 2.0 };
        let mean = (0..n).map(|_| u.sample(&mut rng)).sum::<f64>() / n as f64;
        // Mean 1.5, standard error √(1/12)/√n ≈ 0.002: 0.01 is five standard errors.
        assert!((mean - 1.5).abs() < 0.01, "uniform mean {mean}");
        let b = SizeDistribution::Bidisperse { small: 1.0, large: 2.0, fraction_large: 0.3 };
        let frac = (0..n).filter(|_| b.sample(&mut rng) == 2.0).count() as f64 / n as f64;
        // Binomial standard error √(0.21/n) ≈ 0.0032: 0.015 is under five of them.
        assert!((frac - 0.3).abs() < 0.015, "bidisperse fraction {frac}");
        let l = SizeDistribution::Lognormal { median: 1.0, sigma: 0.2, min: 0.01, max: 100.0 };
        let logs: Vec<f64> = (0..n).map(|_| l.sample(&mut rng).ln()).collect();
        let m = logs.iter().sum::<f64>() / n as f64;
        let sd = (logs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n as f64).sqrt();
        // ln r ~ N(0, 0.04): standard error of the mean 0.0014, of the sd 0.001; 0.01 is
        // several of each (truncation at 23 sigma changes nothing).
        assert!(m.abs() < 0.01 && (sd - 0.2).abs() < 0.01, "lognormal mean {m} sd {sd}");
    }
}
