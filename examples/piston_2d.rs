//! Spurious sound in a 2D random dense packing (000 §3.3.2, Fig. 8), planar mode.
//!
//! Discs with radii uniform in [r, 2r] and mass ∝ area, Coulomb friction μ = 0.05, no
//! gravity, a fixed base and two fixed side walls, and a mobile piston (a plane, dynamic,
//! translating vertically only) pushed down by a constant force F. The discs start loose,
//! each at a random place in its cell of a coarse grid; the piston compresses them into a
//! random dense packing and the packing is left to come to rest. Then F → F + ΔF and the
//! piston's height oscillates as a damped sine whose ω and τ are fitted (both free: the
//! continuum values of the 1D chain, 000 eqs. 58 and 60, do not apply to a random packing):
//! ω ∝ √N_I and τ ∝ 1/N_I as in the chain (000 §3.3.2).
//!
//! The response is measured as the difference of two runs from the same state with the
//! same random sweep order, one with the jump and one without: what the unconverged sweeps
//! do to the static load F (a jitter of the packing from step to step) is the same in both
//! and cancels, and ΔF can be small enough (F/100) for the packing to respond linearly.
//! A jump ΔF = F, measured directly, opens and slides contacts: the frequency then drifts
//! upwards as the ringing decays, and no single damped sine fits (docs/validation.md, N7).
//!
//! Units: r = 1, disc density 1 (per unit thickness), Δt = 1.
//!
//! Run: `cargo run --release --example piston_2d [n_discs] [--seeds K]` (default 1000
//! discs and one packing; `--seeds K` repeats the study on packings 1 to K).

use granula::broadphase::LinkedCells;
use granula::core::{DVec3, Dofs, Material, PlaneBuilder, SphereBuilder, World};
use granula::nscd::{NscdConfig, NscdSolver};
use granula_validation::fit::{fit_damped_sine, DampedSine};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The sweep counts N_I of the study.
pub const N_IS: [u32; 4] = [10, 20, 40, 80];

/// Settings of the piston experiment.
#[derive(Clone, Copy, Debug)]
pub struct Piston {
    /// Number of discs.
    pub discs: usize,
    /// Compression force F on the piston.
    pub force: f64,
    /// The jump ΔF.
    pub jump: f64,
    /// Piston force while the loose discs are swept together (then lowered to F).
    pub compress_force: f64,
    /// Steps at `compress_force`.
    pub compress_steps: usize,
    /// Steps over which the piston force falls linearly from `compress_force` to F.
    pub release_steps: usize,
    /// Steps at F, at most, for the packing to come to rest.
    pub rest_steps: usize,
    /// Sweeps per step during the preparation.
    pub prepare_sweeps: u32,
    /// Measured τ·N_I/Δt of this packing size, the scale of every window below (the
    /// fit's first guess; the fit itself searches τ over [0.1, 10] times it).
    pub tau_n_i: f64,
    /// Steps at F with the measured N_I before the jump, in units of τ: the packing
    /// settles to the (softer or stiffer) contacts of that N_I.
    pub settle_tau: f64,
    /// Start of the fit window after the jump, in units of τ: the faster modes the jump
    /// also excites have died out (000 eq. 60: τ ∝ 1/k²).
    pub fit_from_tau: f64,
    /// Length of the fit window, in units of τ.
    pub fit_span_tau: f64,
}

impl Piston {
    /// The set-up of 000 §3.3.2 with `discs` discs. The times scale with the packing's
    /// height squared (000 eq. 60, τ = 2/(D k²) with k ∝ 1/height ∝ 1/√discs): τ·N_I is
    /// about 450 Δt at 1000 discs.
    pub fn new(discs: usize) -> Self {
        Piston {
            discs,
            force: 0.02,
            jump: 2e-4,
            compress_force: 0.2,
            compress_steps: 1500,
            release_steps: 500,
            rest_steps: 6000,
            prepare_sweeps: 40,
            tau_n_i: 0.45 * discs as f64,
            settle_tau: 20.0,
            fit_from_tau: 0.5,
            fit_span_tau: 8.0,
        }
    }

    /// Columns of the initial grid.
    pub fn cols(&self) -> usize {
        (self.discs as f64).sqrt().ceil() as usize
    }

    /// First guess of τ/Δt at N_I sweeps per step.
    pub fn tau_guess(&self, n_i: u32) -> f64 {
        self.tau_n_i / n_i as f64
    }
}

/// Pitch of the initial grid: a disc of the largest radius 2 fits in a cell with room to
/// move.
const PITCH: f64 = 4.4;

/// The loose initial state: each disc at a random place in its cell of a grid (the
/// lateral disorder makes the columns buckle into a random packing when pressed; discs on
/// the cell centres would stay in straight columns, and the piston would rest on the
/// tallest one). The piston is the last body.
pub fn build(p: &Piston, seed: u64) -> World {
    let material = Material { friction: 0.05, density: 1.0, ..Material::named("discs") };
    let mut w = World::builder().planar(true).gravity(DVec3::ZERO).material(material).build().unwrap();
    let cols = p.cols();
    let rows = p.discs.div_ceil(cols);
    let width = cols as f64 * PITCH;
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Y).build().unwrap()).unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::X).build().unwrap()).unwrap();
    w.insert(PlaneBuilder::new(DVec3::new(width, 0.0, 0.0), -DVec3::X).build().unwrap()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut mass = 0.0;
    for k in 0..p.discs {
        let (i, j) = (k % cols, k / cols);
        let r = 1.0 + rng.random::<f64>();
        let slack = 0.5 * PITCH - r;
        let jitter = DVec3::new(rng.random_range(-slack..=slack), rng.random_range(-slack..=slack), 0.0);
        let c = DVec3::new((i as f64 + 0.5) * PITCH, (j as f64 + 0.5) * PITCH, 0.0) + jitter;
        w.insert(SphereBuilder::new(r, c).build().unwrap()).unwrap();
        mass += std::f64::consts::PI * r * r;
    }
    // The piston: as heavy as one row of the grid, translating along y only.
    let piston = PlaneBuilder::new(DVec3::new(0.0, rows as f64 * PITCH + 0.5, 0.0), -DVec3::Y)
        .dynamic()
        .mass(mass / rows as f64)
        .lock(Dofs::TX | Dofs::TZ | Dofs::ROTATION)
        .external_force(DVec3::new(0.0, -p.compress_force, 0.0))
        .build()
        .unwrap();
    w.insert(piston).unwrap();
    w
}

fn solver(n_i: u32, seed: u64) -> NscdSolver<LinkedCells> {
    NscdSolver::new(LinkedCells::new(), NscdConfig { seed, ..NscdConfig::fixed_random_sweeps(n_i) }).unwrap()
}

/// Piston speed (r/Δt) below which the packing counts as at rest: about a twentieth of
/// the piston's peak speed in its response to ΔF = F/100 at N_I = 10 (5e-7 r/Δt).
pub const REST_SPEED: f64 = 3e-8;
/// Steps in a row the piston must stay below [`REST_SPEED`].
pub const QUIET_STEPS: usize = 500;
/// The run without the jump counts as quiet if its piston's largest speed is below this
/// fraction of the largest speed of the response to the jump.
pub const QUIET_RATIO: f64 = 0.1;
/// Measurements tried per N_I before the last one is kept, quiet or not.
pub const MAX_ATTEMPTS: usize = 10;

/// Compresses the loose discs of `build(p, seed)` into a dense packing under 10 F, lowers
/// the load to F and lets the packing come to rest (at most `rest_steps` steps), then stops
/// every body: the rattlers, discs without a contact, would drift on and strike the
/// packing now and then.
pub fn prepare(p: &Piston, seed: u64) -> World {
    let mut w = build(p, seed);
    let piston = w.bodies.len() - 1;
    let mut s = solver(p.prepare_sweeps, seed);
    let mut quiet = 0;
    for k in 0..p.compress_steps + p.release_steps + p.rest_steps {
        let released = (k.saturating_sub(p.compress_steps) as f64 / p.release_steps.max(1) as f64).min(1.0);
        w.bodies.external_force[piston].y = -(p.compress_force + (p.force - p.compress_force) * released);
        w.step(&mut s, 1.0).unwrap();
        // At rest: the piston and every disc that carries a contact force slower than
        // REST_SPEED for QUIET_STEPS steps in a row (rattlers, discs without a contact,
        // drift on: they are stopped below).
        let still = released == 1.0
            && w.bodies.velocity[piston].y.abs() < REST_SPEED
            && s.impulses().filter(|c| c.2 != DVec3::ZERO).all(|(i, j, _)| {
                w.bodies.velocity[i as usize].length() < REST_SPEED
                    && w.bodies.velocity[j as usize].length() < REST_SPEED
            });
        quiet = if still { quiet + 1 } else { 0 };
        if quiet == QUIET_STEPS {
            break;
        }
    }
    for v in &mut w.bodies.velocity {
        *v = DVec3::ZERO;
    }
    w
}

/// A fitted damped sine with the standard errors of ω and τ.
#[derive(Clone, Copy, Debug)]
pub struct Fitted {
    /// The fit (000 eq. 64).
    pub fit: DampedSine,
    /// Standard error of ω Δt.
    pub omega_se: f64,
    /// Standard error of τ/Δt.
    pub tau_se: f64,
}

/// Fits x(t) = x₀ + A e^(−t/τ) sin(ωt + φ) (000 eq. 64) and estimates the standard errors
/// of ω and τ from the linearised least-squares problem: covariance s² (JᵀJ)⁻¹ with J the
/// derivatives of the model in (x₀, A, φ, ω, τ) at the optimum and s² = Σ r²/(n − 5).
/// This assumes independent residuals; correlated residuals make it an underestimate,
/// which the spread between packings checks (docs/validation.md, N7).
pub fn fit_with_errors(t: &[f64], x: &[f64], omega0: f64, tau0: f64) -> Fitted {
    let fit = fit_damped_sine(t, x, omega0, tau0);
    let (a, w, tau, phi) = (fit.amplitude, fit.omega, fit.tau, fit.phase);
    let mut jtj = [[0.0f64; 5]; 5];
    let mut sse = 0.0;
    for (&ti, &xi) in t.iter().zip(x) {
        let e = (-ti / tau).exp();
        let (sn, cs) = (w * ti + phi).sin_cos();
        let g = [1.0, e * sn, a * e * cs, a * e * cs * ti, a * e * sn * ti / (tau * tau)];
        for i in 0..5 {
            for j in 0..5 {
                jtj[i][j] += g[i] * g[j];
            }
        }
        sse += (fit.at(ti) - xi).powi(2);
    }
    let s2 = sse / (t.len() as f64 - 5.0);
    let cov = invert5(jtj);
    Fitted { fit, omega_se: (s2 * cov[3][3]).sqrt(), tau_se: (s2 * cov[4][4]).sqrt() }
}

/// Inverse of a symmetric positive definite 5×5 matrix (Gauss-Jordan with pivoting).
#[allow(clippy::needless_range_loop)] // textbook elimination indices
fn invert5(m: [[f64; 5]; 5]) -> [[f64; 5]; 5] {
    let mut a = [[0.0f64; 10]; 5];
    for i in 0..5 {
        a[i][..5].copy_from_slice(&m[i]);
        a[i][5 + i] = 1.0;
    }
    for col in 0..5 {
        let piv = (col..5).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())).unwrap_or(col);
        a.swap(col, piv);
        let d = a[col][col];
        for k in 0..10 {
            a[col][k] /= d;
        }
        for row in 0..5 {
            if row != col {
                let f = a[row][col];
                for k in 0..10 {
                    a[row][k] -= f * a[col][k];
                }
            }
        }
    }
    let mut inv = [[0.0; 5]; 5];
    for i in 0..5 {
        inv[i].copy_from_slice(&a[i][5..]);
    }
    inv
}

/// Result of one measurement.
#[derive(Clone, Debug)]
pub struct PistonRun {
    /// Sweeps per step.
    pub n_i: u32,
    /// The fit over the window, with standard errors.
    pub fitted: Fitted,
    /// Response of the piston height to the jump (run with the jump minus run without),
    /// per step after the jump.
    pub response: Vec<f64>,
    /// Piston height per step after the jump in the run with the jump.
    pub y: Vec<f64>,
    /// First step of the fit window.
    pub fit_start: usize,
    /// Measurements made until the run without the jump was quiet (see [`measure`]).
    pub attempts: usize,
    /// Whether the kept measurement's run without the jump was quiet.
    pub quiet: bool,
}

/// Steps `w` with `s` for `steps` steps, recording the piston height.
fn record(w: &mut World, s: &mut NscdSolver<LinkedCells>, steps: usize) -> Vec<f64> {
    let piston = w.bodies.len() - 1;
    (0..steps)
        .map(|_| {
            w.step(s, 1.0).unwrap();
            w.bodies.position[piston].y
        })
        .collect()
}

/// A world holding a copy of `from`'s bodies.
fn copy_world(from: &World) -> World {
    let mut w = World::builder()
        .planar(true)
        .gravity(DVec3::ZERO)
        .material(from.materials.materials()[0].clone())
        .build()
        .unwrap();
    w.bodies = from.bodies.clone();
    w
}

/// Largest step-to-step change of a series (the piston's largest speed, r/Δt).
fn max_speed(y: &[f64]) -> f64 {
    y.windows(2).map(|w| (w[1] - w[0]).abs()).fold(0.0, f64::max)
}

/// From a prepared packing: settle at F with N_I sweeps per step (sweep order from
/// `seed`), then run twice from the same state, with and without F → F + ΔF, and fit a
/// damped sine to the difference of the piston heights after the transient.
///
/// A packing switched to another N_I settles to softer or stiffer contacts (000 eq. 67,
/// κ ∝ N_I) and can creep: a disc slips or a contact closes now and then. The jump shifts
/// such an event in time, and the difference then holds the event, not the ringing. So the
/// run without the jump must be quiet: its piston never faster than [`QUIET_RATIO`] times
/// the response's peak speed. Otherwise the packing is run on from where the run without
/// the jump ended and the measurement is repeated.
pub fn measure(p: &Piston, prepared: &World, n_i: u32, seed: u64) -> PistonRun {
    let tau = p.tau_guess(n_i);
    let mut w = copy_world(prepared);
    let piston = w.bodies.len() - 1;
    let mut s = solver(n_i, seed);
    for _ in 0..(p.settle_tau * tau) as usize {
        w.step(&mut s, 1.0).unwrap();
    }
    let steps = ((p.fit_from_tau + p.fit_span_tau) * tau).ceil() as usize;
    let mut attempts = 0;
    let (response, y, quiet) = loop {
        attempts += 1;
        let (state, settled) = (s.save_state(), copy_world(&w));
        let reference = record(&mut w, &mut s, steps);
        let mut jumped = copy_world(&settled);
        let mut sj = solver(n_i, seed);
        sj.restore_state(&state, &jumped).unwrap();
        jumped.bodies.external_force[piston].y = -(p.force + p.jump);
        let y = record(&mut jumped, &mut sj, steps);
        let response: Vec<f64> = y.iter().zip(&reference).map(|(a, b)| a - b).collect();
        let quiet = max_speed(&reference) < QUIET_RATIO * max_speed(&response);
        if quiet || attempts == MAX_ATTEMPTS {
            break (response, y, quiet);
        }
    };
    let fit_start = (p.fit_from_tau * tau).round() as usize;
    let t: Vec<f64> = (0..steps - fit_start).map(|k| k as f64).collect();
    // First guesses: ω/√N_I measured on this set-up (0.064 at 1000 discs, ∝ 1/height).
    let omega0 = 0.064 * (n_i as f64 * 1000.0 / p.discs as f64).sqrt();
    let fitted = fit_with_errors(&t, &response[fit_start..], omega0, tau);
    PistonRun { n_i, fitted, response, y, fit_start, attempts, quiet }
}

/// Weighted least-squares line through (ln x, ln y), weights 1/σ² with σ the relative
/// standard errors of y (the standard errors of ln y). Returns the slope and its standard
/// error, the larger of the formal one, 1/√(Σ w (ln x − mean)²), and that one scaled by the
/// scatter about the line, √(χ²/(n − 2)): the fits' errors assume independent residuals
/// and can be too small, and with four points the scatter alone can be small by chance.
pub fn log_fit(x: &[f64], y: &[f64], rel_se: &[f64]) -> (f64, f64) {
    let w: Vec<f64> = rel_se.iter().map(|s| 1.0 / (s * s)).collect();
    let sw: f64 = w.iter().sum();
    let (lx, ly): (Vec<f64>, Vec<f64>) = x.iter().zip(y).map(|(a, b)| (a.ln(), b.ln())).unzip();
    let mx = lx.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>() / sw;
    let my = ly.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>() / sw;
    let sxx: f64 = lx.iter().zip(&w).map(|(a, b)| b * (a - mx) * (a - mx)).sum();
    let sxy: f64 = lx.iter().zip(&ly).zip(&w).map(|((a, c), b)| b * (a - mx) * (c - my)).sum();
    let slope = sxy / sxx;
    let chi2: f64 = lx.iter().zip(&ly).zip(&w).map(|((a, c), b)| b * (c - my - slope * (a - mx)).powi(2)).sum();
    let formal = (1.0 / sxx).sqrt();
    (slope, formal * (chi2 / (x.len() as f64 - 2.0)).sqrt().max(1.0))
}

/// The undamped frequency ω₀ = √(ω² + 1/τ²) of a fit and its standard error. In the
/// continuum model ω² = c²k² − D²k⁴/4 (000 eq. 58) and 1/τ² = D²k⁴/4 (000 eq. 60), so
/// ω₀ = c k ∝ √N_I exactly (000 eq. 57), while ω itself falls below √N_I as the damping
/// grows with N_I.
pub fn undamped(f: &Fitted) -> (f64, f64) {
    let (w, t) = (f.fit.omega, f.fit.tau);
    let w0 = (w * w + 1.0 / (t * t)).sqrt();
    let se = ((w * f.omega_se).powi(2) + (f.tau_se / (t * t * t)).powi(2)).sqrt() / w0;
    (w0, se)
}

/// Exponents of the power laws in N_I fitted over a study, each with its standard error.
#[derive(Clone, Copy, Debug)]
pub struct Exponents {
    /// ω ∝ N_I^a (000 §3.3.2: 1/2, less the damping's share, 000 eq. 58).
    pub a: (f64, f64),
    /// ω₀ ∝ N_I^a₀ (000 eqs. 57-60: 1/2).
    pub a0: (f64, f64),
    /// τ ∝ N_I^b (000 eq. 60: −1).
    pub b: (f64, f64),
}

/// Fits the exponents of ω, ω₀ and τ against N_I by weighted least squares in log-log.
pub fn exponents(runs: &[PistonRun]) -> Exponents {
    let x: Vec<f64> = runs.iter().map(|r| r.n_i as f64).collect();
    let fit = |g: &dyn Fn(&Fitted) -> (f64, f64)| {
        let (v, e): (Vec<f64>, Vec<f64>) = runs.iter().map(|r| g(&r.fitted)).map(|(v, e)| (v, e / v)).unzip();
        log_fit(&x, &v, &e)
    };
    Exponents { a: fit(&|f| (f.fit.omega, f.omega_se)), a0: fit(&undamped), b: fit(&|f| (f.fit.tau, f.tau_se)) }
}

/// Area fraction of the discs between the base and the piston.
pub fn packing_fraction(p: &Piston, w: &World) -> f64 {
    let b = &w.bodies;
    let piston = b.len() - 1;
    let area: f64 = (3..piston).map(|k| std::f64::consts::PI * b.radius[k] * b.radius[k]).sum();
    area / (p.cols() as f64 * PITCH * b.position[piston].y)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seeds: u64 = args.iter().position(|a| a == "--seeds").and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(1);
    let discs = args.first().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let p = Piston::new(discs);
    println!("Reproduces 000 Fig. 8 (§3.3.2): after F -> F + ΔF the piston rings with ω ∝ √N_I and τ ∝ 1/N_I");
    println!("{discs} discs, F = {}, ΔF = {}; response = run with the jump − run without", p.force, p.jump);
    for seed in 1..=seeds {
        let t0 = std::time::Instant::now();
        let prepared = prepare(&p, seed);
        let t_prep = t0.elapsed().as_secs_f64();
        let runs: Vec<PistonRun> = N_IS.iter().map(|&n_i| measure(&p, &prepared, n_i, seed)).collect();
        println!(
            "packing {seed}: area fraction {:.4}, prepared in {t_prep:.1} s, measured in {:.1} s",
            packing_fraction(&p, &prepared),
            t0.elapsed().as_secs_f64() - t_prep
        );
        for r in &runs {
            let f = &r.fitted;
            let (w0, w0e) = undamped(f);
            println!(
                "  N_I = {:2}: ω Δt = {:.5} ± {:.5}  ω₀ Δt = {:.5} ± {:.5}  τ/Δt = {:7.3} ± {:.3}  ω₀/√N_I = {:.5}  τ N_I = {:.1}  ({} attempt(s))",
                r.n_i,
                f.fit.omega,
                f.omega_se,
                w0,
                w0e,
                f.fit.tau,
                f.tau_se,
                w0 / (r.n_i as f64).sqrt(),
                f.fit.tau * r.n_i as f64,
                r.attempts
            );
        }
        let e = exponents(&runs);
        println!(
            "  exponents: ω: {:.4} ± {:.4}; ω₀: {:.4} ± {:.4} (000: 1/2); τ: {:.4} ± {:.4} (000: −1)",
            e.a.0, e.a.1, e.a0.0, e.a0.1, e.b.0, e.b.1
        );
    }
}
