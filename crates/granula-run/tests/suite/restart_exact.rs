//! Exact restart through the library, as a user meets it: a run interrupted at an arbitrary
//! step (not a multiple of any output or rebuild interval), its checkpoint written to disk,
//! a fresh `Run` resumed from the file into the same output folder, then thousands of steps.
//! Every bit of the final state (positions, orientations, velocities, angular velocities,
//! contact loads, time, step, energy ledger, the solver's own state with its contact
//! histories or impulses) and every output file must equal the uninterrupted run's.
//!
//! One test per solver configuration the scene format allows: each MD integrator,
//! broadphase, normal and tangential model, rolling, twisting, cohesion, local damping,
//! skin 0 and > 0, one and two threads, a kinematic wall, bodies removed by the flow sink;
//! and NSCD with each sweep, criterion, gap mode, warm start on and off. (Scenes this small
//! stay below the solver's `parallel_min_pairs`, so `threads = 2` runs its steps in place;
//! the blocks run in parallel on two threads are tested in `granula-md`'s checkpoint
//! tests.)

use crate::common;

use granula_io::Scene;
use granula_run::{Checkpoint, Run};
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    common::tmp("exact", name)
}

/// A box of planes 12 mm wide, a bottom layer of 25 touching spheres, and 40 loose spheres
/// above it that fall, land and pile up during the run: contacts open and close, the skin
/// list is rebuilt many times.
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

[[lattices]]
origin = [0.002, 0.002, 0.001]
counts = [5, 5, 1]
spacing = 0.002
radius = 0.001
velocity = [0.05, -0.03, 0.0]

[[packings]]
count = 40
seed = 11
region = { shape = "box", min = [0.0, 0.0, 0.0025], max = [0.012, 0.012, 0.008] }
size = { distribution = "uniform", min = 0.0008, max = 0.0012 }
"#;

/// The box of [`BOX`] with a bed of 5 × 5 × 4 touching spheres and 40 loose ones above it
/// (140 spheres): more than 256 candidate pairs, so the force pass has several blocks.
fn dense_box() -> String {
    BOX.replace("counts = [5, 5, 1]", "counts = [5, 5, 4]").replace(
        "min = [0.0, 0.0, 0.0025], max = [0.012, 0.012, 0.008]",
        "min = [0.0, 0.0, 0.0085], max = [0.012, 0.012, 0.014]",
    )
}

/// Outputs written by every run, at intervals that the interruption steps do not divide.
const OUTPUT: &str = r#"
[output]
series = { every = 7 }
vtk = { every = 900 }
"#;

/// An MD scene: `solver` lines go into `[solver]`, `material` lines into the material,
/// `extra` is appended (more bodies, other outputs).
fn md_scene(steps: u64, solver: &str, material: &str, extra: &str) -> String {
    md_scene_of(BOX, steps, solver, material, extra)
}

fn md_scene_of(bodies: &str, steps: u64, solver: &str, material: &str, extra: &str) -> String {
    // The runaway guard stays on (its default): with cohesion it used to read the bonds'
    // negative stored energy as a negative energy in play and stop this scene at step 600.
    let guard = "";
    // A law without a tangential force reads no friction, and a scene may not set one it
    // ignores.
    let friction = if solver.contains("tangential = \"none\"") { 0.0 } else { 0.4 };
    format!(
        "[simulation]\ndt = 5e-6\nsteps = {steps}\n{guard}\n[solver]\nkind = \"md\"\n{solver}\n\n[[materials]]\n\
         name = \"m\"\nrestitution = 0.5\nfriction = {friction:?}\n{material}\n{bodies}{extra}{OUTPUT}"
    )
}

/// An NSCD scene; `solver` lines go into `[solver]` (with `max_iterations`, 50 by default).
fn nscd_scene(steps: u64, solver: &str) -> String {
    let cap = if solver.contains("max_iterations") { "" } else { "max_iterations = 50\n" };
    format!(
        "[simulation]\ndt = 1e-4\nsteps = {steps}\n\n[solver]\nkind = \"nscd\"\nseed = 5\ntolerance = 1e-5\n\
         {cap}{solver}\n{BOX}{OUTPUT}"
    )
}

/// Every bit of a checkpoint's state (not the output folder's name).
fn assert_same_state(a: &Checkpoint, c: &Checkpoint, name: &str) {
    assert_eq!(a.world.clock.step, c.world.clock.step, "{name}: step");
    assert_eq!(a.world.clock.time().to_bits(), c.world.clock.time().to_bits(), "{name}: time");
    assert_eq!(a.removed, c.removed, "{name}: removed bodies");
    let bits = |v: &[glam::DVec3]| v.iter().flat_map(|x| x.to_array().map(f64::to_bits)).collect::<Vec<_>>();
    let differ =
        |x: &[glam::DVec3], y: &[glam::DVec3]| x.iter().zip(y).filter(|(p, q)| bits(&[**p]) != bits(&[**q])).count();
    assert!(
        bits(&a.world.position) == bits(&c.world.position),
        "{name}: {} positions differ",
        differ(&a.world.position, &c.world.position)
    );
    assert_eq!(bits(&a.world.velocity), bits(&c.world.velocity), "{name}: velocities");
    assert_eq!(bits(&a.world.angular_velocity), bits(&c.world.angular_velocity), "{name}: angular velocities");
    assert_eq!(bits(&a.world.force), bits(&c.world.force), "{name}: forces");
    assert_eq!(bits(&a.world.torque), bits(&c.world.torque), "{name}: torques");
    let q = |v: &[glam::DQuat]| v.iter().flat_map(|x| x.to_array().map(f64::to_bits)).collect::<Vec<_>>();
    assert_eq!(q(&a.world.orientation), q(&c.world.orientation), "{name}: orientations");
    // The ledger and the solver state as bytes: bincode writes each f64's bits.
    assert_eq!(bincode_bytes(&a.world.ledger), bincode_bytes(&c.world.ledger), "{name}: energy ledger");
    // The runaway guard's memory: the same checks at the same steps after the resume.
    assert_eq!(
        bincode::serialize(&a.world.guard).unwrap(),
        bincode::serialize(&c.world.guard).unwrap(),
        "{name}: energy guard"
    );
    // The output state, without the folder names (the two runs write to two folders).
    let (x, y) = (&a.outputs, &c.outputs);
    let frames = |o: &granula_run::OutputState| o.collections.iter().map(|c| c.frames.clone()).collect::<Vec<_>>();
    assert_eq!(frames(x), frames(y), "{name}: collections");
    assert_eq!(x.passed, y.passed, "{name}: passed flags");
    assert_eq!(x.passed_mass.to_bits(), y.passed_mass.to_bits(), "{name}: passed mass");
    assert_eq!(x.passed_count, y.passed_count, "{name}: passed count");
    assert!(a.solver_state == c.solver_state, "{name}: solver state (contact histories, integrator memory)");
}

fn bincode_bytes(ledger: &granula_core::EnergyLedger) -> Vec<u8> {
    bincode::serialize(ledger).unwrap()
}

/// Every file under `dir`, relative path → bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Runs the scene straight through, and again with a stop after each step of `stops`
/// (checkpoint to disk, everything dropped, resumed from the file into the same folder);
/// compares the final states and every output file.
fn assert_exact_restart(name: &str, text: &str, stops: &[u64]) {
    let scene = Scene::parse(&format!("{name}.toml"), text).unwrap();
    let steps = scene.steps;
    assert!(stops.iter().all(|&s| s < steps) && steps - stops.last().unwrap() >= 5000 || text.contains("nscd"));
    let dir_a = tmp(&format!("{name}-a"));
    let mut a = Run::start(scene.clone(), &dir_a).unwrap();
    while !a.is_done() {
        a.step().unwrap();
    }
    let contacts = a.last_report.contacts;
    a.save_checkpoint().unwrap();
    let ca = a.checkpoint().unwrap();
    drop(a);

    let dir_b = tmp(&format!("{name}-b"));
    let mut b = Run::start(scene, &dir_b).unwrap();
    for &stop in stops {
        while b.world.step_count() < stop {
            b.step().unwrap();
        }
        let path = b.save_checkpoint().unwrap();
        drop(b);
        b = Run::resume(&path, None).unwrap();
        assert_eq!(b.world.step_count(), stop);
    }
    while !b.is_done() {
        b.step().unwrap();
    }
    let cb = b.checkpoint().unwrap();
    drop(b);
    assert!(contacts > 0, "{name}: the final step has contacts");
    assert_same_state(&ca, &cb, name);
    // Every output file, byte for byte (the final checkpoint files too: same state, and
    // the folder names differ only in the stored `out_dir`, which is compared apart).
    let (fa, fb) = (files(&dir_a), files(&dir_b));
    let names = |f: &[(PathBuf, Vec<u8>)]| f.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&fa), names(&fb), "{name}: output files");
    for ((p, x), (_, y)) in fa.iter().zip(&fb) {
        if p.file_name().is_some_and(|n| n == "checkpoint.bin") {
            continue;
        }
        let (x, y) = (String::from_utf8_lossy(x), String::from_utf8_lossy(y));
        let x = x.replace(dir_a.to_str().unwrap(), "<out>");
        let y = y.replace(dir_b.to_str().unwrap(), "<out>");
        if x != y {
            let line = x.lines().zip(y.lines()).position(|(u, v)| u != v);
            panic!("{name}: {} differs from line {line:?}", p.display());
        }
    }
    let _ = std::fs::remove_dir_all(dir_a);
    let _ = std::fs::remove_dir_all(dir_b);
}

/// 1237 steps, stop, resume, 5000 more: the stop is not a multiple of any output interval,
/// and it falls between two skin rebuilds.
fn md(name: &str, solver: &str, material: &str) {
    assert_exact_restart(name, &md_scene(6237, solver, material, ""), &[1237]);
}

macro_rules! md_cases {
    ($($test:ident: $solver:expr, $material:expr;)*) => {$(
        #[test]
        fn $test() {
            md(stringify!($test), $solver, $material);
        }
    )*};
}

md_cases! {
    md_default: "", "";
    md_verlet: "integrator = \"verlet\"", "";
    md_gear4: "integrator = \"gear4\"", "";
    md_gear5: "integrator = \"gear5\"", "";
    md_gear6: "integrator = \"gear6\"", "";
    md_sweep_and_prune: "broadphase = \"sweep_and_prune\"", "";
    md_linked_cells: "broadphase = \"linked_cells\"", "";
    md_brute_force: "broadphase = \"brute_force\"", "";
    md_tangential_none: "tangential = \"none\"", "";
    md_tangential_viscous: "tangential = \"viscous\"", "";
    md_hooke: "normal = \"hooke\"\nnormal_stiffness = 2000.0", "";
    md_rolling: "rolling = true", "rolling_friction = 0.0002";
    md_twisting: "twisting = true", "torsion_friction = 0.0002";
    md_cohesion: "cohesion = true", "cohesion_force = 0.0001\ncohesion_range = 0.0001";
    md_resistances_gear6_linked_cells:
        "resistances = true\nintegrator = \"gear6\"\nbroadphase = \"linked_cells\"",
        "rolling_friction = 0.0002\ntorsion_friction = 0.0002\ncohesion_force = 0.0001\ncohesion_range = 0.0001";
    md_skin_zero: "skin = 0.0", "";
    md_skin_large: "skin = 0.0005", "";
    md_local_damping: "local_damping = 0.3", "";
    md_one_thread: "threads = 1", "";
    md_two_threads: "threads = 2\nresistances = true", "rolling_friction = 0.0002\ncohesion_force = 0.0001\ncohesion_range = 0.0001";
}

/// 140 spheres, several blocks in the force pass (whose layout follows the candidate list),
/// every integrator. Velocity Verlet on the default threads (rayon's pool, the blocks in
/// parallel), the Gear integrators on one thread: the blocks are the same on any number of
/// threads, and what differs between the integrators, their memory of past steps, does not
/// depend on the threads (a second thread would double the CPU time of these short steps).
#[test]
fn md_dense_every_integrator() {
    for integrator in ["verlet", "gear4", "gear5", "gear6"] {
        let threads = if integrator == "verlet" { "" } else { "\nthreads = 1" };
        let solver = format!("integrator = \"{integrator}\"{threads}");
        let text = md_scene_of(&dense_box(), 6237, &solver, "", "");
        assert_exact_restart(&format!("md_dense_{integrator}"), &text, &[1237]);
    }
}

/// The same with rolling, twisting and cohesion on two threads, each broadphase.
#[test]
fn md_dense_resistances_two_threads_every_broadphase() {
    for broadphase in ["sweep_and_prune", "linked_cells", "brute_force"] {
        let solver = format!("resistances = true\nthreads = 2\nbroadphase = \"{broadphase}\"");
        let material =
            "rolling_friction = 0.0002\ntorsion_friction = 0.0002\ncohesion_force = 0.0001\ncohesion_range = 0.0001";
        let text = md_scene_of(&dense_box(), 6237, &solver, material, "");
        assert_exact_restart(&format!("md_dense_{broadphase}"), &text, &[1237]);
    }
}

/// A kinematic wall (a plane moving up at 1 cm/s) pushing the pile, with a named sphere
/// followed in trajectories.csv and a stress region: kinematic work, more outputs.
#[test]
fn md_kinematic_wall_and_outputs() {
    let extra = r#"
[[planes]]
point = [0.0, 0.0, -0.0001]
normal = [0.0, 0.0, 1.0]
motion = "kinematic"
velocity = [0.0, 0.0, 0.01]

[[spheres]]
name = "probe"
radius = 0.001
position = [0.006, 0.006, 0.0095]
"#;
    let text = md_scene(6237, "integrator = \"gear5\"", "", extra)
        + "trajectories = { every = 11, bodies = [\"probe\"] }\n\
           contacts = { every = 17 }\n\
           stress = [{ name = \"all\", every = 13, min = [0.0, 0.0, 0.0], max = [0.012, 0.012, 0.01] }]\n";
    assert_exact_restart("md_kinematic", &text, &[1237]);
}

/// Several interruptions in one run: before the first step, and one right after another.
#[test]
fn md_four_interruptions() {
    let text = md_scene(
        7001,
        "resistances = true\nintegrator = \"gear4\"",
        "rolling_friction = 0.0002\ncohesion_force = 0.0001\ncohesion_range = 0.0001",
        "",
    );
    assert_exact_restart("md_four", &text, &[0, 333, 1999, 2000]);
}

/// Steps of the NSCD runs, stopped at steps 0 and 137: 2000 steps of 0.1 ms after the
/// resume, in which the spheres fall, land (all by step 1000) and come to rest (by step
/// 1750 with the forward sweep and no warm start, by step 700 under the rolling law), with
/// VTK frames at steps 900 and 1800.
const NSCD_STEPS: u64 = 2137;

fn nscd(name: &str, solver: &str) {
    assert_exact_restart(name, &nscd_scene(NSCD_STEPS, solver), &[0, 137]);
}

#[test]
fn nscd_random_warm_local() {
    nscd("nscd_random", "sweep = \"random\"\nwarm_start = true\ncriterion = \"local\"");
}

#[test]
fn nscd_forward_cold_global_correcting() {
    nscd("nscd_forward", "sweep = \"forward\"\nwarm_start = false\ncriterion = \"global\"\ngap = \"correcting\"");
}

#[test]
fn nscd_random_plain_fixed_linked_cells() {
    nscd(
        "nscd_fixed",
        "sweep = \"random\"\nmomentum = false\ncriterion = \"fixed_iterations\"\nmax_iterations = 10\nbroadphase = \"linked_cells\"",
    );
}

#[test]
fn nscd_defaults() {
    nscd("nscd_defaults", "");
}

/// An NSCD scene of the law `law` whose one material has the `material` lines.
fn nscd_law_scene(steps: u64, law: &str, material: &str) -> String {
    nscd_scene(steps, &format!("law = \"{law}\"")).replacen(
        "\n[[planes]]",
        &format!("\n[[materials]]\nname = \"m\"\nfriction = 0.4\n{material}\n\n[[planes]]"),
        1,
    )
}

/// The cohesive law: the bonds (formed, opened but not broken, broken) are in the solver
/// state of the checkpoint.
#[test]
fn nscd_cohesive_law() {
    let text = nscd_law_scene(NSCD_STEPS, "cohesive", "cohesion_force = 0.0001\ncohesion_range = 0.0001");
    assert_exact_restart("nscd_cohesive", &text, &[0, 137]);
}

/// The rolling and torsion friction law (couple impulses carried for the warm start). A cap
/// of 20 sweeps instead of 50: the landing (steps 100-700) stops at the cap on every step,
/// and each of its six-dimensional local solves costs several times a sphere contact's;
/// the state carried across the restart (impulses and couples of capped and converged
/// steps) is the same at either cap.
#[test]
fn nscd_rolling_law() {
    let text = nscd_law_scene(NSCD_STEPS, "rolling", "rolling_friction = 0.0002\ntorsion_friction = 0.0002")
        .replace("max_iterations = 50", "max_iterations = 20");
    assert!(text.contains("max_iterations = 20"), "{text}");
    assert_exact_restart("nscd_rolling", &text, &[0, 137]);
}

/// Bodies removed during the run: a fixed floor of beads with a hole, strong gravity, a sink
/// below it (removals are replayed at the resume and change the dense order).
#[test]
fn md_sink_removes_bodies() {
    let text = r#"
[simulation]
dt = 5e-6
steps = 6501
gravity = [0.0, 0.0, -200.0]

[solver]
kind = "md"
skin = 0.0002

[[materials]]
name = "m"
restitution = 0.5
friction = 0.4

[[lattices]]
origin = [0.0, 0.0, 0.0]
counts = [7, 7, 1]
spacing = 0.002
radius = 0.001
motion = "fixed"
hole = { center = [0.006, 0.006], radius = 0.0025 }

[[packings]]
count = 30
seed = 3
region = { shape = "box", min = [0.002, 0.002, 0.0015], max = [0.010, 0.010, 0.008] }
size = { distribution = "uniform", min = 0.0006, max = 0.0008 }

[output]
series = { every = 7 }
flow = { z = -0.001, every = 10, remove_below = -0.003 }
"#;
    // Stopped after the first removals (at step 1460).
    assert_exact_restart("md_sink", text, &[1501]);
    // Stops right after a step that removed bodies (a multiple of the flow interval, at which
    // the sink runs after the step): the saved solver state is that of the body set before
    // the removal, and both runs start afresh at the next step. Under velocity Verlet and
    // under Gear-5, whose per-body memory must follow the removals too.
    let gear = text.replace("kind = \"md\"", "kind = \"md\"\nintegrator = \"gear5\"");
    for (name, text) in [("md_sink_at_removal", text), ("md_sink_at_removal_gear5", &gear)] {
        let first_removal = {
            let scene = Scene::parse("probe.toml", text).unwrap();
            let mut r = Run::start(scene, &tmp(&format!("{name}-probe"))).unwrap();
            while !r.is_done() && r.removed.is_empty() {
                r.step().unwrap();
            }
            let _ = std::fs::remove_dir_all(tmp(&format!("{name}-probe")));
            r.world.step_count()
        };
        assert!(first_removal < 1501, "{name}: first removal at step {first_removal}");
        let text = text.replace("steps = 6501", &format!("steps = {}", first_removal + 5000));
        assert_exact_restart(name, &text, &[first_removal]);
    }
}

/// A small rotating drum (a kinematic cylinder turning at 10 rad/s, flat end walls) with 80
/// beads, stopped twice: the scene where two interrupt-and-resume cycles used to end with
/// positions centimetres apart.
#[test]
fn md_rotating_drum_two_interruptions() {
    let text = r#"
[simulation]
dt = 5e-6
steps = 8237

[solver]
kind = "md"
skin = 0.0001

[[materials]]
name = "glass"
restitution = 0.5
friction = 0.5

[[cylinders]]
name = "drum"
center = [0.0, 0.0, 0.0]
axis = [0.0, 1.0, 0.0]
radius = 0.01
length = 0.006
inside = true
motion = "kinematic"
angular_velocity = [0.0, 10.0, 0.0]

[[planes]]
point = [0.0, -0.003, 0.0]
normal = [0.0, 1.0, 0.0]
[[planes]]
point = [0.0, 0.003, 0.0]
normal = [0.0, -1.0, 0.0]

[[packings]]
count = 80
seed = 5
region = { shape = "box", min = [-0.0065, -0.003, -0.0065], max = [0.0065, 0.003, 0.0065] }
size = { distribution = "uniform", min = 0.0006, max = 0.0008 }

[output]
series = { every = 7 }
vtk = { every = 900 }
"#;
    assert_exact_restart("md_drum", text, &[1237, 3001]);
}

/// A floor, a layer of 6 × 6 spheres sliding on it and 40 loose ones falling onto it, in a
/// box periodic along x and y over [0, 12 mm) without side walls: the layer touches its
/// images across both faces, and bodies leave the box (their positions are unwrapped).
const PERIODIC_BOX: &str = r#"
[[planes]]
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]

[[lattices]]
origin = [0.001, 0.001, 0.001]
counts = [6, 6, 1]
spacing = 0.002
radius = 0.001
velocity = [0.05, -0.03, 0.0]

[[packings]]
count = 40
seed = 11
region = { shape = "box", min = [0.0, 0.0, 0.0025], max = [0.012, 0.012, 0.008] }
size = { distribution = "uniform", min = 0.0008, max = 0.0012 }
"#;

/// Periodic boundaries restart bit-identically: the candidates across the faces, their
/// image shifts (recomputed from the positions of the last rebuild) and their histories.
#[test]
fn md_periodic() {
    let text = md_scene_of(PERIODIC_BOX, 6237, "broadphase = \"linked_cells\"", "", "")
        .replace("steps = 6237\n", "steps = 6237\nperiodic = { x = [0.0, 0.012], y = [0.0, 0.012] }\n");
    assert!(text.contains("periodic = "));
    assert_exact_restart("md_periodic", &text, &[1237]);
}
