//! Bounded input: scenes that ask for too much (bodies, materials, steps, threads, skin) or
//! for an unsatisfiable size distribution end in an error that names the key, quickly,
//! instead of a panic, an aborted allocation, a hang or a cubic blow-up.

use granula_io::scene::limits;
use granula_io::Scene;
use std::fmt::Write;
use std::sync::mpsc;
use std::time::Duration;

const HEAD: &str = r#"
[simulation]
dt = 1e-5
steps = 10

[solver]
kind = "md"
"#;

/// Parses `text` on another thread and gives up after `limit`: a hang fails the test
/// instead of stalling the suite. Returns the error message, or "" if the scene is valid.
fn parse_within(text: String, limit: Duration) -> String {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(|| Scene::parse("big.toml", &text).err().map(|e| e.to_string()));
        let _ = tx.send(r.map_err(|_| ()));
    });
    match rx.recv_timeout(limit) {
        Ok(Ok(msg)) => msg.unwrap_or_default(),
        Ok(Err(())) => panic!("the scene panicked"),
        Err(_) => panic!("the scene took more than {limit:?}"),
    }
}

fn rejected(text: String, key: &str, words: &[&str]) {
    // A limit check is immediate; 20 s absorbs a loaded machine but not a hang.
    let msg = parse_within(text, Duration::from_secs(20));
    assert!(msg.contains(&format!("key `{key}`")), "names {key}: {msg:?}");
    for w in words {
        assert!(msg.contains(w), "says {w:?}: {msg}");
    }
}

fn packing(count: &str) -> String {
    format!(
        "{HEAD}\n[[packings]]\ncount = {count}\nregion = {{ shape = \"box\", min = [0.0, 0.0, 0.0], max = [1.0, 1.0, 1.0] }}\n\
         size = {{ distribution = \"uniform\", min = 0.001, max = 0.001 }}\n"
    )
}

fn lattice(counts: &str) -> String {
    format!("{HEAD}\n[[lattices]]\norigin = [0.0, 0.0, 0.0]\ncounts = {counts}\nspacing = 0.002\nradius = 0.001\n")
}

#[test]
fn huge_packing_counts_are_refused_with_the_size_asked_for() {
    rejected(packing("1000000000000"), "packings[0].count", &["1000000000000", "at most 100000000 bodies"]);
    // u64::MAX: either the TOML reader refuses it or the limit does; never a panic.
    let msg = parse_within(packing("18446744073709551615"), Duration::from_secs(20));
    assert!(msg.contains("count"), "{msg}");
}

#[test]
fn huge_lattices_are_refused_with_checked_arithmetic() {
    rejected(lattice("[1000, 1000, 1000]"), "lattices[0].counts", &["1000000000 spheres"]);
    rejected(lattice("[4294967295, 1, 1]"), "lattices[0].counts", &["4294967295 spheres"]);
    // The product of three u32 overflows u64.
    rejected(lattice("[4294967295, 4294967295, 4294967295]"), "lattices[0].counts", &["more than 2^64"]);
}

/// The error of the body count with no memory limit (the machine's memory is not part of
/// the test).
fn count_error(text: &str) -> String {
    let spec: granula_io::scene::spec::SceneSpec = toml::from_str(text).unwrap();
    let c = granula_io::scene::Check::new("big.toml", text, vec!["default".into()]);
    limits::body_count_within(&c, &spec, None).unwrap_err().to_string()
}

#[test]
fn the_total_counts_every_generator() {
    let two = format!("{}{}", lattice("[1000, 1000, 60]"), &lattice("[1000, 1000, 50]")[HEAD.len()..]);
    let e = count_error(&two);
    assert!(e.contains("key `lattices[1].counts`") && e.contains("110000000 bodies in all"), "{e}");
}

#[test]
fn a_scene_larger_than_the_memory_is_refused_before_allocating() {
    // Through the library's limit function with a stated amount of memory (1 GiB), so the
    // test does not depend on the machine.
    let text = packing("10000000");
    let spec: granula_io::scene::spec::SceneSpec = toml::from_str(&text).unwrap();
    let c = granula_io::scene::Check::new("big.toml", &text, vec!["default".into()]);
    let e = limits::body_count_within(&c, &spec, Some(1 << 30)).unwrap_err().to_string();
    assert!(e.contains("key `packings[0].count`") && e.contains("GiB") && e.contains("1.0 GiB is available"), "{e}");
    assert_eq!(limits::body_count_within(&c, &spec, None).unwrap(), 10_000_000);
}

#[test]
fn an_unsatisfiable_lognormal_is_reported_not_sampled_forever() {
    let text = format!(
        "{HEAD}\n[[packings]]\ncount = 10\nregion = {{ shape = \"box\", min = [0.0, 0.0, 0.0], max = [1.0, 1.0, 1.0] }}\n\
         size = {{ distribution = \"lognormal\", median = 0.001, sigma = 1e5, min = 0.001, max = 0.0011 }}\n"
    );
    rejected(text, "packings[0].size.sigma", &["unsatisfiable", "probability"]);
}

#[test]
fn too_many_placement_attempts_are_refused() {
    let text = packing("10").replace("count = 10", "count = 10\nattempts_per_sphere = 9223372036854775807");
    rejected(text, "packings[0].attempts_per_sphere", &["1000000"]);
}

#[test]
fn a_box_region_whose_extent_overflows_is_refused() {
    let text = packing("10")
        .replace("min = [0.0, 0.0, 0.0], max = [1.0, 1.0, 1.0]", "min = [-1e308, 0.0, 0.0], max = [1e308, 1.0, 1.0]");
    rejected(text, "packings[0].region.max", &["overflows"]);
}

fn materials(n: usize, pairs: usize) -> String {
    let mut s = String::from(HEAD);
    for i in 0..n {
        let _ = write!(s, "\n[[materials]]\nname = \"m{i}\"\nfriction = 0.{}\n", 1 + i % 9);
    }
    for i in 0..pairs {
        let _ = write!(s, "\n[[pairs]]\nmaterials = [\"m{i}\", \"m{}\"]\nfriction = 0.05\n", n - 1 - i);
    }
    s + "\n[[spheres]]\nradius = 0.001\nposition = [0.0, 0.0, 0.0]\nmaterial = \"m7\"\n"
}

#[test]
fn too_many_materials_are_refused_instead_of_wrapping_the_id() {
    // 70 001 materials wrapped the u16 id and were called valid.
    rejected(materials(70_001, 0), "materials[1024]", &["70001 materials", "at most 1024"]);
    rejected(materials(1025, 0), "materials[1024]", &["at most 1024"]);
}

#[test]
fn the_largest_material_table_builds_with_its_pair_overrides() {
    // 1024 materials and 500 pair overrides: the table of 1024² pairs is built once (about
    // 1e6 mixes). Its cost is not asserted here (a timed test fails on a loaded machine);
    // a hang would trip the 20 s guard of `parse_within` in the tests above.
    let text = materials(limits::MAX_MATERIALS, 500);
    let scene = Scene::parse("many.toml", &text).unwrap();
    let world = scene.build_world().unwrap();
    assert_eq!(world.materials.len(), 1024);
    assert_eq!(world.materials.pair(granula_core::MaterialId(3), granula_core::MaterialId(1020)).friction, 0.05);
}

#[test]
fn many_named_spheres_are_checked_for_duplicates() {
    let mut s = String::from(HEAD);
    let n = 100_000;
    for i in 0..n {
        let (x, y) = ((i % 400) as f64 * 0.003, (i / 400) as f64 * 0.003);
        let _ = write!(s, "[[spheres]]\nname = \"s{i}\"\nradius = 0.001\nposition = [{x}, {y}, 0.0]\n");
    }
    // 100 000 names, checked with a set (the pairwise check took 5e9 comparisons); its
    // cost is not asserted here (a timed test fails on a loaded machine).
    let scene = Scene::parse("named.toml", &s).unwrap();
    assert_eq!(scene.bodies.len(), n);
    let dup = s.replace("name = \"s99999\"", "name = \"s5\"");
    rejected(dup, "spheres[99999].name", &["already the name"]);
}

#[test]
fn a_skin_or_margin_far_beyond_the_particle_size_is_refused() {
    let sphere = "\n[[spheres]]\nradius = 0.001\nposition = [0.0, 0.0, 0.0]\n";
    let md = format!("{}{sphere}", HEAD.replace("kind = \"md\"", "kind = \"md\"\nskin = 1e300"));
    rejected(md, "solver.skin", &["largest sphere radius"]);
    let nscd = format!("{}{sphere}", HEAD.replace("kind = \"md\"", "kind = \"nscd\"\nmargin = 1.0"));
    rejected(nscd, "solver.margin", &["largest sphere radius"]);
    // Ten radii is still accepted.
    let ok = format!("{}{sphere}", HEAD.replace("kind = \"md\"", "kind = \"md\"\nskin = 0.01"));
    assert_eq!(parse_within(ok, Duration::from_secs(20)), "");
}

#[test]
fn thread_counts_are_bounded() {
    rejected(HEAD.replace("kind = \"md\"", "kind = \"md\"\nthreads = 10000"), "solver.threads", &["[1, 1024]"]);
    rejected(HEAD.replace("kind = \"md\"", "kind = \"md\"\nthreads = 0"), "solver.threads", &["[1, 1024]"]);
}

#[test]
fn step_counts_are_bounded() {
    let tiny = HEAD.replace("dt = 1e-5\nsteps = 10", "dt = 5e-324\nend_time = 1.0");
    rejected(tiny, "simulation.dt", &["at most 1000000000000 steps"]);
    let many = HEAD.replace("steps = 10", "steps = 1000000000001");
    rejected(many, "simulation.steps", &["at most 1000000000000 steps"]);
}

#[test]
fn nscd_iteration_caps_are_bounded() {
    // Found by the scene fuzzer: 4294967295 fixed iterations a step never ends.
    let text =
        HEAD.replace("kind = \"md\"", "kind = \"nscd\"\ncriterion = \"fixed_iterations\"\nmax_iterations = 4294967295");
    rejected(text, "solver.max_iterations", &["[1, 1000000]"]);
}

/// Loads `path` as a scene on another thread; a read that blocks fails the test after 20 s
/// instead of stalling the suite.
fn load_within(path: std::path::PathBuf) -> granula_io::IoError {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(Scene::load(&path).err());
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(e) => e.expect("the file must be refused"),
        Err(_) => panic!("reading the scene blocked"),
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_device_given_as_scene_is_refused_by_name() {
    let dir = std::env::temp_dir().join(format!("granula-io-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("scene.toml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    let e = load_within(fifo.clone());
    let msg = e.to_string();
    assert!(matches!(e, granula_io::IoError::InputFile { ref path, .. } if *path == fifo), "{msg}");
    assert!(msg.contains("scene.toml") && msg.contains("FIFO"), "{msg}");
    // A device that never ends.
    let e = load_within("/dev/zero".into());
    let msg = e.to_string();
    assert!(matches!(e, granula_io::IoError::InputFile { .. }) && msg.contains("/dev/zero"), "{msg}");
    assert!(msg.contains("a device"), "{msg}");
    // A folder.
    let e = load_within(dir.clone());
    assert!(matches!(e, granula_io::IoError::InputFile { .. }) && e.to_string().contains("a folder"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn input_files_are_read_up_to_a_bound() {
    let dir = std::env::temp_dir().join(format!("granula-io-bound-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.toml");
    std::fs::write(&path, "# a comment\n".repeat(100)).unwrap();
    let e = granula_io::read_input(&path, 1000).unwrap_err();
    assert!(matches!(e, granula_io::IoError::InputFile { .. }), "{e}");
    assert!(e.to_string().contains("big.toml") && e.to_string().contains("larger than 1000 bytes"), "{e}");
    assert_eq!(granula_io::read_input(&path, 1200).unwrap().len(), 1200);
    let _ = std::fs::remove_dir_all(&dir);
}
