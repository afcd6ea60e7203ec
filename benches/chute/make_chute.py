#!/usr/bin/env python3
"""Writes the chute-flow benchmark for granula and for LAMMPS from one set of positions.

usage: make_chute.py STEPS THREADS [--n N] [--layers L] [--warm W] [--every K]
                     [--seed S] [--reorder K] [--trace K] [--write-data FILE]
                     [--out DIR]
       make_chute.py STEPS THREADS --from-data FILE [--warm W] [--every K]
                     [--reorder K] [--trace K] [--out DIR]

The first form writes the lattice start into DIR (default: the current folder):

  chute.toml  the granula scene: STEPS steps on THREADS solver threads
              (granula run chute.toml --out OUT --overwrite --quiet)
  chute.lmp   the LAMMPS data file (atom_style sphere, SI units)
  in.chute    the LAMMPS input: `run ${warm}` then `run ${timed}`, with the
              defaults warm = W and timed = STEPS; `-var px P` fixes the number
              of ranks along x (default: LAMMPS chooses, never splitting z);
              with --write-data, LAMMPS then writes its final state to FILE

N spheres (default 32000) of diameter 1 mm flow down a rough base of frozen
spheres under gravity tilted by 26 degrees, periodic along x and y. The
footprint is nx x ny lattice sites with nx = 2 ny, about N / L sites (L layers,
default 40); the top layer is filled partly, at sites drawn from the seed, so
that exactly N spheres flow. The same seed draws the jitter of every centre
and the small initial velocities, so both codes start from the same numbers
(written in shortest round-trip form). README.md gives the geometry, the
contact law in both codes and how they differ.

The second form starts both codes from a state LAMMPS wrote (a data file of
`write_data`, e.g. the end of a warm-up run of in.chute with --write-data):
it reads the positions, velocities and angular velocities of every sphere and
writes into DIR

  flow.toml   the granula scene of that state (the same settings as
              chute.toml): STEPS steps on THREADS threads
  in.flow     the LAMMPS input reading FILE (`-var data` overrides the path):
              `run ${warm}` then `run ${timed}`, defaults warm = W (here 0)
              and timed = STEPS - W, so that both codes end at step STEPS

Neither code carries the tangential springs over: a data file has none, so
both start without tangential history.

--trace K adds the positions and velocities of the flowing spheres every K
steps to granula's outputs (trajectories.csv: for checks, not for timing);
--reorder K sets granula's reorder_every (0: never).
"""
import argparse
import math
import os
import random
import sys

# Spheres and material.
D = 1e-3                 # diameter (m)
R = D / 2
DENSITY = 2500.0         # kg/m^3
MASS = DENSITY * math.pi * D ** 3 / 6
# Contact law: linear spring-dashpot with a Cundall-Strack tangential spring.
KN = 1000.0              # k_n (N/m)
KT_OVER_KN = 2.0 / 7.0   # k_t / k_n
GAMMA_N = 3.8e-3         # normal dashpot (N s/m), the same for every pair
FRICTION = 0.5
# Gravity tilted about y by the chute angle, so that it drives the flow along +x.
G = 9.81
ANGLE = 26.0             # degrees
GRAVITY = (G * math.sin(math.radians(ANGLE)), 0.0, -G * math.cos(math.radians(ANGLE)))
# Lattice and start.
SPACING = 1.05 * D       # lattice spacing of the flowing and the base spheres
JITTER = 0.02 * D        # each coordinate of a centre moves by up to this much
BASE_RISE = 0.2 * D      # base centres lie between R and R + BASE_RISE above z = 0
SPEED = 0.01             # each initial velocity component in [-SPEED, SPEED] (m/s)
SKIN = 0.1 * D           # Verlet skin (m), both codes


def contact_time(m_eff):
    """Undamped duration pi sqrt(m*/k_n) of a head-on contact (s)."""
    return math.pi * math.sqrt(m_eff / KN)


def clamped_restitution(m_eff):
    """Head-on restitution of the linear spring-dashpot when the force may not pull:
    the contact ends when k_n delta + gamma_n delta' reaches zero (damped oscillator in
    closed form)."""
    eta = GAMMA_N / (2 * m_eff)
    w0 = math.sqrt(KN / m_eff)
    w = math.sqrt(w0 * w0 - eta * eta)
    t_end = (math.pi - math.atan2(2 * eta * w, w0 * w0 - 2 * eta * eta)) / w
    return math.exp(-eta * t_end) * (eta * math.sin(w * t_end) / w - math.cos(w * t_end))


TIMESTEP = 1.6e-6        # about contact_time(MASS / 2) / 50


def footprint(n, layers):
    """Lattice sites along x and y for about n / layers spheres per layer, nx = 2 ny."""
    ny = max(3, round(math.sqrt(n / (2.0 * layers))))
    return 2 * ny, ny


def generate(n, layers, seed):
    """(flowing, base, lx, ly, height): flowing and base are lists of (position,
    velocity); the box is [0, lx) x [0, ly) and every centre lies below height."""
    rng = random.Random(seed)
    nx, ny = footprint(n, layers)
    lx, ly = nx * SPACING, ny * SPACING

    def jitter():
        return rng.uniform(-JITTER, JITTER)

    base = []
    for j in range(ny):
        for i in range(nx):
            p = ((i + 0.5) * SPACING + jitter(), (j + 0.5) * SPACING + jitter(), R + rng.uniform(0.0, BASE_RISE))
            base.append((p, (0.0, 0.0, 0.0)))
    per_layer = nx * ny
    full, rest = divmod(n, per_layer)
    sites = [(i, j, k) for k in range(full) for j in range(ny) for i in range(nx)]
    if rest:
        top = [(i, j, full) for j in range(ny) for i in range(nx)]
        sites += sorted(rng.sample(top, rest), key=lambda s: (s[1], s[0]))
    z0 = R + BASE_RISE + SPACING
    flowing = []
    for i, j, k in sites:
        p = ((i + 0.5) * SPACING + jitter(), (j + 0.5) * SPACING + jitter(), z0 + k * SPACING + jitter())
        v = tuple(rng.uniform(-SPEED, SPEED) for _ in range(3))
        flowing.append((p, v))
    height = z0 + (full if rest else full - 1) * SPACING + JITTER + R
    return flowing, base, lx, ly, height


def vec(v):
    return "[" + ", ".join(repr(float(c)) for c in v) + "]"


def write_granula(path, flowing, base, xr, yr, steps, threads, every, reorder, trace, source=None):
    """flowing: (position, velocity) or (position, velocity, angular velocity) of each
    flowing sphere; base: (position, ...) of each frozen one; xr, yr: the periodic ranges
    (lo, hi) along x and y; source: the data file the state comes from, if not the
    lattice start."""
    n = len(flowing)
    with open(path, "w") as f:
        f.write("# Chute flow (written by make_chute.py; see benches/chute/README.md).\n")
        if source is not None:
            f.write("# The state LAMMPS wrote to %s, without tangential history.\n" % os.path.basename(source))
        f.write("# %d flowing spheres (bodies 0 to %d), then %d frozen base spheres; the tables\n" % (n, n - 1, len(base)))
        f.write("# follow the list (a top-level key must come before the first table).\n")
        f.write("spheres = [\n")
        for sphere in flowing:
            p, v = sphere[0], sphere[1]
            if len(sphere) > 2:
                f.write("  { radius = %r, position = %s, velocity = %s, angular_velocity = %s },\n"
                        % (R, vec(p), vec(v), vec(sphere[2])))
            else:
                f.write("  { radius = %r, position = %s, velocity = %s },\n" % (R, vec(p), vec(v)))
        for p, *_ in base:
            f.write("  { radius = %r, position = %s, motion = \"fixed\" },\n" % (R, vec(p)))
        f.write("]\n\n")
        f.write("[simulation]\n")
        f.write("dt = %r\n" % TIMESTEP)
        f.write("steps = %d\n" % steps)
        f.write("gravity = %s\n" % vec(GRAVITY))
        f.write("periodic = { x = %s, y = %s }\n" % (vec(xr), vec(yr)))
        if source is not None:
            # A flowing state: the spheres in contact overlap.
            f.write("accept_overlaps = true\n")
        f.write("energy_reads = \"when_read\"\n\n")
        f.write("[solver]\n")
        f.write("kind = \"md\"\n")
        f.write("normal = \"hooke\"\n")
        f.write("normal_stiffness = %r\n" % KN)
        f.write("damping = \"fixed\"\n")
        f.write("damping_coefficient = %r\n" % GAMMA_N)
        f.write("tension = \"no_attraction\"\n")
        f.write("tangential = \"cundall_strack\"\n")
        f.write("tangential_stiffness_ratio = %r\n" % KT_OVER_KN)
        f.write("tangential_damping = \"none\"\n")
        f.write("integrator = \"verlet\"\n")
        f.write("broadphase = \"linked_cells\"\n")
        f.write("skin = %r\n" % SKIN)
        f.write("threads = %d\n" % threads)
        if reorder > 0:
            f.write("reorder_every = %d\n" % reorder)
        f.write("\n[[materials]]\n")
        f.write("name = \"glass\"\n")
        f.write("density = %r\n" % DENSITY)
        f.write("friction = %r\n\n" % FRICTION)
        f.write("[output]\n")
        f.write("series = { every = %d }\n" % every)
        if trace > 0:
            f.write("trajectories = { indices = [[0, %d]], every = %d }\n" % (n - 1, trace))


def write_lammps_data(path, flowing, base, lx, ly, height):
    n = len(flowing)
    with open(path, "w") as f:
        f.write("LAMMPS data file: chute flow, %d flowing spheres (type 1) and %d base spheres (type 2)\n\n"
                % (n, len(base)))
        f.write("%d atoms\n2 atom types\n\n" % (n + len(base)))
        f.write("0.0 %r xlo xhi\n0.0 %r ylo yhi\n0.0 %r zlo zhi\n\n" % (lx, ly, height + D))
        f.write("Atoms # sphere\n\n")
        for i, (p, _) in enumerate(flowing + base):
            kind = 1 if i < n else 2
            f.write("%d %d %r %r %r %r %r\n" % (i + 1, kind, D, DENSITY, p[0], p[1], p[2]))
        f.write("\nVelocities\n\n")
        for i, (_, v) in enumerate(flowing + base):
            f.write("%d %r %r %r 0.0 0.0 0.0\n" % (i + 1, v[0], v[1], v[2]))


def read_lammps_data(path):
    """(flowing, base, (xlo, xhi), (ylo, yhi)) from a data file of LAMMPS' write_data
    (atom_style sphere): flowing is a list of (position, velocity, angular velocity) of
    the type-1 atoms, base the positions of the type-2 atoms, both in atom-ID order.
    Centres are wrapped into the periodic box along x and y (LAMMPS keeps them inside up
    to rounding, with image flags granula does not need)."""
    box, atoms, velocities = {}, {}, {}
    section = None
    with open(path) as f:
        next(f)  # the title line
        for line in f:
            words = line.split("#")[0].split()
            if not words:
                continue
            if len(words) == 4 and words[2:] in (["xlo", "xhi"], ["ylo", "yhi"], ["zlo", "zhi"]):
                box[words[2][0]] = (float(words[0]), float(words[1]))
                continue
            if not words[0].lstrip("-").isdigit():
                section = " ".join(words)  # e.g. "Atoms # sphere" is "Atoms" here
                continue
            if section == "Atoms":
                # id type diameter density x y z [ix iy iz]
                atoms[int(words[0])] = (int(words[1]), float(words[2]), float(words[3]),
                                        tuple(float(x) for x in words[4:7]))
            elif section == "Velocities":
                # id vx vy vz wx wy wz
                velocities[int(words[0])] = (tuple(float(x) for x in words[1:4]),
                                             tuple(float(x) for x in words[4:7]))
    if "x" not in box or "y" not in box:
        sys.exit("%s: no xlo xhi or ylo yhi line: not a LAMMPS data file?" % path)
    if not atoms:
        sys.exit("%s: no Atoms section" % path)
    if set(velocities) != set(atoms):
        sys.exit("%s: the Velocities section does not list the same atoms as the Atoms section" % path)

    def wrap(x, lo, hi):
        if lo <= x < hi:
            return x
        x = lo + (x - lo) % (hi - lo)
        return x if x < hi else lo

    flowing, base = [], []
    for i in sorted(atoms):
        kind, diameter, density, p = atoms[i]
        if kind not in (1, 2):
            sys.exit("%s: atom %d has type %d; the chute has types 1 (flow) and 2 (base)" % (path, i, kind))
        if abs(diameter - D) > 1e-12 * D or abs(density - DENSITY) > 1e-12 * DENSITY:
            sys.exit("%s: atom %d has diameter %r and density %r, not the chute's %r and %r"
                     % (path, i, diameter, density, D, DENSITY))
        p = (wrap(p[0], *box["x"]), wrap(p[1], *box["y"]), p[2])
        v, w = velocities[i]
        if kind == 1:
            flowing.append((p, v, w))
        else:
            base.append((p,))
    if not flowing:
        sys.exit("%s: no atom of type 1 (the flowing spheres)" % path)
    return flowing, base, box["x"], box["y"]


def write_lammps_input(path, steps, warm, every, write_data=None, data=None):
    """in.chute (data None: reads chute.lmp) or in.flow (reads the file `data`, `-var data`
    overrides it); write_data: the file LAMMPS writes its final state to, if any."""
    kt = KT_OVER_KN * KN
    if data is None:
        head = [
            "# Chute flow (written by make_chute.py; see benches/chute/README.md).",
            "# lmp -in in.chute [-var warm W] [-var timed T] [-var px P]",
            "variable warm index %d" % warm,
            "variable timed index %d" % steps,
            "variable px index *",
        ]
        read = "read_data chute.lmp"
    else:
        head = [
            "# Chute flow from the state in a data file of LAMMPS' write_data, without tangential",
            "# history (written by make_chute.py --from-data; see benches/chute/README.md).",
            "# lmp -in in.flow [-var data FILE] [-var warm W] [-var timed T] [-var px P]",
            "variable data index %s" % data,
            "variable warm index %d" % warm,
            "variable timed index %d" % steps,
            "variable px index *",
        ]
        read = "read_data ${data}"
    lines = head + [
        "",
        "units si",
        "atom_style sphere",
        "boundary p p fm",
        "newton off",
        "comm_modify vel yes",
        "processors ${px} * 1",
        read,
        "",
        "group flow type 1",
        "group base type 2",
        "",
        "# Linear spring k_n and constant dashpot gamma_n, contacts never pull (limit_damping);",
        "# Cundall-Strack spring k_t without dashpot, Coulomb mu.",
        "pair_style granular",
        "pair_coeff * * hooke %r %r tangential linear_history %r 0.0 %r damping velocity limit_damping"
        % (KN, GAMMA_N, kt, FRICTION),
        "",
        "neighbor %r bin" % SKIN,
        "neigh_modify delay 0 every 1 check yes exclude type 2 2",
        "timestep %r" % TIMESTEP,
        "",
        "fix integrate flow nve/sphere",
        "fix gravity flow gravity %r chute %r" % (G, ANGLE),
        "fix frozen base freeze",
        "",
        "compute ek flow ke",
        "compute er flow erotate/sphere",
        "compute vx flow reduce ave vx",
        "compute zc flow reduce ave z",
        "compute touch all contact/atom",
        "compute touching all reduce sum c_touch",
        "compute z flow reduce ave c_touch",
        "variable contacts equal c_touching/2",
        "# kinetic energies (J), mean x velocity (m/s) and height (m) of the flowing spheres,",
        "# contacts (overlapping pairs) and the flowing spheres' mean number of contacts",
        "thermo_style custom step time c_ek c_er c_vx c_zc v_contacts c_z",
        "thermo_modify norm no format float %.10g",
        "thermo %d" % every,
        "",
        "run ${warm}",
        "run ${timed}",
    ]
    if write_data is not None:
        # Positions (with image flags), velocities and angular velocities; the pair
        # coefficients stay in the input.
        lines += ["", "write_data %s nocoeff" % write_data]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("steps", type=int, help="granula's steps; LAMMPS' timed run (with --from-data: "
                    "LAMMPS' two runs together)")
    ap.add_argument("threads", type=int, help="granula's solver threads")
    ap.add_argument("--n", type=int, help="flowing spheres (default 32000)")
    ap.add_argument("--layers", type=int, help="lattice layers of the start (default 40)")
    ap.add_argument("--warm", type=int, help="LAMMPS' run before the timed one (default 100; "
                    "with --from-data 0)")
    ap.add_argument("--every", type=int, default=1000, help="steps between energy lines (default 1000)")
    ap.add_argument("--seed", type=int, help="seed of jitter, velocities and top layer (default 2026)")
    ap.add_argument("--reorder", type=int, default=20, help="granula's reorder_every (default 20; 0: never)")
    ap.add_argument("--trace", type=int, default=0, help="granula trajectories every K steps (default: none)")
    ap.add_argument("--write-data", metavar="FILE", help="in.chute ends with LAMMPS' write_data FILE")
    ap.add_argument("--from-data", metavar="FILE", help="start from this state of LAMMPS' write_data: "
                    "writes flow.toml and in.flow")
    ap.add_argument("--out", default=".", help="folder for the files written (default: current)")
    a = ap.parse_args()
    if a.from_data is not None:
        given = [k for k in ("n", "layers", "seed", "write_data") if getattr(a, k) is not None]
        if given:
            ap.error("--from-data takes the spheres from the file: drop %s"
                     % ", ".join("--" + k.replace("_", "-") for k in given))
        warm = 0 if a.warm is None else a.warm
        if a.steps < 1 or a.threads < 1 or a.every < 1 or not 0 <= warm < a.steps:
            ap.error("STEPS, THREADS and --every must be >= 1, 0 <= --warm < STEPS")
        return from_data(a.from_data, a.steps, a.threads, warm, a.every, a.reorder, a.trace, a.out)
    n = 32000 if a.n is None else a.n
    layers = 40 if a.layers is None else a.layers
    warm = 100 if a.warm is None else a.warm
    seed = 2026 if a.seed is None else a.seed
    if a.steps < 1 or a.threads < 1 or n < 1 or layers < 1 or warm < 0 or a.every < 1:
        ap.error("STEPS, THREADS, --n, --layers and --every must be >= 1, --warm >= 0")
    flowing, base, lx, ly, height = generate(n, layers, seed)
    os.makedirs(a.out, exist_ok=True)
    write_granula(os.path.join(a.out, "chute.toml"), flowing, base, (0.0, lx), (0.0, ly), a.steps, a.threads,
                  a.every, a.reorder, a.trace)
    write_lammps_data(os.path.join(a.out, "chute.lmp"), flowing, base, lx, ly, height)
    write_lammps_input(os.path.join(a.out, "in.chute"), a.steps, warm, a.every, write_data=a.write_data)
    nx, ny = footprint(n, layers)
    print("flowing spheres %d, base spheres %d, box %.4g x %.4g m (%d x %d sites), start height %.4g m"
          % (len(flowing), len(base), lx, ly, nx, ny, height))
    print("m = %.5g kg, t_c = %.4g s (dt = t_c/%.1f), restitution %.4f sphere-sphere, %.4f on the base"
          % (MASS, contact_time(MASS / 2), contact_time(MASS / 2) / TIMESTEP, clamped_restitution(MASS / 2),
             clamped_restitution(MASS)))
    print("gravity %s m/s^2; files in %s" % (vec(GRAVITY), a.out))
    return 0


def from_data(path, steps, threads, warm, every, reorder, trace, out):
    """The second form: flow.toml and in.flow from the state in `path`."""
    flowing, base, xr, yr = read_lammps_data(path)
    os.makedirs(out, exist_ok=True)
    write_granula(os.path.join(out, "flow.toml"), flowing, base, xr, yr, steps, threads, every, reorder, trace,
                  source=path)
    write_lammps_input(os.path.join(out, "in.flow"), steps - warm, warm, every, data=path)
    # Kinetic energies of the flowing spheres, solid-sphere inertia 2/5 m r^2.
    et = 0.5 * MASS * sum(c * c for _, v, _ in flowing for c in v)
    er = 0.2 * MASS * R * R * sum(c * c for _, _, w in flowing for c in w)
    vx = sum(v[0] for _, v, _ in flowing) / len(flowing)
    zc = sum(p[2] for p, _, _ in flowing) / len(flowing)
    print("flowing spheres %d, base spheres %d, box %.4g x %.4g m, from %s"
          % (len(flowing), len(base), xr[1] - xr[0], yr[1] - yr[0], path))
    print("E_t %.10g J, E_r %.10g J, mean v_x %.6g m/s, mean z %.6g m (flowing spheres)" % (et, er, vx, zc))
    print("granula %d steps on %d thread(s); LAMMPS run %d then run %d; files in %s"
          % (steps, threads, warm, steps - warm, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
