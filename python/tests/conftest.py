"""Shared scenes and the path of the `granula` command for the tests of the Python module."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCENES = REPO / "examples" / "scenes"


def short_settling_box(end_time=0.01, series_every=50, extra_solver=None):
    """The text of the settling box scene (800 beads, MD), cut to `end_time`."""
    text = (SCENES / "settling_box_md.toml").read_text()
    text = text.replace("end_time = 0.25", f"end_time = {end_time}")
    text = text.replace("series = { every = 500 }", f"series = {{ every = {series_every} }}")
    # No VTK frames or stress files: the tests compare the series and checkpoints.
    text = "\n".join(line for line in text.splitlines() if not line.startswith(("vtk =", "stress =")))
    if extra_solver:
        text = text.replace("skin = 1e-4", f"skin = 1e-4\n{extra_solver}")
    assert f"end_time = {end_time}" in text
    return text + "\n"


def ball_on_floor_nscd():
    """A ball dropped on a floor under contact dynamics, as a dict (0.3 s, 300 steps)."""
    return {
        "simulation": {"dt": 1e-3, "end_time": 0.3, "gravity": [0.0, 0.0, -9.81]},
        "solver": {"kind": "nscd"},
        "planes": [{"name": "floor", "point": [0.0, 0.0, 0.0], "normal": [0.0, 0.0, 1.0]}],
        "spheres": [{"name": "ball", "radius": 0.01, "position": [0.0, 0.0, 0.05]}],
        "output": {"series": {"every": 10}},
    }


def granula_command():
    """The `granula` command: $GRANULA_BIN, the workspace's release build, or `cargo run`."""
    if os.environ.get("GRANULA_BIN"):
        return [os.environ["GRANULA_BIN"]]
    built = REPO / "target" / "release" / "granula"
    if built.exists():
        return [str(built)]
    if shutil.which("cargo"):
        return ["cargo", "run", "--release", "--quiet", "--manifest-path", str(REPO / "Cargo.toml"), "--"]
    pytest.skip("no granula command (set GRANULA_BIN or build the workspace)")


def run_command(*args):
    """Runs `granula ARGS`, failing the test with its output if it fails."""
    p = subprocess.run(granula_command() + [str(a) for a in args], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return p
