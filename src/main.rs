//! The `granula` runner: `granula run SCENE --out DIR`, `granula resume CHECKPOINT`,
//! `granula check SCENE`; with no arguments it runs the built-in default scene.

mod runner;

fn main() {
    std::process::exit(runner::main());
}
