#!/usr/bin/env python3
"""Writes hopper_floor.stl: the flat floor of a hopper with a circular orifice in its middle,
in millimetres, as a CAD program would export it (binary STL, single precision, one facet
normal per triangle, all facing +z).

The floor is an annulus in the plane z = 0 centred on the origin: orifice radius 12 mm
(an orifice of 24 mm), outer radius 60 mm, 72 facets around. Between the two circles it is
cut into rings whose radii grow by a constant factor, so that no triangle is much longer
than wide; each ring's quadrilaterals are split into two triangles. The orifice's rim is
the regular 72-gon inscribed in the circle, whose narrowest width is 24 cos(2.5°) =
23.98 mm.

Scaling the file by s (the scene's `scale`) scales the orifice and the plate together: the
plate stays five orifice radii wide, so one file serves a range of orifices under a
narrower hopper wall.

Usage: python3 make_hopper_floor.py [output.stl] [orifice radius mm] [outer radius mm]
"""

import math
import sys

from stl_writer import write_stl

ORIFICE_RADIUS = 12.0
OUTER_RADIUS = 60.0
FACETS = 72


def radii(inner, outer, facets):
    """Ring radii from the orifice out, each about one facet's width wider than the last."""
    growth = 1.0 + 2.0 * math.pi / facets
    count = max(1, round(math.log(outer / inner) / math.log(growth)))
    return [inner * (outer / inner) ** (i / count) for i in range(count + 1)]


def triangles(inner=ORIFICE_RADIUS, outer=OUTER_RADIUS, facets=FACETS):
    rings = [
        [(r * math.cos(2 * math.pi * k / facets), r * math.sin(2 * math.pi * k / facets), 0.0) for k in range(facets)]
        for r in radii(inner, outer, facets)
    ]
    tris = []
    for a, b in zip(rings, rings[1:]):
        for k in range(facets):
            j = (k + 1) % facets
            # Counter-clockwise seen from above: normals along +z.
            tris += [(a[k], b[k], b[j]), (a[k], b[j], a[j])]
    return tris


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "hopper_floor.stl"
    inner = float(sys.argv[2]) if len(sys.argv) > 2 else ORIFICE_RADIUS
    outer = float(sys.argv[3]) if len(sys.argv) > 3 else OUTER_RADIUS
    if not 0.0 < inner < outer:
        sys.exit("the orifice radius must be positive and smaller than the outer radius")
    tris = triangles(inner, outer)
    write_stl(path, "granula hopper floor with a circular orifice, millimetres", tris)
    print(f"{path}: {len(tris)} triangles, orifice radius {inner} mm, outer radius {outer} mm")


if __name__ == "__main__":
    main()
