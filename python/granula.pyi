"""granula from Python: a scene run by the library's runner (the same steps, outputs and
checkpoints as the `granula` command), its bodies as numpy arrays, its contacts, energy
ledger and step report, and the library's errors as exceptions.

See docs/python.md in the repository.
"""

from os import PathLike
from pathlib import Path
from typing import Any, Callable, Final, Mapping, Sequence, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "Bodies",
    "CONTACT_STATUS",
    "CheckpointError",
    "Contacts",
    "FileError",
    "GranulaError",
    "Scene",
    "SceneError",
    "Simulation",
    "SimulationError",
    "StateError",
    "__version__",
]

__version__: Final[str]

CONTACT_STATUS: Final[tuple[str, str, str, str]]
"""Names of the codes of `Contacts.status`: ("open", "sticking", "sliding", "cohesive")."""

class GranulaError(Exception):
    """Base class of granula's errors; the message is the library's."""

class SceneError(GranulaError):
    """An invalid scene: TOML syntax, an unknown key, a value out of range, overlapping
    initial bodies, a packing that does not fit."""

    file: str | None
    """The scene file (`<dict>` for a scene given as a dict, `<scene>` for a `Scene`)."""
    key: str | None
    """The key path at fault, e.g. `packings[0].size.max`, when known."""
    line: int | None
    """1-based line in the scene text (for a dict: in `Simulation.scene_text`'s form; for a
    `Scene`: in `Scene.to_toml()`'s, None for an error raised by the call that added the
    table)."""

class SimulationError(GranulaError):
    """A step failed (a blow-up: a non-finite energy, a body too fast, a deep overlap, a
    runaway energy; a solver error), or the simulation was used after `close()`."""

    step: int
    """The steps taken when it happened."""

class CheckpointError(GranulaError):
    """A checkpoint that cannot be continued: damaged, of another format, distributed, or
    whose scene's mesh files changed."""

    path: str

class FileError(GranulaError):
    """A file or folder: not found, not a regular file, too large, an output folder that is
    not empty or is locked by a living run, a failed write."""

    path: str

class StateError(GranulaError, ValueError):
    """A write to the bodies' state that does not fit: wrong shape, a non-finite value, a
    change to a body that is not dynamic. Nothing is written."""

_FloatArray = npt.NDArray[np.float64]

@final
class Bodies:
    """The bodies of a simulation, walls included, one row each in storage order.

    Every attribute is a read-only numpy array. When `Simulation.views` is True it is a view
    of the library's memory (no copy: it shows the state after every later step; its base
    keeps the simulation alive); otherwise a copy taken now. Rows of shape (n, 3) are glam
    `DVec3` values, `#[repr(C)]` structs of three f64 (24 bytes, 8-byte aligned), stored
    contiguously: the array is C-contiguous float64.

    `position`, `velocity` and `angular_velocity` can be assigned a whole (n, 3) array of
    finite numbers; rows of bodies that are not dynamic must be left unchanged. The values
    take effect at the next step.
    """

    def __len__(self) -> int: ...
    @property
    def id(self) -> npt.NDArray[np.uint32]:
        """The bodies' ids (handles, as numbered by the scene), a copy."""
    @property
    def dynamic(self) -> npt.NDArray[np.bool_]:
        """True for dynamic bodies; False for walls, fixed and kinematic bodies (a copy)."""
    @property
    def position(self) -> _FloatArray:
        """Centres of mass (m), (n, 3)."""
    @position.setter
    def position(self, value: npt.ArrayLike) -> None: ...
    @property
    def velocity(self) -> _FloatArray:
        """Velocities (m/s), (n, 3)."""
    @velocity.setter
    def velocity(self, value: npt.ArrayLike) -> None: ...
    @property
    def angular_velocity(self) -> _FloatArray:
        """Angular velocities in the world frame (rad/s), (n, 3)."""
    @angular_velocity.setter
    def angular_velocity(self, value: npt.ArrayLike) -> None: ...
    @property
    def force(self) -> _FloatArray:
        """Total force on each body at the last step (N), (n, 3)."""
    @property
    def torque(self) -> _FloatArray:
        """Total torque on each body at the last step (N m), (n, 3)."""
    @property
    def orientation(self) -> _FloatArray:
        """Unit quaternions (x, y, z, w), (n, 4)."""
    @property
    def radius(self) -> _FloatArray:
        """Radii (m), (n,); for a body that is not a sphere, its bounding radius."""
    @property
    def mass(self) -> _FloatArray:
        """Masses (kg), (n,)."""

@final
class Contacts:
    """The contact points of the last step (copies). `i` and `j` are the ids of body 1 and
    body 2; the normal points from body 1 to body 2; forces act on body 2 (body 1 gets the
    opposite). Under contact dynamics the forces are the step's impulses divided by dt."""

    i: npt.NDArray[np.uint32]
    j: npt.NDArray[np.uint32]
    point: _FloatArray
    """Contact points (m), (m, 3)."""
    normal: _FloatArray
    """Unit normals from body 1 to body 2, (m, 3)."""
    force: _FloatArray
    """Force on body 2 (N), (m, 3)."""
    normal_force: _FloatArray
    """f·n (N), (m,): positive when the bodies are pushed apart."""
    tangential_force: _FloatArray
    """f − (f·n) n (N), (m, 3)."""
    overlap: _FloatArray
    """−gap (m), (m,): positive when the surfaces overlap."""
    status: npt.NDArray[np.uint8]
    """Codes into `CONTACT_STATUS`."""
    step: int
    """The step the contacts belong to."""
    published: bool
    """False when no step has run since the simulation was built or loaded."""
    def __len__(self) -> int: ...

@final
class Simulation:
    """A scene run: its world, solver, outputs and checkpoints.

    Use it from the thread that created it. Steps run without the GIL; Ctrl-C (SIGINT)
    raises KeyboardInterrupt between two steps, leaving a consistent simulation that can
    go on.
    """

    @staticmethod
    def from_scene(
        scene: str | PathLike[str] | Mapping[str, Any] | Scene,
        out: str | PathLike[str] | None = None,
        overwrite: bool = False,
    ) -> Simulation:
        """Reads a scene file, or a dict of the same structure (converted to TOML: see
        `scene_text`), or builds a `Scene` (as `Scene.build`); builds the world and solver
        and writes the initial outputs to `out` (default: a new temporary folder). A folder
        that is not empty is refused unless `overwrite`, which deletes granula's own files
        in it. Raises SceneError, FileError."""
    @staticmethod
    def load(path: str | PathLike[str], out: str | PathLike[str] | None = None) -> Simulation:
        """Continues from a checkpoint (of `save`, or the `granula` command's
        `checkpoint.bin`), writing to `out` or, by default, to the checkpoint's own folder,
        rewound to the checkpoint. Raises CheckpointError, FileError."""
    def save(self, path: str | PathLike[str]) -> None:
        """Writes a checkpoint: the same bytes as the `granula` command's for the same state
        and output folder."""
    def step(self, n: int = 1) -> None:
        """Takes n steps; ValueError beyond the scene's end. Raises SimulationError."""
    def run(
        self,
        until: float | None = None,
        every: int | None = None,
        callback: Callable[[Simulation], bool | None] | None = None,
    ) -> None:
        """Steps to the time `until` (default: the scene's end), calling `callback(sim)`
        after each step whose number is a multiple of `every`; a callback that returns
        False stops the run there, one that raises stops it with its exception. At the
        scene's end the final checkpoint is written to the output folder, as the `granula`
        command does."""
    def close(self) -> None:
        """Releases the output folder and frees the run; views already made stay readable."""
    @property
    def bodies(self) -> Bodies: ...
    @property
    def contacts(self) -> Contacts: ...
    @property
    def energy(self) -> dict[str, float]:
        """The energy ledger (J): kinetic_translational, kinetic_rotational, potential,
        elastic_stored, dissipated (and per mechanism: dissipated_normal, _sliding,
        _rolling, _twisting, _cohesion, _body_damping), external_work, and balance =
        kinetic + potential + stored + dissipated − external work (constant when the
        ledger is closed)."""
    @property
    def report(self) -> dict[str, Any]:
        """The last step's report: contacts, pairs, status counts, max_overlap(_ratio,
        _pair), broadphase_rebuilds, iterations and residual (contact dynamics),
        support_force, applied_load, support_imbalance (None under MD), the step's
        dissipated energy, stored_elastic, external_work, warnings."""
    @property
    def step_count(self) -> int: ...
    @property
    def time(self) -> float: ...
    @property
    def dt(self) -> float: ...
    @property
    def steps(self) -> int:
        """The scene's number of steps."""
    @property
    def end_time(self) -> float: ...
    @property
    def done(self) -> bool: ...
    @property
    def out_dir(self) -> Path:
        """The output folder, absolute."""
    @property
    def scene_text(self) -> str: ...
    @property
    def solver(self) -> str: ...
    @property
    def warnings(self) -> list[str]: ...
    keep_contacts: bool
    """Whether the last step of each `step`/`run` call, and every step a callback sees,
    publishes its contacts for `contacts` (default True). False saves copying the contact
    records (a few hundred bytes each) when `step(1)` is called in a tight loop."""
    @property
    def views(self) -> bool:
        """True when `bodies` gives views (the scene neither reorders nor removes bodies)."""

_Vector = npt.ArrayLike
"""Three numbers (x, y, z), as a sequence or a numpy array."""

@final
class Scene:
    """A scene built by a program: the structure of a scene file (docs/scene-format.md),
    filled by method calls instead of text, and validated as a scene file is.

    Every method returns the scene, so calls chain. A call checks its arguments at once:
    array shapes (ValueError) and the keys of its table by the scene schema (SceneError
    naming the key, e.g. `planes[2].nromal`, for an unknown keyword, a wrong type or a
    missing key); a refused call adds nothing. The values (a negative radius, a NaN, an
    unknown material, overlapping bodies, ...) are checked by `build` and `check`, with the
    checks and messages of a scene file (SceneError naming the key path and the line of
    `to_toml()`, e.g. `spheres[12].radius`).

    Bodies are numbered as in a scene file, whatever the order of the calls: spheres first
    (the k-th sphere added is body k), then planes, cylinders, lattices, packings,
    polyhedra, polygons and mesh walls.
    """

    def __init__(self, settings: Mapping[str, Any] | None = None, /, **keys: Any) -> None:
        """A scene with these `[simulation]` keys (dt or dt_fraction, end_time or steps,
        gravity, planar, ...; a dict and/or keywords), an MD solver with its defaults, no
        bodies and no outputs."""
    def simulation(self, settings: Mapping[str, Any] | None = None, /, **keys: Any) -> Scene:
        """Replaces the `[simulation]` keys."""
    def solver(self, kind: str | Mapping[str, Any] | None = None, /, **keys: Any) -> Scene:
        """Replaces the `[solver]`: `kind` ("md", the default, or "nscd") with its keys, or
        a dict of them (normal, damping, tangential, integrator, skin, threads, ...)."""
    def output(self, settings: Mapping[str, Any] | None = None, /, **keys: Any) -> Scene:
        """Replaces the `[output]` keys, e.g. `series={"every": 500}, vtk={"every": 5000}`."""
    def material(self, name: str, **keys: Any) -> Scene:
        """Appends a `[[materials]]` table (density, young_modulus, poisson_ratio,
        restitution, friction, ...); the first material is that of the bodies that name
        none (without any, a glass-like default)."""
    def pair(self, first: str, second: str, **keys: Any) -> Scene:
        """Appends a `[[pairs]]` table: values for this pair of materials (friction,
        restitution, ...) instead of their mixing."""
    def spheres(
        self,
        position: npt.ArrayLike,
        radius: npt.ArrayLike,
        velocity: npt.ArrayLike | None = None,
        angular_velocity: npt.ArrayLike | None = None,
        *,
        name: str | Sequence[str | None] | None = None,
        **keys: Any,
    ) -> Scene:
        """Appends spheres, one per row of `position` ((n, 3), or (3,) for one sphere):
        `radius` (n,) or one number for all; `velocity` and `angular_velocity` (n, 3), or
        (3,) for all (default zero); `name` a str for one sphere or a sequence of n (str or
        None). The other `[[spheres]]` keys (material, motion, force, torque, mass,
        lock_rotation, lock_axes) are the same for all the spheres of the call. The arrays
        go into the scene without TOML text: 10^6 spheres take about half a second."""
    def plane(self, point: _Vector, normal: _Vector, **keys: Any) -> Scene:
        """Appends an infinite plane wall through `point`, `normal` pointing to the
        particles; other `[[planes]]` keys: name, material, motion, velocity, mass, ..."""
    def cylinder(self, center: _Vector, axis: _Vector, radius: float, **keys: Any) -> Scene:
        """Appends a cylindrical wall; other `[[cylinders]]` keys: length (default
        infinite), inside (default True), name, material, motion, angular_velocity, ..."""
    def polyhedron(
        self,
        position: _Vector,
        shape: Mapping[str, Any] | None = None,
        *,
        vertices: npt.ArrayLike | None = None,
        faces: npt.ArrayLike | None = None,
        **keys: Any,
    ) -> Scene:
        """Appends a polyhedron with its centre of mass at `position`: of a `shape` of the
        scene format (`{"kind": "cube", "size": 0.003}`, `{"kind": "obj", "file": ...}`;
        mesh files relative to the working folder), or of a closed triangle mesh,
        `vertices` (k, 3) and integer `faces` (m, 3), counter-clockwise seen from outside
        (the scene's `kind = "mesh"`). Other `[[polyhedra]]` keys: rotation, velocity,
        angular_velocity, material, motion, name."""
    def add(self, kind: str, settings: Mapping[str, Any] | None = None, /, **keys: Any) -> Scene:
        """Appends a table to the scene's array `kind`, as a scene file writes it:
        "lattices", "packings", "loads", "feeds", "outlets", "meshes", "polygons" (or
        "materials", "pairs", "spheres", "planes", "cylinders", "polyhedra")."""
    def to_toml(self) -> str:
        """The scene as TOML text, the spheres last: what `granula run` reads (with
        `granula run`, it gives the same run bit for bit), and a built simulation's
        `scene_text`."""
    def check(self) -> int:
        """Validates the scene as `build` does, without running it; returns the number of
        bodies. Raises SceneError."""
    def build(self, out: str | PathLike[str] | None = None, overwrite: bool = False) -> Simulation:
        """Validates the scene and starts its run, writing the initial outputs to `out`
        (default: a new temporary folder); `Simulation.from_scene(scene, out)` does the
        same. Raises SceneError, FileError."""
