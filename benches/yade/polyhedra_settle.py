# Settling of random convex polyhedra in YADE, the peer run of granula's
# `polyhedra_bench` benchmark (same lattice, sizes, material and time step).
#
#   yade -n -x -j1 benches/yade/polyhedra_settle.py N STEPS
#
# n = round(N^(1/3)) bodies per lattice edge, each a random convex polyhedron of
# yade.polyhedra_utils fitted in a 0.9 mm box (its own seed), centres 0.88 mm apart
# and 1 mm above a floor wall; E = 1e8 Pa, nu = 0.3, friction angle 0.5 rad,
# 2500 kg/m3, YADE's volumetric Polyhedra law, Newton's local damping 0.3, gravity
# 9.81 m/s2, dt = 1e-6 s. 200 steps let the bodies fall into contact, then STEPS
# steps are timed. One line is printed: wall time, wall and CPU ns per particle-step
# (CPU time of the process: the figure to trust on a loaded machine), real
# interactions, those with a positive overlap volume (pairs in contact: YADE keeps an
# interaction real while the bodies' boxes overlap) and the kinetic energy at the end.
# The contact stiffnesses YADE derives for these materials are printed too (kn on the
# overlap volume, N/m3; ks, N/m): granula's `polyhedra_bench --volumetric` uses them.
import random
import sys
import time

from yade import polyhedra_utils

bodies_wanted = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
timed_steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200

SIZE = 1e-3          # lattice unit (m)
SPACING = 0.88 * SIZE
EXTENT = 0.9 * SIZE  # each body's bounding box edge
SETTLE_STEPS = 200

material = PolyhedraMat(young=1e8, poisson=0.3, frictionAngle=0.5, density=2500)
O.materials.append(material)

per_edge = int(round(bodies_wanted ** (1.0 / 3.0)))
random.seed(1)
for i in range(per_edge):
    for j in range(per_edge):
        for k in range(per_edge):
            body = polyhedra_utils.polyhedra(material, size=(EXTENT, EXTENT, EXTENT),
                                             seed=random.randint(0, 10 ** 6))
            body.state.pos = ((i + 0.5) * SPACING, (j + 0.5) * SPACING, (k + 0.5) * SPACING + SIZE)
            O.bodies.append(body)
particles = len(O.bodies)
O.bodies.append(utils.wall(0, axis=2, sense=1, material=material))

O.engines = [
    ForceResetter(),
    InsertionSortCollider([Bo1_Polyhedra_Aabb(), Bo1_Wall_Aabb()], verletDist=1e-4),
    InteractionLoop(
        [Ig2_Polyhedra_Polyhedra_PolyhedraGeom(), Ig2_Wall_Polyhedra_PolyhedraGeom()],
        [Ip2_PolyhedraMat_PolyhedraMat_PolyhedraPhys()],
        [Law2_PolyhedraGeom_PolyhedraPhys_Volumetric()],
    ),
    NewtonIntegrator(damping=0.3, gravity=(0, 0, -9.81)),
]
O.dt = 1e-6

O.run(SETTLE_STEPS, True)
start, cpu_start = time.time(), time.process_time()
O.run(timed_steps, True)
wall, cpu = time.time() - start, time.process_time() - cpu_start

faces = [len(b.shape.GetSurfaceTriangulation()) // 3 for b in O.bodies if b.id < particles]
contacts = sum(1 for i in O.interactions if i.isReal)
overlapping = sum(1 for i in O.interactions if i.isReal and i.geom.penetrationVolume > 0)
stiffness = [(i.phys.kn, i.phys.ks) for i in O.interactions if i.isReal][:1]
per_particle_step = 1e9 / (timed_steps * particles)
print("RESULT yade-polyhedra N=%d steps=%d wall_s=%.3f ns_per_particle_step=%.0f "
      "cpu_ns_per_particle_step=%.0f contacts=%d overlapping=%d ke_end=%.6e mean_faces=%.1f kn_ks=%s"
      % (particles, timed_steps, wall, wall * per_particle_step, cpu * per_particle_step,
         contacts, overlapping, utils.kineticEnergy(), sum(faces) / float(len(faces)), stiffness))
exit()
