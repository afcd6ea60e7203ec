//! The slow-shear cell of 002 §3 (Fig. 2, VALIDATION M6): 256 polygons (16 × 16 random
//! convex polygons, 5 to 8 vertices, R = 1 cm, 1000 kg/m²) between two rough walls of 16
//! glued polygons each, periodic along x, the walls at fixed height (no dilation) moving
//! in opposite directions at ±γ̇ H/2 with γ̇ = 1.25e-5 1/s; k_n = 400 N/m (002 eq. 5),
//! ε_n = 0.9875 (002 eq. 8 with the mean reduced mass), k_t/k_n = ν_t/ν_n = 1/3, Gear with
//! six values (002 Appendix A).
//!
//! Part 1 (002 Fig. 3 a-e): the triangular lattice (spacing 0.9 × 2R, so neighbours overlap
//! at their corners) relaxes for 100 t_c at Δt = 13/2500 t_c with the walls still; the
//! walls then move and the run forks into Δt = 13/2500 t_c and 13/500 t_c for 200 t_c,
//! for μ = 0, for μ = 0.5 with Cundall's spring (002 eq. 7) and for μ = 0.5 with the
//! predictor-based elongation (002 §4). Writes `shear_cell_energy.csv` (E_k against t/t_c
//! for the six runs, and the cumulative difference ΔE_k = Σ |E_k(13/2500) − E_k(13/500)|
//! Δt_s of each pair, Δt_s the sampling interval) and `shear_cell_energy.png` / `.svg`.
//!
//! Part 2 (stress against strain): over part 1's 200 t_c the strain is only γ̇ t ≈ 1.4e-4.
//! To show the shear stress, the pressure and their ratio up to a strain of 0.2, the cell
//! (μ = 0.5, predictor-based elongation, Δt = 13/500 t_c) is sheared 100 times faster,
//! γ̇ = 1.25e-3 1/s: still quasi-static (inertial number γ̇ d / √(p/ρ) ≈ 7e-4). Writes
//! `shear_cell_stress.csv` and `shear_cell_stress.png` / `.svg`.
//!
//! Output under `granula-out/shear_cell/`, or the directory given as first argument.
//! `--quick`: an 8 × 8 cell, 20 t_c per part-1 run and a strain of 0.005 (a smoke test).
//! 002 gives neither the particle size nor the preparation: those are our choices.

mod plot_font;

use granula::broadphase::LinkedCells;
use granula::core::ContactLaw;
use granula::integrators::Gear;
use granula::laws::{planar_friction_law, planar_predictor_law, ReducedMassViscous};
use granula::md::{MdConfig, MdSolver};
use granula_validation::shear_cell::{Cell, ShearCell};
use serde::{de::DeserializeOwned, Serialize};

const KN: f64 = 400.0;
const EPS: f64 = 0.9875;

type Error = Box<dyn std::error::Error>;

/// One part-1 run: its label and E_k sampled every 13/500 t_c.
struct Series {
    label: &'static str,
    energy: Vec<f64>,
}

/// The tangential rule of a run.
#[derive(Clone, Copy)]
enum Tangential {
    /// Cundall's spring (002 eqs. 6-7).
    Cundall,
    /// The predictor-based elongation (002 §4).
    Predictor,
}

/// The damping rate ν_n (002 eq. 8 with the mean reduced mass of two free particles) and
/// t_c (002 eq. 10).
fn scales(spec: &ShearCell) -> Result<(f64, f64), Error> {
    let cell = spec.build()?;
    let b = &cell.world.bodies;
    let m = cell.free.clone().map(|i| b.mass[i]).sum::<f64>() / cell.free.len() as f64;
    let mr = 0.5 * m;
    let nu = ReducedMassViscous::from_restitution(EPS, KN, mr)?.rate();
    Ok((nu, std::f64::consts::PI / (KN / mr - 0.25 * nu * nu).sqrt()))
}

fn solver<L: ContactLaw>(law: L) -> Result<MdSolver<L, Gear, LinkedCells>, Error> {
    Ok(MdSolver::new(law, Gear::six(), LinkedCells::new(), MdConfig::default())?)
}

/// Runs `steps` steps of `dt`.
fn advance<L: ContactLaw>(
    c: &mut Cell,
    md: &mut MdSolver<L, Gear, LinkedCells>,
    dt: f64,
    steps: usize,
) -> Result<(), Error> {
    for _ in 0..steps {
        c.world.step(md, dt)?;
    }
    Ok(())
}

/// Part 1 for one law: the relaxed cell forked into the two time steps (the same cell built
/// again, with the world's and the solver's saved states).
fn fork<L>(spec: &ShearCell, law: L, tc: f64, relax_tc: f64, run_tc: f64) -> Result<[Vec<f64>; 2], Error>
where
    L: ContactLaw + Clone,
    L::History: Serialize + DeserializeOwned,
{
    let fine = 13.0 / 2500.0 * tc;
    let mut cell = spec.build()?;
    let mut md = solver(law.clone())?;
    advance(&mut cell, &mut md, fine, (relax_tc * tc / fine) as usize)?;
    let (world, state) = (cell.world.save_state(), md.save_state());
    let samples = (run_tc * tc / (5.0 * fine)) as usize;
    let mut out = [Vec::new(), Vec::new()];
    for (k, factor) in [1usize, 5].into_iter().enumerate() {
        let mut c = spec.build()?;
        c.world.restore_state(&world)?;
        c.start_shear()?;
        let mut s = solver(law.clone())?;
        s.restore_state(&state, &c.world)?;
        let mut e = vec![c.kinetic_energy()];
        for _ in 0..samples {
            advance(&mut c, &mut s, fine * factor as f64, 5 / factor)?;
            e.push(c.kinetic_energy());
        }
        out[k] = e;
    }
    Ok(out)
}

/// [`fork`] with μ and the tangential rule of 002's law (k_t/k_n = ν_t/ν_n = 1/3).
fn fork_with(spec: &ShearCell, mu: f64, rule: Tangential, relax_tc: f64, run_tc: f64) -> Result<[Vec<f64>; 2], Error> {
    let (nu, tc) = scales(spec)?;
    match rule {
        Tangential::Cundall => fork(spec, planar_friction_law(KN, nu, 1.0 / 3.0, mu)?, tc, relax_tc, run_tc),
        Tangential::Predictor => fork(spec, planar_predictor_law(KN, nu, 1.0 / 3.0, mu)?, tc, relax_tc, run_tc),
    }
}

/// The cumulative difference ΔE_k(t) = Σ_{s ≤ t} |a_s − b_s| Δt_s (J s), Δt_s = `interval`.
fn cumulative(a: &[f64], b: &[f64], interval: f64) -> Vec<f64> {
    let mut sum = 0.0;
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            sum += (x - y).abs() * interval;
            sum
        })
        .collect()
}

/// One sample of part 2: (strain, τ, p).
type StressSample = (f64, f64, f64);

/// Part 2: (strain, τ, p) at about 400 points up to `strain`.
fn stress_strain(spec: &ShearCell, strain: f64) -> Result<Vec<StressSample>, Error> {
    let (nu, tc) = scales(spec)?;
    let fine = 13.0 / 2500.0 * tc;
    let mut cell = spec.build()?;
    let mut md = solver(planar_predictor_law(KN, nu, 1.0 / 3.0, 0.5)?)?;
    advance(&mut cell, &mut md, fine, (100.0 * tc / fine) as usize)?;
    let dt = 13.0 / 500.0 * tc;
    cell.start_shear()?;
    let start = cell.world.time();
    let steps = (strain / (cell.shear_rate * dt)).ceil() as usize;
    let every = (steps / 400).max(1);
    let mut out = Vec::new();
    for s in 0..steps {
        cell.world.step(&mut md, dt)?;
        if s % every == 0 {
            let (tau, p) = cell.wall_stress();
            out.push((cell.shear_rate * (cell.world.time() - start), tau, p));
        }
    }
    Ok(out)
}

type Curve = (String, Vec<(f64, f64)>);

/// Draws curves (x, y) with a log y axis when `log_y`, on `area`.
fn panel<DB: plotters::prelude::DrawingBackend>(
    area: &plotters::drawing::DrawingArea<DB, plotters::coord::Shift>,
    caption: &str,
    x_desc: &str,
    y_desc: &str,
    curves: &[Curve],
    log_y: bool,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    use plotters::prelude::*;
    let pts = || curves.iter().flat_map(|c| c.1.iter().copied());
    let x_max = pts().map(|p| p.0).fold(0.0, f64::max).max(1e-300);
    let x_min = pts().map(|p| p.0).fold(f64::MAX, f64::min).min(x_max);
    let colours = [RED, BLUE, RGBColor(255, 160, 0), RGBColor(0, 170, 220), RGBColor(0, 150, 0), MAGENTA];
    let mut builder = ChartBuilder::on(area);
    builder.margin(15).caption(caption, ("sans-serif", 18)).x_label_area_size(40).y_label_area_size(70);
    if log_y {
        let positive = || pts().map(|p| p.1).filter(|&y| y > 0.0);
        let y_max = positive().fold(0.0, f64::max).max(1e-300) * 2.0;
        let y_min = positive().fold(f64::MAX, f64::min).min(y_max / 4.0) / 2.0;
        let mut chart = builder.build_cartesian_2d(x_min..x_max, (y_min..y_max).log_scale())?;
        chart.configure_mesh().x_desc(x_desc).y_desc(y_desc).y_label_formatter(&|v| format!("{v:.0e}")).draw()?;
        for ((name, c), colour) in curves.iter().zip(colours) {
            chart
                .draw_series(LineSeries::new(c.iter().copied().filter(|p| p.1 > 0.0), colour.stroke_width(2)))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
        }
        chart.configure_series_labels().background_style(WHITE).border_style(BLACK).draw()?;
    } else {
        let y_max = pts().map(|p| p.1).fold(f64::MIN, f64::max);
        let y_min = pts().map(|p| p.1).fold(f64::MAX, f64::min).min(0.0);
        let pad = 0.05 * (y_max - y_min).max(1e-300);
        let mut chart = builder.build_cartesian_2d(x_min..x_max, (y_min - pad)..(y_max + pad))?;
        chart.configure_mesh().x_desc(x_desc).y_desc(y_desc).draw()?;
        for ((name, c), colour) in curves.iter().zip(colours) {
            chart
                .draw_series(LineSeries::new(c.iter().copied(), colour.stroke_width(2)))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
        }
        chart.configure_series_labels().background_style(WHITE).border_style(BLACK).draw()?;
    }
    Ok(())
}

/// A figure of two panels, top and bottom, as `stem.png` and `stem.svg`.
fn figure(
    stem: &std::path::Path,
    top: (&str, &str, &str, &[Curve], bool),
    bottom: (&str, &str, &str, &[Curve], bool),
) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    plot_font::register()?;
    fn draw<DB: DrawingBackend>(
        root: DrawingArea<DB, plotters::coord::Shift>,
        top: (&str, &str, &str, &[Curve], bool),
        bottom: (&str, &str, &str, &[Curve], bool),
    ) -> Result<(), Box<dyn std::error::Error>>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let (a, b) = root.split_vertically(480);
        panel(&a, top.0, top.1, top.2, top.3, top.4)?;
        panel(&b, bottom.0, bottom.1, bottom.2, bottom.3, bottom.4)?;
        root.present()?;
        Ok(())
    }
    draw(BitMapBackend::new(&stem.with_extension("png"), (900, 960)).into_drawing_area(), top, bottom)?;
    draw(SVGBackend::new(&stem.with_extension("svg"), (900, 960)).into_drawing_area(), top, bottom)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "granula-out/shear_cell".into());
    std::fs::create_dir_all(&dir)?;
    let spec = if quick { ShearCell { columns: 8, rows: 8, ..ShearCell::default() } } else { ShearCell::default() };
    let (relax_tc, run_tc, strain) = if quick { (20.0, 20.0, 0.005) } else { (100.0, 200.0, 0.2) };
    let (_, tc) = scales(&spec)?;
    println!("Reproduces 002 Fig. 3 (§3): E_k of the slow-shear cell against time for Δt = 13/2500 and");
    println!("13/500 t_c. Expected: without friction E_k does not depend on Δt; with μ = 0.5 and Cundall's");
    println!("spring it does; the predictor-based elongation (002 §4) removes the dependence.");
    println!("{} free polygons, t_c = {tc:.4e} s (002 eq. 10)", spec.columns * spec.rows);
    let mut series = Vec::new();
    let mut differences: Vec<Curve> = Vec::new();
    let interval = 13.0 / 500.0; // sampling interval in t_c
    for (name, mu, rule) in [
        ("mu=0", 0.0, Tangential::Cundall),
        ("mu=0.5 Cundall", 0.5, Tangential::Cundall),
        ("mu=0.5 predictor", 0.5, Tangential::Predictor),
    ] {
        let started = std::time::Instant::now();
        let [fine, coarse] = fork_with(&spec, mu, rule, relax_tc, run_tc)?;
        let cum = cumulative(&fine, &coarse, interval * tc);
        let total: f64 = fine.iter().sum::<f64>() * interval * tc;
        let last = *cum.last().unwrap_or(&0.0);
        println!(
            "{name:>17}: cumulative ΔE_k = {last:.3e} J s, {:.3e} of ∫E_k dt; E_k at the end {:.3e} / {:.3e} J ({:.1} s)",
            last / total,
            fine.last().unwrap_or(&0.0),
            coarse.last().unwrap_or(&0.0),
            started.elapsed().as_secs_f64()
        );
        differences.push((name.to_string(), cum.iter().enumerate().map(|(k, &d)| (k as f64 * interval, d)).collect()));
        series.push(Series { label: name, energy: fine });
        series.push(Series { label: name, energy: coarse });
    }
    let mut csv = String::from("t_over_tc");
    for (k, s) in series.iter().enumerate() {
        csv.push_str(&format!(
            ",Ek_{}_{}",
            s.label.replace(' ', "_"),
            if k % 2 == 0 { "dt13_2500" } else { "dt13_500" }
        ));
    }
    for d in &differences {
        csv.push_str(&format!(",cumulative_dEk_{}", d.0.replace(' ', "_")));
    }
    csv.push('\n');
    for k in 0..series[0].energy.len() {
        csv.push_str(&format!("{:e}", k as f64 * interval));
        for s in &series {
            csv.push_str(&format!(",{:e}", s.energy[k]));
        }
        for d in &differences {
            csv.push_str(&format!(",{:e}", d.1[k].1));
        }
        csv.push('\n');
    }
    std::fs::write(dir.join("shear_cell_energy.csv"), csv)?;
    let energy_curves: Vec<Curve> = series
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let name = format!("{}, dt = 13/{} tc", s.label, if k % 2 == 0 { 2500 } else { 500 });
            (name, s.energy.iter().enumerate().map(|(j, &e)| (j as f64 * interval, e)).collect())
        })
        .collect();
    figure(
        &dir.join("shear_cell_energy"),
        ("Slow-shear cell (002 Fig. 3 a-d): kinetic energy", "t / t_c", "E_k (J)", &energy_curves, true),
        ("Cumulative difference between the two time steps (002 Fig. 3e)", "t / t_c", "ΔE_k (J s)", &differences, true),
    )?;
    println!("wrote {}", dir.join("shear_cell_energy.{csv,png,svg}").display());

    let fast = ShearCell { shear_rate: 1.25e-3, ..spec };
    let started = std::time::Instant::now();
    let st = stress_strain(&fast, strain)?;
    let mut csv = String::from("strain,shear_stress_N_per_m,pressure_N_per_m,ratio\n");
    for (g, tau, p) in &st {
        csv.push_str(&format!("{g:e},{tau:e},{p:e},{:e}\n", tau / p));
    }
    std::fs::write(dir.join("shear_cell_stress.csv"), csv)?;
    let tail = &st[st.len() / 2..];
    let mean_ratio = tail.iter().map(|s| s.1 / s.2).sum::<f64>() / tail.len() as f64;
    println!(
        "stress-strain to γ = {strain} at γ̇ = 1.25e-3 1/s: mean τ/p over the second half {mean_ratio:.3} ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
    let stresses: Vec<Curve> = vec![
        ("shear stress".into(), st.iter().map(|s| (s.0, s.1)).collect()),
        ("pressure".into(), st.iter().map(|s| (s.0, s.2)).collect()),
    ];
    let ratio: Vec<Curve> = vec![("shear stress / pressure".into(), st.iter().map(|s| (s.0, s.1 / s.2)).collect())];
    figure(
        &dir.join("shear_cell_stress"),
        ("Wall stresses against strain (μ = 0.5, predictor elongation)", "strain", "N/m", &stresses, false),
        ("Stress ratio", "strain", "τ / p", &ratio, false),
    )?;
    println!("wrote {}", dir.join("shear_cell_stress.{csv,png,svg}").display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumulative_difference_sums_absolute_gaps() {
        let c = cumulative(&[1.0, 2.0, 3.0], &[1.0, 1.5, 4.0], 0.5);
        assert_eq!(c, vec![0.0, 0.25, 0.75]);
    }

    #[test]
    fn the_figures_are_written_as_png_and_svg_with_their_axis_titles() {
        let dir = std::env::temp_dir().join(format!("granula-shear-cell-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let curves: Vec<Curve> = vec![("mu=0".into(), vec![(0.0, 1e-5), (1.0, 2e-5), (2.0, 1e-6)])];
        figure(
            &dir.join("f"),
            ("top", "t / t_c", "E_k (J)", &curves, true),
            ("bottom", "strain", "τ / p", &curves, false),
        )
        .unwrap();
        assert!(std::fs::metadata(dir.join("f.png")).unwrap().len() > 1000);
        let svg = std::fs::read_to_string(dir.join("f.svg")).unwrap();
        assert!(svg.contains("E_k (J)") && svg.contains("mu=0"), "axis title and legend");
        std::fs::remove_dir_all(&dir).ok();
    }
}
