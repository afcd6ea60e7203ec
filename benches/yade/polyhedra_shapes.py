# Writes the random polyhedra of `polyhedra_settle.py` (the same seeds, sizes and
# lattice order) to a text file, so that granula's `polyhedra_bench --shapes FILE`
# settles the very same bodies:
#
#   yade -n -x -j1 benches/yade/polyhedra_shapes.py N FILE
#
# One line per vertex, "body x y z", in metres: the vertex relative to the body's
# centre of mass (YADE's state.pos, the lattice site), in the world axes (the body's
# orientation applied).
import random
import sys

from yade import polyhedra_utils

bodies_wanted = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
path = sys.argv[2] if len(sys.argv) > 2 else "polyhedra_shapes.txt"

SIZE = 1e-3
EXTENT = 0.9 * SIZE

material = PolyhedraMat(young=1e8, poisson=0.3, frictionAngle=0.5, density=2500)
per_edge = int(round(bodies_wanted ** (1.0 / 3.0)))
random.seed(1)
with open(path, "w") as out:
    body = 0
    for i in range(per_edge):
        for j in range(per_edge):
            for k in range(per_edge):
                b = polyhedra_utils.polyhedra(material, size=(EXTENT, EXTENT, EXTENT),
                                              seed=random.randint(0, 10 ** 6))
                for v in b.shape.v:
                    w = b.state.ori * v
                    out.write("%d %.17g %.17g %.17g\n" % (body, w[0], w[1], w[2]))
                body += 1
print("RESULT wrote %d bodies to %s" % (body, path))
exit()
