//! Periodic boundaries in a distributed run (feature `mpi` only; see `mpirun.rs` for how the
//! ranks are launched): a body is owned by the rank of its wrapped position and is a ghost
//! of the ranks within range of one of its images, and each rank's solver pairs it by the
//! minimum image, as one process does.
#![cfg(feature = "mpi")]

use crate::common::{figure, mpirun_state as mpirun, scene_path};
use granula_mpi::{BodyRecord, DistributedConfig, DistributedRun, SingleProcess};
use granula_run::{ExistingOutput, Run};
use std::path::Path;

/// The values after `key` in the check binary's output, `count` of them.
fn figures(stdout: &str, key: &str, count: usize) -> Vec<f64> {
    let words: Vec<&str> = stdout.split_whitespace().collect();
    let k = words.iter().position(|w| *w == key).unwrap_or_else(|| panic!("{key} not in {stdout}"));
    words[k + 1..k + 1 + count].iter().map(|w| w.parse().unwrap()).collect()
}

/// The plain one-process run of the scene to its end (with the partner order of the
/// distributed run), its dynamic bodies as records by global id.
fn plain_run(scene: &Path) -> Vec<BodyRecord> {
    let scene = granula_run::load_scene(scene).unwrap();
    let out = std::env::temp_dir().join(format!("granula-mpi-periodic-plain-{}", std::process::id()));
    let mut run = Run::start_with(scene, &out, ExistingOutput::Overwrite).unwrap();
    run.solver.distributed().expect("an MD solver").set_partner_order(true);
    while !run.is_done() {
        run.step().unwrap();
    }
    let _ = std::fs::remove_dir_all(&out);
    let b = &run.world.bodies;
    (0..b.len())
        .filter(|&i| b.motion[i] == granula_core::MotionKind::Dynamic)
        .map(|i| BodyRecord::of(b, i, b.handle[i].0, Vec::new()))
        .collect()
}

/// Position, velocity and spin of every body equal to the reference's, bit for bit.
fn assert_same_bits(state: &[BodyRecord], reference: &[BodyRecord], what: &str) {
    assert_eq!(state.len(), reference.len(), "{what}");
    for (a, b) in state.iter().zip(reference) {
        assert_eq!(a.gid, b.gid, "{what}");
        assert_eq!(a.position, b.position, "{what}: body {}", a.gid);
        assert_eq!(a.velocity, b.velocity, "{what}: body {}", a.gid);
        assert_eq!(a.angular_velocity, b.angular_velocity, "{what}: body {}", a.gid);
    }
}

#[test]
fn the_periodic_chute_gives_the_plain_runs_bits_on_1_2_and_4_ranks() {
    let path = scene_path("periodic_chute.toml");
    let reference = plain_run(&path);
    assert_eq!(reference.len(), 150);
    // The beads have landed on the base (some centre within a diameter of the base beads'
    // tops at 2 mm), and some touch each other through a periodic face: wrapped, their
    // centres are more than half a period apart along x or y, their minimum image closer
    // than the sum of the largest radii (2.1 mm). Those pairs need the ghosts across the
    // face when the ranks split that axis.
    assert!(reference.iter().any(|r| r.position.z < 0.004), "no bead landed");
    let period = 0.016;
    let wrap = |x: f64| x.rem_euclid(period);
    let mut through = 0;
    for (k, a) in reference.iter().enumerate() {
        for b in &reference[k + 1..] {
            let mut d = b.position - a.position;
            let mut straddles = false;
            for axis in 0..2 {
                let raw = wrap(b.position[axis]) - wrap(a.position[axis]);
                straddles |= raw.abs() > 0.5 * period;
                d[axis] = raw - period * (raw / period).round();
            }
            through += usize::from(straddles && d.length() < 0.0021);
        }
    }
    eprintln!("{through} bead pairs in contact through a periodic face");
    assert!(through > 0, "no pair in contact through a periodic face: the test shows nothing");
    let scene = granula_run::load_scene(&path).unwrap();
    let mut one = DistributedRun::new(SingleProcess, scene, DistributedConfig::default()).unwrap();
    one.run_to_end().unwrap();
    assert_same_bits(&one.gather_state().unwrap().unwrap(), &reference, "1 rank");
    for ranks in [2, 4] {
        let (stdout, state) = mpirun(ranks, &path, &[]);
        eprintln!("{stdout}");
        assert_same_bits(&state, &reference, &format!("{ranks} ranks"));
    }
}

/// Crossings of the periodic face per bead in the gas, at least (on average).
const CROSSINGS_PER_BEAD: f64 = 3.0;

#[test]
fn bodies_streaming_through_the_periodic_face_are_neither_lost_nor_duplicated() {
    // 160 beads at ±8 m/s along x in a period of 20 mm: a bead alone would cross the
    // periodic face 12 times in 6000 steps (8 m/s × 0.03 s = 0.24 m); the two streams
    // collide and scatter, so fewer. No wall, no gravity: the momentum is conserved along
    // every axis.
    let path = scene_path("periodic_gas.toml");
    let scene = granula_run::load_scene(&path).unwrap();
    let mut one = DistributedRun::new(SingleProcess, scene, DistributedConfig::default()).unwrap();
    one.run_to_end().unwrap();
    let reference = one.gather_state().unwrap().unwrap();
    // The periods each bead is away from its start along x (positions are unwrapped, the
    // beads started in the first period): at least that many crossings of the face.
    let crossings: f64 = reference.iter().map(|r| (r.position.x / 0.02).floor().abs()).sum();
    eprintln!("{crossings} crossings of the periodic face at least, {} beads", reference.len());
    assert!(crossings > 160.0 * CROSSINGS_PER_BEAD, "{crossings} crossings");
    for ranks in [2, 4] {
        let (stdout, state) = mpirun(ranks, &path, &["--conservation"]);
        eprintln!("{stdout}");
        // 100 + 60 beads, each exactly once.
        let gids: Vec<u32> = state.iter().map(|r| r.gid).collect();
        assert_eq!(gids, (0..160).collect::<Vec<u32>>(), "{ranks} ranks");
        assert_eq!(figure(&stdout, "count_error"), 0.0, "{stdout}");
        // Far more migrations than bodies: they changed rank at every crossing.
        assert!(figure(&stdout, "migrations") > 1000.0, "{stdout}");
        let mass = figure(&stdout, "momentum_scale");
        // Elastic frictionless collisions exchange equal and opposite forces: the total
        // momentum changes by rounding only. Each step adds ~1e-16 of m|v| per body, so
        // 1e-12 of m_total × 1 m/s bounds 6000 steps of 160 bodies at 8 m/s (measured:
        // 2.7e-19 kg m/s, with m_total = 2.1e-4 kg).
        for (axis, e) in figures(&stdout, "momentum_error", 3).into_iter().enumerate() {
            assert!(e <= 1e-12 * mass, "{ranks} ranks: momentum along axis {axis} changed by {e:e}");
        }
        assert_same_bits(&state, &reference, &format!("{ranks} ranks"));
    }
}
