//! Plain benchmark of the planar world: the slow-shear cell of 002 §3 with N = 1000
//! (40 × 25) and 10000 (100 × 100) free particles, polygons (5 to 8 vertices) and discs,
//! μ = 0.5 on 002's area law with the predictor-based elongation (002 eq. 5, §4), Gear with six values,
//! Δt = 13/500 t_c, walls moving at γ̇ = 1.25e-5 1/s; prints the wall-clock nanoseconds per
//! particle-step (free and wall particles counted) on 1 and 2 threads, after 50 warm-up
//! steps, and the process's CPU time per particle-step (all threads, from
//! `/proc/self/stat`, 10 ms resolution: use enough steps), which a loaded machine inflates
//! less than the wall clock.
//!
//! Usage: `cargo bench --bench planar_bench -- [steps] [N ...]` (default 200 steps,
//! N = 1000 10000). The Verlet skin is a tenth of the particle radius; `PLANAR_BENCH_SKIN=s`
//! sets another (m), `PLANAR_BENCH_MIN_PAIRS=k` sets `MdConfig::parallel_min_pairs` (0: every
//! step on the threads).

use granula::broadphase::LinkedCells;
use granula::core::ContactLaw;
use granula::integrators::Gear;
use granula::laws::{planar_predictor_law, ReducedMassViscous};
use granula::md::{MdConfig, MdSolver};
use granula_validation::shear_cell::{Cell, Particles, ShearCell};
use std::time::Instant;

const KN: f64 = 400.0;
const EPS: f64 = 0.9875;

/// The cell with N free particles and its time step 13/500 t_c (002 eq. 10, m_r half the
/// mean mass of the free particles).
fn cell(n: usize, particles: Particles) -> Result<(Cell, f64, f64), Box<dyn std::error::Error>> {
    let (columns, rows) = if n == 1000 {
        (40, 25)
    } else {
        let s = (n as f64).sqrt().round() as usize;
        (s, n / s)
    };
    let mut c = ShearCell { columns, rows, particles, ..ShearCell::default() }.build()?;
    let b = &c.world.bodies;
    let m = c.free.clone().map(|i| b.mass[i]).sum::<f64>() / c.free.len() as f64;
    let mr = 0.5 * m;
    let nu = ReducedMassViscous::from_restitution(EPS, KN, mr)?.rate();
    let tc = std::f64::consts::PI / (KN / mr - 0.25 * nu * nu).sqrt();
    c.start_shear()?;
    Ok((c, nu, 13.0 / 500.0 * tc))
}

/// CPU time of the whole process (all threads) in seconds, from `/proc/self/stat` (utime +
/// stime, clock ticks assumed at 100 Hz); `None` where that file does not exist.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// Wall and CPU ns per particle-step of `steps` steps after 50 warm-up ones, and the
/// contacts of the last step (from its report: the run publishes no contacts, as a run
/// does between its outputs).
fn time<L: ContactLaw>(
    c: &mut Cell,
    md: &mut MdSolver<L, Gear, LinkedCells>,
    dt: f64,
    steps: usize,
) -> Result<(f64, f64, usize), Box<dyn std::error::Error>> {
    for _ in 0..50 {
        c.world.step(md, dt)?;
    }
    let (t, cpu0) = (Instant::now(), cpu_seconds().unwrap_or(f64::NAN));
    let mut contacts = 0;
    for _ in 0..steps {
        contacts = c.world.step(md, dt)?.contacts;
    }
    let elapsed = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds().unwrap_or(f64::NAN) - cpu0;
    let per = 1e9 / (steps * c.world.bodies.len()) as f64;
    Ok((elapsed * per, cpu * per, contacts))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let steps = args.first().copied().unwrap_or(200);
    let sizes: Vec<usize> = if args.len() > 1 { args[1..].to_vec() } else { vec![1000, 10000] };
    println!(
        "{:>9} {:>6} {:>7} {:>8} {:>10} {:>17} {:>21}",
        "particles", "N", "threads", "bodies", "contacts", "wall ns/part-step", "CPU ns/part-step (all)"
    );
    for &n in &sizes {
        for (name, kind) in [("polygons", Particles::Polygons), ("discs", Particles::Discs)] {
            for threads in [1, 2] {
                let (mut c, nu, dt) = cell(n, kind)?;
                let law = planar_predictor_law(KN, nu, 1.0 / 3.0, 0.5)?;
                // A skin of a tenth of the particle radius: a polygon's box turns with it (by
                // R Δθ), so the default 1e-4 m (1 % of R here) rebuilds the list every other
                // step (122 rebuilds in 250 steps at N = 1000; 25 with this skin).
                let skin = 0.1 * ShearCell::default().radius;
                let mut config = MdConfig { threads: Some(threads), skin, ..MdConfig::default() };
                if let Some(k) = std::env::var("PLANAR_BENCH_SKIN").ok().and_then(|v| v.parse().ok()) {
                    config.skin = k;
                }
                if let Some(k) = std::env::var("PLANAR_BENCH_MIN_PAIRS").ok().and_then(|v| v.parse().ok()) {
                    config.parallel_min_pairs = k;
                }
                let mut md = MdSolver::new(law, Gear::six(), LinkedCells::new(), config)?;
                let (ns, cpu, contacts) = time(&mut c, &mut md, dt, steps)?;
                let bodies = c.world.bodies.len();
                println!("{name:>9} {n:>6} {threads:>7} {bodies:>8} {contacts:>10} {ns:>17.0} {cpu:>21.0}");
            }
        }
    }
    Ok(())
}
