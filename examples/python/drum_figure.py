#!/usr/bin/env python3
"""A figure of a rotating drum with lifters, from the output folder of
`granula run examples/scenes/drum_lifters_md.toml`: the drum's cross-section at y = 0 as it
stands at the last snapshot of trajectories.csv, the beads coloured by speed, and the
torque the charge puts on the drum (wall_loads.csv) against time.

The drum is read from its STL file (binary), scaled as in the scene, and turned by the
scene's angular velocity about the y axis through the origin, as the runner turns it.
Writes an SVG; only the standard library is needed.

Usage: python3 drum_figure.py OUTPUT_FOLDER STL_FILE FIGURE.svg
           [--scale 0.001] [--omega 3.0] [--radius 0.003] [--wall drum]
"""

import argparse
import csv
import math
import struct
from pathlib import Path


def read_binary_stl(path, scale):
    """The triangles of a binary STL file, each as three (x, y, z) points in metres."""
    data = Path(path).read_bytes()
    (count,) = struct.unpack_from("<I", data, 80)
    triangles = []
    for k in range(count):
        values = struct.unpack_from("<12f", data, 84 + 50 * k)
        triangles.append([tuple(scale * v for v in values[3 + 3 * i : 6 + 3 * i]) for i in range(3)])
    return triangles


def section_at_y0(triangles):
    """The segments where the triangles cross the plane y = 0, as ((x, z), (x, z))."""
    segments = []
    for tri in triangles:
        points = []
        for a, b in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0])):
            if (a[1] < 0.0) != (b[1] < 0.0):
                s = a[1] / (a[1] - b[1])
                points.append((a[0] + s * (b[0] - a[0]), a[2] + s * (b[2] - a[2])))
        if len(points) == 2:
            segments.append((points[0], points[1]))
    return segments


def turned(point, angle):
    """A point (x, z) turned by `angle` about +y (x' = x cos + z sin, z' = z cos - x sin)."""
    x, z = point
    c, s = math.cos(angle), math.sin(angle)
    return (x * c + z * s, z * c - x * s)


def last_snapshot(path):
    rows, last = [], None
    with open(path) as f:
        for row in csv.DictReader(f):
            t = float(row["time"])
            if last is None or t > last:
                last, rows = t, []
            if t == last:
                v = math.sqrt(sum(float(row[k]) ** 2 for k in ("vx", "vy", "vz")))
                rows.append((float(row["x"]), float(row["z"]), v))
    return last, rows


def speed_colour(fraction):
    """Blue (slow) to red (fast) through a pale middle."""
    f = min(max(fraction, 0.0), 1.0)
    r = int(40 + 215 * f)
    b = int(255 - 215 * f)
    g = int(80 + 120 * (1.0 - abs(2.0 * f - 1.0)))
    return f"rgb({r},{g},{b})"


def section_panel(segments, beads, angle, radius, size):
    """SVG elements of the cross-section, in a square of `size` pixels."""
    extent = max(max(abs(c) for seg in segments for p in seg for c in p), 1e-9) * 1.08
    k = size / (2.0 * extent)

    def xy(p):
        return (size / 2 + k * p[0], size / 2 - k * p[1])

    vmax = max((b[2] for b in beads), default=1.0) or 1.0
    out = [f'<rect x="0" y="0" width="{size}" height="{size}" fill="white"/>']
    for x, z, v in beads:
        cx, cy = xy((x, z))
        out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{k * radius:.2f}" fill="{speed_colour(v / vmax)}"/>')
    for a, b in segments:
        (x1, y1), (x2, y2) = xy(turned(a, angle)), xy(turned(b, angle))
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="black" stroke-width="1.5"/>')
    cx, cy = xy((0.0, 0.0))
    out.append(f'<circle cx="{cx}" cy="{cy}" r="3" fill="black"/>')
    out.append(f'<text x="6" y="16" font-size="13">section y = 0; colour: speed, 0 (blue) to {vmax:.2f} m/s (red)</text>')
    return out


def torque_panel(series, left, width, height):
    """SVG elements of the torque against time."""
    t0, t1 = series[0][0], series[-1][0]
    lo, hi = min(min(v for _, v in series), 0.0), max(max(v for _, v in series), 0.0)
    span = (hi - lo) or 1.0

    def xy(t, v):
        return (left + 50 + (width - 60) * (t - t0) / ((t1 - t0) or 1.0), 20 + (height - 60) * (hi - v) / span)

    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(t, v) for t, v in series))
    x0, y0 = xy(t0, 0.0)
    x1, _ = xy(t1, 0.0)
    ya, yb = xy(t0, hi)[1], xy(t0, lo)[1]
    return [
        f'<line x1="{x0}" y1="{y0:.1f}" x2="{x1}" y2="{y0:.1f}" stroke="grey"/>',
        f'<line x1="{x0}" y1="{ya:.1f}" x2="{x0}" y2="{yb:.1f}" stroke="grey"/>',
        f'<polyline points="{points}" fill="none" stroke="darkred" stroke-width="1.5"/>',
        f'<text x="{x0 + 4}" y="{ya + 12:.1f}" font-size="12">{hi:.3f} N m</text>',
        f'<text x="{x0 + 4}" y="{yb - 4:.1f}" font-size="12">{lo:.3f} N m</text>',
        f'<text x="{x1 - 60}" y="{y0 + 16:.1f}" font-size="12">t = {t1:.2f} s</text>',
        f'<text x="{left + 50}" y="{height - 8}" font-size="13">torque of the charge on the drum about its axis (ty)</text>',
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    p.add_argument("stl", type=Path)
    p.add_argument("figure", type=Path)
    p.add_argument("--scale", type=float, default=0.001, help="the scene's mesh scale")
    p.add_argument("--omega", type=float, default=3.0, help="the drum's rate about +y (rad/s)")
    p.add_argument("--radius", type=float, default=0.003, help="the beads' radius for drawing (m)")
    p.add_argument("--wall", default="drum", help="the drum's name in wall_loads.csv")
    a = p.parse_args()

    segments = section_at_y0(read_binary_stl(a.stl, a.scale))
    time, beads = last_snapshot(a.out / "trajectories.csv")
    series = []
    with open(a.out / "wall_loads.csv") as f:
        for row in csv.DictReader(f):
            if row["wall"] == a.wall:
                series.append((float(row["time"]), float(row["ty"])))
    size, width = 420, 420
    body = section_panel(segments, beads, a.omega * time, a.radius, size)
    body += torque_panel(series, size, width, size)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size + width}" height="{size}" font-family="sans-serif">']
    svg += body + ["</svg>"]
    a.figure.write_text("\n".join(svg) + "\n")
    print(f"{a.figure}: {len(beads)} beads at t = {time} s, {len(segments)} section segments")


if __name__ == "__main__":
    main()
