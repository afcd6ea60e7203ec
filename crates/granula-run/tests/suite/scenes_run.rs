//! Every built-in scene under `examples/scenes/` loads, runs a few steps and writes its
//! outputs; a malformed scene leaves no output folder behind.

use crate::common;

use granula_io::Scene;
use granula_run::Run;
use std::path::{Path, PathBuf};

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes")
}

fn tmp(name: &str) -> PathBuf {
    common::tmp("scenes", name)
}

#[test]
fn every_built_in_scene_runs_a_few_steps() {
    let mut names: Vec<PathBuf> = std::fs::read_dir(scenes_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 9, "the built-in scenes, the two planar polygon scenes among them: {names:?}");
    for path in names {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let scene = granula_run::load_scene(&path).unwrap_or_else(|e| panic!("{e}"));
        let out = tmp(&stem);
        let mut run = Run::start(scene, &out).unwrap_or_else(|e| panic!("{stem}: {e}"));
        for _ in 0..3 {
            run.step().unwrap_or_else(|e| panic!("{stem}: {e}"));
        }
        assert_eq!(run.world.step_count(), 3);
        assert!(run.world.bodies.velocity.iter().all(|v| v.is_finite()), "{stem}");
        let spec = &run.scene.spec.output;
        if spec.series.is_some() {
            let text = std::fs::read_to_string(out.join("series.csv")).unwrap();
            assert!(text.starts_with("time,step,"), "{stem}");
            // Every row has the header's fields, an absent balance as an empty one.
            let fields = granula_io::output::SERIES_HEADER.split(',').count();
            for line in text.lines() {
                assert_eq!(line.split(',').count(), fields, "{stem}: {line}");
            }
        }
        if spec.vtk.is_some() {
            let pvd = std::fs::read_to_string(out.join("particles.pvd")).unwrap();
            assert_eq!(pvd.matches("<DataSet").count(), 1, "{stem}: the initial frame");
            // Polygons and polyhedra are drawn in shapes.pvd.
            if run.scene.has_custom_shapes() {
                let shapes = std::fs::read_to_string(out.join("shapes.pvd")).unwrap();
                assert_eq!(shapes.matches("<DataSet").count(), 1, "{stem}: the initial frame of the shapes");
            }
        }
        if spec.trajectories.is_some() {
            assert!(out.join("trajectories.csv").exists(), "{stem}");
        }
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn a_malformed_scene_writes_nothing() {
    let dir = tmp("malformed");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.toml");
    std::fs::write(&file, "[simulation]\ndt = 0.0\nsteps = 3\n[solver]\nkind = \"md\"\n").unwrap();
    let out = dir.join("out");
    let err = Scene::load(&file).and_then(|s| Run::start(s, &out)).err().expect("rejected");
    assert!(err.to_string().contains("simulation.dt"), "{err}");
    assert!(!out.exists(), "no output folder for a rejected scene");
    let _ = std::fs::remove_dir_all(dir);
}
