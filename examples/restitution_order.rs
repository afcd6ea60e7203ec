//! Restitution error against the time step for every MD integrator.
//!
//! A sphere (aluminium oxide: E = 380 GPa, ν = 0.23, ρ = 4000 kg/m³, R = 2.5 mm) hits a
//! plane of the same material head-on at 3.9 m/s, without gravity, through the MD solver.
//! The law is Hertz with the Tsuji damping calibrated from e under the no-attraction clamp
//! (`hertz_mindlin`'s normal part), so the exact restitution is e. For each integrator, e and
//! Δt = t_c/N (t_c the undamped Hertz contact time), the impact is run for `phases` gaps at
//! t = 0 spread evenly over one step of travel, and the example reports the mean relative
//! error of e over them (the integrator's systematic error) and the extremes (the spread
//! set by where the contact starts between two force evaluations).
//!
//! Writes `restitution_order.csv` (one row per integrator, e and N), `restitution_order.png`
//! (curves only) and `restitution_order.svg` (with axes, title and legend) into the directory
//! given as first argument (default `granula-out/restitution`), and prints the table of
//! docs/contact-laws.md.
//!
//! Run: `cargo run --release --example restitution_order [out_dir] [phases]`.

mod plot_font;

use granula::broadphase::BruteForce;
use granula::core::{DVec3, Integrator, Material, PairMaterial, PlaneBuilder, SphereBuilder, World};
use granula::integrators::{ForceVelocity, Gear, SymplecticEuler, VelocityVerlet};
use granula::laws::params::hertz_contact_time;
use granula::laws::{Composed, Hertz, HertzViscous, NoFriction};
use granula::md::{MdConfig, MdSolver};
use plotters::prelude::*;
use std::io::Write;
use std::path::Path;

const RADIUS: f64 = 2.5e-3;
const SPEED: f64 = 3.9;

/// The restitutions of the table.
pub const RESTITUTIONS: [f64; 4] = [0.1, 0.2, 0.5, 0.9];
/// Steps per contact time, N = t_c/Δt.
pub const STEPS: [f64; 5] = [25.0, 50.0, 100.0, 200.0, 400.0];
/// The integrators, by the name the table uses.
pub const INTEGRATORS: [&str; 6] = ["verlet", "verlet (half-step)", "gear4", "gear5", "gear6", "symplectic_euler"];

/// One cell of the table.
#[derive(Clone, Debug)]
pub struct Cell {
    /// Integrator name (one of [`INTEGRATORS`]).
    pub integrator: &'static str,
    /// Restitution asked for.
    pub e: f64,
    /// Steps per contact time.
    pub steps: f64,
    /// Mean of e_measured/e − 1 over the onset phases.
    pub mean: f64,
    /// Smallest of e_measured/e − 1.
    pub min: f64,
    /// Largest of e_measured/e − 1.
    pub max: f64,
}

fn alumina(e: f64) -> Material {
    Material {
        name: "alumina".into(),
        density: 4000.0,
        young_modulus: 380e9,
        poisson_ratio: 0.23,
        restitution: e,
        friction: 0.0,
        ..Material::default()
    }
}

/// Undamped Hertz contact time of the impact (s).
pub fn contact_time() -> f64 {
    let m = alumina(0.5);
    let pm = PairMaterial::mix(&m, &m);
    let mass = 4000.0 * 4.0 / 3.0 * std::f64::consts::PI * RADIUS.powi(3);
    hertz_contact_time(pm.effective_young, RADIUS, mass, SPEED)
}

/// Measured restitution of one impact; the gap at t = 0 is `phase` steps of travel.
fn impact<I: Integrator>(integrator: I, e: f64, dt: f64, phase: f64) -> f64 {
    let mut w = World::builder().gravity(DVec3::ZERO).material(alumina(e)).build().expect("valid world");
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().expect("plane")).expect("insert");
    let x = DVec3::Z * (RADIUS + phase * SPEED * dt);
    let ball = SphereBuilder::new(RADIUS, x).velocity(-DVec3::Z * SPEED).build().expect("sphere");
    let h = w.insert(ball).expect("insert");
    let law = Composed::new(Hertz::from_material(), HertzViscous::calibrated_from_material(), NoFriction);
    let config = MdConfig { skin: 0.1 * RADIUS, ..Default::default() };
    let mut solver = MdSolver::new(law, integrator, BruteForce, config).expect("solver");
    let mut touched = false;
    loop {
        let report = w.step(&mut solver, dt).expect("step");
        if report.contacts > 0 {
            touched = true;
        } else if touched {
            return w.bodies.velocity[w.bodies.index(h).expect("ball")].z / SPEED;
        }
    }
}

/// Measured restitution with the integrator called `name` (one of [`INTEGRATORS`]).
fn impact_with(name: &str, e: f64, dt: f64, phase: f64) -> f64 {
    match name {
        "verlet" => impact(VelocityVerlet::new(), e, dt, phase),
        "verlet (half-step)" => impact(VelocityVerlet::with_force_velocity(ForceVelocity::HalfStep), e, dt, phase),
        "gear4" => impact(Gear::four(), e, dt, phase),
        "gear5" => impact(Gear::five(), e, dt, phase),
        "gear6" => impact(Gear::six(), e, dt, phase),
        _ => impact(SymplecticEuler::new(), e, dt, phase),
    }
}

/// The whole table, each cell over `phases` onset phases (the midpoints of equal parts of a
/// step).
pub fn run(phases: usize) -> Vec<Cell> {
    let tc = contact_time();
    let mut cells = Vec::new();
    for integrator in INTEGRATORS {
        for e in RESTITUTIONS {
            for steps in STEPS {
                let errors: Vec<f64> = (0..phases)
                    .map(|k| impact_with(integrator, e, tc / steps, (k as f64 + 0.5) / phases as f64) / e - 1.0)
                    .collect();
                let mean = errors.iter().sum::<f64>() / phases as f64;
                let min = errors.iter().copied().fold(f64::INFINITY, f64::min);
                let max = errors.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                cells.push(Cell { integrator, e, steps, mean, min, max });
            }
        }
    }
    cells
}

/// The markdown table of mean errors (in %), one row per integrator and e.
pub fn table(cells: &[Cell]) -> String {
    let mut s = String::from("| integrator | e |");
    for n in STEPS {
        s += &format!(" t_c/{n} |");
    }
    s += "\n|---|---|";
    s += &"---|".repeat(STEPS.len());
    for integrator in INTEGRATORS {
        for e in RESTITUTIONS {
            s += &format!("\n| {integrator} | {e} |");
            for c in cells.iter().filter(|c| c.integrator == integrator && c.e == e) {
                s += &format!(" {:+.4} |", 100.0 * c.mean);
            }
        }
    }
    s
}

/// Writes the CSV and the figures into `dir`.
pub fn write_outputs(cells: &[Cell], dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir)?;
    let mut csv = std::fs::File::create(dir.join("restitution_order.csv"))?;
    writeln!(csv, "integrator,e,steps_per_contact,dt,mean_error,min_error,max_error")?;
    let tc = contact_time();
    for c in cells {
        writeln!(csv, "{},{},{},{:e},{:e},{:e},{:e}", c.integrator, c.e, c.steps, tc / c.steps, c.mean, c.min, c.max)?;
    }
    let size = (1200, 800);
    plot_font::register()?;
    draw(BitMapBackend::new(&dir.join("restitution_order.png"), size).into_drawing_area(), cells, true)?;
    draw(SVGBackend::new(&dir.join("restitution_order.svg"), size).into_drawing_area(), cells, true)
}

/// One panel per e: |mean error| against N on log-log axes, one line per integrator, and
/// the largest |error| over the phases for Verlet, dashed (|errors| below 1e-7 drawn at
/// 1e-7).
fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    cells: &[Cell],
    labelled: bool,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let colors = [RED, RGBColor(255, 140, 0), BLUE, GREEN, CYAN, MAGENTA];
    let floor = 1e-7;
    for (e, area) in RESTITUTIONS.iter().zip(root.split_evenly((2, 2)).iter()) {
        let mut builder = ChartBuilder::on(area);
        builder.margin(15);
        if labelled {
            let caption = format!("e = {e}: |mean error of e| against t_c/Δt (dashed: worst onset phase, verlet)");
            builder.caption(caption, ("sans-serif", 14)).x_label_area_size(35).y_label_area_size(60);
        }
        let mut chart = builder.build_cartesian_2d((20f64..500f64).log_scale(), (floor..0.3f64).log_scale())?;
        if labelled {
            chart.configure_mesh().x_desc("t_c / Δt").y_desc("|e_measured / e − 1|").draw()?;
        }
        for (integrator, color) in INTEGRATORS.iter().zip(colors) {
            let of = |f: fn(&Cell) -> f64| -> Vec<(f64, f64)> {
                cells
                    .iter()
                    .filter(|c| c.integrator == *integrator && c.e == *e)
                    .map(|c| (c.steps, f(c).abs().max(floor)))
                    .collect()
            };
            // Symplectic Euler coincides with half-step Verlet: a thin line over a thick one.
            let width = match *integrator {
                "verlet (half-step)" => 6,
                "symplectic_euler" => 1,
                _ => 2,
            };
            let series = chart.draw_series(LineSeries::new(of(|c| c.mean), color.stroke_width(width)))?;
            if labelled {
                series.label(*integrator).legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color));
            }
            chart.draw_series(of(|c| c.mean).into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
            if *integrator == "verlet" {
                let worst = of(|c| if c.max.abs() > c.min.abs() { c.max } else { c.min });
                chart.draw_series(DashedLineSeries::new(worst, 6, 4, color.stroke_width(1)))?;
            }
        }
        if labelled {
            chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
        }
    }
    root.present()?;
    Ok(())
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "granula-out/restitution".into());
    let phases = std::env::args().nth(2).and_then(|p| p.parse().ok()).unwrap_or(32);
    println!("t_c = {:.4e} s; mean relative error of e in % over {phases} onset phases:", contact_time());
    let cells = run(phases);
    println!("{}", table(&cells));
    println!("\nspread over the phases (min .. max, %), verlet:");
    for c in cells.iter().filter(|c| c.integrator == "verlet") {
        println!("  e = {}, t_c/{}: {:+.3} .. {:+.3}", c.e, c.steps, 100.0 * c.min, 100.0 * c.max);
    }
    write_outputs(&cells, Path::new(&dir)).expect("writing restitution_order.csv / .png / .svg");
    println!("wrote {dir}/restitution_order.csv, .png and .svg");
}

#[cfg(test)]
mod tests {
    use super::{run, write_outputs, RESTITUTIONS};

    #[test]
    fn restitution_order_example_shows_second_order_verlet() {
        // 8 onset phases instead of 32: the phase-averaged error then differs from the
        // 32-phase one by about 1e-4 at t_c/100 (measured 1.2e-4 at e = 0.1; the phase-dependent
        // part is ±1 % there), far inside the 0.2 % target checked here (Verlet measured −0.08 %
        // at most with 8 phases). Ratio measured 3.9 for Verlet, 2.01 for half-step Verlet.
        let cells = run(8);
        let at = |name: &str, e: f64, n: f64| {
            cells.iter().find(|c| c.integrator == name && c.e == e && c.steps == n).expect("cell").mean
        };
        for e in RESTITUTIONS {
            assert!(at("verlet", e, 100.0).abs() < 2e-3, "verlet, e = {e}: {}", at("verlet", e, 100.0));
        }
        // Halving Δt from t_c/100: second order divides the error by ~4 (Verlet), first order
        // by ~2 (half-step Verlet, symplectic Euler); the bounds 3 and 2 ± 0.3 separate them.
        assert!(at("verlet", 0.2, 100.0) / at("verlet", 0.2, 200.0) > 3.0);
        let half = at("verlet (half-step)", 0.2, 100.0) / at("verlet (half-step)", 0.2, 200.0);
        assert!((half - 2.0).abs() < 0.3, "half-step ratio {half}");
        let dir = std::env::temp_dir().join("granula-restitution-order-test");
        write_outputs(&cells, &dir).expect("outputs");
        let svg = std::fs::read_to_string(dir.join("restitution_order.svg")).expect("svg");
        assert!(svg.contains("t_c / Δt") && svg.contains("gear5"), "the SVG carries its axis title and legend");
        assert!(std::fs::metadata(dir.join("restitution_order.png")).expect("png").len() > 0);
    }
}
