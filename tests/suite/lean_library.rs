//! A host that embeds the library (`granula = { default-features = false }`) compiles no
//! command-line crate: clap, indicatif and ctrlc hang on the `cli` feature only.

use std::process::Command;

/// The normal (non-dev, non-build) dependency tree of the `granula` package with the given
/// feature flags, as printed by `cargo tree` from the lock file (offline: no network).
fn tree(features: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "-p", "granula", "-e", "normal", "--prefix", "none"])
        .args(features)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("cargo tree prints UTF-8")
}

/// The crate names of a tree, one per line (`name vX.Y.Z ...`).
fn crates(tree: &str) -> Vec<&str> {
    tree.lines().filter_map(|l| l.split_whitespace().next()).collect()
}

const CLI_CRATES: [&str; 3] = ["clap", "indicatif", "ctrlc"];

#[test]
fn library_without_default_features_has_no_cli_crates() {
    let lean = tree(&["--no-default-features"]);
    let names = crates(&lean);
    assert!(names.contains(&"granula-core"), "the tree lists the library's crates:\n{lean}");
    for cli in CLI_CRATES {
        assert!(!names.contains(&cli), "{cli} is compiled without the cli feature:\n{lean}");
    }
}

#[test]
fn cli_feature_brings_the_command_line_crates() {
    // The counter-check: the same query sees them when the feature is on, so the test
    // above is not passing because the query lists nothing.
    let full = tree(&["--features", "cli"]);
    let names = crates(&full);
    for cli in CLI_CRATES {
        assert!(names.contains(&cli), "{cli} missing with the cli feature:\n{full}");
    }
}
