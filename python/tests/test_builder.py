"""`granula.Scene`, the scene built in Python: its bodies as given, its validation (the
errors of scene files, naming the key path), its round trip through `to_toml` and the
`granula` command, the example of docs/python.md, and its type stubs."""

import ast
import re

import numpy as np
import pytest

import granula
from conftest import REPO, run_command

CUBE_VERTICES = np.array(
    [[0, 0, 0], [2, 0, 0], [2, 2, 0], [0, 2, 0], [0, 0, 2], [2, 0, 2], [2, 2, 2], [0, 2, 2]], float
) * 1e-3
CUBE_FACES = np.array(
    [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4],
     [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]]
)


def beads(n_side=6, seed=3):
    """Positions and radii of n_side³ beads (about 2 mm) on a jittered lattice 2.5 mm apart,
    the lowest 1.25 mm above z = 0: no two touch, nor a wall of the box [0, 2.5 n_side mm]²."""
    rng = np.random.default_rng(seed)
    ijk = np.indices((n_side,) * 3).reshape(3, -1).T
    position = (ijk + 0.5) * 2.5e-3 + rng.uniform(-1.5e-4, 1.5e-4, ijk.shape)
    return position, rng.uniform(0.95e-3, 1.05e-3, len(ijk))


def settling_box(end_time=0.005, n_side=6):
    """A box of beads settling under MD (Hertz, Tsuji damping), series every 50 steps."""
    position, radius = beads(n_side)
    scene = granula.Scene(dt=5e-6, end_time=end_time)
    scene.solver("md", normal="hertz", damping="tsuji", threads=1)
    scene.material("glass", density=2500, young_modulus=1e7, poisson_ratio=0.3, restitution=0.5, friction=0.5)
    side = 2.5e-3 * n_side
    scene.plane([0, 0, 0], [0, 0, 1], name="floor")
    for axis in np.eye(3)[:2]:
        scene.plane([0, 0, 0], axis).plane(side * axis, -axis)
    scene.spheres(position, radius, velocity=[0.0, 0.0, -0.2])
    scene.output(series={"every": 50})
    return scene, position, radius


def test_the_text_runs_in_the_runner_bit_for_bit(tmp_path):
    scene, _, _ = settling_box()
    sim = scene.build(out=tmp_path / "py")
    assert sim.scene_text == scene.to_toml()
    sim.run()
    assert sim.done and sim.step_count == 1000
    path = tmp_path / "built.toml"
    path.write_text(sim.scene_text)
    run_command("run", path, "--out", tmp_path / "cli", "--quiet")
    assert (tmp_path / "py" / "series.csv").read_bytes() == (tmp_path / "cli" / "series.csv").read_bytes()
    # The runner's final state, read back, is the built simulation's, every bit.
    cli = granula.Simulation.load(tmp_path / "cli" / "checkpoint.bin", out=tmp_path / "cli_again")
    for name in ("position", "velocity", "angular_velocity", "orientation"):
        assert np.array_equal(getattr(cli.bodies, name), getattr(sim.bodies, name)), name
    # A file holding the text, read by the module, gives the same scene again.
    again = granula.Simulation.from_scene(path, out=tmp_path / "file")
    assert again.scene_text == sim.scene_text


def test_a_checkpoint_of_a_built_scene_continues(tmp_path):
    scene, _, _ = settling_box(end_time=0.002)
    whole = scene.build(out=tmp_path / "whole")
    whole.run()
    half = granula.Simulation.from_scene(scene, out=tmp_path / "half")
    half.step(200)
    half.save(tmp_path / "half.bin")
    half.close()
    rest = granula.Simulation.load(tmp_path / "half.bin", out=tmp_path / "rest")
    rest.run()
    assert np.array_equal(rest.bodies.position, whole.bodies.position)
    assert rest.energy == whole.energy


def test_the_spheres_are_the_rows_given(tmp_path):
    position, radius = beads(4)
    n = len(position)
    velocity = np.random.default_rng(5).normal(size=(n, 3)) * 0.01
    scene = granula.Scene(dt=1e-5, steps=10)
    scene.material("glass", density=2500).material("steel", density=7800)
    scene.plane([0, 0, 0], [0, 0, 1])
    scene.spheres(position[:40], radius[:40], velocity[:40], angular_velocity=[0, 0, 3.0])
    names = [f"b{k}" if k % 2 else None for k in range(40, n)]
    scene.spheres(position[40:], radius[40:], velocity[40:], material="steel", name=names)
    scene.spheres([0.05, 0.05, 0.05], 1e-3, name="lone", motion="fixed")
    assert "65 spheres" in repr(scene)
    sim = scene.build(out=tmp_path / "out")
    b = sim.bodies
    ids = list(b.id)
    # Spheres first (the k-th sphere added is body k), the plane after them.
    rows = [ids.index(k) for k in range(n + 1)]
    assert np.array_equal(b.position[rows[:n]], position)
    assert np.array_equal(b.radius[rows[:n]], radius)
    assert np.array_equal(b.velocity[rows[:n]], velocity)
    assert np.array_equal(b.angular_velocity[rows[:40]], np.tile([0, 0, 3.0], (40, 1)))
    volume = 4 / 3 * np.pi * radius**3
    assert np.allclose(b.mass[rows[:40]], 2500 * volume[:40], rtol=1e-12)
    assert np.allclose(b.mass[rows[40:n]], 7800 * volume[40:], rtol=1e-12)
    assert not b.dynamic[rows[n]] and b.dynamic[rows[:n]].all()
    text = scene.to_toml()
    assert 'name = "b41"' in text and 'name = "b40"' not in text and 'name = "lone"' in text
    assert text.count("[[spheres]]") == n + 1 and text.index("[[planes]]") < text.index("[[spheres]]")


def test_walls_polyhedra_and_other_tables(tmp_path):
    scene = granula.Scene({"dt": 1e-5}, steps=20)
    scene.solver({"kind": "md", "normal": "hertz"})
    scene.material("stone", density=2700)
    scene.cylinder([0, 0, 0], [0, 0, 1], 0.02, length=0.05, name="drum")
    scene.plane([0, 0, -0.02], [0, 0, 1])
    scene.polyhedron([0.0, 0.0, 0.0], vertices=CUBE_VERTICES, faces=CUBE_FACES, rotation=[0.1, 0, 0])
    scene.polyhedron([0.006, 0.0, 0.0], {"kind": "cube", "size": 2e-3})
    scene.add("packings", count=5, seed=2, region={"shape": "box", "min": [-0.01, -0.01, 0.005],
                                                   "max": [0.01, 0.01, 0.015]},
              size={"distribution": "uniform", "min": 5e-4, "max": 6e-4})
    scene.add("lattices", {"origin": [-0.01, -0.01, -0.015], "counts": [3, 1, 1], "spacing": 2e-3,
                           "radius": 5e-4})
    assert scene.check() == 1 + 1 + 2 + 5 + 3
    sim = scene.build(out=tmp_path / "out")
    b = sim.bodies
    # The mesh cube and the built-in cube of the same size and material weigh the same.
    mesh, cube = np.flatnonzero(b.dynamic & (b.mass > 1e-5))[:2]
    assert b.mass[mesh] == pytest.approx(2700 * 8e-9, rel=1e-12)
    assert b.mass[cube] == pytest.approx(b.mass[mesh], rel=1e-12)
    assert np.array_equal(b.position[mesh], [0.0, 0.0, 0.0])
    text = sim.scene_text
    assert 'kind = "mesh"' in text and "[[packings]]" in text and "[[lattices]]" in text
    # The text as a file gives the same bodies, and the command accepts it.
    path = _write(tmp_path / "again.toml", text)
    again = granula.Simulation.from_scene(path, out=tmp_path / "again")
    assert np.array_equal(again.bodies.position, b.position) and np.array_equal(again.bodies.mass, b.mass)
    assert "valid; 12 bodies" in run_command("check", path).stdout


def _write(path, text):
    path.write_text(text)
    return path


def test_arguments_of_the_wrong_shape_raise_value_error():
    position, radius = beads(2)
    scene = granula.Scene(dt=1e-5, steps=1)
    with pytest.raises(ValueError, match=r"position: shape \(8, 2\)"):
        scene.spheres(position[:, :2], radius)
    with pytest.raises(ValueError, match=r"radius: shape \(7,\), expected \(8,\)"):
        scene.spheres(position, radius[:7])
    with pytest.raises(ValueError, match=r"velocity: shape \(2, 3\)"):
        scene.spheres(position, radius, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="not an array of numbers"):
        scene.spheres(position, "big")
    with pytest.raises(ValueError, match="3 names for 8 spheres"):
        scene.spheres(position, radius, name=["a", "b", "c"])
    with pytest.raises(ValueError, match="one name for 8 spheres"):
        scene.spheres(position, radius, name="a")
    with pytest.raises(ValueError, match="integer indices"):
        scene.polyhedron([0, 0, 0], vertices=CUBE_VERTICES, faces=CUBE_FACES.astype(float))
    with pytest.raises(ValueError, match="not both"):
        scene.polyhedron([0, 0, 0], {"kind": "cube", "size": 1.0}, vertices=CUBE_VERTICES, faces=CUBE_FACES)
    # Nothing was added by the refused calls.
    assert scene.check() == 0 and "[[spheres]]" not in scene.to_toml()


def test_unknown_keys_are_refused_by_the_call_naming_them():
    scene = granula.Scene(dt=1e-5, steps=1)
    scene.plane([0, 0, 0], [0, 0, 1])
    cases = [
        (lambda: scene.plane([0, 0, 0], [0, 0, 1], nromal=[0, 0, 1]), "planes[1].nromal"),
        (lambda: scene.plane([0, 0, 0], [0, 1]), "planes[1].normal"),
        (lambda: scene.spheres([[0, 0, 0.01]], 1e-3, colour="red"), "spheres[0].colour"),
        (lambda: scene.spheres([[0, 0, 0.01]], 1e-3, material=3), "spheres[0].material"),
        (lambda: scene.spheres([[0, 0, 0.01]], 1e-3, motion="flying"), "spheres[0].motion"),
        (lambda: granula.Scene(dtt=1e-5), "simulation.dtt"),
        (lambda: scene.solver("md", nromal="hertz"), "solver.nromal"),
        (lambda: scene.solver("dem"), "solver.kind"),
        (lambda: scene.output(series={"every": 10, "often": True}), "output.series.often"),
        (lambda: scene.material("glass", densty=2500), "materials[0].densty"),
        (lambda: scene.add("packings", count=3), "packings[0].region"),
        (lambda: scene.add("spheres", radius=1e-3), "spheres[0].position"),
        (lambda: scene.add("nonsense", x=1), "nonsense"),
        (lambda: scene.polyhedron([0, 0, 0], {"kind": "cube", "edge": 1.0}), "polyhedra[0].shape.edge"),
        (lambda: scene.polyhedron([0, 0, 0], vertices=CUBE_VERTICES, faces=-CUBE_FACES), "polyhedra[0].shape"),
        (lambda: scene.spheres([[0, 0, 0.01]], 1e-3, mass=object()), "spheres[0].mass"),
    ]
    for call, key in cases:
        with pytest.raises(granula.SceneError) as e:
            call()
        assert e.value.key == key, (key, str(e.value))
        assert e.value.file == "<scene>" and e.value.line is None
        assert f"`{key}`" in str(e.value) or key == "solver.kind", str(e.value)
    assert scene.check() == 1  # the plane; the refused calls added nothing


def test_values_are_checked_by_the_scene_validation():
    position, radius = beads(3)

    def scene_with(**change):
        s = granula.Scene(dt=1e-5, steps=10)
        s.material("glass")
        p, r = position.copy(), radius.copy()
        if "radius" in change:
            r[12] = change["radius"]
        if "nan" in change:
            p[5, 1] = np.nan
        if "overlap" in change:
            p[7] = p[6] + [1e-3, 0, 0]
        s.spheres(p, r, material=change.get("material", "glass"))
        return s

    def error(scene):
        with pytest.raises(granula.SceneError) as e:
            scene.check()
        with pytest.raises(granula.SceneError):
            scene.build()
        lines = scene.to_toml().splitlines()
        assert e.value.file == "<scene>"
        return e.value, (lines[e.value.line - 1] if e.value.line else None)

    e, line = error(scene_with(radius=-1e-3))
    assert e.key == "spheres[12].radius" and line == "radius = -0.001", str(e)
    e, line = error(scene_with(nan=True))
    assert e.key == "spheres[5].position" and "finite" in str(e) and line.startswith("position = ["), str(e)
    e, _ = error(scene_with(material="steel"))
    assert e.key == "spheres[0].material" and "unknown material" in str(e), str(e)
    e, _ = error(scene_with(overlap=True))
    assert "spheres[7]" in str(e) and "spheres[6]" in str(e) and "overlap" in str(e), str(e)
    no_dt = granula.Scene(steps=10)
    with pytest.raises(granula.SceneError, match="dt"):
        no_dt.check()
    # An open mesh (a face left out), named by its size.
    open_mesh = granula.Scene(dt=1e-5, steps=10).polyhedron([0, 0, 0], vertices=CUBE_VERTICES, faces=CUBE_FACES[1:])
    with pytest.raises(granula.SceneError, match="mesh of 8 vertices and 11 faces") as e:
        open_mesh.check()
    assert e.value.key == "polyhedra[0].shape"


def _doc_example():
    """The code of docs/python.md's section "Building a scene in Python"."""
    text = (REPO / "docs" / "python.md").read_text()
    section = text.split("## Building a scene in Python", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_example_of_the_guide_runs(capsys):
    namespace = {}
    exec(compile(_doc_example(), "docs/python.md", "exec"), namespace)
    sim = namespace["sim"]
    assert sim.done and sim.step_count == 20000
    out = capsys.readouterr().out
    assert out.startswith("1000 beads, the highest at")
    beads_z = sim.bodies.position[sim.bodies.dynamic, 2]
    # Settled into a bed below the start's 25 mm, nearly at rest.
    assert beads_z.max() < 0.02 and beads_z.min() > 0
    assert sim.energy["kinetic_translational"] < 1e-6


def test_the_stubs_name_the_methods_of_scene():
    tree = ast.parse((REPO / "python" / "granula.pyi").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Scene")
    names = {n.name for n in cls.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("__")}
    assert names == {n for n in dir(granula.Scene) if not n.startswith("_")}
    exported = next(n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "__all__")
    assert "Scene" in ast.literal_eval(exported.value)
