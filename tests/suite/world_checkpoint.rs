//! A world built in code, checkpointed with `World::save_state` and the solver's
//! `save_state`, written to a file with bincode, and resumed in another process (this test
//! binary started again on the ignored test `resume_child`): the resumed steps give the
//! bits of the run that never stopped, for the MD solver and for the contact dynamics
//! solver.

use granula::laws::hertz_mindlin;
use granula::md::MdState;
use granula::nscd::NscdState;
use granula::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};
use std::process::Command;

const R: f64 = 0.005;
/// Steps before the checkpoint and after it: the spheres fall, land and push each other.
const BEFORE: usize = 400;
const AFTER: usize = 300;

/// 4 × 4 × 4 spheres with random velocities above the floor of an open box, the code a
/// user writes; the same code builds the world again in the resuming process.
fn world() -> World {
    let material = Material { young_modulus: 1e7, friction: 0.4, restitution: 0.5, ..Material::named("beads") };
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(material).build().unwrap();
    let l = 8.4 * R;
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    for i in 0..4 {
        for j in 0..4 {
            for k in 0..4 {
                let x =
                    DVec3::new(2.05 * R * i as f64 + 1.1 * R, 2.05 * R * j as f64 + 1.1 * R, 2.2 * R * k as f64 + R);
                let v = DVec3::new(rng.random_range(-0.1..0.1), rng.random_range(-0.1..0.1), 0.0);
                w.insert(SphereBuilder::new(R, x).velocity(v).build().unwrap()).unwrap();
            }
        }
    }
    w
}

fn md() -> MdSolver<granula::laws::HertzMindlin, VelocityVerlet, LinkedCells> {
    let config = MdConfig { skin: 2e-4, threads: Some(1), ..Default::default() };
    MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config).unwrap()
}

fn nscd() -> NscdSolver<LinkedCells> {
    NscdSolver::new(LinkedCells::new(), NscdConfig::default()).unwrap()
}

/// The time step of each solver kind.
fn dt(kind: &str) -> f64 {
    if kind == "md" {
        2e-5
    } else {
        5e-4
    }
}

/// Every body's position, orientation, velocity and spin, and the ledger, as bits.
fn bits(w: &World) -> Vec<u64> {
    let b = &w.bodies;
    let mut out = Vec::new();
    for i in 0..b.len() {
        for v in [b.position[i], b.velocity[i], b.angular_velocity[i]] {
            out.extend([v.x, v.y, v.z].map(f64::to_bits));
        }
        let q = b.orientation[i];
        out.extend([q.x, q.y, q.z, q.w].map(f64::to_bits));
    }
    out.push(w.ledger.dissipated.total().to_bits());
    out.push(w.time().to_bits());
    out
}

/// Runs `steps` steps of the solver `kind` ("md" or "nscd") on `w`; `state` brings the
/// checkpoint to restore first, `save` the file to write one to at the end.
fn run(kind: &str, w: &mut World, steps: usize, state: Option<&Path>, save: Option<&Path>) {
    macro_rules! go {
        ($solver:expr, $state:ty) => {{
            let mut s = $solver;
            if let Some(path) = state {
                let (world_state, solver_state): (WorldState, $state) =
                    bincode::deserialize(&std::fs::read(path).unwrap()).unwrap();
                w.restore_state(&world_state).unwrap();
                s.restore_state(&solver_state, w).unwrap();
            }
            for _ in 0..steps {
                w.step(&mut s, dt(kind)).unwrap();
            }
            if let Some(path) = save {
                std::fs::write(path, bincode::serialize(&(w.save_state(), s.save_state())).unwrap()).unwrap();
            }
        }};
    }
    match kind {
        "md" => go!(md(), MdState<<granula::laws::HertzMindlin as ContactLaw>::History>),
        _ => go!(nscd(), NscdState<()>),
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("granula-world-checkpoint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The resuming process: started by `resumes_in_another_process_bit_for_bit` with the
/// solver kind, the checkpoint and the file for the resumed bits in the environment.
#[test]
#[ignore = "the child process of resumes_in_another_process_bit_for_bit"]
fn resume_child() {
    let kind = std::env::var("GRANULA_RESUME_KIND").unwrap();
    let checkpoint = PathBuf::from(std::env::var("GRANULA_RESUME_FROM").unwrap());
    let out = PathBuf::from(std::env::var("GRANULA_RESUME_BITS").unwrap());
    let mut w = world();
    run(&kind, &mut w, AFTER, Some(&checkpoint), None);
    std::fs::write(out, bincode::serialize(&bits(&w)).unwrap()).unwrap();
}

#[test]
fn resumes_in_another_process_bit_for_bit() {
    for kind in ["md", "nscd"] {
        let mut straight = world();
        run(kind, &mut straight, BEFORE + AFTER, None, None);
        let mut first = world();
        let checkpoint = scratch(&format!("{kind}.bin"));
        run(kind, &mut first, BEFORE, None, Some(&checkpoint));
        // The state must be one that matters: bodies in contact and moving.
        assert!(first.ledger.dissipated.total() > 0.0, "{kind}: contacts before the checkpoint");
        let out = scratch(&format!("{kind}.bits"));
        let status = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "world_checkpoint::resume_child", "--ignored", "--test-threads=1"])
            .env("GRANULA_RESUME_KIND", kind)
            .env("GRANULA_RESUME_FROM", &checkpoint)
            .env("GRANULA_RESUME_BITS", &out)
            .status()
            .unwrap();
        assert!(status.success(), "{kind}: the resuming process failed");
        let resumed: Vec<u64> = bincode::deserialize(&std::fs::read(&out).unwrap()).unwrap();
        assert!(resumed == bits(&straight), "{kind}: the resumed run differs from the straight one");
    }
}

#[test]
fn a_state_of_another_world_is_refused_with_the_body_named() {
    let mut w = world();
    run("md", &mut w, 10, None, None);
    let mut state = w.save_state();
    // A world built without its last body: the saved handle is missing.
    let mut smaller = world();
    let last = *smaller.bodies.handle.last().unwrap();
    smaller.remove(last).unwrap();
    let e = smaller.restore_state(&state).unwrap_err();
    assert!(e.to_string().contains("body"), "{e}");
    // A non-finite velocity names the body and the column; the world is left unchanged.
    let before = bits(&w);
    state.velocity[5] = DVec3::new(f64::NAN, 0.0, 0.0);
    let e = w.restore_state(&state).unwrap_err();
    assert!(e.to_string().contains("velocity"), "{e}");
    assert!(bits(&w) == before, "a refused state changes nothing");
}
