//! The same run on 1, 2 and 4 ranks gives the same bits, through a dense settling
//! (feature `mpi` only; see `mpirun.rs` for how the ranks are launched). The identity rests
//! on two things: each pair's force is computed in the frame of its body of smaller global
//! id from the same operands on every rank, and each body sums its pair loads in the order
//! of its partners' ids (`granula_md::LoadOrder::Partner`, which the distributed run sets).
//! A run with the partner order switched off (the block order of one process) is compared
//! too and must differ, so that the identity test is known to bite.
#![cfg(feature = "mpi")]

use crate::common::{figure, mpirun_state as mpirun};
use granula_mpi::{BodyRecord, DistributedConfig, DistributedRun, SingleProcess};
use std::path::{Path, PathBuf};

/// The scene run here on one rank for `steps` steps (partner order or not); the final
/// state gathered.
fn one_rank(scene: &Path, steps: u64, partner: bool) -> Vec<BodyRecord> {
    let scene = granula_run::load_scene(scene).unwrap();
    let mut run = DistributedRun::new(SingleProcess, scene, DistributedConfig::default()).unwrap();
    run.set_partner_order(partner);
    while run.world.step_count() < steps {
        run.step().unwrap();
    }
    run.gather_state().unwrap().unwrap()
}

/// The settling box of the examples poured from 3.5 cm instead of 5 cm (denser sooner),
/// written to a temporary folder of its own for the test `tag`.
fn dense_settling(tag: &str) -> PathBuf {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/settling_box_md.toml");
    let text = std::fs::read_to_string(examples).unwrap();
    let text = text.replace("max = [0.02, 0.02, 0.05]", "max = [0.02, 0.02, 0.035]");
    let dir = std::env::temp_dir().join(format!("granula-mpi-identity-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dense_settling.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// How many bodies differ from `reference` in position or velocity, and the largest
/// position difference (m).
fn differences(state: &[BodyRecord], reference: &[BodyRecord]) -> (usize, f64) {
    assert_eq!(state.len(), reference.len());
    let mut worst: f64 = 0.0;
    let mut differing = 0;
    for (a, b) in state.iter().zip(reference) {
        assert_eq!(a.gid, b.gid);
        worst = worst.max((a.position - b.position).length());
        differing += usize::from(a.position != b.position || a.velocity != b.velocity);
    }
    (differing, worst)
}

/// Steps of the dense settling: 0.09 s, when the beads poured from 3.5 cm have settled.
const SETTLED: u64 = 18_000;

#[test]
fn dense_settling_is_bit_identical_on_1_2_and_4_ranks() {
    let path = dense_settling("partner");
    let steps = SETTLED;
    let reference = one_rank(&path, steps, true);
    // By then the beads have landed in a dense pack (several contacts per bead, so the
    // sums have several terms); the fastest speed left is printed (0.11 m/s measured).
    let speed = reference.iter().map(|r| r.velocity.length()).fold(0.0, f64::max);
    eprintln!("largest speed at step {steps}: {speed:e} m/s");
    for ranks in [2, 4] {
        let (stdout, state) = mpirun(ranks, &path, &["--steps", &steps.to_string()]);
        eprintln!("{stdout}");
        let (differing, worst) = differences(&state, &reference);
        eprintln!("{ranks} ranks: {differing} of 800 bodies differ, largest position difference {worst:e} m");
        assert_eq!(state, reference, "{ranks} ranks against 1");
        // Bodies changed rank, so ghosts, migrations and histories were all exercised.
        assert!(figure(&stdout, "migrations") > 0.0, "no body changed rank: the test shows nothing");
    }
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn the_block_order_breaks_the_identity() {
    // The same scene with the partner order switched off on every rank: the block sums of
    // a rank's candidate list group a body's terms differently from one rank's list, so
    // the last bits differ once the beads are in dense contact (step 7000: the lower
    // layers have landed). If this run matched one rank, the identity test above could
    // not tell the partner order from luck.
    let path = dense_settling("blocks");
    let steps = 7000;
    let reference = one_rank(&path, steps, false);
    let (_, state) = mpirun(2, &path, &["--steps", &steps.to_string(), "--blocks-order"]);
    let (differing, worst) = differences(&state, &reference);
    eprintln!("block order, 2 ranks: {differing} of 800 bodies differ, largest position difference {worst:e} m");
    assert!(differing > 0, "the block order gave one rank's bits on 2 ranks");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
