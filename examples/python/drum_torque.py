#!/usr/bin/env python3
"""The torque and the dynamic angle of repose of a rotating drum's charge, from the output
folder of `granula run examples/scenes/drum_lifters_md.toml` (or any scene with a drum
named "drum" turning about the y axis, `wall_loads` and `trajectories` of all its beads).

Prints, averaged from `--from` seconds on:
- the torque about the drum's axis (ty of wall_loads.csv: the drum's reference point is on
  its axis), and the power the drive delivers;
- the gravity torque of the charge, M g x_cm, which a steady rotation balances;
- the dynamic angle of repose β from the charge's centroid: for a bed with a flat free
  surface, the centroid lies on the radius normal to the surface, so β = atan(|x_cm| / |z_cm|)
  (the axis at the origin, g along −z).

The beads' masses are read from the scene's density and each bead's radius is not in the
trajectories, so the script takes the mean mass M/N from the scene's `--mass` option
(default: glass of radius 3 mm).

Usage: python3 drum_torque.py OUTPUT_FOLDER [--from 1.0] [--mass KG] [--wall drum]
Only the standard library is needed.
"""

import argparse
import csv
import math
from collections import defaultdict
from pathlib import Path


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    p.add_argument("--from", dest="start", type=float, default=1.0, help="start of the average (s)")
    p.add_argument("--mass", type=float, default=2500.0 * 4.0 / 3.0 * math.pi * 0.003**3, help="mean bead mass (kg)")
    p.add_argument("--wall", default="drum", help="the drum's name in wall_loads.csv")
    a = p.parse_args()

    torque, power = {}, {}
    with open(a.out / "wall_loads.csv") as f:
        for row in csv.DictReader(f):
            t = float(row["time"])
            if row["wall"] == a.wall and t >= a.start:
                torque[t] = float(row["ty"])
                power[t] = float(row["power"])
    sums = defaultdict(lambda: [0.0, 0.0, 0])
    with open(a.out / "trajectories.csv") as f:
        for row in csv.DictReader(f):
            t = float(row["time"])
            if t >= a.start:
                s = sums[t]
                s[0] += float(row["x"])
                s[1] += float(row["z"])
                s[2] += 1
    n = max(s[2] for s in sums.values())
    x_cm = mean(s[0] / s[2] for s in sums.values())
    z_cm = mean(s[1] / s[2] for s in sums.values())
    weight = n * a.mass * 9.81
    beta = math.degrees(math.atan2(abs(x_cm), abs(z_cm)))
    print(f"{n} beads, averages from t = {a.start} s over {len(torque)} load rows and {len(sums)} frames")
    print(f"torque about the axis   {mean(torque.values()):.4e} N m")
    print(f"gravity torque M g x_cm {weight * x_cm:.4e} N m")
    print(f"drive power             {mean(power.values()):.4e} W")
    print(f"centroid                x = {x_cm:.4e} m, z = {z_cm:.4e} m")
    print(f"dynamic angle of repose {beta:.1f} degrees (from the centroid)")


if __name__ == "__main__":
    main()
