//! The stress-controlled two-disc test of 002 §3 (Figs. 4-9, VALIDATION M5): relaxation time
//! t_R against the time step Δt/t_c, for Cundall's incremental spring (002 eqs. 6-7,
//! `granula::laws::linear_cundall_strack`) and for the predictor-based elongation (002 eqs.
//! 14-15, `granula::laws::linear_predictor` with the same settings and the rotational part from
//! the bodies' orientations, `RotationalIncrement::FromOrientations`), with the rotation of
//! the moving disc locked and free. Writes `two_disc_relaxation.csv`,
//! `two_disc_relaxation.png` and `two_disc_relaxation.svg` (the curves with axes, titles and
//! legend; the PNG's text drawn with the font embedded from `assets/fonts`) under `granula-out/two_disc_relaxation/`, or the directory given as
//! the first argument; `--quick` runs three time steps only.
//!
//! Set-up (002 leaves radius, mass, force and damping open; these are our choices, built by
//! `Setup::m5` of the `two_disc` module this example shares with `two_disc_parameters`):
//! two discs of radius a = 0.05 m in planar mode; disc i fixed at the origin, disc j
//! (m = 0.4 kg) touching it at 45°; a constant force F = 100 N on j along −x (it presses the
//! contact and loads it tangentially); linear normal spring k_n = 4e8 N/m on the overlap δ
//! (002 eq. 5 uses the overlap area; for discs we use the linear overlap), viscous normal
//! damping from ε_n = 0.9, k_t/k_n = 1/3, γ_t/γ_n = k_t/k_n (002 §2), μ = 500 (the contact
//! stays elastic); no gravity; Gear predictor-corrector with 6 values (002 Appendix A).
//! t_c from 002 eq. 10 with the reduced mass m (disc i is fixed).
//!
//! What t_R measures: the decay of the kinetic energy of the contact-point motion,
//! ½ m |𝒱|² with 𝒱 = v_j + ω_j × l_j (002 eq. 12 fitted to its peaks). With the rotation
//! locked this is j's kinetic energy E_k, as in 002. With free rotation it is not: the load
//! is at j's centre, so j has no equilibrium at 45° (its torque balance needs f_t = 0) and
//! rolls around i towards the position where F is normal to the contact, a pendulum-like
//! motion with a period of ~1500 t_c (about 8° of rolling in the 150 t_c run). E_k then
//! grows with the rolling and has no relaxation time; ½ m|𝒱|² leaves the rolling out
//! (𝒱 = 0 in pure rolling) and keeps the contact's own oscillation, which decays
//! exponentially from its first peak down to ~5e-7 of it, where the contact follows the
//! rolling quasi-statically: the free-rotation fit uses the peaks between 1e-2 and 1e-5
//! (1e-8 when locked). 002's Fig. 4 balances "the reaction from the wall" with forces F_V
//! that are not specified enough to reproduce.
//! `granula::laws::PredictorElongation` applies eq. 14 with weight 1 rather than the printed
//! a_i/(a_i + a_j) (its documentation gives the reasons).
//! Colours (named in the legend): Cundall = red (locked) and
//! orange (free), predictor = blue (locked) and cyan (free); x = Δt/t_c on a log axis from
//! 1e-4 to 1e-1, y = t_R/t_c from 0 to 1.1 × the largest value.

mod plot_font;

use granula_validation::two_disc::{Measure, Method, Rotation, Setup};

/// Contact duration of the damped linear oscillator, 002 eq. 10, reduced mass m.
pub fn contact_time() -> f64 {
    Setup::m5(Rotation::Locked).contact_time()
}

/// One point of a curve: (Δt/t_c, t_R/t_c).
pub type Point = (f64, f64);

/// t_R/t_c for each Δt/t_c of `ratios`, over a run of `duration_tc` contact times.
pub fn curve(
    method: Method,
    rotation: Rotation,
    ratios: &[f64],
    duration_tc: f64,
) -> Result<Vec<Point>, Box<dyn std::error::Error>> {
    // With free rotation ½ m|𝒱|² levels off near 5e-7 of its first peak after ~70 t_c
    // (the contact follows the slowly accelerating rolling quasi-statically): the fit
    // stops two decades above that.
    let floor = if rotation == Rotation::Free { 1e-5 } else { 1e-8 };
    let setup = Setup::m5(rotation);
    ratios
        .iter()
        .map(|&r| Ok((r, setup.relaxation_time(method, Measure::ContactPoint, r, duration_tc, floor)?)))
        .collect()
}

/// Draws t_R/t_c against Δt/t_c on `root`. With `labelled`, also the axis scales and
/// titles, a caption and a legend: the SVG backend writes text as SVG text elements, the
/// bitmap backend draws it with the font `plot` registers.
fn draw<DB: plotters::prelude::DrawingBackend>(
    root: plotters::drawing::DrawingArea<DB, plotters::coord::Shift>,
    curves: &[(&str, Vec<Point>)],
    labelled: bool,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    use plotters::prelude::*;
    root.fill(&WHITE)?;
    let y_max = curves.iter().flat_map(|c| c.1.iter().map(|p| p.1)).fold(0.0, f64::max) * 1.1;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(30);
    if labelled {
        builder
            .caption("Two-disc relaxation (002 Figs. 4-9): relaxation time against time step", ("sans-serif", 20))
            .x_label_area_size(45)
            .y_label_area_size(55);
    }
    let mut chart = builder.build_cartesian_2d((1e-4..1e-1).log_scale(), 0.0..y_max)?;
    if labelled {
        chart.configure_mesh().x_desc("Δt / t_c").y_desc("t_R / t_c").draw()?;
    } else {
        chart.draw_series(LineSeries::new([(1e-4, 0.0), (1e-1, 0.0)], BLACK.stroke_width(2)))?;
        chart.draw_series(LineSeries::new([(1e-4, 0.0), (1e-4, y_max)], BLACK.stroke_width(2)))?;
    }
    let colours = [RED, BLUE, RGBColor(255, 160, 0), RGBColor(0, 170, 220)];
    for ((name, pts), colour) in curves.iter().zip(colours) {
        let line = chart.draw_series(LineSeries::new(pts.iter().copied(), colour.stroke_width(2)))?;
        if labelled {
            line.label(name.replace('_', " "))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
        }
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 5, colour.filled())))?;
    }
    if labelled {
        chart.configure_series_labels().background_style(WHITE).border_style(BLACK).draw()?;
    }
    root.present()?;
    Ok(())
}

/// Writes the figure as `stem.png` and `stem.svg`, both with axes, titles and legend.
fn plot(stem: &std::path::Path, curves: &[(&str, Vec<Point>)]) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    plot_font::register()?;
    draw(BitMapBackend::new(&stem.with_extension("png"), (800, 600)).into_drawing_area(), curves, true)?;
    draw(SVGBackend::new(&stem.with_extension("svg"), (800, 600)).into_drawing_area(), curves, true)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "granula-out/two_disc_relaxation".into());
    println!("Reproduces 002 Figs. 4-9 (§3): relaxation time t_R against Δt/t_c. Expected: with Cundall's");
    println!("spring t_R depends on Δt and converges only for Δt/t_c ≲ 1e-4 (rotation locked); with the");
    println!("predictor-based elongation (002 eqs. 14-15) t_R does not depend on Δt (the curve is flat).");
    let ratios: Vec<f64> =
        if quick { vec![1e-1, 1e-2, 1e-3] } else { vec![1e-1, 5e-2, 2e-2, 1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4] };
    println!("t_c = {:.4e} s (002 eq. 10)", contact_time());
    let mut curves = Vec::new();
    for (name, method, rotation) in [
        ("cundall_rotation_locked", Method::Cundall, Rotation::Locked),
        ("predictor_rotation_locked", Method::Predictor, Rotation::Locked),
        ("cundall_rotation_free", Method::Cundall, Rotation::Free),
        ("predictor_rotation_free", Method::Predictor, Rotation::Free),
    ] {
        let c = curve(method, rotation, &ratios, 150.0)?;
        for (r, t) in &c {
            println!("{name:>26}  dt/tc = {r:.0e}  t_R/tc = {t:.4}");
        }
        if let (Some(first), Some(last)) = (c.first(), c.last()) {
            let spread = 100.0 * (first.1 / last.1 - 1.0);
            println!(
                "{name:>26}  t_R at Δt/t_c = {:.0e} differs from Δt/t_c = {:.0e} by {spread:+.2}%",
                first.0, last.0
            );
        }
        curves.push((name, c));
    }
    std::fs::create_dir_all(&dir)?;
    let mut csv = String::from("method,dt_over_tc,tR_over_tc\n");
    for (name, c) in &curves {
        for (r, t) in c {
            csv.push_str(&format!("{name},{r:e},{t:e}\n"));
        }
    }
    std::fs::write(dir.join("two_disc_relaxation.csv"), csv)?;
    plot(&dir.join("two_disc_relaxation"), &curves)?;
    println!("wrote {}", dir.join("two_disc_relaxation.{csv,png,svg}").display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use granula_validation::two_disc;

    /// t_R/t_c of the independent model at t_c/2000 (t_c/4000 changes it by 6e-6 with free
    /// rotation and by less than 1e-9 locked), fitted as the solver's runs are.
    fn reference_t_r(rotation: Rotation) -> f64 {
        let samples = two_disc::reference_run(&Setup::m5(rotation), Measure::ContactPoint, 2000.0, 150.0);
        let floor = if rotation == Rotation::Free { 1e-5 } else { 1e-8 };
        two_disc::relaxation_time_above(&samples, floor).expect("the model's energy peaks") / contact_time()
    }

    #[test]
    fn with_free_rotation_the_predictor_is_flat_and_cundall_converges_to_it() {
        // VALIDATION M5, rotation free, at three time steps.
        let ratios = [1e-1, 1e-2, 1e-3];
        let cundall = curve(Method::Cundall, Rotation::Free, &ratios, 150.0).unwrap();
        let predictor = curve(Method::Predictor, Rotation::Free, &ratios, 150.0).unwrap();
        println!("free: cundall {cundall:?}\npredictor {predictor:?}");
        let t: Vec<f64> = predictor.iter().map(|p| p.1).collect();
        // The independent model (continuous time, exact elongation): 4.76334 t_c.
        let reference = reference_t_r(Rotation::Free);
        // The predictor at every Δt on the model's value: measured within 4.2e-5; 5e-4 is
        // five times the peak fit's own scatter (~1e-4), far below Cundall's Δt error.
        for p in &t {
            assert!((p / reference - 1.0).abs() < 5e-4, "predictor {t:?} against the model's {reference}");
        }
        // Cundall's spring depends on Δt (measured 3.5 % below the model at t_c/100) and
        // approaches it as Δt decreases (1.1 % off at t_c/1000; 0.11 % at t_c/10⁴ in the
        // example's full sweep).
        assert!(reference - cundall[1].1 > 0.02 * reference, "cundall {cundall:?} vs the model's {reference}");
        assert!((cundall[2].1 / reference - 1.0).abs() < 0.02, "cundall {cundall:?} vs the model's {reference}");
    }

    #[test]
    fn predictor_elongation_makes_t_r_flat_and_cundall_depends_on_dt() {
        // VALIDATION M5 at three time steps (the full sweep is the example's main).
        let ratios = [1e-1, 1e-2, 1e-3];
        let cundall = curve(Method::Cundall, Rotation::Locked, &ratios, 150.0).unwrap();
        let predictor = curve(Method::Predictor, Rotation::Locked, &ratios, 150.0).unwrap();
        println!("cundall {cundall:?}\npredictor {predictor:?}");
        let t: Vec<f64> = predictor.iter().map(|p| p.1).collect();
        let (lo, hi) = (t.iter().cloned().fold(f64::MAX, f64::min), t.iter().cloned().fold(0.0, f64::max));
        // Flatness: the fit of t_R itself scatters by ~1e-4 (measured spread 1e-4); a
        // dependence like Cundall's would be tens of per cent.
        assert!(hi / lo - 1.0 < 2e-3, "predictor t_R varies: {t:?}");
        // And on the independent model's value (14.236813 t_c; measured within 5.6e-5).
        let reference = reference_t_r(Rotation::Locked);
        for p in &t {
            assert!((p / reference - 1.0).abs() < 5e-4, "predictor {t:?} against the model's {reference}");
        }
        // Cundall's spring relaxes much faster at Δt = t_c/10 than at t_c/1000 (002 Figs. 6-7).
        assert!(cundall[0].1 < 0.5 * cundall[2].1, "cundall t_R: {cundall:?}");
        // ... and approaches the predictor's value as Δt decreases (measured 2.3 % at 1e-3).
        assert!((cundall[2].1 - t[2]).abs() < 0.05 * t[2], "cundall {cundall:?} vs predictor {t:?}");
    }

    #[test]
    fn the_figure_is_written_as_png_and_as_svg_with_its_axis_titles() {
        let dir = std::env::temp_dir().join(format!("granula-two-disc-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let curves = [("cundall_rotation_locked", vec![(1e-1, 12.0), (1e-2, 14.0)])];
        plot(&dir.join("figure"), &curves).unwrap();
        assert!(std::fs::metadata(dir.join("figure.png")).unwrap().len() > 1000);
        let svg = std::fs::read_to_string(dir.join("figure.svg")).unwrap();
        assert!(svg.contains("t_R / t_c") && svg.contains("cundall rotation locked"), "axis title and legend");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn relaxation_time_of_a_pure_exponential_is_recovered() {
        // E = cos²(ωt) e^{−t/τ}: peaks decay exactly with τ; sampling at 1/200 of a period
        // shifts peak times by at most half a sample, well under 1e-3 of τ.
        let (tau, omega) = (2.0, 40.0);
        let samples: Vec<(f64, f64)> = (0..200_000)
            .map(|k| {
                let t = k as f64 * 1e-4;
                (t, (omega * t).cos().powi(2) * (-t / tau).exp())
            })
            .collect();
        let fitted = two_disc::relaxation_time(&samples).unwrap();
        assert!((fitted - tau).abs() < 1e-3 * tau, "fitted {fitted}");
    }
}
