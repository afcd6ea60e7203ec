//! Checkpoint and restart: n steps, save, restore (new world and solver objects from the
//! checkpoint file), m more steps gives a state bit-identical to n + m steps straight
//! through, for MD (elastic frictionless under Verlet; Hertz-Mindlin with Cundall-Strack
//! springs and damping under Gear-6) and NSCD (forward sweep; warm start with the random
//! sweep).

use crate::common;

use granula_io::Scene;
use granula_run::{build_solver, Checkpoint, Run, CHECKPOINT_FORMAT};
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    common::tmp("ckpt", name)
}

const BOX: &str = r#"
[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
[[planes]]
point = [0.0, 0.0, 0.0]
normal = [1.0, 0.0, 0.0]
[[planes]]
point = [0.012, 0.0, 0.0]
normal = [-1.0, 0.0, 0.0]
[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
[[planes]]
point = [0.0, 0.012, 0.0]
normal = [0.0, -1.0, 0.0]

# A bottom layer of touching spheres (contacts from the first step), and loose spheres
# that land on it within a few thousand MD steps.
[[lattices]]
origin = [0.002, 0.002, 0.001]
counts = [5, 5, 1]
spacing = 0.002
radius = 0.001

[[packings]]
count = 40
seed = 11
region = { shape = "box", min = [0.0, 0.0, 0.0025], max = [0.012, 0.012, 0.012] }
size = { distribution = "uniform", min = 0.0008, max = 0.0012 }

[output]
series = { every = 5 }
vtk = { every = 20 }
"#;

fn md_scene(tangential: &str, restitution: f64, integrator: &str) -> String {
    format!(
        "[simulation]\ndt = 5e-6\nsteps = 6000\n\n[solver]\nkind = \"md\"\nnormal = \"hertz\"\n\
         tangential = \"{tangential}\"\nintegrator = \"{integrator}\"\nskin = 1e-4\n\n[[materials]]\nname = \"m\"\n\
         restitution = {restitution:?}\n{BOX}"
    )
}

fn nscd_scene(sweep: &str, warm_start: bool, criterion: &str) -> String {
    format!(
        "[simulation]\ndt = 1e-4\nsteps = 400\n\n[solver]\nkind = \"nscd\"\nsweep = \"{sweep}\"\nseed = 5\n\
         warm_start = {warm_start}\ncriterion = \"{criterion}\"\ntolerance = 1e-6\nmax_iterations = 200\n{BOX}"
    )
}

/// Runs `n + m` straight and `n`, save, resume, `m`; returns both worlds' checkpoints.
fn straight_and_restarted(name: &str, text: &str, n: u64, m: u64) -> (Checkpoint, Checkpoint) {
    let (a, c, contacts) = run_both(name, text, n, m);
    assert!(contacts > 0, "the final step has contacts");
    (a, c)
}

fn run_both(name: &str, text: &str, n: u64, m: u64) -> (Checkpoint, Checkpoint, usize) {
    run_both_edited(name, text, n, m, |_| {})
}

/// As [`run_both`], with `edit` applied to the saved checkpoint before the resume.
fn run_both_edited(
    name: &str,
    text: &str,
    n: u64,
    m: u64,
    edit: impl Fn(&mut Checkpoint),
) -> (Checkpoint, Checkpoint, usize) {
    let scene = Scene::parse(&format!("{name}.toml"), text).unwrap();
    let mut a = Run::start(scene.clone(), &tmp(&format!("{name}-a"))).unwrap();
    for _ in 0..n + m {
        a.step().unwrap();
    }
    let mut b = Run::start(scene, &tmp(&format!("{name}-b"))).unwrap();
    for _ in 0..n {
        b.step().unwrap();
    }
    let path = b.save_checkpoint().unwrap();
    drop(b);
    let mut saved = Checkpoint::load(&path).unwrap();
    edit(&mut saved);
    saved.save(&path).unwrap();
    let dir_c = tmp(&format!("{name}-c"));
    let mut c = Run::resume(&path, Some(&dir_c)).unwrap();
    assert_eq!(c.world.step_count(), n);
    for _ in 0..m {
        c.step().unwrap();
    }
    // The resumed run's collections live in its own folder and list only its frames.
    let pvd = std::fs::read_to_string(dir_c.join("particles.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count() as u64, (n + m) / 20 - n / 20);
    let (ca, cc) = (a.checkpoint().unwrap(), c.checkpoint().unwrap());
    for d in ["a", "b", "c"] {
        let _ = std::fs::remove_dir_all(tmp(&format!("{name}-{d}")));
    }
    (ca, cc, a.last_report.contacts)
}

fn assert_bit_identical(a: &Checkpoint, c: &Checkpoint) {
    assert_eq!(a.world.clock.step, c.world.clock.step);
    assert_eq!(a.world.clock.time().to_bits(), c.world.clock.time().to_bits());
    let bits = |v: &[glam::DVec3]| v.iter().flat_map(|x| x.to_array().map(f64::to_bits)).collect::<Vec<_>>();
    assert_eq!(bits(&a.world.position), bits(&c.world.position), "positions");
    assert_eq!(bits(&a.world.velocity), bits(&c.world.velocity), "velocities");
    assert_eq!(bits(&a.world.angular_velocity), bits(&c.world.angular_velocity), "angular velocities");
    let q = |v: &[glam::DQuat]| v.iter().flat_map(|x| x.to_array().map(f64::to_bits)).collect::<Vec<_>>();
    assert_eq!(q(&a.world.orientation), q(&c.world.orientation), "orientations");
}

#[test]
fn md_restart_is_bit_identical() {
    // 2 × 3000 steps of 5 µs: the loose spheres fall ~2 mm and land on the bottom layer
    // during the second half.
    let (a, c) = straight_and_restarted("md", &md_scene("none", 1.0, "verlet"), 3000, 3000);
    assert!(a.exact);
    // The spheres moved: the comparison is not between two initial states.
    assert!(a.world.velocity.iter().any(|v| v.length() > 0.01));
    assert_bit_identical(&a, &c);
}

/// Hertz-Mindlin with Cundall-Strack springs and Hertz damping under Gear-6: the springs
/// and Gear's higher derivatives are in the checkpoint.
#[test]
fn md_restart_with_contact_springs_under_gear6_is_bit_identical() {
    let (a, c) = straight_and_restarted("md-cs", &md_scene("cundall_strack", 0.5, "gear6"), 3000, 3000);
    assert!(a.exact);
    assert!(a.world.velocity.iter().any(|v| v.length() > 0.01));
    assert_bit_identical(&a, &c);
}

#[test]
fn md_restart_without_the_solver_state_differs() {
    // The solver state of a fresh solver (no springs, no Gear derivatives) in place of the
    // saved one: the continuation differs, which shows the comparison above can fail.
    let text = md_scene("cundall_strack", 0.5, "gear6");
    let scene = Scene::parse("md-cold.toml", &text).unwrap();
    let cold = build_solver(&scene).unwrap().save_state().unwrap();
    let (a, c, _) = run_both_edited("md-cold", &text, 3000, 3000, |k| k.solver_state = cold.clone());
    assert_ne!(a.world.position, c.world.position);
}

#[test]
fn nscd_restart_is_bit_identical() {
    let (a, c) = straight_and_restarted("nscd", &nscd_scene("forward", false, "local"), 30, 30);
    assert!(a.exact);
    assert!(a.world.velocity.iter().any(|v| v.length() > 0.01));
    assert_bit_identical(&a, &c);
}

/// Warm start and the random sweep: the carried impulses and the generator's position are
/// in the checkpoint.
#[test]
fn nscd_restart_with_warm_start_and_random_sweep_is_bit_identical() {
    // The converged local criterion, as in a production run.
    let text = nscd_scene("random", true, "local");
    let (a, c) = straight_and_restarted("nscd-ws", &text, 150, 150);
    assert!(a.exact);
    assert!(a.world.velocity.iter().any(|v| v.length() > 0.01));
    assert_bit_identical(&a, &c);
    // Without the carried impulses and with the random stream back at its start, the
    // continuation differs. With a fixed number of sweeps the impulses depend on their
    // starting values and on the order; by step 150 the loose spheres have landed on the
    // bottom layer (about 10 ms of fall), so there are multi-contact clusters.
    let text = nscd_scene("random", true, "fixed_iterations");
    let (a, c) = straight_and_restarted("nscd-fixed", &text, 150, 150);
    assert_bit_identical(&a, &c);
    let scene = Scene::parse("nscd-cold.toml", &text).unwrap();
    let cold = build_solver(&scene).unwrap().save_state().unwrap();
    let (a, c, _) = run_both_edited("nscd-cold", &text, 150, 150, |k| k.solver_state = cold.clone());
    assert_ne!(a.world.velocity, c.world.velocity);
    assert!(a.exact);
}

#[test]
fn checkpoints_round_trip_with_the_solver_state() {
    let scene = Scene::parse("cs.toml", &md_scene("cundall_strack", 0.5, "gear6")).unwrap();
    let dir = tmp("cs");
    let mut r = Run::start(scene, &dir).unwrap();
    for _ in 0..10 {
        r.step().unwrap();
    }
    let c = r.checkpoint().unwrap();
    assert!(c.exact);
    // At least the Gear derivatives of every sphere (24 f64 each).
    assert!(c.solver_state.len() > 65 * 24 * 8);
    let back = Checkpoint::from_bytes(&c.to_bytes(), std::path::Path::new("mem")).unwrap();
    assert_eq!(back, c, "bincode round-trips every field");
    let _ = std::fs::remove_dir_all(dir);
}

/// The error of resuming from the checkpoint of a one-step MD run after `edit` changed it.
fn resume_error_after(name: &str, edit: impl Fn(&mut Checkpoint)) -> String {
    let scene = Scene::parse(&format!("{name}.toml"), &md_scene("cundall_strack", 0.5, "gear6")).unwrap();
    let dir = tmp(name);
    let mut r = Run::start(scene, &dir).unwrap();
    r.step().unwrap();
    let path = r.save_checkpoint().unwrap();
    let mut c = Checkpoint::load(&path).unwrap();
    edit(&mut c);
    c.save(&path).unwrap();
    let out = tmp(&format!("{name}-out"));
    let err = Run::resume(&path, Some(&out)).err().expect("the edited checkpoint is refused");
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(out);
    err.to_string()
}

#[test]
fn a_corrupt_solver_state_is_reported() {
    let err = resume_error_after("bad", |c| c.solver_state.truncate(c.solver_state.len() / 2));
    assert!(err.contains("MD solver state"), "{err}");
}

#[test]
fn a_checkpoint_of_another_format_is_refused_by_name() {
    let err = resume_error_after("old", |c| c.format = CHECKPOINT_FORMAT - 1);
    let (old, new) = (format!("format {}", CHECKPOINT_FORMAT - 1), format!("reads {CHECKPOINT_FORMAT}"));
    assert!(err.contains(&old) && err.contains(&new), "{err}");
}

/// The step count and the time live in one clock (the time is computed from it), so they
/// cannot disagree; a clock no run writes (its base after its step) gives a time that does
/// not belong to its step, and is refused saying so.
#[test]
fn a_clock_no_run_writes_is_refused() {
    let err = resume_error_after("clock", |c| c.world.clock.base_step = c.world.clock.step + 1);
    assert!(err.contains("is damaged") && err.contains("steps of"), "{err}");
}
