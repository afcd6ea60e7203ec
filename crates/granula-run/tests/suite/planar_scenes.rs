//! Planar scenes (`[simulation] planar = true`) with polygons through the one scene reader
//! and the one driver: every polygon key is read, the law of 002 is composed from
//! `[solver]` choices, the former `dimension = 2` format and the planar choices in a 3D
//! scene are refused by name, the shipped shear cell runs and draws its polygons (read back
//! with an independent VTK reader, vtkio), and a square resting on a floor sinks to the
//! depth of 002 eq. 5.

use crate::common;

use granula_core::{MotionKind, Shape};
use granula_io::scene::polygon_of;
use granula_io::scene::{contact_time, damping_rate};
use granula_io::Scene;
use granula_run::Run;
use vtkio::model::{Attribute, DataSet, Piece, PolyDataPiece, VertexNumbers};
use vtkio::Vtk;

/// A planar scene that sets every polygon key, a kinematic wall of polygons, a triangular
/// lattice of polygon sites, the 002 law, a time step from the contact time and a sheared
/// periodic box.
pub const ALL_KEYS: &str = r#"
[simulation]
planar = true
dt_fraction = 0.01
steps = 20
gravity = [0.0, -9.81, 0.0]
periodic = { x = [-0.5, 0.5], y = [-0.5, 0.5] }
shear_rate = 0.1
accept_overlaps = true

[solver]
kind = "md"
normal = "area"
normal_stiffness = 1e4
damping = "reduced_mass"
reduced_mass = 0.05
tension = "allow"
tangential = "planar_cundall"
tangential_stiffness_ratio = 0.25
integrator = "gear6"
threads = 1

[[materials]]
name = "grains"
density = 500.0
friction = 0.4
restitution = 0.9

[[polygons]]
name = "hexagon"
shape = { kind = "regular", sides = 6, radius = 0.02 }
position = [0.0, 0.0]
angle = 0.3
velocity = [0.1, 0.0]
angular_velocity = 2.0
material = "grains"
mass = 0.7
lock_rotation = true
force = [0.0, 1.0]

[[polygons]]
name = "glued"
shape = { kind = "regular", sides = 6, radius = 0.02 }
position = [0.1, 0.0]
motion = "kinematic"
velocity = [0.0, -0.5]

[[polygons]]
shape = { kind = "random", sides = 7, radius = 0.02, elongation = 1.5, seed = 9 }
position = [0.2, 0.0]
angular_velocity = 1.5

[[polygons]]
name = "triangle"
shape = { kind = "vertices", vertices = [[0.0, 0.0], [0.03, 0.0], [0.0, 0.03]] }
position = [0.3, 0.0]
motion = "fixed"

[[lattices]]
counts = [4, 1, 1]
origin = [-0.3, -0.3, 0.0]
spacing = 0.05
polygon = { kind = "random", sides = 5, sides_max = 8, radius = 0.02 }
motion = "kinematic"
velocity = [0.01, 0.0, 0.0]
random_angle = false
seed = 4

[[lattices]]
counts = [3, 2, 1]
arrangement = "triangular"
origin = [-0.3, 0.2, 0.0]
spacing = 0.05
polygon = { kind = "random", sides = 5, sides_max = 8, radius = 0.02 }
seed = 5

[output]
series = { every = 5 }
vtk = { every = 10 }
"#;

fn parse(text: &str) -> Result<Scene, String> {
    granula_run::parse_scene("scene.toml", text).map_err(|e| e.to_string())
}

#[test]
fn every_polygon_key_is_read() {
    let s = parse(ALL_KEYS).unwrap();
    let w = s.build_world().unwrap();
    let b = &w.bodies;
    // Lattices come before polygons: 4 wall sites, 3 × 2 sites, then 4 polygons.
    assert_eq!(b.len(), 14);
    assert_eq!(s.steps, 20);
    let hex = s.body_named("hexagon").unwrap();
    // The explicit mass, the angle about z, the velocities, the force, the locked rotation.
    assert_eq!(b.mass[hex], 0.7);
    let x = b.orientation[hex] * glam::DVec3::X;
    assert!((x.y.atan2(x.x) - 0.3).abs() < 1e-15);
    assert_eq!(b.velocity[hex], glam::DVec3::new(0.1, 0.0, 0.0));
    assert_eq!(b.external_force[hex], glam::DVec3::new(0.0, 1.0, 0.0));
    assert!(b.locked[hex].contains(granula_core::Dofs::ROTATION), "rotation locked");
    // Mass from the material's density over the unit thickness (002 eq. 1a): m = ρ A.
    let rnd = 12;
    let area = polygon_of(&b.shape[rnd]).unwrap().polygon().area();
    assert!((b.mass[rnd] / (500.0 * area) - 1.0).abs() < 1e-14);
    assert_eq!(polygon_of(&b.shape[rnd]).unwrap().polygon().vertices().len(), 7);
    assert_eq!(b.angular_velocity[rnd].z, 1.5);
    assert_eq!(b.motion[s.body_named("glued").unwrap()], MotionKind::Kinematic);
    assert_eq!(b.motion[s.body_named("triangle").unwrap()], MotionKind::Fixed);
    // The wall: kinematic, not turned, 5 to 8 vertices.
    for i in 0..4 {
        let n = polygon_of(&b.shape[i]).unwrap().polygon().vertices().len();
        assert!(b.motion[i] == MotionKind::Kinematic && (5..=8).contains(&n));
        assert_eq!((b.orientation[i], b.velocity[i]), (glam::DQuat::IDENTITY, glam::DVec3::new(0.01, 0.0, 0.0)));
    }
    // The triangular lattice: row 1 shifted by half a spacing, rows 0.05 √3/2 apart.
    let shift = b.position[7] - b.position[4];
    assert!((shift - glam::DVec3::new(0.025, 0.05 * 3f64.sqrt() / 2.0, 0.0)).length() < 1e-15);
    // Δt = 0.01 t_c with ν from ε_n = 0.9, k_n = 1e4, m_r = 0.05 (002 eqs. 8 and 10),
    // written out here: ν = −2 ln ε ω₀ / √(π² + ln² ε), t_c = π / √(ω₀² − ν²/4).
    let (k, m, e) = (1e4f64, 0.05f64, 0.9f64);
    let w0 = (k / m).sqrt();
    let nu = -2.0 * e.ln() * w0 / (std::f64::consts::PI.powi(2) + e.ln().powi(2)).sqrt();
    let tc = std::f64::consts::PI / (w0 * w0 - nu * nu / 4.0).sqrt();
    assert!((damping_rate(e, k, m) / nu - 1.0).abs() < 1e-14 && (contact_time(k, nu, m) / tc - 1.0).abs() < 1e-14);
    assert!((s.dt() / (0.01 * tc) - 1.0).abs() < 1e-14, "{} vs {}", s.dt(), 0.01 * tc);
    // The Lees-Edwards box: flow x, gradient y.
    let shear = w.periodic.shear().unwrap();
    assert_eq!((shear.flow, shear.gradient, shear.rate), (granula_core::Axis::X, granula_core::Axis::Y, 0.1));
    // The law: the overlap-area spring, the reduced-mass dashpot and Cundall's planar spring.
    let solver = granula_run::build_solver(&s).unwrap();
    let d = solver.describe();
    for part in ["area_spring", "reduced_mass_viscous", "planar_cundall"] {
        assert!(d.contains(part), "{part}: {d}");
    }
    // The predictor-based elongation of 002 §4 takes the same keys.
    let predictor = parse(&ALL_KEYS.replace("\"planar_cundall\"", "\"planar_predictor\"")).unwrap();
    let d = granula_run::build_solver(&predictor).unwrap().describe();
    assert!(d.contains("planar_predictor"), "{d}");
}

#[test]
fn the_former_planar_format_is_refused_with_the_way_to_write_it() {
    let text = "\n\ndimension = 2\n[simulation]\ndt = 1e-3\nsteps = 1\n";
    let m = parse(text).unwrap_err();
    assert!(m.starts_with("scene.toml:3: key `dimension`"), "{m}");
    assert!(m.contains("[simulation] planar = true") && m.contains("docs/scene-format.md"), "{m}");
}

#[test]
fn planar_choices_in_a_3d_scene_are_refused_by_name() {
    let three_d = ALL_KEYS
        .replace("planar = true\n", "")
        .replace("gravity = [0.0, -9.81, 0.0]\n", "")
        .replace("shear_rate = 0.1\n", "");
    // Polygons first (bodies are read after the solver: the solver's choices come first).
    let cases = [("normal = \"area\"", "solver.normal"), ("tangential = \"planar_cundall\"", "solver.tangential")];
    let hooke = three_d.replace("normal = \"area\"", "normal = \"hooke\"");
    for (set, key) in cases {
        let text = if key == "solver.normal" { three_d.clone() } else { hooke.clone() };
        assert!(text.contains(set));
        let m = parse(&text).unwrap_err();
        assert!(m.contains(key) && m.contains("planar"), "{key}: {m}");
    }
    let plain = hooke.replace("tangential = \"planar_cundall\"", "tangential = \"cundall_strack\"");
    let m = parse(&plain.replace("tangential_stiffness_ratio = 0.25\n", "")).unwrap_err();
    assert!(m.contains("lattices[0].polygon") && m.contains("planar"), "{m}");
    let m = parse(&hooke.replace("\"planar_cundall\"", "\"planar_predictor\"")).unwrap_err();
    assert!(m.contains("solver.tangential") && m.contains("planar"), "{m}");
}

#[test]
fn bad_input_names_the_key() {
    let cases: [(&str, &str, &str); 11] = [
        ("[0.0, 0.03]] }", "[0.01, 0.01], [0.0, 0.03]] }", "polygons[3].shape.vertices"),
        ("sides = 7, radius", "sides = 2, radius", "polygons[2].shape.sides"),
        (
            "sides_max = 8, radius = 0.02 }\nmotion",
            "sides_max = 4, radius = 0.02 }\nmotion",
            "lattices[0].polygon.sides_max",
        ),
        ("elongation = 1.5", "elongation = 0.5", "polygons[2].shape.elongation"),
        ("angle = 0.3", "angle = nan", "polygons[0].angle"),
        ("normal_stiffness = 1e4", "normal_stiffness = -1e4", "solver.normal_stiffness"),
        ("restitution = 0.9", "restitution = 1.5", "materials[0].restitution"),
        ("dt_fraction = 0.01", "dt_fraction = 0.01\ndt = 1e-5", "simulation.dt_fraction"),
        ("tension = \"allow\"", "tension = \"no_attraction\"", "solver.tension"),
        ("reduced_mass = 0.05", "reduced_mass = 0.0", "solver.reduced_mass"),
        ("y = [-0.5, 0.5] }", "}", "simulation.shear_rate"),
    ];
    for (from, to, key) in cases {
        assert!(ALL_KEYS.contains(from), "{from}");
        let m = parse(&ALL_KEYS.replacen(from, to, 1)).unwrap_err();
        assert!(m.starts_with("scene.toml:") && m.contains(key), "{key}: {m}");
    }
    // The line is that of the key.
    let text = ALL_KEYS.replacen("normal_stiffness = 1e4", "normal_stiffness = -1e4", 1);
    let line = text.lines().position(|l| l.starts_with("normal_stiffness")).unwrap() + 1;
    assert!(parse(&text).unwrap_err().starts_with(&format!("scene.toml:{line}: key `solver.normal_stiffness`")));
    // Unknown keys and vectors of the wrong length.
    let m = parse(&ALL_KEYS.replacen("angle = 0.3", "angel = 0.3", 1)).unwrap_err();
    assert!(m.contains("unknown field `angel`"), "{m}");
    let m = parse(&ALL_KEYS.replacen("position = [0.0, 0.0]", "position = [0.0, 0.0, 0.0]", 1)).unwrap_err();
    assert!(m.contains("polygons[0].position") && m.contains("invalid length 3"), "{m}");
    // Two restitutions cannot share one damping rate.
    let two = ALL_KEYS
        .replace("restitution = 0.9\n", "restitution = 0.9\n[[materials]]\nname = \"other\"\nrestitution = 0.5\n");
    let m = parse(&two).unwrap_err();
    assert!(m.contains("solver.damping") && m.contains("restitution"), "{m}");
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

fn cell_array(attrs: &[Attribute], name: &str) -> Vec<f64> {
    attrs
        .iter()
        .find_map(|a| match a {
            Attribute::DataArray(d) if d.name == name => Some(d.data.clone().cast_into::<f64>().unwrap()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no array {name}"))
}

#[test]
fn the_shear_cell_runs_and_draws_its_polygons() {
    let text = include_str!("../../../../examples/scenes/shear_cell_2d.toml")
        .replace("end_time = 120.0", "steps = 20")
        .replace("series = { every = 100 }", "series = { every = 5 }")
        .replace("vtk = { every = 2000 }", "vtk = { every = 10 }");
    let scene = granula_run::parse_scene("shear_cell_2d.toml", &text).unwrap();
    assert_eq!(scene.bodies.len(), 256 + 32);
    let lc = scene.linear_contact.unwrap();
    assert!((scene.dt() / lc.contact_time - 0.02).abs() < 1e-15);
    let dir = common::tmp("planar", "shear-cell");
    let mut run = Run::start(scene, &dir).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    assert!(run.last_report.contacts > 256, "the packing is confined: {} contacts", run.last_report.contacts);
    let series = std::fs::read_to_string(dir.join("series.csv")).unwrap();
    assert_eq!(series.lines().count(), 1 + 1 + 4, "header, time 0 and every 5 steps");
    // The shapes of the last frame: one polygon cell per body, vertex k at the wrapped
    // centre + R(θ) v_k, bit for bit.
    let pvd = std::fs::read_to_string(dir.join("shapes.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 3, "frames at steps 0, 10, 20");
    let p = piece(&dir.join("vtk/shapes_000000020.vtp"));
    let points = p.points.cast_into::<f64>().unwrap();
    let (connectivity, offsets) = match p.polys {
        Some(VertexNumbers::XML { connectivity, offsets }) => (connectivity, offsets),
        other => panic!("polys: {other:?}"),
    };
    let w = &run.world;
    let b = &w.bodies;
    assert_eq!(offsets.len(), b.len(), "one polygon cell per body");
    let ids = cell_array(&p.data.cell, "id");
    let mut start = 0usize;
    for i in 0..b.len() {
        assert_eq!(ids[i], b.handle[i].0 as f64);
        let verts = polygon_of(&b.shape[i]).unwrap().polygon().vertices();
        let end = offsets[i] as usize;
        assert_eq!(end - start, verts.len());
        let (c, _, _) = w.periodic.wrap_state(b.position[i], b.velocity[i], w.time());
        assert!((0.0..0.288).contains(&c.x), "wrapped into the period");
        for (k, v) in verts.iter().enumerate() {
            let x = c + b.orientation[i] * v.extend(0.0);
            let q = connectivity[start + k] as usize;
            assert_eq!([points[3 * q], points[3 * q + 1], points[3 * q + 2]], x.to_array());
        }
        start = end;
    }
    assert!(b.shape.iter().all(|s| matches!(s, Shape::Custom(_))));
    drop(run);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A square of side a resting on a floor under gravity sinks until the area law carries
/// its weight: k_n A / l_c = m g (002 eq. 5) with l_c = 2√(a²/π) against a wall, so its
/// overlap with the floor is the rectangle A = a h of depth h = m g l_c / (k_n a).
#[test]
fn a_square_on_a_floor_sinks_to_the_depth_of_eq_5() {
    let (a, k, rho, g) = (0.1f64, 1e5f64, 1000.0f64, 9.81f64);
    let text = format!(
        "[simulation]\nplanar = true\ndt_fraction = 0.02\nend_time = 0.5\ngravity = [0.0, -{g}, 0.0]\n\
         [solver]\nkind = \"md\"\nnormal = \"area\"\nnormal_stiffness = {k:?}\ndamping = \"reduced_mass\"\n\
         tension = \"allow\"\ntangential = \"none\"\n\
         [[materials]]\nname = \"m\"\ndensity = {rho:?}\nrestitution = 0.1\nfriction = 0.0\n\
         [[planes]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 1.0, 0.0]\n\
         [[polygons]]\nname = \"square\"\nshape = {{ kind = \"vertices\", vertices = [[0.0, 0.0], [{a:?}, 0.0], [{a:?}, {a:?}], [0.0, {a:?}]] }}\n\
         position = [0.0, 0.0501]\n"
    );
    let scene = parse(&text).unwrap();
    let dir = common::tmp("planar", "square-floor");
    let mut run = Run::start(scene, &dir).unwrap();
    while !run.is_done() {
        run.step().unwrap();
    }
    let m = rho * a * a;
    let l_c = 2.0 * (a * a / std::f64::consts::PI).sqrt();
    let h = m * g * l_c / (k * a);
    let depth = 0.5 * a - run.world.bodies.position[1].y;
    // ε_n = 0.1 damps the bounce to rest within the 0.5 s (ν ≈ 1.2 ω₀): the remaining
    // oscillation is below 1e-6 of h; the faces stay parallel (no torque on a centred load).
    assert!((depth / h - 1.0).abs() < 1e-6, "depth {depth} against {h}");
    drop(run);
    let _ = std::fs::remove_dir_all(&dir);
}
