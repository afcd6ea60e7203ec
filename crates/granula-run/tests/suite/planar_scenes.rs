//! Planar scenes (`dimension = 2`) through the runner's parse function: every key, the
//! shipped shear cell parses and runs, bad input gives errors that name the key, and the
//! VTK frames read back (with an independent reader, vtkio) as one polygon per body.

use granula_run::planar::{is_planar, PlanarRun, PlanarScene, PositionFrame, PLANAR_SERIES_HEADER};
use granula_run::ExistingOutput;
use vtkio::model::{Attribute, DataSet, Piece, PolyDataPiece, VertexNumbers};
use vtkio::Vtk;

/// A scene that sets every key of the format.
const ALL_KEYS: &str = r#"
dimension = 2

[simulation]
dt_fraction = 0.01
steps = 20
gravity = [0.0, -9.81]
threads = 1

[law]
normal_stiffness = 1e4
restitution = 0.9
reduced_mass = 0.05
tangential_ratio = 0.25
friction = 0.4
tangential = "predictor"

[domain]
periodic_x = { min = -0.5, length = 1.0 }
periodic_y = { min = -0.5, length = 1.0 }
shear_rate = 0.1

[[bodies]]
shape = { kind = "disc", radius = 0.02 }
position = [0.0, 0.0]
angle = 0.3
velocity = [0.1, 0.0]
angular_velocity = 2.0
density = 500.0
mass = 0.7
prescribed = false
lock_rotation = true
force = [0.0, 1.0]

[[bodies]]
shape = { kind = "regular", sides = 6, radius = 0.02 }
position = [0.1, 0.0]
prescribed = true
velocity = [0.0, -0.5]

[[bodies]]
shape = { kind = "random", sides = 7, radius = 0.02, elongation = 1.5, seed = 9 }
position = [0.2, 0.0]
angular_velocity = 1.5

[[bodies]]
shape = { kind = "vertices", vertices = [[0.0, 0.0], [0.03, 0.0], [0.0, 0.03]] }
position = [0.3, 0.0]

[[rough_walls]]
shape = { kind = "random", sides = 5, sides_max = 8, radius = 0.02 }
count = 4
start = [-0.3, -0.3]
spacing = 0.05
velocity = [0.01, 0.0]
density = 800.0
random_angle = false
seed = 4

[[lattices]]
shape = { kind = "random", sides = 5, sides_max = 8, radius = 0.02 }
columns = 3
rows = 2
origin = [-0.3, 0.2]
spacing = 0.05
density = 900.0
random_angle = true
seed = 5

[[walls]]
point = [0.0, -0.45]
normal = [0.0, 2.0]
velocity = [0.02, 0.0]

[output]
series_every = 5
vtk_every = 10
positions = "unwrapped"
stress_area = 0.5
"#;

fn parse(text: &str) -> Result<PlanarScene, granula_io::IoError> {
    PlanarScene::parse("scene.toml", text)
}

#[test]
fn every_key_is_read() {
    assert!(is_planar(ALL_KEYS) && !is_planar("[simulation]\ndt = 1.0\n"));
    let s = parse(ALL_KEYS).unwrap();
    let b = &s.solver.bodies();
    // 4 bodies, a wall of 4, a lattice of 3 × 2.
    assert_eq!(b.len(), 14);
    assert_eq!(s.steps, 20);
    assert_eq!((s.series_every, s.vtk_every, s.positions), (5, Some(10), PositionFrame::Unwrapped));
    assert_eq!((s.stress_area, s.threads), (0.5, Some(1)));
    // dt = 0.01 t_c with t_c from k_n = 1e4, ε_n = 0.9 and m_r = 0.05 (002 eqs. 8-10).
    let nu = granula_planar::damping_from_restitution(0.9, 1e4, 0.05);
    let tc = granula_planar::contact_time(1e4, nu, 0.05);
    assert!((s.solver.dt() / (0.01 * tc) - 1.0).abs() < 1e-14 && (s.contact_time.unwrap() - tc).abs() < 1e-18);
    let law = s.solver.md().unwrap().law();
    assert_eq!(law.tangential, granula_planar::Tangential::Predictor);
    assert!((law.tangential_stiffness - 2500.0).abs() < 1e-9 && law.friction == 0.4);
    assert!((law.normal_damping - nu).abs() < 1e-12);
    let d = s.solver.domain();
    assert_eq!(d.x, granula_planar::Axis::Periodic { min: -0.5, length: 1.0 });
    assert_eq!(d.shear_rate, Some(0.1));
    // Body 0: the disc with its mass, angle, velocities, force.
    // (its angular velocity is zeroed by `lock_rotation`; body 2's is read.)
    assert_eq!((b.mass[0], b.angle[0], b.angular_velocity[0], b.angular_velocity[2]), (0.7, 0.3, 0.0, 1.5));
    assert_eq!(b.velocity[0], glam::DVec2::new(0.1, 0.0));
    assert_eq!(b.external_force[0], glam::DVec2::new(0.0, 1.0));
    assert_eq!(b.inv_inertia[0], 0.0, "rotation locked");
    // Body 1 prescribed, body 2 random with 7 vertices, body 3 a triangle.
    assert!(!b.is_dynamic(1) && b.is_dynamic(2));
    let sides = |i: usize| match &b.shape[i] {
        granula_planar::Shape2::Polygon(p) => p.vertices().len(),
        _ => 0,
    };
    assert_eq!((sides(1), sides(2), sides(3)), (6, 7, 3));
    // The rough wall: prescribed, not turned, 5 to 8 vertices, its density.
    for i in 4..8 {
        assert!(!b.is_dynamic(i) && b.angle[i] == 0.0 && (5..=8).contains(&sides(i)));
        assert_eq!(b.motion[i], granula_planar::Motion::Prescribed { velocity: glam::DVec2::new(0.01, 0.0) });
    }
    // The lattice: row 1 shifted by half a spacing, rows 0.05 √3/2 apart.
    assert!((b.position[11] - b.position[8] - glam::DVec2::new(0.025, 0.05 * 3f64.sqrt() / 2.0)).length() < 1e-15);
    assert!((b.mass[8] / (900.0 * b.shape[8].area()) - 1.0).abs() < 1e-12);
    assert_eq!(s.solver.md().unwrap().walls().len(), 1);
    assert_eq!(s.solver.md().unwrap().walls()[0].normal, glam::DVec2::Y, "normal normalised");
    assert_eq!(s.solver.md().unwrap().walls()[0].velocity, glam::DVec2::new(0.02, 0.0), "a belt");
}

#[test]
fn defaults_and_alternatives() {
    let text = "dimension = 2\n[simulation]\ndt = 1e-4\nduration = 0.01\n[law]\nnormal_stiffness = 1e3\nnormal_damping = 5.0\n[[bodies]]\nshape = { kind = \"disc\", radius = 0.01 }\nposition = [0.0, 0.0]\n";
    let s = parse(text).unwrap();
    assert_eq!(s.steps, 100);
    let law = s.solver.md().unwrap().law();
    assert_eq!((law.normal_damping, law.friction, law.tangential), (5.0, 0.0, granula_planar::Tangential::Cundall));
    assert!((law.tangential_stiffness - 1e3 / 3.0).abs() < 1e-9);
    assert_eq!((s.series_every, s.vtk_every, s.positions), (1, None, PositionFrame::Wrapped));
}

fn error_of(text: &str) -> String {
    parse(text).expect_err("the scene must be refused").to_string()
}

#[test]
fn bad_input_names_the_key() {
    let cases: [(&str, &str, &str); 10] = [
        (
            "kind = \"vertices\", vertices = [[0.0, 0.0], [0.03, 0.0], [0.0, 0.03]]",
            "kind = \"vertices\", vertices = [[0.0, 0.0], [0.03, 0.0], [0.005, 0.005], [0.0, 0.03]]",
            "bodies[3].shape.vertices",
        ),
        ("length = 1.0 }\nperiodic_y", "length = 0.1 }\nperiodic_y", "domain.periodic_x.length"),
        ("periodic_y = { min = -0.5, length = 1.0 }\n", "", "domain.shear_rate"),
        ("threads = 1", "threads = 1\ntimestep = 2", "timestep"),
        ("normal_stiffness = 1e4", "normal_stiffness = -1e4", "law.normal_stiffness"),
        ("tangential = \"predictor\"", "tangential = \"elastic\"", "elastic"),
        ("restitution = 0.9", "restitution = 1.5", "law.restitution"),
        ("sides = 7, radius", "sides = 2, radius", "bodies[2].shape.sides"),
        ("dt_fraction = 0.01", "dt_fraction = 0.01\ndt = 1e-5", "simulation.dt"),
        ("velocity = [0.02, 0.0]", "velocity = [nan, 0.0]", "walls[0].velocity"),
    ];
    for (from, to, key) in cases {
        assert!(ALL_KEYS.contains(from), "{from}");
        let m = error_of(&ALL_KEYS.replacen(from, to, 1));
        assert!(m.starts_with("scene.toml:") && m.contains(key), "{key}: {m}");
    }
    // The line is that of the key: the negative stiffness is on the line that sets it.
    let text = ALL_KEYS.replacen("normal_stiffness = 1e4", "normal_stiffness = -1e4", 1);
    let line = text.lines().position(|l| l.starts_with("normal_stiffness")).unwrap() + 1;
    assert!(error_of(&text).starts_with(&format!("scene.toml:{line}: key `law.normal_stiffness`")));
    // An unknown key inside a body.
    let m = error_of(&ALL_KEYS.replacen("angle = 0.3", "angel = 0.3", 1));
    assert!(m.contains("unknown field `angel`"), "{m}");
}

#[test]
fn planar_vectors_of_the_wrong_length_are_refused_with_key_line_and_count() {
    let cases = [
        ("gravity = [0.0, -9.81]", "gravity = [0.0, -9.81, 0.0]", "simulation.gravity", 3),
        ("position = [0.0, 0.0]", "position = [0.0, 0.0, inf]", "bodies[0].position", 3),
        ("velocity = [0.1, 0.0]", "velocity = [0.1]", "bodies[0].velocity", 1),
    ];
    for (from, to, key, found) in cases {
        assert!(ALL_KEYS.contains(from), "{from}");
        let text = ALL_KEYS.replacen(from, to, 1);
        let line = text.lines().position(|l| l.contains(to)).unwrap() + 1;
        let m = error_of(&text);
        assert!(m.starts_with(&format!("scene.toml:{line}:")), "{key}: {m}");
        assert!(m.contains(&format!("key `{key}`")) && m.contains(&format!("invalid length {found}")), "{m}");
    }
}

fn piece(path: &std::path::Path) -> PolyDataPiece {
    match Vtk::import(path).expect("vtkio parses the file").data {
        DataSet::PolyData { pieces, .. } => match pieces.into_iter().next().expect("one piece") {
            Piece::Inline(p) => *p,
            _ => panic!("inline piece expected"),
        },
        _ => panic!("PolyData expected"),
    }
}

fn array(attrs: &[Attribute], name: &str) -> Vec<f64> {
    attrs
        .iter()
        .find_map(|a| match a {
            Attribute::DataArray(d) if d.name == name => Some(d.data.clone().cast_into::<f64>().unwrap()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no array {name}"))
}

#[test]
fn the_shear_cell_scene_parses_runs_and_writes_polygons() {
    let text = include_str!("../../../../examples/scenes/shear_cell_2d.toml");
    assert!(is_planar(text));
    let mut scene = parse(text).unwrap();
    assert_eq!(scene.solver.bodies().len(), 256 + 32);
    assert_eq!(scene.solver.md().unwrap().law().friction, 0.5);
    scene.steps = 20;
    scene.vtk_every = Some(10);
    scene.series_every = 5;
    let dir = std::env::temp_dir().join(format!("granula-planar-scene-{}", std::process::id()));
    let mut run = PlanarRun::start(scene, &dir, ExistingOutput::Overwrite).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    let sim = run.scene.solver.md().unwrap();
    // The series: header, the row of time 0 and one every 5 steps.
    let series = std::fs::read_to_string(dir.join("series.csv")).unwrap();
    let rows: Vec<&str> = series.lines().collect();
    assert_eq!(rows[0], PLANAR_SERIES_HEADER);
    assert_eq!(rows.len(), 1 + 1 + 4);
    let last: Vec<f64> = rows[5].split(',').map(|v| v.parse().unwrap()).collect();
    assert_eq!(last[0], sim.time());
    assert_eq!(last[1], sim.bodies.kinetic_energy());
    assert_eq!(last[6] as usize, sim.contacts().len());
    assert!(last[6] > 256.0, "the packing is confined: {} contacts", last[6]);
    // The VTK series: frames at steps 0, 10 and 20.
    let pvd = std::fs::read_to_string(dir.join("bodies.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 3);
    let p = piece(&dir.join("bodies_000002.vtp"));
    let points = p.points.cast_into::<f64>().unwrap();
    let (connectivity, offsets) = match p.polys {
        Some(VertexNumbers::XML { connectivity, offsets }) => (connectivity, offsets),
        other => panic!("polys: {other:?}"),
    };
    assert_eq!(offsets.len(), sim.bodies.len(), "one polygon cell per body");
    let ids = array(&p.data.cell, "id");
    let omega = array(&p.data.cell, "angular_velocity");
    let velocity = array(&p.data.cell, "velocity");
    let mut start = 0usize;
    for i in 0..sim.bodies.len() {
        assert_eq!(ids[i], i as f64);
        assert_eq!(omega[i], sim.bodies.angular_velocity[i]);
        assert_eq!(velocity[3 * i], sim.bodies.velocity[i].x);
        let verts = match &sim.bodies.shape[i] {
            granula_planar::Shape2::Polygon(q) => q.vertices(),
            _ => panic!("polygons only"),
        };
        let end = offsets[i] as usize;
        assert_eq!(end - start, verts.len());
        // Written vertex k = wrapped centre + R(θ) v_k, bit for bit.
        let c = sim.wrapped_position(i);
        let rot = glam::DVec2::from_angle(sim.bodies.angle[i]);
        for (k, v) in verts.iter().enumerate() {
            let w = c + rot.rotate(*v);
            let q = connectivity[start + k] as usize;
            assert_eq!([points[3 * q], points[3 * q + 1], points[3 * q + 2]], [w.x, w.y, 0.0]);
        }
        // Wrapped: every centre in the periodic box [0, 0.288).
        assert!((0.0..0.288).contains(&c.x));
        start = end;
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every planar scene under `examples/scenes/` (the 3D scenes are run by scenes_run.rs)
/// parses, runs a few steps and writes its series.
#[test]
fn every_planar_example_scene_runs_a_few_steps() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .filter(|p| is_planar(&std::fs::read_to_string(p).unwrap()))
        .collect();
    names.sort();
    assert!(names.len() >= 2, "the MD shear cell and the contact dynamics column: {names:?}");
    for path in names {
        let mut scene = granula_run::planar::PlanarScene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        scene.steps = 5;
        let out = std::env::temp_dir().join(format!(
            "granula-planar-example-{}-{}",
            path.file_stem().unwrap().to_string_lossy(),
            std::process::id()
        ));
        let mut run = PlanarRun::start(scene, &out, ExistingOutput::Overwrite).unwrap();
        while !run.is_done() {
            run.step().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        assert!(run.scene.solver.bodies().velocity.iter().all(|v| v.is_finite()), "{}", path.display());
        let series = std::fs::read_to_string(out.join("series.csv")).unwrap();
        assert!(series.starts_with("time,kinetic_energy"), "{}", path.display());
        let _ = std::fs::remove_dir_all(&out);
    }
}
