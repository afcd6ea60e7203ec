//! Broken polyhedra scenes found by the fuzzers: each is refused with an error naming the
//! scene file, the key and the mesh file or parameter at fault, and the run writes nothing.

use crate::common;

use granula_run::{load_scene, Run};

const HEAD: &str = "[simulation]\ndt = 5e-6\nsteps = 10\n\n[solver]\nkind = \"md\"\n\n\
[[planes]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\n\n[[polyhedra]]\nposition = [0.0, 0.0, 0.01]\n";

/// The unit cube in OBJ with its 4th and 5th vertices swapped: closed, consistently
/// oriented and of positive volume, but the surface intersects itself.
const TWISTED_CUBE: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 0 1\nv 0 1 0\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";

#[test]
fn broken_polyhedra_are_named_and_write_nothing() {
    let dir = common::tmp("refused", "poly");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("twisted.obj"), TWISTED_CUBE).unwrap();
    std::fs::write(dir.join("zero_index.obj"), TWISTED_CUBE.replace("f 4 1 5 8", "f 4 1 5 0")).unwrap();
    // A binary STL declaring 12 triangles with 11 stored.
    let mut stl = vec![0u8; 80];
    stl.extend(12u32.to_le_bytes());
    stl.extend(vec![0u8; 50 * 11]);
    std::fs::write(dir.join("short.stl"), stl).unwrap();
    let cases = [
        (
            "{ kind = \"obj\", file = \"twisted.obj\", scale = 0.001 }",
            &["twisted.obj", "not the surface of a solid"][..],
        ),
        ("{ kind = \"obj\", file = \"zero_index.obj\" }", &["zero_index.obj", "line 14", "index 0"][..]),
        ("{ kind = \"stl\", file = \"short.stl\" }", &["short.stl", "12 triangles", "684 bytes"][..]),
        // These two used to try to allocate about 100 GB and abort the process.
        ("{ kind = \"random_convex\", radius = 0.001, points = 4294967295 }", &["points", "100000"][..]),
        ("{ kind = \"prism\", sides = 4294967295, radius = 0.001, height = 0.001 }", &["sides", "10000"][..]),
        ("{ kind = \"cube\", size = 1e100 }", &["extent"][..]),
    ];
    let scene = dir.join("scene.toml");
    let out = dir.join("out");
    for (shape, wants) in cases {
        std::fs::write(&scene, format!("{HEAD}shape = {shape}\n")).unwrap();
        let Err(e) = load_scene(&scene).and_then(|s| Run::start(s, &out)) else { panic!("{shape} was accepted") };
        let msg = e.to_string();
        assert!(msg.contains(&scene.display().to_string()) && msg.contains("polyhedra[0].shape"), "{msg}");
        for w in wants {
            assert!(msg.contains(w), "{w:?} not in {msg}");
        }
        assert!(!out.exists(), "{shape}: the output folder was created");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_spinning_polyhedron_of_infinite_energy_is_named_by_key() {
    // angular_velocity = 1e200 rad/s: finite, but its rotational energy is not. The runner
    // refuses the start; the body used to be picked by its translational and potential
    // energy only (here another body) and named without its key.
    let dir = common::tmp("refused", "spin");
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("scene.toml");
    let text = format!(
        "{HEAD}name = \"top\"\nshape = {{ kind = \"cube\", size = 0.002 }}\nangular_velocity = [0.0, 0.0, 1e200]\n\n\
         [[polyhedra]]\nname = \"still\"\nshape = {{ kind = \"cube\", size = 0.002 }}\nposition = [0.0, 0.0, 0.02]\n"
    );
    std::fs::write(&scene, text).unwrap();
    let out = dir.join("out");
    let Err(e) = load_scene(&scene).and_then(|s| Run::start(s, &out)) else {
        panic!("an infinite energy was accepted")
    };
    let msg = e.to_string();
    assert!(msg.contains("rotational") && msg.contains("(top, polyhedra[0])") && msg.contains("1e200"), "{msg}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
