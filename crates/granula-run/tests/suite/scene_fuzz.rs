//! A scene fuzzer: seeded mutations of every built-in scene (`examples/scenes`), each
//! parsed and validated and, when valid, run for a few steps. Every case must end in a
//! valid run with finite energies and state, or in an error that says what is wrong; never
//! in a panic, an abort or a hang (each case has a time limit).
//!
//! Mutations: a number replaced by 0, -1, 1, ±1e300, NaN, ±inf, huge integers or tiny
//! values; a key deleted, duplicated or renamed; a string replaced; an array shortened or
//! lengthened; a table header duplicated or deleted; a boolean flipped; a line cut short.
//!
//! `cargo test --release -p granula-run --test suite scene_fuzz` runs 80 cases per scene.
//! For a longer run: `GRANULA_FUZZ_CASES=2000 cargo test --release -p granula-run --test
//! suite scene_fuzz -- --nocapture` (cases per scene; `GRANULA_FUZZ_SEED` changes the
//! seed). The counts are printed at the end; a failing case prints its scene text.

use granula_run::{parse_scene, ExistingOutput, Run};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Cases per built-in scene when `GRANULA_FUZZ_CASES` is not set: 21 scenes × 80 cases
/// take about 9 seconds at opt-level 3 (about 2 ms a case, more for the contact-dynamics
/// cases whose mutated tolerance cannot be met within their iterations).
const DEFAULT_CASES: usize = 80;
/// Packing counts above this are cut to it before a scene is mutated: a mutation does to a
/// packing of 400 spheres what it does to one of 4500, and building the silos' thousands
/// of spheres (the valid cases build them) took half of the fuzzer's time.
const MAX_COUNT: u64 = 400;
/// Contact-dynamics iteration caps above this are cut to it: a valid case of the NSCD drum
/// with lifters (400 beads, natural-map criterion, up to 1000 iterations a step) took
/// 200 ms, the other scenes' cases 2 ms.
const MAX_ITERATIONS: u64 = 50;
/// Steps run by a valid case.
const STEPS: u64 = 3;
/// Time limit of one case (parse, validate, build and the steps). The slowest valid case
/// (the 4500-sphere silo) takes well under a second; a hang is anything beyond this.
const CASE_LIMIT: Duration = Duration::from_secs(60);

/// Replacements of a number.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "1e300",
    "-1e300",
    "nan",
    "inf",
    "-inf",
    "1e-300",
    "5e-324",
    "-5e-324",
    "4294967295",
    "9223372036854775807",
    "18446744073709551615",
    "1000000000000",
    "0.0",
    "-0.0",
    "2",
];

/// Replacements of a string (the scene's own names are used too).
const STRINGS: &[&str] = &[
    "",
    "x",
    "md",
    "nscd",
    "hertz",
    "hooke",
    "none",
    "viscous",
    "gear4",
    "gear6",
    "brute_force",
    "linked_cells",
    "forward",
    "global",
    "fixed_iterations",
    "correcting",
    "fixed",
    "kinematic",
    "dynamic",
    "box",
    "cylinder",
    "lognormal",
    "bidisperse",
    "uniform",
    "y",
    "z",
];

/// Spans of interest in a scene text (byte ranges).
#[derive(Default)]
struct Tokens {
    numbers: Vec<(usize, usize)>,
    strings: Vec<(usize, usize)>,
    booleans: Vec<(usize, usize)>,
    /// Key name spans of `key = value` lines.
    keys: Vec<(usize, usize)>,
    /// Whole lines (start, end without the newline) of `key = value`.
    key_lines: Vec<(usize, usize)>,
    /// Whole lines of table headers.
    headers: Vec<(usize, usize)>,
    /// Inner spans of one-line arrays (between the brackets).
    arrays: Vec<(usize, usize)>,
    /// Every line.
    lines: Vec<(usize, usize)>,
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn tokens(text: &str) -> Tokens {
    let mut t = Tokens::default();
    let bytes = text.as_bytes();
    let mut start = 0;
    for line in text.split('\n') {
        let end = start + line.len();
        t.lines.push((start, end));
        // The code part: up to a '#' outside a string.
        let mut code_end = end;
        let mut in_str = false;
        for (i, &b) in bytes.iter().enumerate().take(end).skip(start) {
            match b {
                b'"' => in_str = !in_str,
                b'#' if !in_str => {
                    code_end = i;
                    break;
                }
                _ => {}
            }
        }
        let trimmed = text[start..code_end].trim_start();
        let lead = code_end - start - trimmed.len();
        if trimmed.starts_with('[') {
            t.headers.push((start, end));
        } else if let Some(eq) = trimmed.find('=') {
            let key = trimmed[..eq].trim_end();
            if !key.is_empty() && key.bytes().all(is_ident) {
                t.keys.push((start + lead, start + lead + key.len()));
                t.key_lines.push((start, end));
            }
        }
        let mut i = start;
        while i < code_end {
            let b = bytes[i];
            let prev_ident = i > start && (is_ident(bytes[i - 1]) || bytes[i - 1] == b'.');
            if b == b'"' {
                let close = text[i + 1..code_end].find('"').map_or(code_end, |k| i + 1 + k);
                t.strings.push((i + 1, close));
                i = close + 1;
            } else if b == b'[' && !trimmed.starts_with('[') {
                if let Some(k) = text[i + 1..code_end].find(']') {
                    t.arrays.push((i + 1, i + 1 + k));
                }
                i += 1;
            } else if !prev_ident
                && (b.is_ascii_digit()
                    || ((b == b'-' || b == b'+') && i + 1 < code_end && bytes[i + 1].is_ascii_digit()))
            {
                let mut j = i + 1;
                while j < code_end && (is_ident(bytes[j]) || bytes[j] == b'.' || bytes[j] == b'+') {
                    j += 1;
                }
                t.numbers.push((i, j));
                i = j;
            } else if !prev_ident && (text[i..code_end].starts_with("true") || text[i..code_end].starts_with("false")) {
                let n = if text[i..].starts_with("true") { 4 } else { 5 };
                t.booleans.push((i, i + n));
                i += n;
            } else {
                i += 1;
            }
        }
        start = end + 1;
    }
    t
}

fn pick<'a, T>(rng: &mut ChaCha8Rng, v: &'a [T]) -> Option<&'a T> {
    (!v.is_empty()).then(|| &v[rng.random_range(0..v.len())])
}

fn splice(text: &str, (a, b): (usize, usize), with: &str) -> String {
    format!("{}{with}{}", &text[..a], &text[b..])
}

/// One random mutation, described for the report; `None` when the chosen kind has no
/// target in this text.
fn mutate(text: &str, rng: &mut ChaCha8Rng) -> Option<(String, String)> {
    let t = tokens(text);
    match rng.random_range(0..10) {
        0..=3 => {
            let &span = pick(rng, &t.numbers)?;
            let &n = pick(rng, NUMBERS)?;
            Some((splice(text, span, n), format!("number {:?} -> {n}", &text[span.0..span.1])))
        }
        4 => {
            let &line = pick(rng, &t.key_lines)?;
            let what = match rng.random_range(0..2) {
                0 => ("", "deleted"),
                _ => (&text[line.0..line.1], "duplicated"),
            };
            let new = if what.1 == "deleted" {
                splice(text, line, "")
            } else {
                splice(text, (line.1, line.1), &format!("\n{}", what.0))
            };
            Some((new, format!("line {:?} {}", &text[line.0..line.1], what.1)))
        }
        5 => {
            let &key = pick(rng, &t.keys)?;
            let &other = pick(rng, &t.keys)?;
            let name = if rng.random_bool(0.5) {
                text[other.0..other.1].to_string()
            } else {
                format!("{}x", &text[key.0..key.1])
            };
            Some((splice(text, key, &name), format!("key {:?} renamed {name}", &text[key.0..key.1])))
        }
        6 => {
            let &span = pick(rng, &t.strings)?;
            let own: Vec<&str> = t.strings.iter().map(|s| &text[s.0..s.1]).collect();
            let s = if rng.random_bool(0.3) { *pick(rng, &own)? } else { *pick(rng, STRINGS)? };
            Some((splice(text, span, s), format!("string {:?} -> {s:?}", &text[span.0..span.1])))
        }
        7 => {
            let &span = pick(rng, &t.arrays)?;
            let inner = &text[span.0..span.1];
            let new = match inner.rfind(',') {
                Some(k) if rng.random_bool(0.5) => inner[..k].to_string(),
                _ if inner.trim().is_empty() => "1.0".to_string(),
                _ => format!("{inner}, 1.0"),
            };
            Some((splice(text, span, &new), format!("array [{inner}] -> [{new}]")))
        }
        8 => {
            if rng.random_bool(0.5) {
                let &span = pick(rng, &t.booleans)?;
                let flipped = if &text[span.0..span.1] == "true" { "false" } else { "true" };
                Some((splice(text, span, flipped), format!("boolean -> {flipped}")))
            } else {
                let &line = pick(rng, &t.headers)?;
                let header = &text[line.0..line.1];
                if rng.random_bool(0.5) {
                    Some((splice(text, line, ""), format!("header {header:?} deleted")))
                } else {
                    Some((
                        splice(text, (line.1, line.1), &format!("\n{header}")),
                        format!("header {header:?} duplicated"),
                    ))
                }
            }
        }
        _ => {
            let &line = pick(rng, &t.lines.iter().copied().filter(|l| l.1 > l.0).collect::<Vec<_>>())?;
            let cuts: Vec<usize> = text[line.0..line.1].char_indices().map(|(k, _)| line.0 + k).collect();
            let &cut = pick(rng, &cuts)?;
            Some((splice(text, (cut, line.1), ""), format!("line {:?} cut at {}", &text[line.0..line.1], cut - line.0)))
        }
    }
}

/// How a case ended.
enum Outcome {
    /// The scene was refused, with this message.
    Refused(String),
    /// The scene ran its steps with finite energies and state.
    Ran,
    /// The scene was valid but the run stopped with this error (a blow-up guard…).
    Stopped(String),
}

fn finite_series(path: &Path) -> Result<(), String> {
    let Ok(text) = std::fs::read_to_string(path) else { return Ok(()) };
    for (k, line) in text.lines().enumerate().skip(1) {
        for v in line.split(',') {
            if v.parse::<f64>().is_ok_and(|x| !x.is_finite()) {
                return Err(format!("series.csv line {}: {line}", k + 1));
            }
        }
    }
    Ok(())
}

/// Parses and validates `text` as the runner does (polyhedra and mesh walls included, mesh
/// files relative to the folder of `file`), and runs a valid scene for [`STEPS`] steps in
/// `dir`.
fn case(file: &str, text: &str, dir: &Path) -> Result<Outcome, String> {
    let scene = match parse_scene(file, text) {
        Ok(s) => s,
        Err(e) => return Ok(Outcome::Refused(e.to_string())),
    };
    let mut run = match Run::start_with(scene, dir, ExistingOutput::Overwrite) {
        Ok(r) => r,
        Err(e) => return Ok(Outcome::Refused(e.to_string())),
    };
    for _ in 0..STEPS.min(run.scene.steps) {
        if let Err(e) = run.step() {
            return Ok(Outcome::Stopped(e.to_string()));
        }
    }
    // What the next series row or checkpoint would check (the steps above may have had
    // no output due).
    if let Err(e) = run.check_finite() {
        return Ok(Outcome::Stopped(e.to_string()));
    }
    let w = &run.world;
    let energies = [
        w.kinetic_energy_translational(),
        w.kinetic_energy_rotational(),
        w.potential_energy(),
        w.ledger.stored_elastic,
        w.ledger.dissipated.total(),
        w.ledger.external_work,
    ];
    if let Some(e) = energies.iter().find(|e| !e.is_finite()) {
        return Err(format!("a non-finite energy {e} without an error: {energies:?}"));
    }
    let b = &w.bodies;
    if !(b.position.iter().all(|x| x.is_finite()) && b.velocity.iter().all(|v| v.is_finite())) {
        return Err("a non-finite position or velocity without an error".into());
    }
    finite_series(&dir.join("series.csv"))?;
    Ok(Outcome::Ran)
}

/// An error message says where: a position in the scene file, a key, a body, a step, or
/// the output folder.
fn says_where(msg: &str) -> bool {
    ["fuzz.toml:", "key `", "body", "step", "granula-fuzz-"].iter().any(|w| msg.contains(w))
}

/// `text` with every `count = N` line above [`MAX_COUNT`] and every `max_iterations = N`
/// line above [`MAX_ITERATIONS`] set to the cap; the same tokens, so the same mutations are
/// drawn.
fn capped_counts(text: &str) -> String {
    let cap = |line: &str, key: &str, max: u64| match line.strip_prefix(key).and_then(|n| n.trim().parse::<u64>().ok())
    {
        Some(n) if n > max => Some(format!("{key}{max}")),
        _ => None,
    };
    let lines: Vec<String> = text
        .split('\n')
        .map(|l| {
            cap(l, "count = ", MAX_COUNT)
                .or_else(|| cap(l, "max_iterations = ", MAX_ITERATIONS))
                .unwrap_or(l.to_string())
        })
        .collect();
    lines.join("\n")
}

fn scenes() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    v
}

#[test]
fn mutated_scenes_never_panic_abort_or_hang() {
    let cases: usize = std::env::var("GRANULA_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_CASES);
    let seed: u64 = std::env::var("GRANULA_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(14);
    let started = Instant::now();
    let (mut refused, mut ran, mut stopped) = (0usize, 0usize, 0usize);
    let mut failures: Vec<String> = Vec::new();
    let files = scenes();
    assert!(files.len() >= 7, "{files:?}");
    for (s, file) in files.iter().enumerate() {
        let original = capped_counts(&std::fs::read_to_string(file).unwrap());
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(1000).wrapping_add(s as u64));
        for k in 0..cases {
            let mut text = original.clone();
            let mut log = Vec::new();
            let n = match rng.random_range(0..10) {
                0..=5 => 1,
                6..=8 => 2,
                _ => 3,
            };
            while log.len() < n {
                if let Some((t, what)) = mutate(&text, &mut rng) {
                    text = t;
                    log.push(what);
                }
            }
            let dir = std::env::temp_dir().join(format!("granula-fuzz-{}-{stem}-{k}", std::process::id()));
            let (tx, rx) = mpsc::channel();
            // Beside the scene, so that its mesh files are found.
            let name = file.with_file_name("fuzz.toml").display().to_string();
            let (t2, d2) = (text.clone(), dir.clone());
            std::thread::spawn(move || {
                let r = std::panic::catch_unwind(|| case(&name, &t2, &d2));
                let _ = tx.send(r);
            });
            let label = format!("{stem} case {k} ({})", log.join("; "));
            match rx.recv_timeout(CASE_LIMIT) {
                Ok(Ok(Ok(Outcome::Refused(msg)))) => {
                    refused += 1;
                    if !says_where(&msg) {
                        failures.push(format!("{label}: an error that does not say where: {msg}"));
                    }
                }
                Ok(Ok(Ok(Outcome::Stopped(msg)))) => {
                    stopped += 1;
                    if !says_where(&msg) {
                        failures.push(format!("{label}: a run error that does not say where: {msg}"));
                    }
                }
                Ok(Ok(Ok(Outcome::Ran))) => ran += 1,
                Ok(Ok(Err(msg))) => failures.push(format!("{label}: {msg}\n{text}")),
                Ok(Err(_)) => failures.push(format!("{label}: PANIC\n{text}")),
                Err(_) => {
                    // The case's thread cannot be stopped: report and end here.
                    panic!("{label}: no answer in {CASE_LIMIT:?} (a hang)\n{text}");
                }
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    let total = refused + ran + stopped + failures.len();
    println!(
        "scene fuzz: {total} cases ({cases} per scene, seed {seed}) in {:.1} s: {ran} valid and ran, \
         {stopped} valid and stopped with an error, {refused} refused, {} failures",
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
}
