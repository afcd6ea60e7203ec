//! Plain benchmark of the MD solver on the "dense" packings: prints ns per particle-step for
//! N = 1000, 8000, 27000 on 1 and 2 threads, with the final kinetic energy and contact count.
//!
//! Usage: `cargo bench --bench md_bench -- [steps] [N ...]` (default 2000 steps,
//! all three packings). Scenario: Hertz-Mindlin with history (E = 1e7 Pa, ν = 0.3, e = 0.5,
//! μ = 0.5), five walls, gravity, Δt = 5e-6 s, skin 0.1 mm, velocity Verlet, linked cells;
//! one warm-up step, then `steps` timed steps. `MD_BENCH_THREADS=1,2` (default) selects the
//! thread counts; `MD_BENCH_LAW=damped` runs `hertz_mindlin_damped()` (with the tangential
//! dashpot of LIGGGHTS' hertz/history model) instead of `hertz_mindlin()`;
//! `MD_BENCH_VERLET=half-step` lets the dashpots see the half-step velocity;
//! `GRANULA_VECTOR_WIDTH=avx2` or `portable` caps the vector width of the batched contact
//! law (`granula::laws::vector_width`), to measure the narrower paths. The world
//! measures energies only where they are read (`EnergyReads::WhenRead`: the runaway-energy
//! guard's one-step check on its interval steps); `MD_BENCH_ENERGY=every` runs that check
//! after every step, the world's default; `MD_BENCH_MIN_PAIRS=K` sets
//! `MdConfig::parallel_min_pairs`; `MD_BENCH_HOT=off` lets
//! the other threads sleep between the step's loops (`MdConfig::hot_workers`); `MD_BENCH_ORDER=partner` sums each body's pair loads in
//! partner order (`LoadOrder::Partner`, the distributed run's); `MD_BENCH_SHUFFLE=SEED`
//! stores the packing's bodies in a random order (a seeded Fisher-Yates shuffle of the dense
//! indices, handles unchanged: a packing poured, generated or read in no spatial order);
//! `MD_BENCH_REORDER=K` sets `MdConfig::reorder_every` to `Some(K)` (bodies in cell order
//! at the first step and after every K rebuilds), in the raster order of the cells. Besides
//! wall time it prints the process
//! CPU time per particle-step, which is the figure to trust on a loaded machine.
//!
//! **Generated packings.** An N other than 1000, 8000 or 27000 (for example 1000000) builds a
//! dense lattice packing in memory instead of reading a file (the shared
//! `benches/md_dense` module describes it). The process's peak
//! resident memory (`/usr/bin/time -f %M`) divided by N gives the memory per particle.

#[path = "md_dense/mod.rs"]
mod md_dense_scene;
#[path = "process_stats.rs"]
mod process_stats;

use granula::broadphase::LinkedCells;
use granula::core::{EnergyReads, Permutation};
use granula::integrators::{ForceVelocity, VelocityVerlet};
use granula::laws::{hertz_mindlin, hertz_mindlin_damped};
use granula::md::{MdConfig, MdSolver};
use md_dense_scene::{world_of, DT, SKIN};
use process_stats::{peak_rss_bytes, process_cpu_seconds};
use std::time::Instant;

type RunResult = (usize, f64, f64, f64, usize, u64);

/// One timed run; returns (spheres, wall ns and CPU ns per particle-step, kinetic energy, contacts
/// at the end, broadphase rebuilds).
fn run(n: usize, threads: usize, steps: usize) -> Result<RunResult, Box<dyn std::error::Error>> {
    let mut world = world_of(n)?;
    let n = world.bodies.len() - 5;
    let mut config = MdConfig { skin: SKIN, threads: Some(threads), ..Default::default() };
    // `MD_BENCH_MIN_PAIRS=K` sets `MdConfig::parallel_min_pairs` (the size below which a step
    // stays on the calling thread), to measure where a second thread starts to pay.
    if let Some(k) = std::env::var("MD_BENCH_MIN_PAIRS").ok().and_then(|v| v.parse().ok()) {
        config.parallel_min_pairs = k;
    }
    config.hot_workers = std::env::var("MD_BENCH_HOT").as_deref() != Ok("off");
    if let Some(k) = std::env::var("MD_BENCH_REORDER").ok().and_then(|v| v.parse().ok()) {
        config.reorder_every = Some(k);
    }
    if let Some(seed) = std::env::var("MD_BENCH_SHUFFLE").ok().and_then(|v| v.parse().ok()) {
        world.reorder_bodies(&shuffled(world.bodies.len(), seed))?;
    }
    if std::env::var("MD_BENCH_ORDER").as_deref() == Ok("partner") {
        config.load_order = granula::md::LoadOrder::Partner;
    }
    // `MD_BENCH_LAW=damped` adds the tangential dashpot of LIGGGHTS' hertz/history model.
    let law = match std::env::var("MD_BENCH_LAW").as_deref() {
        Ok("damped") => hertz_mindlin_damped(),
        _ => hertz_mindlin(),
    };
    // `MD_BENCH_VERLET=half-step`: dashpots see the half-step velocity (the classic scheme).
    let verlet = match std::env::var("MD_BENCH_VERLET").as_deref() {
        Ok("half-step") => VelocityVerlet::with_force_velocity(ForceVelocity::HalfStep),
        _ => VelocityVerlet::new(),
    };
    // `MD_BENCH_ENERGY=every`: the guard's one-step check after every step (the world's
    // default); otherwise only on the guard's interval steps, as a production run would.
    world.energy_reads = match std::env::var("MD_BENCH_ENERGY").as_deref() {
        Ok("every") => EnergyReads::EveryStep,
        _ => EnergyReads::WhenRead,
    };
    let mut solver = MdSolver::new(law, verlet, LinkedCells::new(), config)?;
    world.step(&mut solver, DT)?;
    let start = Instant::now();
    let cpu0 = process_cpu_seconds();
    let mut contacts = 0;
    for _ in 0..steps {
        contacts = world.step(&mut solver, DT)?.contacts;
    }
    let per = 1e9 / (steps as f64 * n as f64);
    let ns = start.elapsed().as_secs_f64() * per;
    let cpu_ns = (process_cpu_seconds() - cpu0) * per;
    eprintln!("candidate pairs: {}, reorders: {}", solver.candidate_pairs(), solver.reorders());
    Ok((n, ns, cpu_ns, world.kinetic_energy(), contacts, solver.rebuilds()))
}

/// A random order of `n` bodies: Fisher-Yates driven by SplitMix64 from `seed`.
fn shuffled(n: usize, seed: u64) -> Permutation {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut sources: Vec<u32> = (0..n as u32).collect();
    for k in (1..n).rev() {
        sources.swap(k, (next() % (k as u64 + 1)) as usize);
    }
    Permutation::from_sources(sources).expect("a shuffle is a permutation")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `cargo bench` appends `--bench`.
    let args: Vec<usize> =
        std::env::args().skip(1).filter(|a| a != "--bench").map(|a| a.parse()).collect::<Result<_, _>>()?;
    let steps = args.first().copied().unwrap_or(2000);
    let sizes = if args.len() > 1 { args[1..].to_vec() } else { vec![1000, 8000, 27000] };
    println!(
        "{:>7} {:>7} {:>10} {:>10} {:>9} {:>13} {:>9} {:>8} {:>10}",
        "N", "threads", "wall ns", "CPU ns", "speed-up", "E_k (J)", "contacts", "rebuilds", "peak B/N"
    );
    println!(
        "(ns per particle-step; speed-up from wall time against 1 thread; peak B/N: the process's \
         peak resident memory so far over N)"
    );
    for &n in &sizes {
        let mut single = f64::NAN;
        let thread_counts: Vec<usize> = match std::env::var("MD_BENCH_THREADS") {
            Ok(v) => v.split(',').map(str::parse).collect::<Result<_, _>>()?,
            Err(_) => vec![1, 2],
        };
        for threads in thread_counts {
            let (n, ns, cpu, ek, contacts, rebuilds) = run(n, threads, steps)?;
            if threads == 1 {
                single = ns;
            }
            let per = peak_rss_bytes() / n as f64;
            println!(
                "{n:>7} {threads:>7} {ns:>10.1} {cpu:>10.1} {:>9.2} {ek:>13.6e} {contacts:>9} {rebuilds:>8} {per:>10.0}",
                single / ns
            );
        }
    }
    Ok(())
}
