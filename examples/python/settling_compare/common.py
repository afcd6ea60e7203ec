# What the two settling scripts share: the beads, the box, the material, the time step and
# duration, and the summary they print. Both the granula script (its Python, numpy 2) and
# the YADE script (YADE's Python, the system's numpy) import it: the beads are drawn with
# Python's own `random` (Mersenne Twister, the same numbers in every Python 3), not numpy's,
# so that both runs start from the same positions to the last bit.
import os
import random

import numpy as np

N_SIDE = 10  # beads per lattice edge: 1000 beads
SPACING = 2.5e-3  # lattice spacing (m)
JITTER = 1.5e-4  # random shift of each bead from its site, per axis (m)
R_MIN, R_MAX = 0.95e-3, 1.05e-3  # radii, uniform (m): glass beads of 1.9-2.1 mm
BOX = N_SIDE * SPACING  # side of the open box [0, BOX]^2 (m); the floor at z = 0

DENSITY = 2500.0  # kg/m3 (glass)
YOUNG = 1e7  # Pa: glass's 63 GPa softened, as DEM does, so that dt can be 5 us
POISSON = 0.3
RESTITUTION = 0.5
FRICTION = 0.5  # Coulomb coefficient (YADE: friction angle atan(0.5))
GRAVITY = 9.81

DT = 5e-6  # s: about t_c / 45 for the 0.7 m/s impacts of the highest beads
DURATION = float(os.environ.get("SETTLING_DURATION", "0.3"))  # s
STEPS = round(DURATION / DT)
SAMPLE_EVERY = 2000  # steps between two samples of the kinetic energy (0.01 s)


def beads(seed=1):
    """Positions (n, 3) and radii (n,) of the beads: a cubic lattice of N_SIDE^3 sites
    SPACING apart, the lowest SPACING/2 above the floor, each bead shifted by up to JITTER
    along each axis. No two beads touch, nor a wall (gaps of 0.1 mm and 0.05 mm at least)."""
    rng = random.Random(seed)
    ijk = np.indices((N_SIDE,) * 3).reshape(3, -1).T
    shift = np.array([[rng.uniform(-JITTER, JITTER) for _ in range(3)] for _ in ijk])
    radius = np.array([rng.uniform(R_MIN, R_MAX) for _ in ijk])
    return (ijk + 0.5) * SPACING + shift, radius


def report(code, wall, cpu, steps, position, velocity, angular_velocity, radius, contacts, samples):
    """Prints the run's summary: one `RESULT` line (read by run.sh; `wall` and `cpu` the
    seconds of the stepping, wall-clock and CPU of the process), then the kinetic energy
    sampled every SAMPLE_EVERY steps. Energies are computed here from the bodies' state, the
    same way for both codes (a sphere's moment of inertia 2/5 m r^2)."""
    mass = DENSITY * 4.0 / 3.0 * np.pi * radius**3
    kt = 0.5 * np.sum(mass * np.sum(velocity**2, axis=1))
    kr = 0.5 * np.sum(0.4 * mass * radius**2 * np.sum(angular_velocity**2, axis=1))
    z = position[:, 2]
    print(
        f"RESULT code={code} n={len(radius)} steps={steps} dt={DT:g} wall_s={wall:.2f} cpu_s={cpu:.2f} "
        f"ns_per_bead_step={1e9 * wall / steps / len(radius):.0f} "
        f"cpu_ns_per_bead_step={1e9 * cpu / steps / len(radius):.0f} "
        f"ke_translational_J={kt:.3e} ke_rotational_J={kr:.3e} mean_z_mm={1e3 * z.mean():.3f} "
        f"top_z_mm={1e3 * z.max():.3f} contacts={contacts}"
    )
    for t, ke in samples:
        print(f"SAMPLE code={code} t={t:.4f} ke_translational_J={ke:.4e}")
