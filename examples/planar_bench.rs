//! Plain benchmark of the 2D mode (`granula-planar`): the slow-shear cell of 002 §3 with
//! N = 1000 (40 × 25) and 10000 (100 × 100) free particles, polygons (5 to 8 vertices) and
//! discs, μ = 0.5 with the predictor-based elongation, Δt = 13/500 t_c, walls moving at
//! γ̇ = 1.25e-5 1/s; prints the wall-clock nanoseconds per particle-step (free and wall
//! particles counted) on 1 and 2 threads, after 50 warm-up steps, and the process's CPU
//! time per particle-step (all threads, from `/proc/self/stat`, 10 ms resolution: use
//! enough steps), which a loaded machine inflates less than the wall clock.
//!
//! Usage: `cargo run --release --example planar_bench -- [steps] [N ...]` (default 200 steps,
//! N = 1000 10000).

use granula::planar::prelude::*;
use std::time::Instant;

fn cell(n: usize, particles: Particles) -> Result<Cell, Box<dyn std::error::Error>> {
    let (columns, rows) = if n == 1000 {
        (40, 25)
    } else {
        let s = (n as f64).sqrt().round() as usize;
        (s, n / s)
    };
    let spec = ShearCell { columns, rows, particles, ..ShearCell::default() };
    let probe = spec.build(ContactLaw::builder(400.0).build()?, 1.0)?;
    let b = &probe.sim.bodies;
    let m = probe.free.clone().map(|i| b.mass[i]).sum::<f64>() / probe.free.len() as f64;
    let mr = 0.5 * m;
    let tc = contact_time(400.0, damping_from_restitution(0.9875, 400.0, mr), mr);
    let law = ContactLaw::builder(400.0)
        .restitution(0.9875, mr)
        .tangential_ratio(1.0 / 3.0)
        .friction(0.5)
        .tangential(Tangential::Predictor)
        .build()?;
    let mut c = spec.build(law, 13.0 / 500.0 * tc)?;
    c.start_shear()?;
    Ok(c)
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
                let mut c = cell(n, kind)?;
                let (ns, cpu, bodies, contacts) =
                    with_threads(threads, || -> Result<(f64, f64, usize, usize), PlanarError> {
                        c.sim.run(50)?;
                        let (t, cpu0) = (Instant::now(), cpu_seconds().unwrap_or(f64::NAN));
                        c.sim.run(steps)?;
                        let elapsed = t.elapsed().as_secs_f64();
                        let cpu = cpu_seconds().unwrap_or(f64::NAN) - cpu0;
                        let per = 1e9 / (steps * c.sim.bodies.len()) as f64;
                        Ok((elapsed * per, cpu * per, c.sim.bodies.len(), c.sim.contacts().len()))
                    })??;
                println!("{name:>9} {n:>6} {threads:>7} {bodies:>8} {contacts:>10} {ns:>17.0} {cpu:>21.0}");
            }
        }
    }
    Ok(())
}
