//! The non-convex block on an incline of 003 §6 (validation M7), under the MD solver and
//! under the NSCD solver, with the velocity against time for the three friction
//! coefficients of 003 Figs. 4-5.
//!
//! An L-shaped block (V = 0.001 m³, ρ = 2700 kg/m³) lying on its L-shaped face is sent up
//! a 30° slope at 5 m/s. It stops at t = v₀/(g sin α + μ g cos α); with μ < tan α it then
//! slides back down at g(sin α − μ cos α), otherwise it stays. The slope is the plane
//! z = 0 under gravity turned by α about y. Contacts: the six corners of the face, one
//! pair of the plane–polyhedron generator. Under MD each point has its own Brendel-Dippel
//! tangential spring (003 eqs. 5-6) beside a Hunt-Crossley normal force (003 eq. 3); under
//! NSCD each point is a rigid Signorini-Coulomb contact (000 eq. 34).
//!
//! Usage: `cargo run --release --example incline_block [out_dir]` (default
//! `granula-out/incline_block`): prints the stop times and slides against 003's values and
//! writes `velocity.csv` and the figure `velocity.png` / `velocity.svg`.

mod plot_font;

use granula::broadphase::BruteForce;
use granula::core::{Material, Solver, World};
use granula::integrators::VelocityVerlet;
use granula::laws::prelude::*;
use granula::laws::{Friction, TangentialDamping, TangentialStiffness};
use granula::md::{MdConfig, MdSolver};
use granula::nscd::{Criterion, NscdConfig, NscdSolver};
use granula_validation::incline::{incline, slide_acceleration, stop_time, ALPHA, G, V0};
use std::error::Error;
use std::path::Path;

/// The three friction coefficients of 003 §6.
const FRICTIONS: [f64; 3] = [0.5, 0.58, 0.6];
/// MD: normal stiffness per contact point (N/m) and time step (s), ~84 steps per period
/// of the block on its six springs (at 42 steps the block with μ = 0.58 creeps 1.5e-6 m/s:
/// the springs' ringing is not resolved finely enough, see `tests/suite/incline_md.rs`).
const STIFFNESS: f64 = 1e8;
const MD_DT: f64 = 5e-6;
/// NSCD: implicit Euler is exact for a constant deceleration; the step only sets how
/// finely the stop is located.
const NSCD_DT: f64 = 1e-4;
/// Sampling interval of the velocity trace (s).
const SAMPLE: f64 = 1e-3;

/// Which solver runs the block.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Method {
    Md,
    Nscd,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Md => "MD",
            Method::Nscd => "NSCD",
        }
    }
}

/// What one run measured.
struct Trace {
    /// (t, velocity along the slope), every `SAMPLE`.
    velocity: Vec<(f64, f64)>,
    /// Stop time, interpolated within the step where v crosses zero (s).
    stop: f64,
    /// Velocity `after` seconds after the stop (m/s).
    later: f64,
    /// Largest displacement along the slope from the stop to the end (m).
    drift: f64,
}

/// Runs the block with friction `mu` under `method` until `after` seconds past the stop.
fn run(method: Method, mu: f64, after: f64) -> Result<Trace, Box<dyn Error>> {
    let material = Material { density: 2700.0, friction: mu, restitution: 0.3, ..Material::named("block") };
    match method {
        Method::Md => {
            // Start at the static overlap of six equal springs carrying m g cos α.
            let sink = |volume: f64| 2700.0 * volume * G * ALPHA.cos() / (6.0 * STIFFNESS);
            let (world, i) = incline(material, sink)?;
            let tangential = BrendelDippel::new(
                TangentialStiffness::FromNormal,
                TangentialDamping::SameDampingRatio,
                Friction::from_material(),
            )?;
            let law = Composed::new(PowerLaw::new(STIFFNESS, 1.0)?, HuntCrossley::from_material(), tangential);
            let config = MdConfig { skin: 1e-3, threads: Some(1), ..Default::default() };
            let solver = MdSolver::new(law, VelocityVerlet::new(), BruteForce, config)?;
            trace(world, i, solver, MD_DT, after)
        }
        Method::Nscd => {
            let (world, i) = incline(material, |_| 0.0)?;
            // The sticking face's six contacts are hyperstatic; the block solve of the pair
            // (`NscdConfig::lock_pairs`, on by default) holds them (docs/validation.md, M7).
            let criterion = Criterion::NaturalMap { epsilon: 1e-10, max_iterations: 2000 };
            let solver = NscdSolver::new(BruteForce, NscdConfig { criterion, ..Default::default() })?;
            trace(world, i, solver, NSCD_DT, after)
        }
    }
}

/// Steps `world` with `solver` and records the block's velocity along the slope.
fn trace<S: Solver>(mut world: World, i: usize, mut solver: S, dt: f64, after: f64) -> Result<Trace, Box<dyn Error>>
where
    S::Error: 'static,
{
    let mut out = Trace { velocity: vec![(0.0, V0)], stop: f64::NAN, later: f64::NAN, drift: 0.0 };
    let (mut t, mut next_sample, mut x_stop) = (0.0, SAMPLE, 0.0);
    loop {
        let before = world.bodies.velocity[i].x;
        world.step(&mut solver, dt)?;
        t += dt;
        let (x, v) = (world.bodies.position[i].x, world.bodies.velocity[i].x);
        if t >= next_sample - 0.5 * dt {
            out.velocity.push((t, v));
            next_sample += SAMPLE;
        }
        if out.stop.is_nan() {
            // A block locked by the contact-dynamics solver rests at |v| of order 1e-16 m/s
            // (round-off of the locked impulses), on either side of zero: 1e-12 m/s is far
            // above that and far below the speed the block loses in one step (about 5e-5 m/s
            // under MD, 1e-3 m/s under NSCD, at a deceleration of about 9.8 m/s²).
            if v <= 1e-12 {
                out.stop = t - dt + dt * before / (before - v);
                x_stop = x;
            }
        } else {
            out.drift = out.drift.max((x - x_stop).abs());
            if t >= out.stop + after {
                out.later = v;
                return Ok(out);
            }
        }
    }
}

/// Draws the traces, one panel per solver, with the analytic velocity dashed.
fn draw<DB: plotters::prelude::DrawingBackend>(
    root: plotters::drawing::DrawingArea<DB, plotters::coord::Shift>,
    traces: &[(Method, f64, Trace)],
) -> Result<(), Box<dyn Error>>
where
    DB::ErrorType: 'static,
{
    use plotters::prelude::*;
    root.fill(&WHITE)?;
    let colours = [RED, BLUE, RGBColor(0, 150, 0)];
    let t_end = traces.iter().flat_map(|r| r.2.velocity.last().map(|p| p.0)).fold(0.0, f64::max);
    for (panel, method) in root.split_evenly((1, 2)).iter().zip([Method::Md, Method::Nscd]) {
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("L-block on a 30° incline, {} (003 §6)", method.name()), ("sans-serif", 18))
            .margin(20)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..t_end, -0.8..V0 * 1.05)?;
        chart.configure_mesh().x_desc("t (s)").y_desc("velocity up the slope (m/s)").draw()?;
        for ((_, mu, tr), colour) in traces.iter().filter(|r| r.0 == method).zip(colours) {
            let (ts, a) = (stop_time(*mu), slide_acceleration(*mu));
            let exact = (0..=200).map(|k| {
                let t = t_end * k as f64 / 200.0;
                (t, if t < ts { V0 * (1.0 - t / ts) } else { a * (t - ts) })
            });
            chart.draw_series(DashedLineSeries::new(exact, 6, 4, colour.stroke_width(1)))?;
            chart
                .draw_series(LineSeries::new(tr.velocity.iter().copied(), colour.stroke_width(2)))?
                .label(format!("μ = {mu}"))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
        }
        chart.configure_series_labels().background_style(WHITE).border_style(BLACK).draw()?;
    }
    root.present()?;
    Ok(())
}

/// Writes `velocity.csv` (method, mu, t, v) and the figure as PNG and SVG into `dir`.
fn write(dir: &Path, traces: &[(Method, f64, Trace)]) -> Result<(), Box<dyn Error>> {
    use plotters::prelude::*;
    std::fs::create_dir_all(dir)?;
    let mut csv = String::from("method,mu,t,velocity\n");
    for (method, mu, tr) in traces {
        for (t, v) in &tr.velocity {
            csv += &format!("{},{mu},{t:.6},{v:.9e}\n", method.name());
        }
    }
    std::fs::write(dir.join("velocity.csv"), csv)?;
    plot_font::register()?;
    draw(BitMapBackend::new(&dir.join("velocity.png"), (1400, 560)).into_drawing_area(), traces)?;
    draw(SVGBackend::new(&dir.join("velocity.svg"), (1400, 560)).into_drawing_area(), traces)
}

fn main() -> Result<(), Box<dyn Error>> {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "granula-out/incline_block".into());
    println!("L-block (V = 0.001 m³, 2700 kg/m³) sent up a 30° slope at {V0} m/s:");
    let mut traces = Vec::new();
    for method in [Method::Md, Method::Nscd] {
        for mu in FRICTIONS {
            let tr = run(method, mu, 1.0)?;
            let (ts, a) = (stop_time(mu), slide_acceleration(mu));
            println!(
                "  {:<4} mu = {mu:<4}: stops at {:.5} s (003: {ts:.5} s, rel. {:+.1e}); 1 s later v = {:+.4e} m/s \
                 (expected {:+.4e}); largest drift after the stop {:.2e} m",
                method.name(),
                tr.stop,
                tr.stop / ts - 1.0,
                tr.later,
                a,
                tr.drift
            );
            traces.push((method, mu, tr));
        }
    }
    write(Path::new(&dir), &traces)?;
    println!("wrote {dir}/velocity.csv, velocity.png, velocity.svg");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_solvers_stop_and_slide_as_003_says_and_the_figure_is_written() {
        // μ = 0.5 (slides back down), 0.2 s past the stop under each solver: the stop time
        // and the slide within 1 % (the 003 target; the polyhedra crate's M7 tests hold the
        // stop to ~1e-12 and the rest cases).
        let mut traces = Vec::new();
        for method in [Method::Md, Method::Nscd] {
            let tr = run(method, 0.5, 0.2).unwrap();
            assert!((tr.stop / stop_time(0.5) - 1.0).abs() < 0.01, "{}: stop {}", method.name(), tr.stop);
            let slide = slide_acceleration(0.5) * (tr.velocity.last().unwrap().0 - tr.stop);
            assert!((tr.later / slide - 1.0).abs() < 0.01, "{}: v {} vs {slide}", method.name(), tr.later);
            traces.push((method, 0.5, tr));
        }
        let dir = std::env::temp_dir().join(format!("granula-incline-{}", std::process::id()));
        write(&dir, &traces).unwrap();
        assert!(std::fs::metadata(dir.join("velocity.png")).unwrap().len() > 1000);
        let svg = std::fs::read_to_string(dir.join("velocity.svg")).unwrap();
        assert!(svg.contains("NSCD") && svg.contains("μ = 0.5"));
        let csv = std::fs::read_to_string(dir.join("velocity.csv")).unwrap();
        assert!(csv.lines().count() > 400, "one row per millisecond of both runs");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
