"""The Python module against the `granula` command, and its views, writes, errors and
interruption."""

import signal
import threading
import time

import numpy as np
import pytest

import granula
from conftest import SCENES, ball_on_floor_nscd, run_command, short_settling_box


@pytest.fixture
def sigint():
    """Python's own SIGINT handler (KeyboardInterrupt), also where the test process was
    started with SIGINT ignored (a background job of a non-interactive shell)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def box(tmp_path):
    """A 0.01 s settling box (2000 MD steps of 800 beads) written to a file."""
    path = tmp_path / "box.toml"
    path.write_text(short_settling_box())
    return path


def test_series_and_checkpoint_match_the_runner(box, tmp_path):
    cli = tmp_path / "cli"
    run_command("run", box, "--out", cli, "--quiet")
    sim = granula.Simulation.from_scene(box, out=tmp_path / "py")
    # An observer at every step: the contacts are published at each, which changes no bit.
    sim.run(every=1, callback=lambda s: None)
    assert sim.done and sim.step_count == 2000
    assert (tmp_path / "py" / "series.csv").read_bytes() == (cli / "series.csv").read_bytes()
    # The same state saved from Python is the runner's checkpoint but for the output
    # folder each stores: run again into the runner's folder to compare whole files.
    expected = (cli / "checkpoint.bin").read_bytes()
    sim.close()
    again = granula.Simulation.from_scene(box, out=cli, overwrite=True)
    again.run(every=500, callback=lambda s: None)
    assert (cli / "checkpoint.bin").read_bytes() == expected
    again.save(tmp_path / "saved.bin")
    assert (tmp_path / "saved.bin").read_bytes() == expected


def test_save_load_continues_bit_for_bit(box, tmp_path):
    whole = granula.Simulation.from_scene(box, out=tmp_path / "whole")
    whole.run()
    half = granula.Simulation.from_scene(box, out=tmp_path / "half")
    half.run(until=0.005)
    assert half.step_count == 1000
    half.save(tmp_path / "half.bin")
    half.close()
    rest = granula.Simulation.load(tmp_path / "half.bin", out=tmp_path / "rest")
    assert rest.step_count == 1000
    rest.run()
    for name in ("position", "velocity", "angular_velocity", "force"):
        assert np.array_equal(getattr(rest.bodies, name), getattr(whole.bodies, name)), name
    assert rest.energy == whole.energy


def test_load_a_checkpoint_of_the_runner(box, tmp_path):
    run_command("run", box, "--out", tmp_path / "cli", "--quiet")
    sim = granula.Simulation.load(tmp_path / "cli" / "checkpoint.bin", out=tmp_path / "py")
    assert sim.step_count == sim.steps == 2000
    assert sim.done


def test_position_is_a_view_that_follows_the_steps(box, tmp_path):
    sim = granula.Simulation.from_scene(box, out=tmp_path / "out")
    assert sim.views
    p = sim.bodies.position
    address = p.__array_interface__["data"][0]
    before = p.copy()
    sim.step(20)
    after = sim.bodies.position
    assert after.__array_interface__["data"][0] == address
    assert np.shares_memory(p, after)
    # The beads fall: the old array shows the new state, no copy was made.
    assert np.array_equal(p, after) and not np.array_equal(p, before)
    assert (p[:, 2] <= before[:, 2]).all() and (p[:, 2] < before[:, 2]).any()
    assert p.shape == (len(sim.bodies), 3) and p.dtype == np.float64
    assert p.flags.c_contiguous and p.flags.aligned and not p.flags.writeable
    assert sim.bodies.orientation.shape == (len(sim.bodies), 4)
    assert sim.bodies.radius.shape == sim.bodies.mass.shape == (len(sim.bodies),)


def test_writes_through_a_view_are_refused(box, tmp_path):
    sim = granula.Simulation.from_scene(box, out=tmp_path / "out")
    p = sim.bodies.position
    with pytest.raises(ValueError):
        p[0, 0] = 1.0
    with pytest.raises(ValueError):
        sim.bodies.mass[:] = 0.0
    with pytest.raises(AttributeError):
        sim.bodies.mass = np.ones(len(sim.bodies))


def test_setters_validate(box, tmp_path):
    sim = granula.Simulation.from_scene(box, out=tmp_path / "out")
    b = sim.bodies
    n = len(b)
    dynamic = b.dynamic
    v = np.zeros((n, 3))
    v[dynamic, 0] = 0.1
    b.velocity = v
    assert np.array_equal(b.velocity, v)
    with pytest.raises(granula.StateError, match=r"shape \(3, 3\)"):
        b.velocity = np.zeros((3, 3))
    with pytest.raises(granula.StateError):
        b.position = np.zeros(n)
    bad = b.position.copy()
    bad[-1, 2] = np.nan
    with pytest.raises(granula.StateError, match="not finite"):
        b.position = bad
    with pytest.raises(ValueError):  # StateError is also a ValueError
        b.angular_velocity = np.full((n, 3), np.inf)
    wall = b.position.copy()
    wall[np.flatnonzero(~dynamic)[0], 0] += 1.0
    with pytest.raises(granula.StateError, match="not dynamic"):
        b.position = wall
    with pytest.raises(granula.StateError):
        b.velocity = "fast"
    # Nothing was written by the refused calls; a valid write takes effect at the next step.
    assert np.array_equal(b.velocity, v)
    sim.step(1)
    assert (b.velocity[dynamic, 0] == 0.1).all()


def test_bad_scenes_raise_named_exceptions(tmp_path):
    scene = ball_on_floor_nscd()
    scene["simulation"]["tiem_step"] = 1e-3
    with pytest.raises(granula.SceneError) as e:
        granula.Simulation.from_scene(scene, out=tmp_path / "a")
    assert e.value.key == "simulation.tiem_step" and "tiem_step" in str(e.value)
    assert e.value.line is not None
    scene = ball_on_floor_nscd()
    scene["spheres"][0]["radius"] = -1.0
    with pytest.raises(granula.SceneError, match="radius"):
        granula.Simulation.from_scene(scene, out=tmp_path / "b")
    scene = ball_on_floor_nscd()
    scene["spheres"][0]["position"] = [0.0, 0.0, float("nan")]
    with pytest.raises(granula.SceneError):
        granula.Simulation.from_scene(scene, out=tmp_path / "c")
    scene["spheres"][0]["position"] = object()
    with pytest.raises(granula.SceneError, match=r"spheres\[0\].position"):
        granula.Simulation.from_scene(scene, out=tmp_path / "d")
    with pytest.raises(granula.FileError):
        granula.Simulation.from_scene(tmp_path / "missing.toml", out=tmp_path / "e")
    bad = tmp_path / "bad.toml"
    bad.write_text("[simulation\n")
    with pytest.raises(granula.SceneError) as e:
        granula.Simulation.from_scene(bad, out=tmp_path / "f")
    assert e.value.line == 1
    assert issubclass(granula.SceneError, granula.GranulaError)


def test_checkpoint_and_folder_errors(tmp_path):
    damaged = tmp_path / "damaged.bin"
    damaged.write_bytes(b"\x08\x00\x00\x00garbage garbage garbage")
    with pytest.raises(granula.CheckpointError) as e:
        granula.Simulation.load(damaged)
    assert e.value.path == str(damaged)
    sim = granula.Simulation.from_scene(ball_on_floor_nscd(), out=tmp_path / "out")
    # The folder is locked while the simulation lives, and not empty afterwards.
    with pytest.raises(granula.FileError):
        granula.Simulation.from_scene(ball_on_floor_nscd(), out=tmp_path / "out", overwrite=True)
    sim.close()
    with pytest.raises(granula.FileError, match="not empty"):
        granula.Simulation.from_scene(ball_on_floor_nscd(), out=tmp_path / "out")
    granula.Simulation.from_scene(ball_on_floor_nscd(), out=tmp_path / "out", overwrite=True)


def test_steps_beyond_the_end_and_closed_simulations(tmp_path):
    sim = granula.Simulation.from_scene(ball_on_floor_nscd(), out=tmp_path / "out")
    with pytest.raises(ValueError):
        sim.step(301)
    with pytest.raises(ValueError):
        sim.run(until=1.0)
    p = sim.bodies.position
    sim.step(10)
    sim.close()
    assert np.isfinite(p).all()  # views made before stay readable
    with pytest.raises(granula.SimulationError, match="closed"):
        sim.step(1)


def test_contacts_report_and_ledger_of_contact_dynamics(tmp_path):
    sim = granula.Simulation.from_scene(ball_on_floor_nscd(), out=tmp_path / "out")
    sim.run()
    c = sim.contacts
    assert c.published and c.step == 300 and len(c) == 1
    ids = dict(zip(sim.bodies.id, range(len(sim.bodies))))
    ball = ids[int(c.j[0])] if sim.bodies.dynamic[ids[int(c.j[0])]] else ids[int(c.i[0])]
    weight = sim.bodies.mass[ball] * 9.81
    # At rest on the floor: the contact carries the weight (mean force of the step).
    assert abs(abs(c.normal_force[0]) - weight) < 1e-6 * weight
    assert np.allclose(np.abs(c.normal[0]), [0, 0, 1])
    assert c.point.shape == (1, 3) and c.tangential_force.shape == (1, 3)
    assert granula.CONTACT_STATUS[c.status[0]] in ("sticking", "sliding")
    r = sim.report
    assert r["contacts"] == 1 and r["iterations"] >= 1
    assert r["support_imbalance"] is not None and r["support_imbalance"] < 1e-6
    e = sim.energy
    assert e["dissipated"] > 0
    assert e["balance"] == pytest.approx(
        e["kinetic_translational"] + e["kinetic_rotational"] + e["potential"] + e["elastic_stored"]
        + e["dissipated"] - e["external_work"]
    )


def test_contacts_can_be_left_unpublished(tmp_path):
    sim = granula.Simulation.from_scene(ball_on_floor_nscd(), out=tmp_path / "out")
    sim.step(200)
    assert sim.contacts.published and len(sim.contacts) == 1
    sim.keep_contacts = False
    sim.step(1)
    c = sim.contacts
    assert not c.published and len(c) == 0 and c.step == 201
    assert sim.report["contacts"] == 1  # the step itself still counts them


def test_callback_every_k_steps(tmp_path):
    sim = granula.Simulation.from_scene(ball_on_floor_nscd(), out=tmp_path / "out")
    seen = []

    def observe(s):
        seen.append((s.step_count, s.energy["kinetic_translational"], len(s.contacts)))
        return s.step_count < 200

    sim.run(every=50, callback=observe)
    assert [k for k, _, _ in seen] == [50, 100, 150, 200]
    assert sim.step_count == 200
    with pytest.raises(ZeroDivisionError):
        sim.run(every=10, callback=lambda s: 1 / 0)
    assert sim.step_count == 210  # the state of the step the callback saw


def test_keyboard_interrupt_leaves_a_simulation_that_continues(tmp_path, sigint):
    sim = granula.Simulation.from_scene(SCENES / "settling_box_md.toml", out=tmp_path / "out")
    main = threading.main_thread().ident

    def interrupt():
        time.sleep(0.5)
        signal.pthread_kill(main, signal.SIGINT)

    t = threading.Thread(target=interrupt)
    started = time.monotonic()
    t.start()
    with pytest.raises(KeyboardInterrupt):
        sim.run()
    t.join()
    assert time.monotonic() - started < 5.0
    k = sim.step_count
    assert 0 < k < sim.steps
    assert np.isfinite(sim.bodies.position).all()
    sim.step(10)
    assert sim.step_count == k + 10
    # The interrupted run continues bit for bit: a checkpoint of it resumes like any other.
    sim.save(tmp_path / "ck.bin")
    again = granula.Simulation.load(tmp_path / "ck.bin", out=tmp_path / "again")
    assert again.step_count == k + 10
    assert np.array_equal(again.bodies.position, sim.bodies.position)


def test_reordering_scenes_give_copies(tmp_path):
    path = tmp_path / "box.toml"
    path.write_text(short_settling_box(end_time=0.001, extra_solver="reorder_every = 1"))
    sim = granula.Simulation.from_scene(path, out=tmp_path / "out")
    assert not sim.views
    p = sim.bodies.position
    sim.run()
    q = sim.bodies.position
    assert not np.shares_memory(p, q) and not p.flags.writeable
    assert sorted(sim.bodies.id) == list(range(len(sim.bodies)))


def test_a_view_keeps_its_simulation_alive(tmp_path):
    import gc

    sim = granula.Simulation.from_scene(ball_on_floor_nscd(), out=tmp_path / "out")
    sim.step(50)
    z = sim.bodies.position[:, 2]
    expected = z.copy()
    del sim
    gc.collect()
    assert np.array_equal(z, expected)
    assert type(z.base.base).__name__ == "ArrayMemory"


def test_a_blow_up_raises_simulation_error_with_the_step(tmp_path):
    scene = ball_on_floor_nscd()
    scene["solver"] = {"kind": "md"}
    scene["simulation"]["dt"] = 1e-4
    scene["spheres"][0]["velocity"] = [0.0, 0.0, -50.0]
    sim = granula.Simulation.from_scene(scene, out=tmp_path / "out")
    with pytest.raises(granula.SimulationError, match="overlap") as e:
        sim.run()
    assert e.value.step == sim.step_count > 0


def test_interrupt_main_stops_a_run_between_steps(tmp_path, sigint):
    import _thread

    sim = granula.Simulation.from_scene(SCENES / "settling_box_md.toml", out=tmp_path / "out")
    sim.step(5)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sim.run(every=100, callback=lambda s: None)
    timer.join()
    k = sim.step_count
    assert 5 < k < sim.steps
    sim.run(until=(k + 7) * sim.dt)
    assert sim.step_count == k + 7


def test_the_runner_resumes_a_checkpoint_saved_from_python(tmp_path):
    sim = granula.Simulation.from_scene(ball_on_floor_nscd(), out=tmp_path / "a")
    sim.step(100)
    sim.save(tmp_path / "ck.bin")
    sim.close()
    run_command("resume", tmp_path / "ck.bin", "--out", tmp_path / "cli", "--quiet")
    py = granula.Simulation.load(tmp_path / "ck.bin", out=tmp_path / "py")
    py.run()
    assert (tmp_path / "py" / "series.csv").read_bytes() == (tmp_path / "cli" / "series.csv").read_bytes()


def test_steps_release_the_gil(tmp_path):
    sim = granula.Simulation.from_scene(SCENES / "settling_box_md.toml", out=tmp_path / "out")
    started = time.monotonic()
    sim.step(200)
    # One call of about 0.3 s whatever the machine's speed.
    steps = min(40_000, int(200 * 0.3 / max(time.monotonic() - started, 1e-6)))
    count = [0]
    running = threading.Event()
    stop = threading.Event()

    def spin():
        running.set()
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    running.wait()
    # The other thread's pace alone (this one sleeps, without the GIL).
    before = count[0]
    time.sleep(0.2)
    alone = (count[0] - before) / 0.2
    before = count[0]
    started = time.monotonic()
    sim.step(steps)
    elapsed = time.monotonic() - started
    during = (count[0] - before) / elapsed
    stop.set()
    t.join()
    # Steps that held the GIL would stop the other thread for their whole length but the
    # few ms the switch takes: a rate of a few per cent of its own.
    assert during > 0.15 * alone, (during, alone, elapsed)
