#!/usr/bin/env python3
"""Splits a granula profile by part of the MD step.

usage: perf_split.py REPORT

REPORT is the text of `perf report --no-children --sort symbol --stdio` on a granula run
(the release binary keeps its symbol names). Each symbol's share of the samples goes to
one part, by the name of its function (inlined code counts where it was inlined):

  mesh contacts        pairs of a bead and the drum: the generic pair path of the MD
                       solver (granula_md::forces::other_pairs: the narrowphase call, the
                       merge of the contact points and the contact law on each point),
                       granula_mesh (nearest points on the triangles) and the bounding-
                       volume hierarchy walk (granula_polyhedra::bvh), the narrowphase
                       registry, the store of the points' histories
  bead-bead law        the batched contact law of sphere pairs (granula_laws,
                       granula_md::forces::batched)
  pairs and history    candidate pairs, linked cells, the contact store and sorting
  integration          velocity Verlet (granula_integrators), orientations
  other                the rest: closures the profile cannot place, the kernel, libc,
                       reading the scene, writing the outputs
"""
import re
import sys

PARTS = [
    ("mesh contacts", [r"granula_mesh::", r"granula_polyhedra::bvh", r"forces::other_pairs::",
                       r"narrowphase::registry::", r"points::PointStore"]),
    ("bead-bead law", [r"granula_laws::", r"forces::batched::"]),
    ("pairs and history", [r"granula_broadphase::", r"contact::store::", r"granula_md::pairs", r"slice::sort",
                           r"granula_core::permutation"]),
    ("integration", [r"granula_integrators::", r"math::orientations"]),
]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    shares = {name: 0.0 for name, _ in PARTS}
    shares["other"] = 0.0
    top = {name: [] for name in shares}
    line_re = re.compile(r"^\s*([0-9.]+)%\s+\[[.k]\]\s+(.*?)\s*(?:-\s+-\s*)?$")
    for line in open(sys.argv[1], errors="replace"):
        m = line_re.match(line)
        if not m:
            continue
        share, symbol = float(m.group(1)), m.group(2)
        part = next((name for name, pats in PARTS if any(re.search(p, symbol) for p in pats)), "other")
        shares[part] += share
        top[part].append((share, symbol))
    for name, share in shares.items():
        biggest = ", ".join("%s %.1f %%" % (short(s), v) for v, s in sorted(top[name], reverse=True)[:3])
        print("%-18s %5.1f %%   (%s)" % (name, share, biggest))


def short(symbol):
    """The last two path segments of a Rust symbol, without generic arguments."""
    s = re.sub(r"<[^<>]*>", "", re.sub(r"<[^<>]*>", "", symbol))
    parts = [p for p in s.split("::") if p]
    return "::".join(parts[-2:]) if parts else symbol


if __name__ == "__main__":
    main()
