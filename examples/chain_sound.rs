//! Spurious sound in a contact-dynamics chain (000 §3.3.1, Figs. 6-7).
//!
//! 50 equal spheres on a line, translation along x only, a fixed wall at the left with a
//! gap of one diameter, a constant force F = 0.05 d m/Δt² on the rightmost sphere, no
//! friction, N_I fixed random sweeps per step with warm-started forces. After the chain hits
//! the wall, the rightmost sphere oscillates as a damped sine whose ω and τ the continuum
//! model predicts (000 eqs. 58 and 60): ω ∝ √N_I, τ ∝ 1/N_I: the rigid chain behaves as an
//! elastic one of stiffness κ = q m N_I/Δt² (000 eq. 67).
//!
//! Writes, under `granula-out/chain_sound/` (or the folder given as the first argument),
//! `chain_sound.csv` (step, x of the rightmost sphere, analytic curve, per N_I),
//! `chain_sound.png` (dots: simulation; lines: damped sine with the analytic ω and τ, only
//! offset, amplitude and phase fitted, as in 000 Fig. 7; axes and titles drawn with the
//! font embedded from `assets/fonts`) and `chain_sound.svg` (the same), and prints fitted
//! against analytic values.
//!
//! Run: `cargo run --release --example chain_sound [out_dir]`.

mod plot_font;

use granula::broadphase::BruteForce;
use granula_validation::chain_run::{run_chain, ChainResult, ChainRun};
use granula_validation::fit::fit_with;
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

/// What one panel of the figure shows: the simulated positions after the fit start and
/// the damped sine with the analytic ω and τ at the same steps.
struct Panel {
    n_i: u32,
    simulated: Vec<(f64, f64)>,
    analytic: Vec<(f64, f64)>,
}

/// Writes the CSV and the figures (`chain_sound.png` and `chain_sound.svg`, with axes and
/// titles) of the runs into `dir`.
pub fn write_outputs(runs: &[ChainSound], dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir)?;
    let mut csv = std::fs::File::create(dir.join("chain_sound.csv"))?;
    writeln!(csv, "n_i,step,x_over_d,analytic_over_d")?;
    let mut panels = Vec::new();
    for run in runs {
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
        let simulated = xs[(start - from).min(xs.len() - 1)..].to_vec();
        let analytic = simulated.iter().map(|&(s, _)| (s, curve.at(s - start as f64))).collect();
        panels.push(Panel { n_i: run.n_i, simulated, analytic });
    }
    let size = (1200, 300 * runs.len() as u32);
    // The bitmap backend draws text with this font (ab_glyph); the SVG names the family.
    plot_font::register()?;
    draw(BitMapBackend::new(&dir.join("chain_sound.png"), size).into_drawing_area(), &panels, true)?;
    draw(SVGBackend::new(&dir.join("chain_sound.svg"), size).into_drawing_area(), &panels, true)
}

/// Draws one panel per run on `root`; with `labelled`, axis scales, titles and a caption
/// per panel (bitmaps need the font registered by `write_outputs`).
fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    panels: &[Panel],
    labelled: bool,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let areas = root.split_evenly((panels.len(), 1));
    let colors = [RED, BLUE, GREEN, MAGENTA];
    for (k, (p, area)) in panels.iter().zip(areas.iter()).enumerate() {
        let (lo, hi) =
            p.simulated.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &(_, x)| (l.min(x), h.max(x)));
        let pad = 0.1 * (hi - lo).max(1e-12);
        let (first, last) = (p.simulated[0].0, p.simulated[p.simulated.len() - 1].0);
        let mut builder = ChartBuilder::on(area);
        builder.margin(10);
        if labelled {
            let caption = format!("N_I = {}: rightmost sphere (dots) and the analytic damped sine (line)", p.n_i);
            builder.caption(caption, ("sans-serif", 16)).x_label_area_size(35).y_label_area_size(70);
        }
        let mut chart = builder.build_cartesian_2d(first..last, lo - pad..hi + pad)?;
        if labelled {
            chart.configure_mesh().x_desc("step").y_desc("x / d").draw()?;
        }
        let color = colors[k % colors.len()];
        chart.draw_series(p.simulated.iter().map(|&q| Circle::new(q, 2, color.filled())))?;
        chart.draw_series(LineSeries::new(p.analytic.iter().copied(), BLACK.stroke_width(2)))?;
    }
    root.present()?;
    Ok(())
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "granula-out/chain_sound".into());
    println!("Reproduces 000 Fig. 7 (§3.3.1): the rightmost sphere of a 50-sphere chain rings as a damped");
    println!("sine whose ω and τ the continuum model predicts (000 eqs. 58, 60); expected: fitted = analytic");
    let mut runs = Vec::new();
    for n_i in [10, 20, 40, 80] {
        eprintln!("running N_I = {n_i} ...");
        runs.extend(run(&[n_i], 50));
    }
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
    println!("wrote {dir}/chain_sound.csv, {dir}/chain_sound.png and {dir}/chain_sound.svg");
}
