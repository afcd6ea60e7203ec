//! Spurious sound in a contact-dynamics chain (000 §3.3.1, Figs. 6-7).
//!
//! 50 equal spheres on a line, translation along x only, a fixed wall at the left with a
//! gap of one diameter, a constant force F = 0.05 d m/Δt² on the rightmost sphere, no
//! friction, N_I fixed random sweeps per step with warm-started forces. After the chain hits
//! the wall, the rightmost sphere oscillates as a damped sine whose ω and τ the continuum
//! model predicts (000 eqs. 58 and 60): ω ∝ √N_I, τ ∝ 1/N_I: the rigid chain behaves as an
//! elastic one of stiffness κ = q m N_I/Δt² (000 eq. 67).
//!
//! Writes `chain_sound.csv` (step, x of the rightmost sphere, analytic curve, per N_I) and
//! `chain_sound.png` (dots: simulation; lines: damped sine with the analytic ω and τ, only
//! offset, amplitude and phase fitted, as in 000 Fig. 7) into the directory given as first
//! argument (default: the current directory), and prints fitted against analytic values.
//!
//! Run: `cargo run --release --example chain_sound [out_dir]`.

use granula::broadphase::BruteForce;
use granula::nscd::chain_run::{run_chain, ChainResult, ChainRun};
use granula::nscd::fit::fit_with;
use plotters::prelude::*;
use std::io::Write;
use std::path::Path;

/// One chain run per N_I, with the curve of 000 Fig. 7 (analytic ω, τ).
pub struct ChainSound {
    /// N_I of the run.
    pub n_i: u32,
    /// The run.
    pub result: ChainResult,
}

/// Runs the chain for each N_I (chain of `n` spheres).
pub fn run(n_is: &[u32], n: usize) -> Vec<ChainSound> {
    n_is.iter()
        .map(|&n_i| ChainSound {
            n_i,
            result: run_chain(&ChainRun { n, n_i, ..Default::default() }, BruteForce).unwrap(),
        })
        .collect()
}

/// Writes the CSV and the PNG of the runs into `dir`.
pub fn write_outputs(runs: &[ChainSound], dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir)?;
    let mut csv = std::fs::File::create(dir.join("chain_sound.csv"))?;
    writeln!(csv, "n_i,step,x_over_d,analytic_over_d")?;
    let png = dir.join("chain_sound.png");
    let root = BitMapBackend::new(&png, (1200, 300 * runs.len() as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((runs.len(), 1));
    let colors = [RED, BLUE, GREEN, MAGENTA];
    for (k, (run, panel)) in runs.iter().zip(panels.iter()).enumerate() {
        let r = &run.result;
        let (omega, tau) = r.theory;
        let start = r.fit_start;
        let t: Vec<f64> = (start..r.x.len()).map(|s| (s - start) as f64).collect();
        let curve = fit_with(&t, &r.x[start - 1..], omega, tau);
        // Show from the hit to the end of the fit window.
        let from = r.hit_step.max(1);
        let xs: Vec<(f64, f64)> = (from..=r.x.len()).map(|s| (s as f64, r.x[s - 1])).collect();
        for &(s, x) in &xs {
            let a = if s as usize >= start { curve.at(s - start as f64) } else { f64::NAN };
            writeln!(csv, "{},{},{},{}", run.n_i, s, x, a)?;
        }
        let tail = &xs[(start - from).min(xs.len() - 1)..];
        let (lo, hi) = tail.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &(_, x)| (l.min(x), h.max(x)));
        let pad = 0.1 * (hi - lo).max(1e-12);
        let mut chart = ChartBuilder::on(panel)
            .margin(10)
            .build_cartesian_2d(start as f64..r.x.len() as f64, lo - pad..hi + pad)?;
        let color = colors[k % colors.len()];
        chart.draw_series(tail.iter().map(|&(s, x)| Circle::new((s, x), 2, color.filled())))?;
        chart.draw_series(LineSeries::new(
            tail.iter().map(|&(s, _)| (s, curve.at(s - start as f64))),
            BLACK.stroke_width(2),
        ))?;
    }
    root.present()?;
    Ok(())
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let runs = run(&[10, 20, 40, 80], 50);
    println!("N_I   ω Δt fitted  analytic   err      τ/Δt fitted  analytic   err");
    for r in &runs {
        let (w, t) = r.result.theory;
        let f = &r.result.fit;
        println!(
            "{:3}   {:.5}      {:.5}   {:+.2}%   {:8.2}     {:8.2}   {:+.2}%",
            r.n_i,
            f.omega,
            w,
            100.0 * (f.omega / w - 1.0),
            f.tau,
            t,
            100.0 * (f.tau / t - 1.0)
        );
    }
    write_outputs(&runs, Path::new(&dir)).expect("writing chain_sound.csv / .png");
    println!("wrote {dir}/chain_sound.csv and {dir}/chain_sound.png");
}
