# 1000 glass beads settling in an open box, built with granula's Python builder
# (granula.Scene): Hertz-Mindlin contacts with Tsuji's damping, on one thread.
# YADE's run of the same settling is yade_settling.py; run.sh runs both.
#
#   python examples/python/settling_compare/granula_settling.py
import tempfile
import time

import numpy as np

import common as c
import granula

position, radius = c.beads()
scene = granula.Scene(dt=c.DT, steps=c.STEPS, gravity=[0, 0, -c.GRAVITY])
# YADE's Law2_ScGeom_MindlinPhys_Mindlin with `en`: Hertz, Mindlin's tangential stiffness,
# Tsuji's normal dashpot and the same dashpot tangentially.
scene.solver("md", normal="hertz", damping="tsuji", tangential="cundall_strack",
             tangential_damping="ratio", tangential_damping_ratio=1.0, threads=1)
scene.material("glass", density=c.DENSITY, young_modulus=c.YOUNG, poisson_ratio=c.POISSON,
               restitution=c.RESTITUTION, friction=c.FRICTION)
scene.plane([0, 0, 0], [0, 0, 1], name="floor")
for axis in np.eye(3)[:2]:
    scene.plane([0, 0, 0], axis).plane(c.BOX * axis, -axis)
scene.spheres(position, radius)

samples = []
with tempfile.TemporaryDirectory() as out:
    sim = scene.build(out=out)
    start, cpu = time.perf_counter(), time.process_time()
    sim.run(every=c.SAMPLE_EVERY,
            callback=lambda s: samples.append((s.time, s.energy["kinetic_translational"])))
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    b, touching = sim.bodies, int((sim.contacts.overlap > 0).sum())
    beads = b.dynamic
    c.report("granula", wall, cpu, sim.step_count, b.position[beads], b.velocity[beads],
             b.angular_velocity[beads], b.radius[beads], touching, samples)
    sim.close()
