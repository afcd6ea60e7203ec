#!/usr/bin/env python3
"""Writes drum_lifters.stl: a closed drum with six lifter bars, in millimetres, as a CAD
program would export it (binary STL, single precision, one facet normal per triangle).

The drum's axis is the file's y axis, its middle at the origin: radius 100 mm, length
60 mm, 96 facets around, both end plates closed by fans of triangles. Six lifters run the
whole length, evenly spaced: bars 8 mm wide and 12 mm tall standing on the inner surface
(three faces each: two sides and a top; their ends meet the end plates).

Usage: python3 make_drum_lifters.py [output.stl]
"""

import math
import sys

from stl_writer import write_stl

RADIUS = 100.0
LENGTH = 60.0
FACETS = 96
LIFTERS = 6
LIFTER_WIDTH = 8.0
LIFTER_HEIGHT = 12.0


def ring(y, n=FACETS, r=RADIUS):
    return [(r * math.cos(2 * math.pi * k / n), y, r * math.sin(2 * math.pi * k / n)) for k in range(n)]


def triangles():
    back, front = ring(-LENGTH / 2), ring(LENGTH / 2)
    tris = []
    for k in range(FACETS):
        j = (k + 1) % FACETS
        tris += [(back[k], back[j], front[j]), (back[k], front[j], front[k])]
        tris += [((0.0, -LENGTH / 2, 0.0), back[j], back[k]), ((0.0, LENGTH / 2, 0.0), front[k], front[j])]
    for m in range(LIFTERS):
        a = 2 * math.pi * (m + 0.5) / LIFTERS
        radial = (math.cos(a), 0.0, math.sin(a))
        side = (-math.sin(a), 0.0, math.cos(a))
        # The bar's foot sits a little outside the inscribed facets so that it meets them.
        foot, top = RADIUS + 0.5, RADIUS - LIFTER_HEIGHT
        half = LIFTER_WIDTH / 2

        def corner(r, s, y):
            return (r * radial[0] + s * side[0], y, r * radial[2] + s * side[2])

        y0, y1 = -LENGTH / 2, LENGTH / 2
        quads = [
            [corner(foot, -half, y0), corner(top, -half, y0), corner(top, -half, y1), corner(foot, -half, y1)],
            [corner(foot, half, y0), corner(foot, half, y1), corner(top, half, y1), corner(top, half, y0)],
            [corner(top, -half, y0), corner(top, half, y0), corner(top, half, y1), corner(top, -half, y1)],
        ]
        for q in quads:
            tris += [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
    return tris


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "drum_lifters.stl"
    tris = triangles()
    write_stl(path, "granula drum with six lifters, millimetres", tris)
    print(f"{path}: {len(tris)} triangles")


if __name__ == "__main__":
    main()
