//! Runs a scene distributed over the ranks of `mpirun` and writes what the tests of
//! `granula-mpi` compare with the one-process run:
//!
//! `granula-mpi-check SCENE OUT [--steps N] [--no-balance] [--trace] [--conservation]
//! [--blocks-order] [--checkpoint-at K FILE] [--resume FILE]`
//!
//! - `--blocks-order` sums each body's pair loads by blocks of each rank's candidate list
//!   instead of in partner order (`DistributedRun::set_partner_order`);
//! - `--checkpoint-at K FILE` writes a checkpoint after step K (and goes on); `--resume
//!   FILE` starts from one instead of the scene's initial state;
//! - rank 0 writes to OUT (bincode) the gathered state of every body after the last step
//!   (`Vec<BodyRecord>` sorted by global id), or with `--trace` after every step
//!   (`Vec<Vec<BodyRecord>>`);
//! - `--conservation` checks after every step that the ranks own every body once and
//!   prints the largest change of the total mass and momentum;
//! - it prints the counters (redistributions, migrations, rebalances) and the wall time
//!   per particle and step.

use granula_core::{DVec3, MotionKind};
use granula_mpi::{BodyRecord, Communicator, DistributedConfig, DistributedRun, Mpi};
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(comm) = Mpi::init() else {
        eprintln!("error: MPI could not be initialised");
        return ExitCode::FAILURE;
    };
    match run(comm) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(comm: Mpi) -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (scene_path, out) =
        match (args.get(1), args.get(2)) {
            (Some(s), Some(o)) => (s.clone(), o.clone()),
            _ => return Err(
                "usage: granula-mpi-check SCENE OUT [--steps N] [--no-balance] [--trace] [--conservation] [--ledger]"
                    .into(),
            ),
        };
    let flag = |f: &str| args.iter().any(|a| a == f);
    let steps: Option<u64> =
        args.iter().position(|a| a == "--steps").and_then(|k| args.get(k + 1)).map(|s| s.parse()).transpose()?;
    let config =
        if flag("--no-balance") { DistributedConfig { balance_margin: None } } else { DistributedConfig::default() };
    let value = |f: &str| args.iter().position(|a| a == f).and_then(|k| args.get(k + 1)).cloned();
    let checkpoint_at: Option<u64> = value("--checkpoint-at").map(|s| s.parse()).transpose()?;
    let checkpoint_file = args.iter().position(|a| a == "--checkpoint-at").and_then(|k| args.get(k + 2)).cloned();
    let scene = granula_run::load_scene(std::path::Path::new(&scene_path))?;
    let mut run = match value("--resume") {
        Some(file) => {
            let bytes = std::fs::read(&file)?;
            DistributedRun::resume(comm, scene, &bytes, &file, config)?
        }
        None => DistributedRun::new(comm, scene, config)?,
    };
    if flag("--blocks-order") {
        run.set_partner_order(false);
    }
    let end = steps.unwrap_or(run.scene.steps).min(run.scene.steps);
    let dynamic = run.scene.build_world()?;
    let n = (0..dynamic.bodies.len()).filter(|&i| dynamic.bodies.motion[i] == MotionKind::Dynamic).count();
    let total = |run: &DistributedRun<Mpi>| -> (f64, DVec3, f64) {
        let me = run.rank();
        let b = &run.world.bodies;
        let (mut owned, mut mass, mut p) = (0.0, 0.0, DVec3::ZERO);
        for i in 0..b.len() {
            if b.motion[i] == MotionKind::Dynamic && is_owned(run, i, me) {
                owned += 1.0;
                mass += b.mass[i];
                p += b.mass[i] * b.velocity[i];
            }
        }
        let c = run.comm();
        (c.sum(owned), DVec3::new(c.sum(p.x), c.sum(p.y), c.sum(p.z)), c.sum(mass))
    };
    let (_, p0, m0) = total(&run);
    let balance0 = run.energies()?.balance();
    let (mut worst_p, mut worst_m, mut worst_count) = (DVec3::ZERO, 0.0f64, 0.0f64);
    let mut trace: Vec<Vec<BodyRecord>> = Vec::new();
    let started = std::time::Instant::now();
    while run.world.step_count() < end {
        run.step()?;
        if checkpoint_at == Some(run.world.step_count()) {
            if let (Some(bytes), Some(file)) = (run.checkpoint()?, &checkpoint_file) {
                std::fs::write(file, bytes)?;
            }
        }
        if flag("--conservation") {
            let (count, p, m) = total(&run);
            worst_count = worst_count.max((count - n as f64).abs());
            worst_p = worst_p.max((p - p0).abs());
            worst_m = worst_m.max((m - m0).abs());
        }
        if flag("--trace") {
            if let Some(s) = run.gather_state()? {
                trace.push(s);
            }
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let energies = run.energies()?;
    let state = run.gather_state()?;
    if let Some(state) = state {
        let bytes = if flag("--trace") { bincode::serialize(&trace)? } else { bincode::serialize(&state)? };
        std::fs::write(&out, bytes)?;
        let s = run.stats();
        println!(
            "ranks {} bodies {} steps {} redistributions {} migrations {} rebalances {}",
            run.comm().size(),
            n,
            end,
            s.redistributions,
            s.migrations,
            s.rebalances
        );
        println!("ns_per_particle_step {:.1}", wall * 1e9 / (n as f64 * end.max(1) as f64));
        if flag("--ledger") {
            let (l, d) = (energies.ledger, energies.ledger.dissipated);
            println!(
                "ledger normal {:e} sliding {:e} damping {:e} stored {:e} work {:e} kinetic {:e} potential {:e} \
                 balance_start {:e} balance_end {:e}",
                d.normal,
                d.sliding,
                d.body_damping,
                l.stored_elastic,
                l.external_work,
                energies.kinetic,
                energies.potential,
                balance0,
                energies.balance()
            );
        }
        if flag("--conservation") {
            println!(
                "conservation count_error {} mass_error {:e} momentum_error {:e} {:e} {:e} momentum_scale {:e}",
                worst_count,
                worst_m,
                worst_p.x,
                worst_p.y,
                worst_p.z,
                m0 * 1.0
            );
        }
    }
    Ok(())
}

/// Whether local body `i` is owned by rank `me` (the ghosts are the other dynamic bodies).
fn is_owned(run: &DistributedRun<Mpi>, i: usize, me: usize) -> bool {
    run.owner_of(i) == Some(me)
}
