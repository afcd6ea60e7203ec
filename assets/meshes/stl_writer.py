"""Writes triangles as a binary STL file, as a CAD program exports it: an 80-byte header,
the triangle count, then per triangle its unit normal, its three corners (single
precision) and a zero attribute word. Shared by the generators of this folder."""

import math
import struct


def normal(t):
    """The unit normal of triangle t = (a, b, c), right-handed from a to b to c."""
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = t
    u, v = (bx - ax, by - ay, bz - az), (cx - ax, cy - ay, cz - az)
    n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    length = math.sqrt(sum(c * c for c in n))
    return tuple(c / length for c in n)


def write_stl(path, header, tris):
    """Writes `tris` (triples of (x, y, z) corners) to `path` with the text `header`."""
    with open(path, "wb") as f:
        f.write(header.encode("ascii")[:80].ljust(80, b" "))
        f.write(struct.pack("<I", len(tris)))
        for t in tris:
            f.write(struct.pack("<3f", *normal(t)))
            for p in t:
                f.write(struct.pack("<3f", *p))
            f.write(struct.pack("<H", 0))
