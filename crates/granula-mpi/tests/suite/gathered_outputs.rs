//! The gathered contact outputs and the runner's checkpoint file, on one process (no MPI
//! library): the contacts gathered from one rank are the plain solver's, and a damaged or
//! foreign checkpoint file is refused by name.

use granula_core::Contact;
use granula_mpi::{DistributedCheckpointFile, DistributedConfig, DistributedRun, SingleProcess};
use std::path::Path;

/// The settling box with 150 beads poured from 8 mm: at 4000 steps (20 ms) the lower beads
/// are on the floor and on each other.
fn settling() -> granula_io::Scene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/settling_box_md.toml");
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("end_time = 0.25", "end_time = 0.02")
        .replace("count = 800", "count = 150")
        .replace("max = [0.02, 0.02, 0.05]", "max = [0.02, 0.02, 0.008]");
    granula_run::parse_scene("settling.toml", &text).unwrap()
}

#[test]
fn contacts_gathered_from_one_rank_are_the_plain_solvers() {
    let scene = settling();
    let dt = scene.dt();
    let mut world = scene.build_world().unwrap();
    let mut solver = granula_run::build_solver(&scene).unwrap();
    let mut run = DistributedRun::new(SingleProcess, scene.clone(), DistributedConfig::default()).unwrap();
    let mut report = Default::default();
    for step in 1..=scene.steps {
        // Published on the last step only, as the runner does for an output step.
        let last = step == scene.steps;
        solver.publish_contacts(last);
        run.publish_contacts(last);
        report = solver.step(&mut world, dt).unwrap();
        run.step().unwrap();
    }
    let g = run.gather_contacts().unwrap().expect("rank 0 gathers");
    let mut plain: Vec<_> = solver.contacts().expect("published").to_vec();
    plain.sort_by_key(|c| c.key());
    assert!(plain.len() > 30, "only {} contacts: the comparison shows little", plain.len());
    assert_eq!(g.step, scene.steps);
    assert_eq!(g.contacts.len(), plain.len());
    assert_eq!(g.report.contacts, plain.len());
    // One rank runs the plain solver's arithmetic (docs/distributed.md): the same pairs
    // with the same bits; its world's handles are the scene's, so the keys agree too.
    for (a, b) in g.contacts.iter().zip(&plain) {
        assert_eq!((a.key, a.body1, a.body2), (b.key, b.body1, b.body2));
        assert_eq!((a.force, a.point, a.gap), (b.force, b.point, b.gap), "pair {:?}", a.key);
    }
    // The stored energies of the same pairs, summed in key order rather than in the
    // candidate list's: at most n ε relative for n terms (n < 1000, ε = 1.1e-16).
    let stored = world.ledger.stored_elastic;
    assert!(stored > 0.0);
    assert!((g.stored_elastic - stored).abs() <= 1e-12 * stored, "{} vs {stored}", g.stored_elastic);
    // A maximum does not depend on the order.
    let report: granula_core::StepReport = report;
    assert!(report.max_overlap > 0.0);
    assert_eq!(g.report.max_overlap, report.max_overlap);
    // The run's ledger on one rank is the plain run's: the same terms summed in the same
    // order but for the per-rank partial sums (1e-12 relative: n ε for n < 10⁴ additions).
    let e = run.energies().unwrap();
    let (l, p) = (e.ledger, world.ledger);
    assert!(p.dissipated.normal > 0.0 && p.dissipated.sliding > 0.0);
    for (a, b) in [
        (l.dissipated.normal, p.dissipated.normal),
        (l.dissipated.sliding, p.dissipated.sliding),
        (l.stored_elastic, p.stored_elastic),
        (l.external_work, p.external_work),
        (e.kinetic, world.kinetic_energy()),
        (e.potential, world.potential_energy()),
    ] {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1e-30), "{a} vs {b}");
    }
}

#[test]
fn a_damaged_or_foreign_checkpoint_file_is_refused_by_name() {
    let scene = settling();
    let mut run = DistributedRun::new(SingleProcess, scene, DistributedConfig::default()).unwrap();
    for _ in 0..10 {
        run.step().unwrap();
    }
    let c = run.checkpoint_state().unwrap().expect("rank 0 holds the checkpoint");
    let file = DistributedCheckpointFile { out_dir: "/nowhere".into(), outputs: Default::default(), run: c.clone() };
    let bytes = file.to_bytes();
    let path = Path::new("ckpt.bin");
    let back = DistributedCheckpointFile::from_bytes(&bytes, path).unwrap();
    assert_eq!(back.run.bodies, c.bodies);
    assert_eq!(back.run.clock, c.clock);
    // One flipped bit in the content: the checksum names the file.
    let mut flipped = bytes.clone();
    let k = flipped.len() / 2;
    flipped[k] ^= 1;
    let e = DistributedCheckpointFile::from_bytes(&flipped, path).unwrap_err().to_string();
    assert!(e.contains("ckpt.bin") && e.contains("checksum"), "{e}");
    // Cut short: the announced length does not match.
    let e = DistributedCheckpointFile::from_bytes(&bytes[..bytes.len() - 7], path).unwrap_err().to_string();
    assert!(e.contains("ckpt.bin") && e.contains("announces"), "{e}");
    // A one-process checkpoint (it starts with its format number) is named as such.
    let mut foreign = granula_run::CHECKPOINT_FORMAT.to_le_bytes().to_vec();
    foreign.extend_from_slice(&[0; 40]);
    let e = DistributedCheckpointFile::from_bytes(&foreign, path).unwrap_err().to_string();
    assert!(e.contains("ckpt.bin") && e.contains("not the checkpoint of a distributed run"), "{e}");
    // And the one-process reader names a distributed file.
    let e = granula_run::Checkpoint::from_bytes(&bytes, path).unwrap_err().to_string();
    assert!(e.contains("ckpt.bin") && e.contains("distributed run"), "{e}");
}
