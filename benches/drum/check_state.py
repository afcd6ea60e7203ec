#!/usr/bin/env python3
"""Compares the charge of the drum benchmark as granula and LIGGGHTS left it.

usage: check_state.py LABEL=FILE [LABEL=FILE ...]

Each FILE is a granula trajectories.csv (its last output step is read) or a dump of
LIGGGHTS' `write_dump ... custom id radius x y z vx vy vz omegax omegay omegaz`. For
granula the radii are read from the drum.data next to the trajectories' folder or, failing
that, in the current folder (body i is atom i + 1 there). Prints one line per file,
with every figure computed here the same way for both codes:

  beads           beads read
  step            the state's step (granula: its time over the time step 2e-5 s;
                  LIGGGHTS: the dump's TIMESTEP; both count from their run's start)
  E_t, E_r        translational and rotational kinetic energy (J), solid spheres of
                  density 2500 kg/m^3
  pairs/bead      bead-bead pairs whose centres are closer than the sum of their radii,
                  per bead (each pair once; twice this is the mean bead-bead coordination)
  x_cm, z_cm      the charge's centroid in the cross-section (mm; the axis is y)
  angle           the centroid's angle from straight below the axis, towards -x, the
                  side the drum lifts the charge on when it turns about +y (degrees)
"""
import csv
import math
import os
import sys

DENSITY = 2500.0
DT = 2e-5


def read_radii(path):
    radii = {}
    with open(path) as f:
        lines = iter(f)
        for line in lines:
            if line.strip() == "Atoms":
                break
        for line in lines:
            w = line.split()
            if not w:
                if radii:
                    break
                continue
            radii[int(w[0])] = float(w[2]) / 2
    return radii


def read_granula(path):
    data = None
    for candidate in (os.path.join(os.path.dirname(os.path.abspath(path)), "..", "drum.data"), "drum.data"):
        if os.path.exists(candidate):
            data = candidate
            break
    if data is None:
        sys.exit("check_state.py: no drum.data for the radii of %s" % path)
    radii = read_radii(data)
    last, rows = None, []
    with open(path) as f:
        for r in csv.DictReader(f):
            t = float(r["time"])
            if last is None or t > last:
                last, rows = t, []
            if t == last:
                rows.append(r)
    beads = []
    for r in rows:
        i = int(r["body"].lstrip("#")) + 1
        beads.append((radii[i], [float(r[k]) for k in ("x", "y", "z")], [float(r[k]) for k in ("vx", "vy", "vz")],
                      [float(r[k]) for k in ("wx", "wy", "wz")]))
    return "%d" % round(last / DT), beads


def read_dump(path):
    with open(path) as f:
        lines = f.read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("ITEM: ATOMS"))
    step = next(lines[i + 1].strip() for i, l in enumerate(lines) if l.startswith("ITEM: TIMESTEP"))
    cols = lines[start].split()[2:]
    ix = {c: cols.index(c) for c in cols}
    beads = []
    for line in lines[start + 1:]:
        w = line.split()
        if len(w) != len(cols):
            continue
        beads.append((float(w[ix["radius"]]), [float(w[ix[k]]) for k in ("x", "y", "z")],
                      [float(w[ix[k]]) for k in ("vx", "vy", "vz")],
                      [float(w[ix[k]]) for k in ("omegax", "omegay", "omegaz")]))
    return step, beads


def overlapping_pairs(beads):
    cell = 2 * max(r for r, *_ in beads)
    grid = {}
    for i, (r, p, *_) in enumerate(beads):
        grid.setdefault(tuple(int(math.floor(c / cell)) for c in p), []).append(i)
    pairs = 0
    for (cx, cy, cz), members in grid.items():
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    other = grid.get((cx + dx, cy + dy, cz + dz))
                    if not other:
                        continue
                    for i in members:
                        ri, pi = beads[i][0], beads[i][1]
                        for j in other:
                            if j <= i:
                                continue
                            rj, pj = beads[j][0], beads[j][1]
                            s = ri + rj
                            d2 = (pi[0] - pj[0]) ** 2 + (pi[1] - pj[1]) ** 2 + (pi[2] - pj[2]) ** 2
                            if d2 < s * s:
                                pairs += 1
    return pairs


def summary(beads):
    et = er = m_sum = xm = zm = 0.0
    for r, p, v, w in beads:
        m = DENSITY * 4 / 3 * math.pi * r ** 3
        et += 0.5 * m * (v[0] ** 2 + v[1] ** 2 + v[2] ** 2)
        er += 0.5 * 0.4 * m * r * r * (w[0] ** 2 + w[1] ** 2 + w[2] ** 2)
        m_sum += m
        xm += m * p[0]
        zm += m * p[2]
    xm, zm = xm / m_sum, zm / m_sum
    return et, er, xm, zm, math.degrees(math.atan2(-xm, -zm))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    print("%-22s %7s %7s %11s %11s %10s %8s %8s %7s" % ("state", "beads", "step", "E_t (J)", "E_r (J)", "pairs/bead",
                                                       "x_cm", "z_cm", "angle"))
    for arg in sys.argv[1:]:
        label, _, path = arg.partition("=")
        if not os.path.exists(path):
            print("%-22s missing: %s" % (label, path))
            continue
        t, beads = read_granula(path) if path.endswith(".csv") else read_dump(path)
        et, er, xm, zm, angle = summary(beads)
        pairs = overlapping_pairs(beads)
        print("%-22s %7d %7s %11.4e %11.4e %10.3f %8.1f %8.1f %7.1f" % (label, len(beads), t, et, er, pairs / len(beads),
                                                                      xm * 1e3, zm * 1e3, angle))


if __name__ == "__main__":
    main()
