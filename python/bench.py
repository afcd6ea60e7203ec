"""What the Python layer costs: `sim.step(1)` called from Python against the same steps
taken inside one call (the Rust loop), on 1000 spheres; and reading the positions of 10^6
spheres (a view) against copying them.

The spheres sit on a cubic lattice, each touching its six neighbours, without gravity: every
step costs the same (the candidate pairs and contacts do not change), so the two ways of
stepping, measured in alternating rounds (the best of each), compare like with like. One
thread, so that no thread pool wakes up between two calls.

    python python/bench.py [--big N]

Prints wall times; nothing is asserted.
"""

import argparse
import tempfile
import time

import numpy as np

import granula


def lattice_scene(n_side, steps, dt=1e-5):
    """n_side^3 spheres of 1 mm touching on a cubic lattice, at rest, no gravity (MD, Hertz,
    one thread), no outputs."""
    r = 1e-3
    return {
        "simulation": {"dt": dt, "steps": steps, "gravity": [0.0, 0.0, 0.0]},
        "solver": {"kind": "md", "normal": "hertz", "broadphase": "linked_cells", "skin": 1e-4, "threads": 1},
        "materials": [{"name": "glass", "density": 2500.0, "young_modulus": 1e7, "poisson_ratio": 0.3}],
        "lattices": [{"origin": [r, r, r], "counts": [n_side, n_side, n_side], "spacing": 2 * r, "radius": r}],
    }


def best(f, repeat=5):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", type=int, default=100, help="lattice side of the large scene (100: 10^6 spheres)")
    args = ap.parse_args()

    k = 500
    rounds = 15
    sim = granula.Simulation.from_scene(lattice_scene(10, 3 * rounds * k + 10), out=tempfile.mkdtemp(prefix="granula-bench-"))
    sim.step(10)

    def single_steps():
        for _ in range(k):
            sim.step(1)

    def without_contacts():
        sim.keep_contacts = False
        single_steps()
        sim.keep_contacts = True

    one_call, from_python, bare = [], [], []
    for _ in range(rounds):
        one_call.append(best(lambda: sim.step(k), repeat=1) / k)
        from_python.append(best(single_steps, repeat=1) / k)
        bare.append(best(without_contacts, repeat=1) / k)
    one_call, from_python, bare = min(one_call), min(from_python), min(bare)
    print(f"{len(sim.bodies)} spheres, {sim.report['contacts']} contacts: a step inside one call "
          f"{one_call * 1e6:.1f} us; sim.step(1) from Python {from_python * 1e6:.1f} us (overhead "
          f"{(from_python - one_call) * 1e6:.1f} us, {(from_python / one_call - 1) * 100:.1f} %), with "
          f"keep_contacts = False {bare * 1e6:.1f} us (overhead {(bare - one_call) * 1e6:.1f} us, "
          f"{(bare / one_call - 1) * 100:.1f} %)")
    sim.close()

    n_side = args.big
    t = time.perf_counter()
    big = granula.Simulation.from_scene(lattice_scene(n_side, 10), out=tempfile.mkdtemp(prefix="granula-bench-"))
    print(f"{len(big.bodies)} bodies built in {time.perf_counter() - t:.1f} s")
    view = best(lambda: big.bodies.position, repeat=20)
    mean = best(lambda: big.bodies.position[:, 2].mean(), repeat=5)
    copy = best(lambda: np.array(big.bodies.position), repeat=5)
    print(f"positions of {len(big.bodies)} bodies: view {view * 1e6:.1f} us, view and mean of z "
          f"{mean * 1e3:.2f} ms, copy {copy * 1e3:.2f} ms")
    big.close()


if __name__ == "__main__":
    main()
