#!/usr/bin/env python3
"""Writes the rotating-drum benchmark for granula and for LIGGGHTS from one set of beads.

usage: make_drum.py STEPS THREADS [--n N] [--length MM] [--warm W] [--trace K]
                    [--skin M] [--seed S] [--reorder K] [--broadphase NAME]
                    [--segment MM] [--out DIR]

Writes into DIR (default: the current folder):

  drum.stl    the drum with six lifters, ASCII STL in millimetres (both codes
              read this file; LIGGGHTS reads ASCII STL only)
  drum.toml   the granula scene: STEPS steps on THREADS solver threads
              (granula run drum.toml --out OUT --overwrite --quiet)
  drum.data   the LIGGGHTS data file (read_data; atom_style granular, SI units)
  in.drum     the LIGGGHTS input: `run ${warm}`, a dump of the beads, then
              `run ${timed}` and another dump, with the defaults warm = W and
              timed = STEPS - W (-var overrides them); `-var py P` cuts the box
              into P slabs along the drum's axis (default 1)

The drum is the profile of assets/meshes/make_drum_lifters.py (96 facets
around, six lifter bars 8 mm wide and 12 mm tall, the axis along y through the
origin), scaled by 1.5 in its cross-section: radius 150 mm, lifters 12 mm wide
and 18 mm tall. Its length is 90 mm per 10^4 beads unless --length gives it, so
that every N has the same cross-section and fill. Both end plates are closed.
The cylinder and the lifters are cut into segments of at most --segment mm
along the axis (default 30), so that no triangle runs the whole length.

N beads (default 10000) of radius uniform in [2.9, 3.1] mm start at rest on a
simple cubic lattice of spacing 1.05 times the largest diameter, each centre
moved by up to 0.02 d along each axis (seeded), at the N lowest sites inside
the drum that keep clear of the shell, the end plates and the lifters. The
drum turns at 3 rad/s about +y from the first step, under gravity -z.

The material and the contact law are those of
examples/scenes/drum_lifters_md.toml (glass: E = 5e7 Pa, nu = 0.3,
e = 0.5, mu = 0.5, rho = 2500 kg/m^3; Hertz-Mindlin with tangential
history; dt = 2e-5 s), with the normal dashpot in LIGGGHTS' form in both codes
(granula damping = "liggghts", LIGGGHTS limitForce on). README.md lists what
differs between the two codes.

--trace K writes granula's beads every K steps (default: STEPS, i.e. the start
and the end) to trajectories.csv; --skin sets both codes' neighbour skin (m);
--reorder K granula's reorder_every (0: never).
"""
import argparse
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # nothing written into assets/meshes/
sys.path.insert(0, os.path.join(HERE, "..", "..", "assets", "meshes"))
import make_drum_lifters as profile  # noqa: E402  (the drum's cross-section)

# Drum: the committed drum's cross-section, scaled.
SCALE = 1.5                                  # on the profile's radius and lifters
RADIUS = profile.RADIUS * SCALE              # mm
FACETS = profile.FACETS
LIFTERS = profile.LIFTERS
LIFTER_WIDTH = profile.LIFTER_WIDTH * SCALE  # mm
LIFTER_HEIGHT = profile.LIFTER_HEIGHT * SCALE
FOOT_OUTSIDE = 0.5 * SCALE                   # the bars' foot lies this far outside the facets
LENGTH_PER_10K = profile.LENGTH * SCALE      # mm of axis per 10^4 beads: 90 mm
OMEGA = 3.0                                  # rad/s about +y
# Beads and material (examples/scenes/drum_lifters_md.toml).
R_MIN, R_MAX = 2.9e-3, 3.1e-3                # m
DENSITY = 2500.0
YOUNG = 5e7
POISSON = 0.3
RESTITUTION = 0.5
FRICTION = 0.5
DT = 2e-5
GRAVITY = 9.81
# Start.
SPACING = 1.05 * 2 * R_MAX                   # lattice spacing (m)
JITTER = 0.02 * (R_MIN + R_MAX)              # up to 0.02 d on each coordinate (m)
CLEARANCE = R_MAX + JITTER + 0.5e-3          # centre to any wall at the start (m)
SKIN = 1e-3                                  # both codes' neighbour skin (m), about d / 6


def drum_triangles(length, segment):
    """The drum's triangles in mm: shell, lifters (cut along y into segments of at most
    `segment` mm) and two end plates (fans from the axis, as in make_drum_lifters.py)."""
    cuts = max(1, math.ceil(length / segment))
    ys = [-length / 2 + length * i / cuts for i in range(cuts + 1)]
    tris = []
    for y0, y1 in zip(ys, ys[1:]):
        back, front = profile.ring(y0, FACETS, RADIUS), profile.ring(y1, FACETS, RADIUS)
        for k in range(FACETS):
            j = (k + 1) % FACETS
            tris += [(back[k], back[j], front[j]), (back[k], front[j], front[k])]
    back, front = profile.ring(-length / 2, FACETS, RADIUS), profile.ring(length / 2, FACETS, RADIUS)
    for k in range(FACETS):
        j = (k + 1) % FACETS
        tris += [((0.0, -length / 2, 0.0), back[j], back[k]), ((0.0, length / 2, 0.0), front[k], front[j])]
    for m in range(LIFTERS):
        a = 2 * math.pi * (m + 0.5) / LIFTERS
        radial = (math.cos(a), 0.0, math.sin(a))
        side = (-math.sin(a), 0.0, math.cos(a))
        foot, top, half = RADIUS + FOOT_OUTSIDE, RADIUS - LIFTER_HEIGHT, LIFTER_WIDTH / 2

        def corner(r, s, y):
            return (r * radial[0] + s * side[0], y, r * radial[2] + s * side[2])

        for y0, y1 in zip(ys, ys[1:]):
            quads = [
                [corner(foot, -half, y0), corner(top, -half, y0), corner(top, -half, y1), corner(foot, -half, y1)],
                [corner(foot, half, y0), corner(foot, half, y1), corner(top, half, y1), corner(top, half, y0)],
                [corner(top, -half, y0), corner(top, half, y0), corner(top, half, y1), corner(top, -half, y1)],
            ]
            for q in quads:
                tris += [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
    return tris


def write_ascii_stl(path, name, tris):
    """ASCII STL with the corners in shortest round-trip form (both codes parse the text)."""
    from stl_writer import normal

    with open(path, "w") as f:
        f.write("solid %s\n" % name)
        for t in tris:
            f.write("  facet normal %r %r %r\n    outer loop\n" % normal(t))
            for p in t:
                f.write("      vertex %r %r %r\n" % p)
            f.write("    endloop\n  endfacet\n")
        f.write("endsolid %s\n" % name)


def clear_of_lifters(x, z, clearance):
    """Whether the point (x, z) of the cross-section (m) keeps `clearance` from every bar."""
    for m in range(LIFTERS):
        a = 2 * math.pi * (m + 0.5) / LIFTERS
        u = (x * math.cos(a) + z * math.sin(a)) * 1e3      # along the bar's radius (mm)
        s = (-x * math.sin(a) + z * math.cos(a)) * 1e3     # across it
        du = max(RADIUS - LIFTER_HEIGHT - u, 0.0, u - RADIUS - FOOT_OUTSIDE)
        ds = max(abs(s) - LIFTER_WIDTH / 2, 0.0)
        if math.hypot(du, ds) < clearance * 1e3:
            return False
    return True


def generate(n, length, seed):
    """The beads at rest at the N lowest free lattice sites: a list of (radius, position,
    velocity, angular velocity), SI units."""
    inner = RADIUS * math.cos(math.pi / FACETS) * 1e-3      # the facets' distance from the axis (m)
    half_length = length * 1e-3 / 2
    ny = int((2 * (half_length - CLEARANCE)) // SPACING) + 1
    if ny < 1:
        sys.exit("make_drum.py: the drum is too short for one lattice layer")
    reach = int(inner // SPACING) + 1
    section = []
    for k in range(-reach, reach + 1):
        for i in range(-reach, reach + 1):
            x, z = i * SPACING, k * SPACING
            if math.hypot(x, z) <= inner - CLEARANCE and clear_of_lifters(x, z, CLEARANCE):
                section.append((z, abs(x), x))
    section.sort()
    if len(section) * ny < n:
        sys.exit("make_drum.py: %d beads do not fit (%d sites); give a longer --length" % (n, len(section) * ny))
    ys = [(j - (ny - 1) / 2) * SPACING for j in range(ny)]
    sites = [(x, y, z) for z, _, x in section for y in ys][:n]
    rng = random.Random(seed)
    beads = []
    for x, y, z in sites:
        r = rng.uniform(R_MIN, R_MAX)
        p = (x + rng.uniform(-JITTER, JITTER), y + rng.uniform(-JITTER, JITTER), z + rng.uniform(-JITTER, JITTER))
        beads.append((r, p, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)))
    return beads



def read_dump(path):
    """The beads of a LIGGGHTS dump (columns id radius x y z vx vy vz omegax omegay omegaz),
    in atom-ID order."""
    with open(path) as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("ITEM: ATOMS")), None)
    if start is None:
        sys.exit("make_drum.py: %s is not a LIGGGHTS dump (no ITEM: ATOMS)" % path)
    cols = lines[start].split()[2:]
    need = ["id", "radius", "x", "y", "z", "vx", "vy", "vz", "omegax", "omegay", "omegaz"]
    if any(c not in cols for c in need):
        sys.exit("make_drum.py: %s lacks one of the columns %s" % (path, " ".join(need)))
    ix = [cols.index(c) for c in need]
    rows = []
    for line in lines[start + 1:]:
        w = line.split()
        if len(w) == len(cols):
            v = [w[i] for i in ix]
            rows.append((int(v[0]), float(v[1]), tuple(map(float, v[2:5])), tuple(map(float, v[5:8])),
                         tuple(map(float, v[8:11]))))
    rows.sort()
    if [r[0] for r in rows] != list(range(1, len(rows) + 1)):
        sys.exit("make_drum.py: the atom IDs of %s are not 1 to %d" % (path, len(rows)))
    return [r[1:] for r in rows]


def vec(v):
    return "[" + ", ".join(repr(float(c)) for c in v) + "]"


def write_granula(path, beads, steps, threads, trace, skin, reorder, broadphase, angle=0.0, source=None):
    """The granula scene; `angle` (rad) is the drum's turn at the start (about +y)."""
    n = len(beads)
    with open(path, "w") as f:
        f.write("# Rotating drum with lifters (written by make_drum.py; see benches/drum/README.md).\n")
        if source:
            f.write("# The state LIGGGHTS dumped to %s (t = %r s), without tangential history; the drum\n"
                    "# turned by %r rad since the start.\n" % (os.path.basename(source), angle / OMEGA, angle))
        else:
            f.write("# %d beads on a loose lattice, at rest; the drum turns from the start.\n" % n)
        f.write("# Bodies 0 to %d are the beads; the list comes first (a top-level key must come before\n"
                "# the first table).\n" % (n - 1))
        f.write("spheres = [\n")
        for r, p, v, w in beads:
            if source:
                f.write("  { radius = %r, position = %s, velocity = %s, angular_velocity = %s },\n"
                        % (r, vec(p), vec(v), vec(w)))
            else:
                f.write("  { radius = %r, position = %s },\n" % (r, vec(p)))
        f.write("]\n\n")
        f.write("[simulation]\n")
        f.write("dt = %r\n" % DT)
        f.write("steps = %d\n" % steps)
        f.write("gravity = [0.0, 0.0, %r]\n" % -GRAVITY)
        if source:
            f.write("accept_overlaps = true\n")
        f.write("energy_reads = \"when_read\"\n\n")
        f.write("[solver]\n")
        f.write("kind = \"md\"\n")
        f.write("normal = \"hertz\"\n")
        f.write("damping = \"liggghts\"\n")
        f.write("tension = \"no_attraction\"\n")
        f.write("tangential = \"cundall_strack\"\n")
        f.write("tangential_damping = \"same_damping_ratio\"\n")
        f.write("integrator = \"verlet\"\n")
        f.write("broadphase = \"%s\"\n" % broadphase)
        f.write("skin = %r\n" % skin)
        f.write("threads = %d\n" % threads)
        if reorder > 0:
            f.write("reorder_every = %d\n" % reorder)
        f.write("\n[[materials]]\n")
        f.write("name = \"glass\"\n")
        f.write("density = %r\n" % DENSITY)
        f.write("young_modulus = %r\n" % YOUNG)
        f.write("poisson_ratio = %r\n" % POISSON)
        f.write("restitution = %r\n" % RESTITUTION)
        f.write("friction = %r\n\n" % FRICTION)
        f.write("[[meshes]]\n")
        f.write("name = \"drum\"\n")
        f.write("file = \"drum.stl\"\n")
        f.write("scale = 0.001\n")
        if angle:
            f.write("rotation = [0.0, %r, 0.0]\n" % angle)
        f.write("motion = \"kinematic\"\n")
        f.write("angular_velocity = [0.0, %r, 0.0]\n\n" % OMEGA)
        f.write("[output]\n")
        f.write("series = { every = %d }\n" % steps)
        f.write("trajectories = { indices = [[0, %d]], every = %d }\n" % (n - 1, trace))


def write_data(path, beads, length):
    """LIGGGHTS data file, atom_style granular: id type diameter density x y z, then the
    velocities (id vx vy vz wx wy wz) if any bead moves."""
    half = (RADIUS + 2 * FOOT_OUTSIDE + 2.0) * 1e-3        # the turning lifters' feet stay inside
    half_y = length * 1e-3 / 2 + 2e-3
    with open(path, "w") as f:
        f.write("LIGGGHTS data file: rotating drum, %d beads (written by make_drum.py)\n\n" % len(beads))
        f.write("%d atoms\n1 atom types\n\n" % len(beads))
        f.write("%r %r xlo xhi\n%r %r ylo yhi\n%r %r zlo zhi\n\n" % (-half, half, -half_y, half_y, -half, half))
        f.write("Atoms\n\n")
        for i, (r, p, _, _) in enumerate(beads):
            f.write("%d 1 %r %r %r %r %r\n" % (i + 1, 2 * r, DENSITY, p[0], p[1], p[2]))
        if any(any(v) or any(w) for _, _, v, w in beads):
            f.write("\nVelocities\n\n")
            for i, (_, _, v, w) in enumerate(beads):
                f.write("%d %r %r %r %r %r %r\n" % ((i + 1,) + tuple(v) + tuple(w)))


def write_lammps_input(path, data, warm, timed, skin, angle=0.0, source=None):
    """The LIGGGHTS input: run warm, dump, run timed, dump. `angle` (rad): the drum's turn
    at the start, about +y."""
    period = 2 * math.pi / OMEGA
    # LIGGGHTS' `rotate ... angle` at loading (degrees) turns the mesh the way move/mesh's
    # `rotate` does, right-handed about the axis (checked with dump mesh/stl).
    turn = " rotate axis 0.0 1.0 0.0 angle %r" % math.degrees(angle) if angle else ""
    # Every number at full precision: the dump is the other code's start.
    line_format = "%d " + " ".join(["%.17g"] * 10)

    def dump(name):
        return ("write_dump      all custom %s id radius x y z vx vy vz omegax omegay omegaz modify format \"%s\""
                % (name, line_format))
    lines = [
        "# Rotating drum with lifters, LIGGGHTS 3.8 (written by make_drum.py; see benches/drum/README.md).",
        ("# From the state of %s (no tangential history), the drum turned by %r rad."
         % (os.path.basename(source), angle)) if source else "# From the lattice start, the beads at rest.",
        "# run ${warm} steps (not timed), dump the beads to warm.dump, run ${timed} steps (the",
        "# timed \"Loop time\"), dump them to end.dump. -var py P: P slabs along the axis (y).",
        "variable        warm index %d" % warm,
        "variable        timed index %d" % timed,
        "variable        py index 1",
        "variable        data index %s" % data,
        "variable        mesh index drum.stl",
        "",
        "atom_style      granular",
        "atom_modify     map array",
        "boundary        f f f",
        "newton          off",
        "communicate     single vel yes",
        "units           si",
        "processors      1 ${py} 1",
        "read_data       ${data}",
        "",
        "neighbor        %r bin" % skin,
        "neigh_modify    delay 0",
        "",
        "fix m1 all property/global youngsModulus peratomtype %r" % YOUNG,
        "fix m2 all property/global poissonsRatio peratomtype %r" % POISSON,
        "fix m3 all property/global coefficientRestitution peratomtypepair 1 %r" % RESTITUTION,
        "fix m4 all property/global coefficientFriction peratomtypepair 1 %r" % FRICTION,
        "",
        "pair_style      gran model hertz tangential history limitForce on",
        "pair_coeff      * *",
        "timestep        %r" % DT,
        "fix gravi all gravity %r vector 0.0 0.0 -1.0" % GRAVITY,
        "",
        "# The drum: the same STL as granula's, in mm; curvature 5 (degrees) joins the",
        "# 3.75-degree folds of the shell into one surface (granula joins folds under 15).",
        "fix cad all mesh/surface file ${mesh} type 1 scale 0.001%s curvature 5 curvature_tolerant yes" % turn,
        "fix drum all wall/gran model hertz tangential history mesh n_meshes 1 meshes cad limitForce on",
        "fix turn all move/mesh mesh cad rotate origin 0.0 0.0 0.0 axis 0.0 1.0 0.0 period %r" % period,
        "",
        "fix integr all nve/sphere",
        "",
        "# Thermo at the first and last step of each run only: contacts = overlapping bead pairs.",
        "compute cc all contact/atom",
        "compute nc all reduce sum c_cc",
        "variable contacts equal c_nc/2",
        "compute erot all erotate/sphere",
        "thermo_style    custom step atoms ke c_erot v_contacts",
        "thermo          1000000000",
        "thermo_modify   norm no lost warn",
        "",
        "run             ${warm}",
        dump("warm.dump"),
        "run             ${timed}",
        dump("end.dump"),
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("steps", type=int, help="granula's steps; LIGGGHTS' warm + timed")
    ap.add_argument("threads", type=int, help="granula's [solver] threads")
    ap.add_argument("--n", type=int, default=10000, help="beads (default 10000)")
    ap.add_argument("--length", type=float, help="drum length in mm (default 90 mm per 10^4 beads)")
    ap.add_argument("--warm", type=int, default=0, help="LIGGGHTS' untimed run before the timed one (default 0)")
    ap.add_argument("--trace", type=int, help="granula's trajectories interval (default STEPS)")
    ap.add_argument("--skin", type=float, default=SKIN, help="neighbour skin of both codes (m, default 1e-3)")
    ap.add_argument("--seed", type=int, default=2026, help="seed of the radii and the jitter")
    ap.add_argument("--reorder", type=int, default=20, help="granula's reorder_every (0: never)")
    ap.add_argument("--broadphase", default="linked_cells", help="granula's [solver] broadphase")
    ap.add_argument("--segment", type=float, default=30.0, help="longest segment of the shell along the axis (mm)")
    ap.add_argument("--from-dump", metavar="FILE", help="start from this LIGGGHTS dump instead of the lattice")
    ap.add_argument("--time", type=float, default=0.0, help="with --from-dump: the state's time (s), for the drum's angle")
    ap.add_argument("--out", default=".", help="output folder (default: the current one)")
    a = ap.parse_args()
    if a.steps < 1 or a.threads < 1 or a.n < 1 or not 0 <= a.warm <= a.steps or a.time < 0:
        sys.exit("make_drum.py: need STEPS >= 1, THREADS >= 1, N >= 1, 0 <= --warm <= STEPS, --time >= 0")
    os.makedirs(a.out, exist_ok=True)
    trace = a.trace if a.trace else a.steps
    if a.from_dump:
        beads = read_dump(a.from_dump)
        length = a.length if a.length else LENGTH_PER_10K * len(beads) / 1e4
        angle = OMEGA * a.time
        write_granula(os.path.join(a.out, "flow.toml"), beads, a.steps, a.threads, trace, a.skin, a.reorder,
                      a.broadphase, angle, a.from_dump)
        write_data(os.path.join(a.out, "flow.data"), beads, length)
        write_lammps_input(os.path.join(a.out, "in.flow"), "flow.data", a.warm, a.steps - a.warm, a.skin, angle,
                           a.from_dump)
        et = sum(0.5 * DENSITY * 4 / 3 * math.pi * r ** 3 * sum(c * c for c in v) for r, _, v, _ in beads)
        print("make_drum.py: %d beads from %s, t = %r s, drum turned by %.4f rad; E_t = %.6e J"
              % (len(beads), a.from_dump, a.time, angle, et))
        return
    length = a.length if a.length else LENGTH_PER_10K * a.n / 1e4
    beads = generate(a.n, length, a.seed)
    tris = drum_triangles(length, a.segment)
    write_ascii_stl(os.path.join(a.out, "drum.stl"), "drum_with_six_lifters_mm", tris)
    write_granula(os.path.join(a.out, "drum.toml"), beads, a.steps, a.threads, trace, a.skin, a.reorder,
                  a.broadphase)
    write_data(os.path.join(a.out, "drum.data"), beads, length)
    write_lammps_input(os.path.join(a.out, "in.drum"), "drum.data", a.warm, a.steps - a.warm, a.skin)
    # What was written: the fill of the settled charge, taken at a packing fraction of 0.6.
    solid = sum(4 / 3 * math.pi * r ** 3 for r, *_ in beads)
    drum = math.pi * (RADIUS * 1e-3) ** 2 * length * 1e-3
    top = max(p[2] for _, p, *_ in beads)
    mass = DENSITY * solid
    print("make_drum.py: %d beads (%.3f kg), drum R = %.0f mm, L = %.0f mm, %d triangles; lattice top at "
          "z = %.1f mm; solid fraction of the drum %.3f, fill at 0.6 packing %.0f %%"
          % (len(beads), mass, RADIUS, length, len(tris), top * 1e3, solid / drum, 100 * solid / drum / 0.6))


if __name__ == "__main__":
    main()
