#!/usr/bin/env python3
"""Print the granula scene of the dense-gas benchmark (TOML, on standard output).

    python3 benches/gas/make_scene.py STEPS THREADS [--tsuji]
        [--energy-reads=every_step|when_read] [--broadphase=NAME] > gas.toml

The bodies come from dense_gas_10648.lmp.gz, next to this script: the LAMMPS data file
that in.gas reads, so both codes start from the same positions and velocities. The
material, time step, periodic box and neighbour skin are those of in.gas.

Options:
  --tsuji           normal dashpot of LAMMPS' `damping tsuji` (with the restitution that
                    gives LAMMPS' coefficient, and a dashpot allowed to pull) instead of
                    granula's default "calibrated" dashpot
  --energy-reads    sets [simulation] energy_reads; left out (the scene default) if absent
  --broadphase      sets [solver] broadphase; left out (the scene default) if absent
"""
import argparse
import gzip
import math
import os
import sys

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dense_gas_10648.lmp.gz")

# The physics of in.gas (SI units).
YOUNG = 5.0e7          # Pa
POISSON = 0.3
RESTITUTION = 0.9
FRICTION = 0.3
DT = 6.3857607976e-6   # s
SKIN_PER_DIAMETER = 0.1  # neighbour cutoff 1.1 D


def parse_args():
    p = argparse.ArgumentParser(description="granula scene of the dense-gas benchmark")
    p.add_argument("steps", type=int, help="steps to run")
    p.add_argument("threads", type=int, help="solver threads")
    p.add_argument("--tsuji", action="store_true",
                   help="LAMMPS' Tsuji normal damping instead of granula's calibrated one")
    p.add_argument("--energy-reads", choices=["every_step", "when_read"],
                   help="[simulation] energy_reads (default: key left out)")
    p.add_argument("--broadphase", metavar="NAME",
                   help="[solver] broadphase (default: key left out)")
    a = p.parse_args()
    if a.steps < 1:
        p.error("STEPS must be at least 1")
    if a.threads < 1:
        p.error("THREADS must be at least 1")
    return a


def read_lammps_data(path):
    """Box, and per atom (diameter, density, position, velocity, angular velocity) as the
    text written in the file (so that TOML reads the same numbers LAMMPS does)."""
    box = {}
    atoms = {}
    section = None
    with gzip.open(path, "rt") as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split()
            if len(fields) == 4 and fields[2].endswith("lo") and fields[3].endswith("hi"):
                box[fields[2][0]] = (fields[0], fields[1])
            elif fields[0] in ("Atoms", "Velocities"):
                section = fields[0]
            elif section == "Atoms":
                # atom_style sphere: id type diameter density x y z
                atoms[int(fields[0])] = {"d": fields[2], "rho": fields[3], "x": fields[4:7]}
            elif section == "Velocities":
                # id vx vy vz wx wy wz
                atom = atoms[int(fields[0])]
                atom["v"] = fields[1:4]
                atom["w"] = fields[4:7]
    if sorted(box) != ["x", "y", "z"]:
        sys.exit(f"{path}: box bounds missing")
    if any("v" not in a for a in atoms.values()):
        sys.exit(f"{path}: an atom without a velocity")
    return box, atoms


def tsuji_restitution(e):
    """The restitution that makes granula's "tsuji" dashpot equal to LAMMPS' `damping tsuji`.

    LAMMPS: eta_n = alpha(e) sqrt(m* k_n), k_n = 4/3 E* a, alpha the Tsuji (1992) polynomial.
    granula: gamma_n = 2 sqrt(5/6) beta sqrt(S_n m*), S_n = 2 E* a, beta = -ln e'/sqrt(pi^2 + ln^2 e').
    Equal when beta = alpha/sqrt(5); inverted for e'."""
    coeffs = [1.2728, -4.2783, 11.087, -22.348, 27.467, -18.022, 4.8218]
    alpha = sum(c * e ** k for k, c in enumerate(coeffs))
    beta = alpha / math.sqrt(5.0)
    return math.exp(-math.pi * beta / math.sqrt(1.0 - beta * beta))


def main():
    a = parse_args()
    box, atoms = read_lammps_data(DATA)
    diameters = {v["d"] for v in atoms.values()}
    densities = {v["rho"] for v in atoms.values()}
    if len(diameters) != 1 or len(densities) != 1:
        sys.exit(f"{DATA}: expected one diameter and one density")
    diameter = float(diameters.pop())
    radius = diameter / 2
    density = float(densities.pop())

    w = sys.stdout.write
    w("# Dense granular gas: 10648 spheres at volume fraction 0.5 in a periodic cube,\n")
    w("# DIRT's perf_mpi_scaling 'dense' case. Written by benches/gas/make_scene.py from\n")
    w("# dense_gas_10648.lmp.gz; the LAMMPS side is benches/gas/in.gas.\n\n")

    w("[simulation]\n")
    w(f"dt = {DT!r}\n")
    w(f"steps = {a.steps}\n")
    w("gravity = [0.0, 0.0, 0.0]\n")
    ranges = ", ".join(f"{ax} = [{float(box[ax][0])!r}, {float(box[ax][1])!r}]" for ax in "xyz")
    w(f"periodic = {{ {ranges} }}\n")
    if a.energy_reads:
        w(f'energy_reads = "{a.energy_reads}"\n')
    w("\n")

    w("[solver]\n")
    w('kind = "md"\n')
    w('normal = "hertz"\n')
    if a.tsuji:
        w('damping = "tsuji"      # LAMMPS\' damping tsuji\n')
        w('tension = "allow"      # LAMMPS does not clamp the normal force at zero\n')
        restitution = tsuji_restitution(RESTITUTION)
    else:
        w('damping = "calibrated"\n')
        restitution = RESTITUTION
    w('tangential = "cundall_strack"   # Mindlin stiffness from E and nu\n')
    w('tangential_damping = "same_damping_ratio"\n')
    w('integrator = "verlet"\n')
    if a.broadphase:
        w(f'broadphase = "{a.broadphase}"\n')
    w(f"skin = {SKIN_PER_DIAMETER * diameter!r}\n")
    w(f"threads = {a.threads}\n\n")

    w("[[materials]]\n")
    w('name = "glass"\n')
    w(f"density = {density!r}\n")
    w(f"young_modulus = {YOUNG!r}\n")
    w(f"poisson_ratio = {POISSON!r}\n")
    w(f"restitution = {restitution!r}\n")
    w(f"friction = {FRICTION!r}\n\n")

    w("[output]\n")
    w(f"series = {{ every = {a.steps} }}\n\n")

    for i in sorted(atoms):
        atom = atoms[i]
        w("[[spheres]]\n")
        w(f"radius = {radius!r}\n")
        w(f"position = [{', '.join(atom['x'])}]\n")
        w(f"velocity = [{', '.join(atom['v'])}]\n")
        if any(float(c) != 0.0 for c in atom["w"]):
            w(f"angular_velocity = [{', '.join(atom['w'])}]\n")
        w("\n")


if __name__ == "__main__":
    main()
