#!/usr/bin/env python3
"""Beverloo's law fitted to hopper discharges: the steady discharge rate W (kg/s) of runs of
`examples/scenes/hopper_md.toml` at several orifice diameters D, and the C and k of

    W = C rho_b sqrt(g) (D - k d)^(5/2)

fitted once by least squares on W^(2/5) = (C rho_b sqrt(g))^(2/5) (D - k d), which is
linear in D.

Each run is given as DIAMETER_MM=OUTPUT_FOLDER. From the folder it reads
- outlets.csv (cumulative mass removed against time): W is the least-squares slope of the
  removed mass, sampled every `--sample` seconds, over each window;
- stress_bed.csv (the packing fraction in a box of the bed): rho_b is the particles'
  density times the mean packing fraction over the first window.
It also prints the mass in the hopper (feeds.csv's inserted mass less the removed mass) at
each window's ends, whose height it gives as that mass over rho_b times the hopper's cross
section.

Usage: python3 hopper_beverloo.py 18=out18 24=out24 30=out30 [--window 0.5 0.8]
       [--window 0.85 1.1] [--d 0.004] [--density 2500] [--radius 0.032]
Only the standard library is needed.
"""

import argparse
import csv
import math
from pathlib import Path


def read(path, x, y):
    with open(path) as f:
        return [(float(r[x]), float(r[y])) for r in csv.DictReader(f)]


def value_at(rows, t):
    """The last value of a cumulative series at or before time t (0 before the first row)."""
    v = 0.0
    for time, value in rows:
        if time > t + 1e-9:
            break
        v = value
    return v


def slope(points):
    """The least-squares line through the points: its slope and intercept."""
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    b = sum((p[0] - mx) * (p[1] - my) for p in points) / sxx
    return b, my - b * mx


def rate(removed, window, sample):
    """The least-squares slope of the removed mass over a window (kg/s)."""
    a, b = window
    n = round((b - a) / sample)
    return slope([(a + i * sample, value_at(removed, a + i * sample)) for i in range(n + 1)])[0]


def rate_error(removed, window, sample, blocks):
    """The standard error of the window's rate from the spread of the rates over `blocks`
    equal parts of it (kg/s)."""
    a, b = window
    step = (b - a) / blocks
    parts = [rate(removed, (a + i * step, a + (i + 1) * step), sample) for i in range(blocks)]
    m = sum(parts) / blocks
    return math.sqrt(sum((x - m) ** 2 for x in parts) / (blocks - 1) / blocks)


def fit(points, rho_b, d, g=9.81):
    """C and k of Beverloo's law through (D, W) points, rho_b the bulk density."""
    beta, alpha = slope([(D, W**0.4) for D, W in points])
    return beta**2.5 / (rho_b * math.sqrt(g)), -alpha / (beta * d)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("runs", nargs="+", help="DIAMETER_MM=OUTPUT_FOLDER")
    p.add_argument("--window", nargs=2, type=float, action="append", help="seconds, from to")
    p.add_argument("--sample", type=float, default=0.002)
    p.add_argument("--blocks", type=int, default=6, help="parts of a window for the rate's error")
    p.add_argument("--d", type=float, default=0.004, help="mean particle diameter (m)")
    p.add_argument("--density", type=float, default=2500.0, help="particle density (kg/m^3)")
    p.add_argument("--radius", type=float, default=0.032, help="hopper radius (m)")
    args = p.parse_args()
    windows = args.window or [(0.5, 0.8), (0.85, 1.1)]
    g = 9.81
    fits = []
    for run in args.runs:
        d_mm, folder = run.split("=", 1)
        folder = Path(folder)
        removed = read(folder / "outlets.csv", "time", "removed_mass")
        fed = read(folder / "feeds.csv", "time", "inserted_mass")
        phi = [v for t, v in read(folder / "stress_bed.csv", "time", "packing_fraction") if windows[0][0] <= t <= windows[0][1]]
        rho_b = args.density * sum(phi) / len(phi)
        area = math.pi * args.radius**2
        print(f"D = {d_mm} mm: packing fraction {sum(phi) / len(phi):.3f}, rho_b = {rho_b:.0f} kg/m^3")
        rates, errors = [], []
        for w in windows:
            heights = [(value_at(fed, t) - value_at(removed, t)) / (rho_b * area) for t in w]
            rates.append(rate(removed, w, args.sample))
            errors.append(rate_error(removed, w, args.sample, args.blocks))
            print(
                f"  {w[0]:.2f}-{w[1]:.2f} s: W = {rates[-1]:.4f} +- {errors[-1]:.4f} kg/s, "
                f"bed {1e3 * heights[0]:.0f} -> {1e3 * heights[1]:.0f} mm"
            )
        fits.append((float(d_mm) * 1e-3, rates[0], rho_b, errors[0]))
    rho_b = sum(f[2] for f in fits) / len(fits)
    c, k = fit([(D, W) for D, W, _, _ in fits], rho_b, args.d)
    print(f"fit on the first window, rho_b = {rho_b:.0f} kg/m^3: C = {c:.3f}, k = {k:.2f}")
    # Each rate moved by its standard error, one at a time, either way.
    moved = []
    for i in range(len(fits)):
        for sign in (-1.0, 1.0):
            points = [(D, W + (sign * e if j == i else 0.0)) for j, (D, W, _, e) in enumerate(fits)]
            moved.append(fit(points, rho_b, args.d))
    print(
        f"  one rate moved by its error: C in [{min(m[0] for m in moved):.3f}, {max(m[0] for m in moved):.3f}], "
        f"k in [{min(m[1] for m in moved):.2f}, {max(m[1] for m in moved):.2f}]"
    )
    for D, W, _, _ in fits:
        model = c * rho_b * math.sqrt(g) * (D - k * args.d) ** 2.5
        print(f"  D = {1e3 * D:.0f} mm = {D / args.d:.1f} d: W = {W:.4f} kg/s, fit {model:.4f} kg/s")


if __name__ == "__main__":
    main()
