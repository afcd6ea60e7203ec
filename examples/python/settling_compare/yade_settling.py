# The settling of granula_settling.py in YADE (2023.02): the same 1000 glass beads, box,
# material, time step and duration, with YADE's Hertz-Mindlin law (Ip2_FrictMat_FrictMat_
# MindlinPhys with the restitution `en`: Tsuji's damping) on one thread, headless:
#
#   yade -n -x -j1 examples/python/settling_compare/yade_settling.py
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
import common as c  # noqa: E402

glass = O.materials.append(FrictMat(young=c.YOUNG, poisson=c.POISSON, density=c.DENSITY,
                                    frictionAngle=math.atan(c.FRICTION)))
position, radius = c.beads()
beads = O.bodies.append([utils.sphere(p, r, material=glass) for p, r in zip(position, radius)])
O.bodies.append(utils.wall(0, axis=2, sense=1, material=glass))
for axis in (0, 1):
    O.bodies.append([utils.wall(0, axis=axis, sense=1, material=glass),
                     utils.wall(c.BOX, axis=axis, sense=-1, material=glass)])

samples = []


def sample():
    ke = sum(0.5 * O.bodies[i].state.mass * O.bodies[i].state.vel.squaredNorm() for i in beads)
    samples.append((O.time, ke))


O.engines = [
    ForceResetter(),
    InsertionSortCollider([Bo1_Sphere_Aabb(), Bo1_Wall_Aabb()], verletDist=1e-4),
    InteractionLoop(
        # hertzian: a wall's radius is 1e8 times the sphere's (Hertz against a plane).
        [Ig2_Sphere_Sphere_ScGeom(), Ig2_Wall_Sphere_ScGeom(hertzian=True)],
        [Ip2_FrictMat_FrictMat_MindlinPhys(en=c.RESTITUTION)],
        [Law2_ScGeom_MindlinPhys_Mindlin()],
    ),
    NewtonIntegrator(damping=0.0, gravity=(0, 0, -c.GRAVITY)),
    PyRunner(iterPeriod=c.SAMPLE_EVERY, command="sample()"),
]
O.dt = c.DT

start, cpu = time.perf_counter(), time.process_time()
O.run(c.STEPS, True)
wall_s, cpu = time.perf_counter() - start, time.process_time() - cpu
sample()  # the end's, which the PyRunner does not reach
state = [O.bodies[i].state for i in beads]
touching = sum(1 for i in O.interactions if i.isReal and i.geom.penetrationDepth > 0)
c.report("yade", wall_s, cpu, O.iter, np.array([s.pos for s in state]), np.array([s.vel for s in state]),
         np.array([s.angVel for s in state]), radius, touching, samples)
exit()
