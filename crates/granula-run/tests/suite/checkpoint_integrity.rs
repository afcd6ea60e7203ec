//! Damaged checkpoints are refused with an error, never resumed into another state and never
//! a panic: every byte of a real checkpoint flipped, random truncations and appended bytes
//! (a checksum and a length in the header), and contents no run writes (non-finite values,
//! columns of different lengths, a clock inconsistent with the step count) under a valid
//! checksum.

use crate::common;

use granula_io::{IoError, Scene};
use granula_run::{Checkpoint, Run, CHECKPOINT_FORMAT};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    common::tmp("integrity", name)
}

/// A small MD scene with contact springs under Gear-5, a flow count and removals.
const SCENE: &str = r#"
[simulation]
dt = 5e-6
steps = 1000
gravity = [0.0, 0.0, -200.0]

[solver]
kind = "md"
integrator = "gear5"
rolling = true

[[materials]]
name = "m"
restitution = 0.5
friction = 0.4
rolling_friction = 0.0002

[[planes]]
point = [0.0, 0.0, -0.001]
normal = [0.0, 0.0, 1.0]

[[lattices]]
origin = [0.0, 0.0, 0.0]
counts = [4, 4, 1]
spacing = 0.002
radius = 0.001
motion = "fixed"

[[packings]]
count = 12
seed = 3
region = { shape = "box", min = [0.0, 0.0, 0.00105], max = [0.006, 0.006, 0.004] }
size = { distribution = "uniform", min = 0.0006, max = 0.0008 }

[output]
flow = { z = 0.0, every = 10 }
"#;

/// The bytes of the checkpoint after 701 steps, and the run's folder.
fn real_checkpoint(name: &str) -> (Vec<u8>, PathBuf) {
    let dir = tmp(name);
    let mut r = Run::start(Scene::parse("s.toml", SCENE).unwrap(), &dir).unwrap();
    for _ in 0..701 {
        r.step().unwrap();
    }
    assert!(r.last_report.contacts > 0);
    let path = r.save_checkpoint().unwrap();
    (std::fs::read(path).unwrap(), dir)
}

/// `Ok` only if the bytes load and resume into a run; the error otherwise.
fn resume(bytes: &[u8], dir: &Path) -> Result<Run, IoError> {
    let path = dir.join("edited.bin");
    std::fs::write(&path, bytes).unwrap();
    Run::resume(&path, Some(&dir.join("resumed")))
}

fn is_refusal(e: &IoError) -> bool {
    let text = e.to_string();
    matches!(e, IoError::CheckpointDamaged { .. }) && text.contains("is damaged")
        || matches!(e, IoError::Checkpoint { .. }) && text.contains(&format!("this build reads {CHECKPOINT_FORMAT}"))
}

#[test]
fn every_flipped_byte_is_refused() {
    let (good, dir) = real_checkpoint("flip");
    assert!(resume(&good, &dir).is_ok());
    // A seeded non-zero mask per byte, so that every bit position is hit somewhere.
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut refused = 0;
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= rng.random_range(1..=255u8);
        // The reader alone for every byte (fast), the whole resume for a sample.
        let err = if i % 97 == 0 {
            resume(&bad, &dir).err()
        } else {
            Checkpoint::from_bytes(&bad, Path::new("edited.bin")).err()
        };
        let err = err.unwrap_or_else(|| panic!("byte {i} of {} flipped: accepted", good.len()));
        assert!(is_refusal(&err), "byte {i}: {err}");
        refused += 1;
    }
    assert_eq!(refused, good.len());
    assert!(good.len() > 5000, "a checkpoint worth testing: {} bytes", good.len());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn random_truncations_and_appended_bytes_are_refused() {
    let (good, dir) = real_checkpoint("cut");
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut lengths: Vec<usize> = (0..20).collect();
    lengths.extend((0..400).map(|_| rng.random_range(0..good.len())));
    lengths.push(good.len() - 1);
    for len in lengths {
        let err = resume(&good[..len], &dir).err().unwrap_or_else(|| panic!("cut to {len} bytes: accepted"));
        assert!(is_refusal(&err), "cut to {len}: {err}");
    }
    for extra in [1, 7, 100] {
        let mut longer = good.clone();
        longer.extend((0..extra).map(|_| rng.random::<u8>()));
        let err = resume(&longer, &dir).err().expect("appended bytes are refused");
        assert!(is_refusal(&err), "{err}");
    }
    // Random bytes of random lengths, with the right format in front half of the time.
    for k in 0..300 {
        let len = rng.random_range(0..4000);
        let mut junk: Vec<u8> = (0..len).map(|_| rng.random::<u8>()).collect();
        if k % 2 == 0 && len >= 4 {
            junk[..4].copy_from_slice(&CHECKPOINT_FORMAT.to_le_bytes());
        }
        let err = resume(&junk, &dir).err().expect("random bytes are refused");
        assert!(is_refusal(&err), "{err}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The error of resuming the real checkpoint after `edit`, saved with a valid checksum.
fn refusal_after(name: &str, edit: impl Fn(&mut Checkpoint)) -> String {
    let (good, dir) = real_checkpoint(name);
    let mut c = Checkpoint::from_bytes(&good, Path::new("c")).unwrap();
    edit(&mut c);
    let err = resume(&c.to_bytes(), &dir).err().expect("the edited checkpoint is refused");
    let _ = std::fs::remove_dir_all(dir);
    assert!(matches!(err, IoError::CheckpointDamaged { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("edited.bin is damaged"), "{text}");
    text
}

#[test]
fn contents_no_run_writes_are_refused_under_a_valid_checksum() {
    let e = refusal_after("nan-time", |c| c.world.clock.base_time = f64::NAN);
    assert!(e.contains("time NaN"), "{e}");
    let e = refusal_after("time", |c| c.world.clock.dt *= 1.5);
    assert!(e.contains("after 701 steps"), "{e}");
    let e = refusal_after("step", |c| c.world.clock.step = 1001);
    assert!(e.contains("beyond the scene's 1000 steps"), "{e}");
    // The world's own check names the body (by handle) and the column.
    let e = refusal_after("pos", |c| c.world.position[3].y = f64::INFINITY);
    assert!(e.contains("invalid position") && e.contains("body #3"), "{e}");
    let e = refusal_after("vel", |c| c.world.velocity[5].z = f64::NAN);
    assert!(e.contains("invalid velocity") && e.contains("body #5"), "{e}");
    let e = refusal_after("spin", |c| c.world.angular_velocity[5].x = f64::NAN);
    assert!(e.contains("invalid angular_velocity") && e.contains("body #5"), "{e}");
    let e = refusal_after("quat", |c| c.world.orientation[7] *= 2.0);
    assert!(e.contains("invalid orientation") && e.contains("body #7"), "{e}");
    let e = refusal_after("ledger", |c| c.world.ledger.dissipated.sliding = f64::NAN);
    assert!(e.contains("ledger"), "{e}");
    let e = refusal_after("removed", |c| c.removed.push(9999));
    assert!(e.contains("removal of body 9999"), "{e}");
    let e = refusal_after("flow", |c| c.outputs.passed_mass = -1.0);
    assert!(e.contains("flow count"), "{e}");
    let e = refusal_after("solver", |c| c.solver_state.truncate(10));
    assert!(e.contains("MD solver state"), "{e}");
}

/// The message names the column at fault (it once said "holds 29 bodies, the scene gives
/// 29" when the positions were right and another column was not).
#[test]
fn a_short_column_is_named() {
    let e = refusal_after("short", |c| {
        c.world.velocity.pop();
    });
    assert!(e.contains("scene's 29 bodies") && e.contains("velocity = 28 values for 29 bodies"), "{e}");
    let e = refusal_after("shorts", |c| {
        c.world.torque.pop();
    });
    assert!(e.contains("torque = 28 values for 29 bodies"), "{e}");
}

#[test]
fn an_older_format_is_refused_naming_both_formats() {
    // A format-3 file began with its format as a little-endian u32, then the bincode of the
    // checkpoint (no checksum).
    let (good, dir) = real_checkpoint("old");
    let mut old = good[16..].to_vec();
    old[..4].copy_from_slice(&3u32.to_le_bytes());
    let err = resume(&old, &dir).err().expect("refused");
    let text = err.to_string();
    assert!(
        text.contains(&format!("format 3 but this build reads {CHECKPOINT_FORMAT}"))
            && text.contains("earlier version"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A FIFO given as the checkpoint to resume is refused by name at once, where reading it
/// blocked until another program wrote to it; a device is refused too (3D and planar runs
/// resume through the same reader).
#[cfg(unix)]
#[test]
fn a_fifo_or_a_device_given_as_checkpoint_is_refused() {
    let dir = tmp("fifo");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("checkpoint.bin");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs").success());
    for path in [fifo.clone(), PathBuf::from("/dev/zero")] {
        let (tx, rx) = std::sync::mpsc::channel();
        let p = path.clone();
        std::thread::spawn(move || {
            let _ = tx.send(Run::resume(&p, None).err().map(|e| e.to_string()));
        });
        let e = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("the resume blocked");
        let e = e.expect("refused");
        assert!(e.contains(&path.display().to_string()) && e.contains("not a regular file"), "{e}");
    }
}

/// A checkpoint records a hash of each mesh file of its scene: a resume after the file was
/// edited is refused, naming the file, instead of continuing with other shapes and masses.
/// The file restored, the resume goes on.
#[test]
fn a_mesh_file_edited_after_the_checkpoint_is_refused_on_resume() {
    let dir = tmp("mesh");
    std::fs::create_dir_all(dir.join("meshes")).unwrap();
    let cube = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
                f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
    std::fs::write(dir.join("meshes/cube.obj"), cube).unwrap();
    let scene = "[simulation]\ndt = 1e-5\nsteps = 100\n\n[solver]\nkind = \"md\"\n\n\
                 [[planes]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\n\n\
                 [[polyhedra]]\nname = \"mesh\"\nshape = { kind = \"obj\", file = \"meshes/cube.obj\", scale = 0.002 }\n\
                 position = [0.0, 0.0, 0.005]\n";
    std::fs::write(dir.join("s.toml"), scene).unwrap();
    let out = dir.join("out");
    let mut run = Run::start(granula_run::load_scene(dir.join("s.toml")).unwrap(), &out).unwrap();
    for _ in 0..10 {
        run.step().unwrap();
    }
    let ckpt = run.save_checkpoint().unwrap();
    drop(run);
    assert_eq!(Checkpoint::load(&ckpt).unwrap().meshes.len(), 1);
    // The same cube, stretched along z: still a valid mesh, another body.
    std::fs::write(dir.join("meshes/cube.obj"), cube.replace(" 1\nv", " 1.5\nv").replace("1 1 1\n", "1 1 1.5\n"))
        .unwrap();
    let e = Run::resume(&ckpt, None).err().expect("an edited mesh is refused");
    let msg = e.to_string();
    assert!(matches!(e, IoError::Checkpoint { .. }), "{msg}");
    assert!(msg.contains("meshes/cube.obj") && msg.contains("changed"), "{msg}");
    std::fs::write(dir.join("meshes/cube.obj"), cube).unwrap();
    let run = Run::resume(&ckpt, None).unwrap();
    assert_eq!(run.world.step_count(), 10);
    drop(run);
    let _ = std::fs::remove_dir_all(&dir);
}
