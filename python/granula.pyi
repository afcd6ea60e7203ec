"""granula from Python: a scene run by the library's runner (the same steps, outputs and
checkpoints as the `granula` command), its bodies as numpy arrays, its contacts, energy
ledger and step report, and the library's errors as exceptions.

See docs/python.md in the repository.
"""

from os import PathLike
from pathlib import Path
from typing import Any, Callable, Final, Mapping, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "Bodies",
    "CONTACT_STATUS",
    "CheckpointError",
    "Contacts",
    "FileError",
    "GranulaError",
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
    """The scene file (`<dict>` for a scene given as a dict)."""
    key: str | None
    """The key path at fault, e.g. `packings[0].size.max`, when known."""
    line: int | None
    """1-based line in the scene text (for a dict: in `Simulation.scene_text`'s form)."""

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
        scene: str | PathLike[str] | Mapping[str, Any],
        out: str | PathLike[str] | None = None,
        overwrite: bool = False,
    ) -> Simulation:
        """Reads a scene file, or a dict of the same structure (converted to TOML: see
        `scene_text`), builds the world and solver and writes the initial outputs to `out`
        (default: a new temporary folder). A folder that is not empty is refused unless
        `overwrite`, which deletes granula's own files in it. Raises SceneError, FileError."""
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
