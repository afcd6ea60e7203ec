//! The distributed run on one process ([`SingleProcess`], no MPI library) against the
//! plain one-process run of the same scene, and its refusals of bad input.

use granula_core::DVec3;
use granula_mpi::{Communicator, DistributedConfig, DistributedError, DistributedRun, SingleProcess};
use granula_run::{ExistingOutput, Run};

fn settling_box(end_time: &str) -> granula_io::Scene {
    let text = include_str!("../../../../examples/scenes/settling_box_md.toml");
    let text = text.replace("end_time = 0.25", &format!("end_time = {end_time}"));
    granula_run::parse_scene("settling_box_md.toml", &text).unwrap()
}

#[test]
fn one_rank_equals_the_plain_run_bit_for_bit() {
    // 4000 steps of the settling box: 41 redistributions re-seat the solver on a rebuilt
    // world (new handles, histories and integrator memory carried over); the state must be
    // the plain run's to the last bit, the plain run summing the pair loads in the partner
    // order a distributed run uses (scene key `load_order = "partner"`).
    let scene = settling_box("0.02");
    let mut d = DistributedRun::new(SingleProcess, scene.clone(), DistributedConfig::default()).unwrap();
    // The plain run asks for the partner order through the scene key.
    let text = scene.text.replace("kind = \"md\"", "kind = \"md\"\nload_order = \"partner\"");
    assert_ne!(text, scene.text);
    let scene = granula_run::parse_scene("settling_box_md.toml", &text).unwrap();
    d.run_to_end().unwrap();
    assert!(d.stats().redistributions > 20, "{:?}", d.stats());
    let state = d.gather_state().unwrap().unwrap();
    let out = std::env::temp_dir().join(format!("granula-mpi-plain-{}", std::process::id()));
    let mut run = Run::start_with(scene, &out, ExistingOutput::Overwrite).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    let b = &run.world.bodies;
    assert_eq!(state.len(), 800);
    for r in &state {
        let i = b.index(granula_core::BodyHandle(r.gid)).unwrap();
        assert_eq!(r.position, b.position[i], "body {}", r.gid);
        assert_eq!(r.velocity, b.velocity[i], "body {}", r.gid);
        assert_eq!(r.angular_velocity, b.angular_velocity[i], "body {}", r.gid);
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// A group that claims `size` ranks: enough for the checks made before any exchange.
struct Pretend(usize);

impl Communicator for Pretend {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        self.0
    }
    fn exchange(&self, _: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        unreachable!("the run must be refused before it communicates")
    }
    fn all_gather(&self, _: f64) -> Vec<f64> {
        unreachable!("the run must be refused before it communicates")
    }
}

#[test]
fn more_ranks_than_the_box_can_hold_is_refused() {
    // The box of the centres is about 19 × 19 × 49 mm and the interaction range about
    // 1.15 mm (largest diameter 1.05 mm + skin 0.1 mm): 997 (prime) ranks would need 997
    // slabs along one side.
    let Err(e) = DistributedRun::new(Pretend(997), settling_box("0.01"), DistributedConfig::default()) else {
        panic!("997 ranks accepted");
    };
    assert!(matches!(e, DistributedError::TooManyRanks { ranks: 997, .. }), "{e}");
    assert!(e.to_string().contains("run on fewer ranks"), "{e}");
}

#[test]
fn an_nscd_scene_is_refused_with_its_file() {
    let text = include_str!("../../../../examples/scenes/settling_box_nscd.toml");
    let scene = granula_run::parse_scene("settling_box_nscd.toml", text).unwrap();
    let Err(e) = DistributedRun::new(SingleProcess, scene, DistributedConfig::default()) else {
        panic!("NSCD scene accepted");
    };
    assert!(matches!(e, DistributedError::Unsupported { .. }), "{e}");
    assert!(e.to_string().starts_with("settling_box_nscd.toml"), "{e}");
}

#[test]
fn a_period_shorter_than_two_interaction_ranges_is_refused_naming_the_axis() {
    // Beads of radius 1 mm with a skin of 0.1 mm: interaction range 2 mm + 0.1 mm. The
    // scene's own check keeps its periods at least twice that (without a law range, the
    // same condition); a world built by the caller with a period of 4.1 mm along x must be
    // refused by the distributed run before it starts, naming the axis (a bead could be
    // within range of two images of one partner).
    let text = r#"
        [simulation]
        dt = 1e-5
        end_time = 1e-4
        periodic = { x = [0.0, 0.005] }
        [solver]
        kind = "md"
        skin = 1e-4
        [[lattices]]
        origin = [0.002, 0.0, 0.0]
        counts = [1, 1, 2]
        spacing = 0.003
        radius = 0.001
    "#;
    let scene = granula_run::parse_scene("short_period.toml", text).unwrap();
    let mut world = scene.build_world().unwrap();
    world.periodic = granula_core::PeriodicDomain::default().with_axis(granula_core::Axis::X, 0.0, 0.0041).unwrap();
    let Err(e) = DistributedRun::with_world(SingleProcess, scene, world, DistributedConfig::default()) else {
        panic!("a period shorter than two interaction ranges was accepted");
    };
    assert!(matches!(e, DistributedError::PeriodTooShort { axis: 'x', .. }), "{e}");
    assert!(e.to_string().contains("along x"), "{e}");
}

#[test]
fn the_decomposition_covers_the_box_of_the_bodies() {
    let d = DistributedRun::new(SingleProcess, settling_box("0.01"), DistributedConfig::default()).unwrap();
    // One rank: one subdomain, infinite, owning every body.
    assert_eq!(d.decomposition().subdomains.len(), 1);
    assert_eq!(d.decomposition().owner(DVec3::splat(1e9)), 0);
    assert_eq!(d.owned(), 800);
    assert_eq!(d.ghosts(), 0);
}

fn scene_file(name: &str) -> granula_io::Scene {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes").join(name);
    granula_run::load_scene(&path).unwrap()
}

#[test]
fn a_checkpoint_resumes_bit_identically_and_only_for_its_scene() {
    // The two stacked beads with a loaded tangential spring: checkpoint at step 1200, in
    // the middle of the loading; the resumed run must end with the uninterrupted run's bits
    // (the history, the loads and the integrator's memory travel in the checkpoint).
    let config = DistributedConfig { balance_margin: None };
    let mut whole = DistributedRun::new(SingleProcess, scene_file("sliding_pair.toml"), config).unwrap();
    let mut bytes = None;
    while !whole.is_done() {
        whole.step().unwrap();
        if whole.world.step_count() == 1200 {
            bytes = whole.checkpoint().unwrap();
        }
    }
    let bytes = bytes.unwrap();
    let mut resumed =
        DistributedRun::resume(SingleProcess, scene_file("sliding_pair.toml"), &bytes, "pair.ckpt", config).unwrap();
    assert_eq!(resumed.world.step_count(), 1200);
    resumed.run_to_end().unwrap();
    assert_eq!(resumed.gather_state().unwrap(), whole.gather_state().unwrap());
    // Another scene's checkpoint is refused, naming the file and both scenes.
    let Err(e) = DistributedRun::resume(SingleProcess, scene_file("stream.toml"), &bytes, "pair.ckpt", config) else {
        panic!("a checkpoint of another scene was accepted");
    };
    assert!(matches!(e, DistributedError::CheckpointMismatch { .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains("pair.ckpt") && text.contains("sliding_pair.toml") && text.contains("stream.toml"), "{text}");
}

#[test]
fn a_resumed_run_goes_on_with_the_runs_ledger() {
    // The box with the moving piston (every account of the ledger in play): checkpoint at
    // an arbitrary step; the resumed run ends with the uninterrupted run's ledger and
    // energies to the bit (on one rank the same sums in the same order), the piston's
    // trapezoid included (its power at the checkpoint travels with it).
    let config = DistributedConfig::default();
    let mut whole = DistributedRun::new(SingleProcess, scene_file("ledger_box.toml"), config).unwrap();
    let mut bytes = None;
    while !whole.is_done() {
        whole.step().unwrap();
        if whole.world.step_count() == 2345 {
            bytes = whole.checkpoint().unwrap();
        }
    }
    let mut resumed =
        DistributedRun::resume(SingleProcess, scene_file("ledger_box.toml"), &bytes.unwrap(), "box.ckpt", config)
            .unwrap();
    resumed.run_to_end().unwrap();
    let (a, b) = (resumed.energies().unwrap(), whole.energies().unwrap());
    assert!(b.ledger.external_work > 0.0 && b.ledger.dissipated.body_damping > 0.0);
    assert_eq!(a, b);
}

#[test]
fn the_runaway_energy_guard_watches_the_runs_energies() {
    // Each rank's world has its own guard off (it sees a part of the bodies); the run's
    // guard checks the energies summed over the ranks every 100 steps. Energy injected by
    // hand before two checks in a row (the speeds doubled: the kinetic energy gains 3 times
    // itself, above the default limit of half the energy in play) stops the run at the
    // second, naming the run's fastest body.
    let scene = settling_box("0.02");
    let mut run = DistributedRun::new(SingleProcess, scene, DistributedConfig::default()).unwrap();
    while run.world.step_count() < 250 {
        run.step().unwrap();
    }
    let error = loop {
        if run.world.step_count() % 100 == 99 {
            run.world.bodies.velocity.iter_mut().for_each(|v| *v *= 2.0);
        }
        if let Err(e) = run.step() {
            break e;
        }
        assert!(run.world.step_count() < 500, "no runaway found by step 500");
    };
    assert_eq!(run.world.step_count(), 400, "stopped at the second check after the first injection");
    match error {
        DistributedError::Core {
            source: granula_core::CoreError::EnergyRunaway { ratio, limit, interval, .. },
            ..
        } => {
            assert!(ratio > limit && interval == 100, "ratio {ratio}, limit {limit}, interval {interval}");
        }
        e => panic!("not a runaway: {e}"),
    }
}
