//! Least-squares fit of an exponentially damped sine, x(t) = x₀ + A e^(−t/τ) sin(ωt + φ)
//! (000 eq. 64), used to measure the spurious sound waves of the chain and piston tests.
//!
//! For fixed (ω, τ) the model is linear in (x₀, A cos φ, A sin φ): those three come from the
//! normal equations; (ω, τ) are found by a grid search around a first guess followed by a
//! Nelder-Mead simplex on (ln ω, ln τ).

/// Parameters of a fitted damped sine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DampedSine {
    /// Offset x₀.
    pub offset: f64,
    /// Amplitude A at t = 0.
    pub amplitude: f64,
    /// Angular frequency ω (rad per unit of t).
    pub omega: f64,
    /// Damping time τ (unit of t).
    pub tau: f64,
    /// Phase φ (rad).
    pub phase: f64,
    /// Root-mean-square residual of the fit.
    pub rms: f64,
}

impl DampedSine {
    /// The model at time `t`.
    pub fn at(&self, t: f64) -> f64 {
        self.offset + self.amplitude * (-t / self.tau).exp() * (self.omega * t + self.phase).sin()
    }
}

/// Linear part for fixed (ω, τ): returns (x₀, a, b, sum of squared residuals) with
/// x = x₀ + e^(−t/τ) (a sin ωt + b cos ωt).
fn linear_part(t: &[f64], x: &[f64], omega: f64, tau: f64) -> (f64, f64, f64, f64) {
    let mut m = [[0.0f64; 3]; 3];
    let mut r = [0.0f64; 3];
    for (&ti, &xi) in t.iter().zip(x) {
        let e = (-ti / tau).exp();
        let f = [1.0, e * (omega * ti).sin(), e * (omega * ti).cos()];
        for a in 0..3 {
            r[a] += f[a] * xi;
            for b in 0..3 {
                m[a][b] += f[a] * f[b];
            }
        }
    }
    let c = solve3(m, r);
    let mut sse = 0.0;
    for (&ti, &xi) in t.iter().zip(x) {
        let e = (-ti / tau).exp();
        let y = c[0] + e * (c[1] * (omega * ti).sin() + c[2] * (omega * ti).cos());
        sse += (y - xi) * (y - xi);
    }
    (c[0], c[1], c[2], sse)
}

/// Gaussian elimination with partial pivoting on a 3×3 system.
#[allow(clippy::needless_range_loop)] // textbook elimination indices
fn solve3(mut m: [[f64; 3]; 3], mut r: [f64; 3]) -> [f64; 3] {
    for col in 0..3 {
        let piv = (col..3).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs())).unwrap_or(col);
        m.swap(col, piv);
        r.swap(col, piv);
        let d = m[col][col];
        if d.abs() < 1e-300 {
            continue;
        }
        for row in col + 1..3 {
            let f = m[row][col] / d;
            for k in col..3 {
                m[row][k] -= f * m[col][k];
            }
            r[row] -= f * r[col];
        }
    }
    let mut c = [0.0; 3];
    for row in (0..3).rev() {
        let mut s = r[row];
        for k in row + 1..3 {
            s -= m[row][k] * c[k];
        }
        c[row] = if m[row][row].abs() < 1e-300 { 0.0 } else { s / m[row][row] };
    }
    c
}

/// Fits only x₀, A and φ for a given ω and τ (000 Fig. 7: the curve uses the frequency and
/// damping time of the continuum model).
pub fn fit_with(t: &[f64], x: &[f64], omega: f64, tau: f64) -> DampedSine {
    let (x0, a, b, sse) = linear_part(t, x, omega, tau);
    DampedSine {
        offset: x0,
        amplitude: (a * a + b * b).sqrt(),
        omega,
        tau,
        phase: b.atan2(a),
        rms: (sse / t.len().max(1) as f64).sqrt(),
    }
}

/// Fits x(t) = x₀ + A e^(−t/τ) sin(ωt + φ) to the samples, starting from the guesses
/// `omega0` and `tau0` (the search covers ω in [0.3, 3]·ω₀ and τ in [0.1, 10]·τ₀).
/// Shift `t` so that it starts near 0 for a well-conditioned amplitude.
pub fn fit_damped_sine(t: &[f64], x: &[f64], omega0: f64, tau0: f64) -> DampedSine {
    let cost = |lw: f64, lt: f64| linear_part(t, x, lw.exp(), lt.exp()).3;
    // Grid search.
    let (mut best, mut bw, mut bt) = (f64::INFINITY, omega0.ln(), tau0.ln());
    for i in 0..=40 {
        let lw = omega0.ln() + (0.3f64.ln() + (10.0f64.ln()) * i as f64 / 40.0);
        for k in 0..=20 {
            let lt = tau0.ln() + (0.1f64.ln() + (100.0f64.ln()) * k as f64 / 20.0);
            let c = cost(lw, lt);
            if c < best {
                (best, bw, bt) = (c, lw, lt);
            }
        }
    }
    // Nelder-Mead on (ln ω, ln τ).
    let mut s = [[bw, bt], [bw + 0.03, bt], [bw, bt + 0.1]];
    let mut f = [cost(s[0][0], s[0][1]), cost(s[1][0], s[1][1]), cost(s[2][0], s[2][1])];
    for _ in 0..400 {
        let mut idx = [0usize, 1, 2];
        idx.sort_by(|&a, &b| f[a].total_cmp(&f[b]));
        let (lo, mid, hi) = (idx[0], idx[1], idx[2]);
        let c = [(s[lo][0] + s[mid][0]) / 2.0, (s[lo][1] + s[mid][1]) / 2.0];
        let refl = [2.0 * c[0] - s[hi][0], 2.0 * c[1] - s[hi][1]];
        let fr = cost(refl[0], refl[1]);
        if fr < f[lo] {
            let exp = [3.0 * c[0] - 2.0 * s[hi][0], 3.0 * c[1] - 2.0 * s[hi][1]];
            let fe = cost(exp[0], exp[1]);
            if fe < fr {
                (s[hi], f[hi]) = (exp, fe);
            } else {
                (s[hi], f[hi]) = (refl, fr);
            }
        } else if fr < f[mid] {
            (s[hi], f[hi]) = (refl, fr);
        } else {
            let con = [(c[0] + s[hi][0]) / 2.0, (c[1] + s[hi][1]) / 2.0];
            let fc = cost(con[0], con[1]);
            if fc < f[hi] {
                (s[hi], f[hi]) = (con, fc);
            } else {
                for k in [mid, hi] {
                    s[k] = [(s[k][0] + s[lo][0]) / 2.0, (s[k][1] + s[lo][1]) / 2.0];
                    f[k] = cost(s[k][0], s[k][1]);
                }
            }
        }
        let spread = (s[0][0] - s[1][0]).abs()
            + (s[0][0] - s[2][0]).abs()
            + (s[0][1] - s[1][1]).abs()
            + (s[0][1] - s[2][1]).abs();
        if spread < 1e-12 {
            break;
        }
    }
    let k = (0..3).min_by(|&a, &b| f[a].total_cmp(&f[b])).unwrap_or(0);
    let (omega, tau) = (s[k][0].exp(), s[k][1].exp());
    let (x0, a, b, sse) = linear_part(t, x, omega, tau);
    DampedSine {
        offset: x0,
        amplitude: (a * a + b * b).sqrt(),
        omega,
        tau,
        phase: b.atan2(a),
        rms: (sse / t.len().max(1) as f64).sqrt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_synthetic_damped_sine() {
        let truth = DampedSine { offset: 2.0, amplitude: 0.3, omega: 0.18, tau: 60.0, phase: 0.7, rms: 0.0 };
        let t: Vec<f64> = (0..300).map(|k| k as f64).collect();
        let x: Vec<f64> = t.iter().map(|&ti| truth.at(ti)).collect();
        let fit = fit_damped_sine(&t, &x, 0.12, 100.0);
        // Noise-free data: the simplex converges to round-off level.
        assert!((fit.omega / truth.omega - 1.0).abs() < 1e-6, "{fit:?}");
        assert!((fit.tau / truth.tau - 1.0).abs() < 1e-6, "{fit:?}");
        assert!((fit.offset - 2.0).abs() < 1e-8);
    }
}
