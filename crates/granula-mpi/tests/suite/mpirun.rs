//! Multi-rank runs under `mpirun` (feature `mpi` only): MPI starts once per process, so
//! each case launches `mpirun` on the `granula-mpi-check` binary and compares what rank 0
//! writes with the same scene run in this process on one rank ([`SingleProcess`]).
//!
//! Run as root, OpenMPI needs `OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1`
//! (set here for the child); `--oversubscribe` lets 4 ranks run on a 2-core machine.
#![cfg(feature = "mpi")]

use crate::common::{figure, mpirun, scene_path};
use granula_mpi::{BodyRecord, DistributedConfig, DistributedRun, SingleProcess};
use std::path::Path;

/// The scene run here on one rank for `steps` steps, the final state gathered, and the
/// state after every step if `trace`.
fn one_rank(scene: &Path, steps: u64, config: DistributedConfig, trace: bool) -> Vec<Vec<BodyRecord>> {
    let scene = granula_run::load_scene(scene).unwrap();
    let mut run = DistributedRun::new(SingleProcess, scene, config).unwrap();
    let mut states = Vec::new();
    while run.world.step_count() < steps {
        run.step().unwrap();
        if trace {
            states.push(run.gather_state().unwrap().unwrap());
        }
    }
    if !trace {
        states.push(run.gather_state().unwrap().unwrap());
    }
    states
}

#[test]
fn mass_and_momentum_are_conserved_across_ten_thousand_migrations() {
    // The frictionless gas between two walls normal to x, 4 ranks in slabs across x (no
    // rebalancing, so the faces stay across the bodies' bounces): the walls push along x
    // only, so the momentum along y and z stays at its initial value; every body is owned
    // by exactly one rank after every step.
    let (stdout, _) = mpirun(4, &scene_path("gas_column.toml"), &["--conservation", "--no-balance"]);
    eprintln!("{stdout}");
    let migrations = figure(&stdout, "migrations");
    assert!(migrations >= 1e4, "only {migrations} migrations");
    assert_eq!(figure(&stdout, "count_error"), 0.0);
    let mass = figure(&stdout, "momentum_scale");
    // Sums over the ranks in another order than the bodies' own: 1e-14 of the total mass
    // is 50 roundings of the 308 terms.
    assert!(figure(&stdout, "mass_error") <= 1e-14 * mass);
    // |p_y|, |p_z| ≤ 1e-12 of m_total × 1 m/s: each step adds rounding of the order of
    // 1e-16 m|v| per body; measured 2e-19 kg m/s (total mass 4e-4 kg, speeds 8 m/s).
    let words: Vec<&str> = stdout.split_whitespace().collect();
    let k = words.iter().position(|w| *w == "momentum_error").unwrap();
    for axis in 1..3 {
        let e: f64 = words[k + 1 + axis].parse().unwrap();
        assert!(e <= 1e-12 * mass, "momentum along axis {axis} changed by {e:e}");
    }
}

#[test]
fn no_body_is_lost_or_duplicated_when_all_stream_through_one_face() {
    for ranks in [2, 4] {
        let (stdout, bytes) = mpirun(ranks, &scene_path("stream.toml"), &["--conservation"]);
        let state: Vec<BodyRecord> = bincode::deserialize(&bytes).unwrap();
        // 8 × 5 × 5 bodies, each exactly once.
        let gids: Vec<u32> = state.iter().map(|r| r.gid).collect();
        assert_eq!(gids, (0..200).collect::<Vec<u32>>());
        assert_eq!(figure(&stdout, "count_error"), 0.0, "{stdout}");
        // Every body crossed at least the first face.
        assert!(figure(&stdout, "migrations") >= 200.0, "{stdout}");
        // The same bits as on one rank.
        let reference = one_rank(&scene_path("stream.toml"), 2000, DistributedConfig::default(), false);
        for (a, b) in state.iter().zip(&reference[0]) {
            assert_eq!(a.position, b.position, "body {}", a.gid);
        }
    }
}

#[test]
fn a_loaded_tangential_spring_crossing_a_face_has_the_one_rank_history() {
    let path = scene_path("sliding_pair.toml");
    let config = DistributedConfig { balance_margin: None };
    let reference = one_rank(&path, 2400, config, true);
    let (_, bytes) = mpirun(2, &path, &["--trace", "--no-balance"]);
    let trace: Vec<Vec<BodyRecord>> = bincode::deserialize(&bytes).unwrap();
    assert_eq!(trace.len(), reference.len());
    // The two stacked beads, found by their height at the first step.
    let first = &trace[0];
    let lower = first.iter().position(|r| r.position.x.abs() < 0.005 && r.position.z < 0.0015).unwrap();
    let upper = first.iter().position(|r| r.position.z > 0.0025).unwrap();
    let mut crossed = false;
    let mut loaded = 0;
    for (step, (a, b)) in trace.iter().zip(&reference).enumerate() {
        for (x, y) in a.iter().zip(b) {
            assert_eq!(x.force, y.force, "step {step}, body {}", x.gid);
            assert_eq!(x.torque, y.torque, "step {step}, body {}", x.gid);
            assert_eq!(x.position, y.position, "step {step}, body {}", x.gid);
        }
        let (l, u) = (&a[lower], &a[upper]);
        // On the face x = 0 between the two subdomains the beads are on either side.
        crossed |= l.position.x.signum() != u.position.x.signum();
        // The upper bead rests on the lower one only: a horizontal force on it is the
        // pair's tangential spring.
        loaded += usize::from(u.force.x.abs() > 1e-7);
    }
    assert!(crossed, "the pair never straddled the face");
    assert!(loaded > 100, "the tangential spring was loaded on {loaded} steps only");
}

#[test]
fn a_checkpoint_written_on_4_ranks_resumes_on_1_and_2_with_the_same_bits() {
    let path = scene_path("sliding_pair.toml");
    let file = std::env::temp_dir().join(format!("granula-mpi-ckpt-{}.bin", std::process::id()));
    let file_arg = file.to_string_lossy().into_owned();
    let (_, whole) = mpirun(4, &path, &["--no-balance", "--checkpoint-at", "1200", &file_arg]);
    let whole: Vec<BodyRecord> = bincode::deserialize(&whole).unwrap();
    // The uninterrupted run on one rank, for reference.
    let reference = one_rank(&path, 2400, DistributedConfig { balance_margin: None }, false).pop().unwrap();
    assert_eq!(whole, reference, "4 ranks vs 1");
    let (_, resumed) = mpirun(2, &path, &["--no-balance", "--resume", &file_arg]);
    let resumed: Vec<BodyRecord> = bincode::deserialize(&resumed).unwrap();
    assert_eq!(resumed, reference, "resumed on 2 ranks");
    let bytes = std::fs::read(&file).unwrap();
    let scene = granula_run::load_scene(&path).unwrap();
    let config = DistributedConfig { balance_margin: None };
    let mut one = DistributedRun::resume(SingleProcess, scene, &bytes, &file_arg, config).unwrap();
    one.run_to_end().unwrap();
    assert_eq!(one.gather_state().unwrap().unwrap(), reference, "resumed on 1 rank");
    let _ = std::fs::remove_file(&file);
}

/// The ledger figures printed by the check binary with `--ledger`.
fn ledger(stdout: &str) -> [f64; 9] {
    ["normal", "sliding", "damping", "stored", "work", "kinetic", "potential", "balance_start", "balance_end"]
        .map(|k| figure(stdout, k))
}

#[test]
fn the_energy_ledger_of_2_and_4_ranks_is_the_one_ranks() {
    // Beads poured into a box with a moving piston and local damping (every account in
    // play), 6000 steps with bodies migrating: each pair, body and wall contact is booked
    // by one rank, so the run's ledger is the one-rank ledger (the motion is the same to
    // the bit; the sums over the ranks group the terms differently: ≤ 1e-12 relative is
    // n ε for n < 10⁴ additions, measured 1e-15).
    let scene = scene_path("ledger_box.toml");
    let (one, _) = mpirun(1, &scene, &["--ledger"]);
    let reference = ledger(&one);
    let [normal, sliding, damping, stored, work, ..] = reference;
    assert!(normal > 0.0 && sliding > 0.0 && damping > 0.0 && stored > 0.0 && work > 0.0, "{one}");
    // The balance closes to the documented accuracy of velocity Verlet's ledger at
    // Δt ≈ t_c/50: within 5 % of the dissipation (docs/smooth-dynamics.md, measured 2 %).
    let [.., start, end] = reference;
    assert!((end - start).abs() <= 0.05 * (normal + sliding + damping), "balance {start:e} -> {end:e}");
    for ranks in [2, 4] {
        let (stdout, _) = mpirun(ranks, &scene, &["--ledger"]);
        eprintln!("{stdout}");
        assert!(figure(&stdout, "migrations") > 0.0, "no body changed rank on {ranks} ranks");
        for (k, (a, b)) in ledger(&stdout).into_iter().zip(reference).enumerate() {
            assert!((a - b).abs() <= 1e-12 * b.abs(), "{ranks} ranks, figure {k}: {a:e} against {b:e}");
        }
    }
    // A checkpoint written on 4 ranks at an arbitrary step, resumed on 2: the run's ledger
    // travels in it (summed over the ranks, then carried on by rank 0), and the end is the
    // uninterrupted run's (the same bound).
    let file = std::env::temp_dir().join(format!("granula-mpi-ledger-{}.ckpt", std::process::id()));
    let file = file.to_str().unwrap();
    mpirun(4, &scene, &["--checkpoint-at", "2345", file]);
    let (stdout, _) = mpirun(2, &scene, &["--resume", file, "--ledger"]);
    let _ = std::fs::remove_file(file);
    let resumed = ledger(&stdout);
    // All but the start's balance (the resumed run starts at step 2345).
    for k in (0..7).chain([8]) {
        let (a, b) = (resumed[k], reference[k]);
        assert!((a - b).abs() <= 1e-12 * b.abs(), "resumed on 2 ranks, figure {k}: {a:e} against {b:e}");
    }
}
