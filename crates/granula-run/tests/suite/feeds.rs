//! Feeds and outlets (`[[feeds]]`, `[[outlets]]`, `granula_feed`): what they insert and
//! remove in a running scene, their files, an exact resume, thread counts, contact
//! histories across an insertion, and bad input named.

use crate::common;

use glam::DVec3;
use granula_core::{BodySet, Shape, World};
use granula_io::Scene;
use granula_run::{Checkpoint, Run};
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    common::tmp("feeds", name)
}

/// A box of planes 12 mm wide open at the top; a feed of spheres of 0.8-1.2 mm falling at
/// 0.5 m/s from a region 6-12 mm up, every 200 steps of 5 µs; an outlet that removes what
/// lands in the strip x < 4 mm near the floor. `rate` is the feed's rate line.
fn scene_text(steps: u64, rate: &str, extra: &str) -> String {
    format!(
        r#"
[simulation]
dt = 5e-6
steps = {steps}

[solver]
kind = "md"
{extra}

[[materials]]
name = "m"
restitution = 0.5
friction = 0.4

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

[[feeds]]
name = "top"
region = {{ shape = "box", min = [0.0, 0.0, 0.006], max = [0.012, 0.012, 0.012] }}
size = {{ distribution = "uniform", min = 0.0008, max = 0.0012 }}
{rate}
velocity = [0.0, 0.0, -0.5]
every = 200
seed = 3

[[outlets]]
name = "corner"
region = {{ shape = "box", min = [0.0, 0.0, -0.001], max = [0.004, 0.012, 0.0025] }}
every = 50

[output]
series = {{ every = 7 }}
"#
    )
}

fn run_to_end(scene: Scene, dir: &Path) -> Run {
    let mut run = Run::start(scene, dir).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    run
}

/// The mass of the dynamic bodies in the world (kg).
fn present_mass(world: &World) -> f64 {
    let b = &world.bodies;
    (0..b.len()).filter(|&i| b.inv_mass[i] > 0.0).map(|i| b.mass[i]).sum()
}

/// The deepest overlap of any of the spheres with handles from `first` on with any other
/// sphere or plane of the world (m); negative when all are apart.
fn deepest_new_overlap(world: &World, first: u32) -> f64 {
    let b = &world.bodies;
    let mut deepest = f64::NEG_INFINITY;
    for i in (0..b.len()).filter(|&i| b.handle[i].0 >= first) {
        let ri = b.radius[i];
        for j in (0..b.len()).filter(|&j| j != i) {
            let d = match &b.shape[j] {
                Shape::Sphere { radius } => ri + radius - (b.position[i] - b.position[j]).length(),
                Shape::Plane { normal } => ri - (b.position[i] - b.position[j]).dot(b.orientation[j] * *normal),
                _ => continue,
            };
            deepest = deepest.max(d);
        }
    }
    deepest
}

/// Runs `scene` (a feed of 0.02 kg/s with a batch every `every` steps, and the outlet) into
/// `dir`, checking after each batch that the feed is short of the mass due by less than one
/// sphere, over it by no more than the relative slack of 1e-9, placed everything, and that
/// no new sphere overlaps anything; at the end, that it inserted and the outlet removed,
/// and that inserted − removed = present.
fn run_a_mass_rate_feed(scene: Scene, dir: &Path, every: u64) -> Run {
    let mut run = Run::start(scene, dir).unwrap();
    // The heaviest sphere: 2500 kg/m³ (the default density) at 1.2 mm.
    let m_max = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.0012f64.powi(3);
    while !run.is_done() {
        let first = run.world.bodies.next_handle().0;
        run.step().unwrap();
        let step = run.world.step_count();
        if step.is_multiple_of(every) {
            let due = 0.02 * run.world.time();
            let c = run.feed_counts()[0].1;
            // Short of the mass due by less than one sphere (the one waiting for the next
            // batch), over it by no more than the relative slack of 1e-9.
            assert!(c.inserted_mass <= due * (1.0 + 1e-9) && due - c.inserted_mass < m_max, "step {step}: {c:?}");
            assert_eq!(c.not_placed, 0, "the region has room");
            // No new sphere overlaps anything: touching at most (round-off of the centre
            // distances, 1e-17 m at these sizes, is far below 1e-15).
            let d = deepest_new_overlap(&run.world, first);
            assert!(d <= 1e-15, "step {step}: a new sphere overlaps by {d} m");
        }
    }
    let (inserted, removed) = (run.feed_counts()[0].1, run.outlet_counts()[0].1);
    assert!(inserted.inserted > 30 && removed.removed > 0, "{inserted:?} {removed:?}");
    // Mass balance: inserted − removed = present, the same masses summed in other orders
    // (1e-12 relative is a thousand roundings of the inserted mass).
    let balance = inserted.inserted_mass - removed.removed_mass - present_mass(&run.world);
    assert!(balance.abs() < 1e-12 * inserted.inserted_mass, "balance off by {balance} kg");
    run
}

#[test]
fn a_mass_rate_feed_inserts_what_is_due_and_the_masses_balance() {
    let text = scene_text(4000, "mass_rate = 0.02", "");
    let scene = Scene::parse("mass.toml", &text).unwrap();
    let dir = tmp("mass");
    let run = run_a_mass_rate_feed(scene, &dir, 200);
    let (inserted, removed) = (run.feed_counts()[0].1, run.outlet_counts()[0].1);
    assert_eq!(run.removed.len() as u64, removed.removed, "the checkpoint records every removal");
    // The files: a row per batch and the last row's totals; a row per removal that
    // removed something, with the final totals last.
    let feeds = std::fs::read_to_string(dir.join("feeds.csv")).unwrap();
    assert_eq!(feeds.lines().count(), 1 + 4000 / 200);
    let last: Vec<&str> = feeds.lines().last().unwrap().split(',').collect();
    assert_eq!((last[1], last[2], last[4]), ("4000", "top", inserted.inserted.to_string().as_str()));
    let outlets = std::fs::read_to_string(dir.join("outlets.csv")).unwrap();
    let last: Vec<&str> = outlets.lines().last().unwrap().split(',').collect();
    assert_eq!((last[2], last[3]), ("corner", removed.removed.to_string().as_str()));
    assert_eq!(last[4].parse::<f64>().unwrap(), removed.removed_mass);
    drop(run);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_feed_into_an_occupied_region_reports_what_it_could_not_place() {
    // A lattice of touching spheres fills the feed's region: nothing fits.
    let bed = "\n[[lattices]]\norigin = [0.001, 0.001, 0.007]\ncounts = [6, 6, 2]\nspacing = 0.002\nradius = 0.001\n\
               motion = \"fixed\"\n";
    let text = scene_text(400, "count_rate = 5000.0\nattempts_per_sphere = 20", "")
        .replace("max = [0.012, 0.012, 0.012] }", "max = [0.012, 0.012, 0.01] }")
        .replace("[output]", &format!("{bed}\n[output]"));
    let scene = Scene::parse("full.toml", &text).unwrap();
    let dir = tmp("full");
    let run = run_to_end(scene, &dir);
    let c = run.feed_counts()[0].1;
    // 5000/s over 2 ms: 10 due, all refused, their mass counted.
    assert_eq!((c.inserted, c.not_placed), (0, 10), "{c:?}");
    assert!(c.not_placed_mass > 0.0);
    let feeds = std::fs::read_to_string(dir.join("feeds.csv")).unwrap();
    assert!(feeds.lines().last().unwrap().ends_with(&format!(",0,0.0,10,{:?}", c.not_placed_mass)), "{feeds}");
    drop(run);
    let _ = std::fs::remove_dir_all(dir);
}

/// Every bit of two checkpoints' states: world, solver, feeds and outlets.
fn assert_same_state(a: &Checkpoint, b: &Checkpoint, name: &str) {
    assert_eq!(a.world, b.world, "{name}: world state");
    let bits = |v: &[DVec3]| v.iter().flat_map(|x| x.to_array().map(f64::to_bits)).collect::<Vec<_>>();
    assert_eq!(bits(&a.world.position), bits(&b.world.position), "{name}: positions");
    assert_eq!(bits(&a.world.velocity), bits(&b.world.velocity), "{name}: velocities");
    assert_eq!(a.removed, b.removed, "{name}: removed bodies");
    assert_eq!(bincode::serialize(&a.feeding).unwrap(), bincode::serialize(&b.feeding).unwrap(), "{name}: feeds");
    assert!(a.solver_state == b.solver_state, "{name}: solver state");
}

/// Runs `text` straight through, and again stopped after each of `stops` (checkpoint to
/// disk, dropped, resumed into the same folder); the final states and files must match.
fn assert_exact_restart(name: &str, text: &str, stops: &[u64]) {
    let scene = granula_run::parse_scene(&format!("{name}.toml"), text).unwrap();
    let dir_a = tmp(&format!("{name}-a"));
    let a = run_to_end(scene.clone(), &dir_a);
    let ca = a.checkpoint().unwrap();
    assert!(a.feed_counts()[0].1.inserted > 20 && a.outlet_counts()[0].1.removed > 0, "{name}: feeds and outlets act");
    assert!(a.last_report.contacts > 0, "{name}: the final step has contacts");
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
    }
    while !b.is_done() {
        b.step().unwrap();
    }
    let cb = b.checkpoint().unwrap();
    drop(b);
    assert_same_state(&ca, &cb, name);
    for file in ["series.csv", "feeds.csv", "outlets.csv"] {
        let (x, y) = (std::fs::read(dir_a.join(file)).unwrap(), std::fs::read(dir_b.join(file)).unwrap());
        assert!(x == y, "{name}: {file} differs");
    }
    let _ = std::fs::remove_dir_all(dir_a);
    let _ = std::fs::remove_dir_all(dir_b);
}

#[test]
fn a_run_resumed_at_any_step_is_bit_identical() {
    // Stops between two batches, right after a batch (1400 = 7 × 200) and right after an
    // outlet's removal (2450 = 49 × 50), then 3500 steps to the end.
    let text = scene_text(6000, "count_rate = 4000.0", "");
    assert_exact_restart("resume", &text, &[1237, 1400, 2450]);
}

#[test]
fn a_feed_of_random_polyhedra_resumes_bit_identically() {
    // Convex polyhedra of 12 hull points inscribed in the drawn spheres: a resume makes
    // the same shapes again from their seeds.
    let text = scene_text(3000, "count_rate = 6000.0\npolyhedra = { points = 12 }", "");
    assert_exact_restart("polyhedra", &text, &[1237, 2000]);
    let scene = granula_run::parse_scene("p.toml", &text).unwrap();
    let dir = tmp("polyhedra-shapes");
    let run = run_to_end(scene, &dir);
    let b = &run.world.bodies;
    let fed = (0..b.len()).filter(|&i| b.handle[i].0 >= 5).collect::<Vec<_>>();
    assert!(fed.len() > 10 && fed.iter().all(|&i| matches!(b.shape[i], Shape::Custom(_))), "{} fed", fed.len());
    drop(run);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_resumed_gear_run_is_bit_identical() {
    // Gear keeps scaled derivatives per body: the inserted spheres start theirs at zero.
    let text = scene_text(4000, "mass_rate = 0.02", "integrator = \"gear5\"");
    assert_exact_restart("gear", &text, &[1600, 2001]);
}

/// A box of planes with a feed and an outlet, stepped through the library by an MD solver
/// on `threads` threads that always uses them (`parallel_min_pairs = 0`); returns the
/// final positions and velocities as bits.
fn library_run(threads: usize) -> Vec<u64> {
    use granula_feed::{Feed, FeedConfig, FeedRate, Outlet, OutletConfig, OutletRegion, Region, SizeDistribution};
    let mut world = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).build().unwrap();
    world.insert_open_box(DVec3::ZERO, 0.012, 0.012, granula_core::MaterialId(0)).unwrap();
    let config =
        granula_md::MdConfig { skin: 1e-4, threads: Some(threads), parallel_min_pairs: 0, ..Default::default() };
    let mut solver = granula_md::MdSolver::new(
        granula_laws::hertz_mindlin(),
        granula_integrators::VelocityVerlet::new(),
        granula_broadphase::LinkedCells::new(),
        config,
    )
    .unwrap();
    let mut feed = Feed::new(FeedConfig {
        name: "top".into(),
        region: Region::Box { min: DVec3::new(0.0, 0.0, 0.004), max: DVec3::new(0.012, 0.012, 0.012) },
        size: SizeDistribution::Lognormal { median: 0.0008, sigma: 0.2, min: 0.0006, max: 0.001 },
        material: granula_core::MaterialId(0),
        rate: FeedRate::Count(20_000.0),
        velocity: DVec3::new(0.0, 0.0, -0.5),
        start: 0.0,
        end: f64::INFINITY,
        every: 100,
        attempts: 100,
        seed: 9,
        particle: granula_feed::Particle::Sphere,
    })
    .unwrap();
    let region = OutletRegion::Inside(Region::Box { min: DVec3::ZERO, max: DVec3::new(0.003, 0.012, 0.0015) });
    let mut outlet = Outlet::new(OutletConfig { name: "corner".into(), region, every: 10 }).unwrap();
    for _ in 0..3000 {
        world.step(&mut solver, 5e-6).unwrap();
        let step = world.step_count();
        if outlet.is_due(step) {
            outlet.remove(&mut world).unwrap();
        }
        if feed.is_due(step) {
            feed.feed(&mut world).unwrap();
        }
    }
    assert!(feed.counts().inserted > 100 && outlet.counts().removed > 0, "{:?} {:?}", feed.counts(), outlet.counts());
    let b = &world.bodies;
    b.position.iter().chain(&b.velocity).flat_map(|v| v.to_array().map(f64::to_bits)).collect()
}

#[test]
fn one_and_two_threads_insert_and_remove_the_same_bodies_to_the_bit() {
    assert!(library_run(1) == library_run(2), "the final states differ between 1 and 2 threads");
}

/// A sphere sliding on a floor (its tangential spring loaded), in a world where a feed
/// inserts spheres far away at step 200 when `feed` is true: the sphere's contact history
/// and state after each step.
fn sliding(feed: bool) -> Vec<(String, [u64; 3])> {
    use granula_feed::{Feed, FeedConfig, FeedRate, Region, SizeDistribution};
    let mut world = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).build().unwrap();
    world.insert(granula_core::PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let ball = granula_core::SphereBuilder::new(0.001, DVec3::new(0.0, 0.0, 0.000999)).velocity(DVec3::X * 0.01);
    let ball = world.insert(ball.build().unwrap()).unwrap();
    let config = granula_md::MdConfig { skin: 1e-4, ..Default::default() };
    let law = granula_laws::hertz_mindlin();
    let mut solver = granula_md::MdSolver::new(
        law,
        granula_integrators::VelocityVerlet::new(),
        granula_broadphase::LinkedCells::new(),
        config,
    )
    .unwrap();
    let mut far = Feed::new(FeedConfig {
        name: "far".into(),
        region: Region::Box { min: DVec3::new(1.0, 1.0, 1.0), max: DVec3::new(1.1, 1.1, 1.1) },
        size: SizeDistribution::Uniform { min: 0.001, max: 0.001 },
        material: granula_core::MaterialId(0),
        rate: FeedRate::Count(10_000.0),
        velocity: DVec3::ZERO,
        start: 0.0,
        end: f64::INFINITY,
        every: 200,
        attempts: 100,
        seed: 1,
        particle: granula_feed::Particle::Sphere,
    })
    .unwrap();
    let mut out = Vec::new();
    for _ in 0..600 {
        world.step(&mut solver, 1e-6).unwrap();
        if feed && world.step_count() == 200 {
            assert!(!far.feed(&mut world).unwrap().inserted.is_empty());
        }
        let h = solver.export_histories();
        let own: Vec<_> = h.iter().filter(|t| t.key.body2 == ball || t.key.body1 == ball).collect();
        let i = world.bodies.index(ball).unwrap();
        let x = world.bodies.position[i];
        out.push((format!("{own:?}"), x.to_array().map(f64::to_bits)));
    }
    out
}

#[test]
fn contact_histories_of_pairs_that_stay_are_kept_across_an_insertion() {
    let (plain, fed) = (sliding(false), sliding(true));
    assert!(plain[599].0.contains("history"), "the ball touches the floor: {}", plain[599].0);
    for (k, (a, b)) in plain.iter().zip(&fed).enumerate() {
        assert!(a == b, "step {}: history or position differs after the insertion:\n{a:?}\n{b:?}", k + 1);
    }
}

#[test]
fn bad_feeds_and_outlets_are_named() {
    let base = scene_text(100, "count_rate = 1000.0", "");
    let cases: [(&str, &str, &str); 12] = [
        ("steps = 100", "steps = 100000000000", "feeds[0].count_rate"),
        ("seed = 3", "seed = 3\npolyhedra = { points = 12 }", "feeds[0].polyhedra"),
        ("count_rate = 1000.0", "count_rate = 1000.0\nmass_rate = 0.1", "feeds[0].mass_rate"),
        ("count_rate = 1000.0", "", "feeds[0]"),
        ("count_rate = 1000.0", "count_rate = -1.0", "feeds[0].count_rate"),
        ("seed = 3", "seed = 3\nsped = 1", "sped"),
        ("every = 200", "every = 0", "feeds[0].every"),
        ("velocity = [0.0, 0.0, -0.5]", "velocity = [0.0, 0.0, -500.0]", "feeds[0].velocity"),
        ("max = [0.012, 0.012, 0.012] }", "max = [0.012, 0.012, 0.0065] }", "feeds[0].region"),
        ("count_rate = 1000.0", "count_rate = 1e7", "feeds[0].region"),
        ("name = \"corner\"", "name = \"corner\"\nregion2 = 1", "region2"),
        ("shape = \"box\", min = [0.0, 0.0, -0.001]", "shape = \"ball\", min = [0.0, 0.0, -0.001]", "ball"),
    ];
    for (from, to, key) in cases {
        assert!(base.contains(from), "{from}");
        let text = base.replacen(from, to, 1);
        let e = Scene::parse("bad.toml", &text).map(|_| ()).unwrap_err().to_string();
        assert!(e.starts_with("bad.toml") && e.contains(key), "{to:?}: {e}");
    }
    // A region full after one batch says why, with the numbers.
    let e = Scene::parse("bad.toml", &base.replacen("count_rate = 1000.0", "count_rate = 1e7", 1)).unwrap_err();
    assert!(e.to_string().contains("cannot hold one batch"), "{e}");
    // Planar scenes refuse them, naming the entry and its line.
    let planar = base.replacen("steps = 100", "steps = 100\nplanar = true", 1);
    let e = Scene::parse("bad.toml", &planar).unwrap_err().to_string();
    assert!(e.contains("feeds[0]") && e.contains("planar"), "{e}");
    // An outlet's half-space needs a direction.
    let half = base.replacen(
        "shape = \"box\", min = [0.0, 0.0, -0.001], max = [0.004, 0.012, 0.0025]",
        "shape = \"below\", point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 0.0]",
        1,
    );
    let e = Scene::parse("bad.toml", &half).unwrap_err().to_string();
    assert!(e.contains("outlets[0].region.normal"), "{e}");
}

/// `scene_text` under contact dynamics: rigid spheres (no restitution key: inelastic
/// impacts), steps of 50 µs, a batch every 20 steps (1 ms) and the outlet every 5.
fn nscd_text(steps: u64, rate: &str) -> String {
    let text = scene_text(steps, rate, "");
    for line in ["dt = 5e-6\n", "kind = \"md\"\n", "restitution = 0.5\n", "every = 200\n", "every = 50\n"] {
        assert!(text.contains(line), "{line}");
    }
    text.replace("dt = 5e-6\n", "dt = 5e-5\n")
        .replace("kind = \"md\"\n", "kind = \"nscd\"\n")
        .replace("restitution = 0.5\n", "")
        .replace("every = 200\n", "every = 20\n")
        .replace("every = 50\n", "every = 5\n")
}

#[test]
fn a_feed_under_contact_dynamics_inserts_what_is_due_and_the_masses_balance() {
    // The mass-rate test of MD with rigid contacts: 0.03 s in 600 steps of 50 µs.
    let scene = Scene::parse("nscd-mass.toml", &nscd_text(600, "mass_rate = 0.02")).unwrap();
    let dir = tmp("nscd-mass");
    let run = run_a_mass_rate_feed(scene, &dir, 20);
    assert!(run.last_report.contacts > 0, "the spheres rest on the floor and each other");
    drop(run);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_feed_under_contact_dynamics_resumes_bit_identically() {
    // Stops between two batches, right after a batch (140 = 7 × 20) and right after an
    // outlet's removal (255 = 51 × 5), spheres and then random polyhedra: the carried
    // impulses of the contacts that stay are keyed by body handles, which a resume issues
    // again in the same order.
    assert_exact_restart("nscd", &nscd_text(600, "count_rate = 4000.0"), &[123, 140, 255]);
    let text = nscd_text(600, "count_rate = 4000.0\npolyhedra = { points = 12 }");
    assert_exact_restart("nscd-polyhedra", &text, &[123, 255]);
}

/// Runs a feed of one batch (`feed_keys` added to its table) across one triangle, the half
/// x > y of a square in the plane z = 0 through the middle of the feed's region, and checks
/// that what it inserted, at least `fewest` bodies, keeps clear of the triangle: a body
/// that crosses the plane, reaching `reach(i)` from its centre, does so over the half
/// y > x, at least √(reach² − z²) from the triangle's diagonal edge (to the round-off of
/// centimetres, 1e-17 m, below 1e-15); some do cross the plane.
fn feed_across_a_triangle(name: &str, feed_keys: &str, fewest: u64, reach: impl Fn(&BodySet, usize) -> f64) {
    let dir = common::tmp("feeds", name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("half.obj"), "v -0.1 -0.1 0\nv 0.1 -0.1 0\nv 0.1 0.1 0\nf 1 2 3\n").unwrap();
    let text = format!(
        r#"
[simulation]
dt = 1e-5
steps = 10
gravity = [0.0, 0.0, 0.0]

[solver]
kind = "md"

[[meshes]]
name = "floor"
file = "half.obj"

[[feeds]]
name = "across"
region = {{ shape = "box", min = [-0.05, -0.05, -0.02], max = [0.05, 0.05, 0.02] }}
size = {{ distribution = "uniform", min = 0.004, max = 0.006 }}
count_rate = 1e6           # 100 bodies in the one batch, at step 10
every = 10
{feed_keys}
"#
    );
    std::fs::write(dir.join("s.toml"), text).unwrap();
    let scene = granula_run::load_scene(dir.join("s.toml")).unwrap();
    let run = run_to_end(scene, &dir.join("out"));
    let c = run.feed_counts()[0].1;
    assert!(c.inserted > fewest, "{c:?}");
    let b = &run.world.bodies;
    let mut crossing = 0;
    for i in (0..b.len()).filter(|&i| b.inv_mass[i] > 0.0) {
        let (x, r) = (b.position[i], reach(b, i));
        if x.z.abs() >= r {
            continue;
        }
        crossing += 1;
        let clear = (r * r - x.z * x.z).sqrt();
        assert!((x.y - x.x) / 2f64.sqrt() >= clear - 1e-15, "body {i} at {x} reaches the triangle");
    }
    assert!(crossing > 0, "some bodies cross the plane where the triangle is not");
    drop(run);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_feed_avoids_the_triangles_of_a_mesh_wall() {
    // Spheres may cross the plane over the other half, not the triangle. (A test by the
    // triangle's box would keep every sphere off the plane.)
    feed_across_a_triangle("mesh", "", 50, |b, i| b.radius[i]);
}

#[test]
fn a_feed_of_polyhedra_avoids_the_triangles_of_a_mesh_wall() {
    // Random convex polyhedra of 12 hull points: each is placed as its bounding sphere
    // about its centre of mass (its farthest vertex), so no vertex, edge or face reaches
    // the triangle. Polyhedra may cross the plane z = 0 over the other half.
    feed_across_a_triangle("mesh-polyhedra", "polyhedra = { points = 12 }", 30, |b, i| {
        let Shape::Custom(shape) = &b.shape[i] else { panic!("body {i} is not a polyhedron") };
        let surface = shape.surface().expect("a polyhedron has a surface");
        surface.vertices.iter().map(|v| v.length()).fold(0.0, f64::max)
    });
}

#[test]
fn a_feed_of_polyhedra_beside_a_mesh_floor_resumes_bit_identically() {
    // The box of a_feed_of_random_polyhedra_resumes_bit_identically with its floor a mesh
    // wall of two triangles: the polyhedra land on the mesh (vertex contacts keyed by
    // region) and a resume finds the same contacts and histories.
    let dir = tmp("mesh-floor-file");
    std::fs::create_dir_all(&dir).unwrap();
    let floor = dir.join("floor.obj");
    std::fs::write(&floor, "v -0.01 -0.01 0\nv 0.03 -0.01 0\nv 0.03 0.03 0\nv -0.01 0.03 0\nf 1 2 3\nf 1 3 4\n")
        .unwrap();
    let plane = "[[planes]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\n";
    let mesh = format!("[[meshes]]\nname = \"floor\"\nfile = {:?}\n", floor.to_str().unwrap());
    let text = scene_text(3000, "count_rate = 6000.0\npolyhedra = { points = 12 }", "");
    assert!(text.contains(plane), "the box's floor is its first plane");
    let text = text.replacen(plane, &mesh, 1).replace("[output]\n", "[output]\nwall_loads = { every = 50 }\n");
    assert_exact_restart("polyhedra-mesh", &text, &[1237, 2000]);
    // The polyhedra did land on the mesh: it carries a load in the run.
    let scene = granula_run::parse_scene("p.toml", &text).unwrap();
    let out = tmp("mesh-floor-loads");
    drop(run_to_end(scene, &out));
    let loads = std::fs::read_to_string(out.join("wall_loads.csv")).unwrap();
    let pushed = loads.lines().filter(|l| l.contains(",floor,")).filter(|l| l.split(',').nth(5) != Some("0.0")).count();
    assert!(pushed > 0, "no load on the mesh floor:\n{loads}");
    let _ = std::fs::remove_dir_all(out);
    let _ = std::fs::remove_dir_all(dir);
}

/// `examples/scenes/hopper_md.toml` scaled down to a few hundred beads: the same floor
/// mesh at an orifice of D = 20 mm (5 bead diameters), a side of radius 15 mm, a feed of
/// 0.4 kg/s into 20-35 mm above the floor until 0.4 s, and the bed draining to 0.5 s;
/// beads ten times softer (E = 1e6 Pa) at Δt = 5e-5 s, t_c/20 at 1 m/s as in the example.
/// Each replaced line must be in the example, so the test follows it.
fn small_hopper_text() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut text = std::fs::read_to_string(root.join("examples/scenes/hopper_md.toml")).unwrap();
    let mesh = root.join("assets/meshes/hopper_floor.stl");
    let replacements = [
        ("\"../../assets/meshes/hopper_floor.stl\"", format!("'{}'", mesh.display())),
        ("scale = 0.001 ", "scale = 0.0008333333333333334 ".to_string()),
        ("radius = 0.032\n", "radius = 0.015\n".to_string()),
        (
            "base = [0.0, 0.0, 0.045], radius = 0.0315, height = 0.025",
            "base = [0.0, 0.0, 0.02], radius = 0.0145, height = 0.015".to_string(),
        ),
        ("mass_rate = 1.0 ", "mass_rate = 0.4 ".to_string()),
        ("end = 0.8\n", "end = 0.4\n".to_string()),
        ("end_time = 1.1\n", "end_time = 0.5\n".to_string()),
        ("dt = 2e-5 ", "dt = 5e-5 ".to_string()),
        ("young_modulus = 1e7\n", "young_modulus = 1e6\n".to_string()),
        ("vtk = { every = 5000 }\n", String::new()),
    ];
    for (from, to) in replacements {
        assert_eq!(text.matches(from).count(), 1, "the example scene has one `{from}`");
        text = text.replace(from, &to);
    }
    text
}

/// The shortest distance from a centre to the small hopper's floor plate, the annulus of
/// the plane z = 0 outside the orifice's radius `rim` about the z axis (m).
fn distance_to_plate(x: DVec3, rim: f64) -> f64 {
    let rho = x.truncate().length();
    if rho >= rim {
        x.z.abs()
    } else {
        ((rim - rho).powi(2) + x.z * x.z).sqrt()
    }
}

#[test]
fn a_hopper_filled_by_a_feed_discharges_only_through_its_orifice_at_a_steady_rate() {
    let scene = granula_run::parse_scene("hopper_small.toml", &small_hopper_text()).unwrap();
    let dir = tmp("hopper");
    let mut run = Run::start(scene, &dir).unwrap();
    // The orifice's radius: 12 mm in the file, scaled to 10 mm. Its rim is the inscribed
    // 72-gon, at most 10 mm (1 − cos 2.5°) = 9.5 µm inside the circle.
    let rim = 0.010;
    let (mut nearest, mut removed_at) = (f64::INFINITY, Vec::new());
    while !run.is_done() {
        run.step().unwrap();
        let b = &run.world.bodies;
        for i in (0..b.len()).filter(|&i| b.inv_mass[i] > 0.0) {
            nearest = nearest.min(distance_to_plate(b.position[i], rim) / b.radius[i]);
        }
        if run.world.step_count().is_multiple_of(2000) {
            removed_at.push(run.outlet_counts()[0].1.removed);
        }
    }
    // A bead that went through the plate would have crossed it (it moves less than 4 % of
    // its radius per step at up to 1.5 m/s): its centre would have come within that of
    // the plate. The deepest contact, a bead landing on the bare floor at up to 1 m/s, is
    // 0.19 r deep by Hertz's undamped impact at E = 1e6 Pa (measured: centres 0.86 r
    // from the plate at least), well short of the 0.5 r asserted.
    assert!(nearest > 0.5, "a bead's centre came within {nearest} radii of the plate");
    let (fed, out) = (run.feed_counts()[0].1, run.outlet_counts()[0].1);
    // The feed offers some five times what the orifice passes: once the bed fills its
    // region it places only what leaves, and refuses more than it placed in all.
    assert!(fed.not_placed_mass > fed.inserted_mass, "the bed reached the feed's region: {fed:?}");
    // Mass balance, as in the first test of this file.
    let balance = fed.inserted_mass - out.removed_mass - present_mass(&run.world);
    assert!(balance.abs() < 1e-12 * fed.inserted_mass, "balance off by {balance} kg");
    // Beads removed over three windows of 0.1 s: 0.2-0.3 and 0.3-0.4 s with the bed held
    // at the feed's region, 0.4-0.5 s while it drains. A steady discharge that does not
    // depend on the bed's height gives equal counts, up to the counting noise, at most a
    // Poisson process's (the beads leave as a dense stream, more regular than that): two
    // counts n₁, n₂ differ by less than 4 √(n₁ + n₂).
    let counts: Vec<u64> = removed_at.windows(2).skip(1).map(|w| w[1] - w[0]).collect();
    eprintln!("nearest centre {nearest:.3} radii from the plate; beads removed per window {counts:?}; {fed:?}");
    assert_eq!(counts.len(), 3, "{removed_at:?}");
    for (a, b) in [(0, 1), (1, 2), (0, 2)] {
        let (n1, n2) = (counts[a] as f64, counts[b] as f64);
        assert!(n1 > 50.0 && (n1 - n2).abs() < 4.0 * (n1 + n2).sqrt(), "windows {a} and {b}: {counts:?}");
    }
    drop(run);
    let _ = std::fs::remove_dir_all(dir);
}
