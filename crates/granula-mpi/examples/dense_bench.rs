//! Wall time per particle and step of the dense packing of `benches/md_bench.rs`
//! (`benches/data/dense_27000.xyzr.gz`: N = 27000 glass beads at rest in an open box,
//! Hertz + Cundall-Strack, velocity Verlet, linked cells, Δt = 5 µs, skin 0.1 mm), run
//! distributed over the ranks of `mpirun`:
//!
//! `mpirun -np 2 cargo run --release -p granula-mpi --features mpi --example dense_bench -- [STEPS] [THREADS] [N]`
//!
//! N other than 1000, 8000 or 27000 (e.g. 1000000) runs the generated dense lattice of the
//! shared `benches/md_dense` module instead of a packing file. The world measures energies
//! only where they are read, as `md_bench` does (`DENSE_BENCH_ENERGY=every`: after every
//! step, the world's default).
//!
//! Rank 0 prints ns per particle-step (wall time of the steps, set-up and the first step
//! excluded), the process CPU time per particle-step (largest over the ranks), and where
//! each rank's time went (per step, the largest over the ranks and the mean): the solver's
//! step, the ghost refresh (packing, exchange, unpacking), the per-step reduction and the
//! redistributions, with the messages and bytes each rank sent. Speed is printed, never
//! asserted.

#[path = "../../../benches/md_dense/mod.rs"]
mod md_dense;
#[path = "../../../benches/process_stats.rs"]
mod process_stats;

use granula_core::EnergyReads;
use granula_mpi::{Communicator, DistributedConfig, DistributedRun, Mpi};
use process_stats::{peak_rss_bytes, process_cpu_seconds};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let comm = Mpi::init().ok_or("MPI could not be initialised")?;
    let args: Vec<String> = std::env::args().collect();
    let steps: u64 = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(200);
    let threads: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(1);
    let size_asked: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(27000);
    let mut world = md_dense::world_of(size_asked)?;
    world.energy_reads = match std::env::var("DENSE_BENCH_ENERGY").as_deref() {
        Ok("every") => EnergyReads::EveryStep,
        _ => EnergyReads::WhenRead,
    };
    let n = world.bodies.len() - 5;
    let text = format!(
        "[simulation]\ndt = {dt}\nsteps = {steps}\n[solver]\nkind = \"md\"\nnormal = \"hertz\"\n\
         tangential = \"cundall_strack\"\nintegrator = \"verlet\"\nbroadphase = \"linked_cells\"\n\
         skin = {skin}\nthreads = {threads}\n[[materials]]\nname = \"glass\"\ndensity = 2500.0\n\
         young_modulus = 1e7\npoisson_ratio = 0.3\nrestitution = 0.5\nfriction = 0.5\n",
        dt = md_dense::DT,
        skin = md_dense::SKIN
    );
    let scene = granula_run::parse_scene(&format!("dense_{n}"), &text)?;
    let (rank, size) = (comm.rank(), comm.size());
    let mut run = DistributedRun::with_world(comm, scene, world, DistributedConfig::default())?;
    // The first step primes the solvers and redistributes: outside the timing.
    run.step()?;
    run.reset_timings();
    let owned = run.owned();
    let ghosts = run.ghosts();
    let cpu0 = process_cpu_seconds();
    let started = std::time::Instant::now();
    run.run_to_end()?;
    let wall = run.comm().max(started.elapsed().as_secs_f64());
    let cpu = run.comm().max(process_cpu_seconds() - cpu0);
    let peak = run.comm().max(peak_rss_bytes());
    // Per field, every rank's value (fixed order, see `DistributedTimings::to_array`).
    let t = run.timings().to_array();
    let per_rank: Vec<Vec<f64>> = t.iter().map(|&x| run.comm().all_gather(x)).collect();
    let owned_all = run.comm().all_gather(owned as f64);
    let ghosts_all = run.comm().all_gather(ghosts as f64);
    if rank == 0 {
        let s = run.stats();
        let timed = steps - 1;
        let per = 1e9 / (n as f64 * timed as f64);
        println!(
            "N = {n}, {size} rank(s) × {threads} thread(s), {timed} steps: {:.0} ns per particle-step wall, \
             {:.0} CPU (largest rank) ({} redistributions, {} migrations, {} rebalances); peak memory {:.0} MiB \
             per rank",
            wall * per,
            cpu * per,
            s.redistributions,
            s.migrations,
            s.rebalances,
            peak / (1024.0 * 1024.0)
        );
        println!("owned per rank {owned_all:?}, ghosts per rank {ghosts_all:?}");
        let stat = |k: usize| {
            let v = &per_rank[k];
            let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (max, v.iter().sum::<f64>() / v.len() as f64)
        };
        let ms = 1e3 / timed as f64;
        println!("per step, largest rank / mean over the ranks:");
        for (k, name) in [
            (1, "solver step"),
            (2, "refresh: pack"),
            (3, "refresh: exchange"),
            (4, "refresh: unpack"),
            (5, "reduction"),
            (6, "redistributions"),
        ] {
            let (max, mean) = stat(k);
            println!("  {name:<20} {:>9.4} ms {:>9.4} ms", max * ms, mean * ms);
        }
        let per_step = 1.0 / timed as f64;
        for (k, name) in
            [(7, "refresh messages"), (8, "refresh bytes"), (9, "redistribute msgs"), (10, "redistribute bytes")]
        {
            let (max, mean) = stat(k);
            println!("  {name:<20} {:>12.1} {:>12.1}", max * per_step, mean * per_step);
        }
    }
    Ok(())
}
