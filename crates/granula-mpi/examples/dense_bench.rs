//! Wall time per particle and step of the dense packing of `examples/md_bench.rs`
//! (`benches/data/dense_27000.xyzr.gz`: N = 27000 glass beads at rest in an open box,
//! Hertz + Cundall-Strack, velocity Verlet, linked cells, Δt = 5 µs, skin 0.1 mm), run
//! distributed over the ranks of `mpirun`:
//!
//! `mpirun -np 2 cargo run --release -p granula-mpi --features mpi --example dense_bench -- [STEPS] [THREADS]`
//!
//! Rank 0 prints ns per particle-step (wall time of the steps, set-up excluded). Speed is
//! printed, never asserted.

#[path = "../../../benches/md_dense/mod.rs"]
mod md_dense;

use granula_mpi::{Communicator, DistributedConfig, DistributedRun, Mpi};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let comm = Mpi::init().ok_or("MPI could not be initialised")?;
    let args: Vec<String> = std::env::args().collect();
    let steps: u64 = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(200);
    let threads: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(1);
    let world = md_dense::dense_world(27000)?;
    let n = world.bodies.len() - 5;
    let text = format!(
        "[simulation]\ndt = {dt}\nsteps = {steps}\n[solver]\nkind = \"md\"\nnormal = \"hertz\"\n\
         tangential = \"cundall_strack\"\nintegrator = \"verlet\"\nbroadphase = \"linked_cells\"\n\
         skin = {skin}\nthreads = {threads}\n[[materials]]\nname = \"glass\"\ndensity = 2500.0\n\
         young_modulus = 1e7\npoisson_ratio = 0.3\nrestitution = 0.5\nfriction = 0.5\n",
        dt = md_dense::DT,
        skin = md_dense::SKIN
    );
    let scene = granula_run::parse_scene("dense_27000", &text)?;
    let (rank, size) = (comm.rank(), comm.size());
    let mut run = DistributedRun::with_world(comm, scene, world, DistributedConfig::default())?;
    // The first step primes the solvers and redistributes: outside the timing.
    run.step()?;
    let started = std::time::Instant::now();
    run.run_to_end()?;
    let wall = run.comm().max(started.elapsed().as_secs_f64());
    if rank == 0 {
        let s = run.stats();
        println!(
            "N = {n}, {size} rank(s) × {threads} thread(s), {} steps: {:.0} ns per particle-step \
             ({} redistributions, {} migrations, {} rebalances)",
            steps - 1,
            wall * 1e9 / (n as f64 * (steps - 1) as f64),
            s.redistributions,
            s.migrations,
            s.rebalances
        );
    }
    Ok(())
}
