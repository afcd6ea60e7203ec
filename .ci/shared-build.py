#!/usr/bin/env python3
"""Checks that the later builds of CI reuse what the test build compiled below the runner.

After `cargo test --workspace --release`, CI builds into the same target folder the Python
module (its own Cargo workspace, python/) and the MPI stage (granula and granula-mpi with
their `mpi` features). Cargo reuses a compiled crate only when everything that enters its hash is the
same: its features, its profile, and the same for every crate below it, host crates (build
scripts, procedural macros) included. A dependency that turns on a feature of a shared
crate in one build and not in the other (e.g. clap's derive macro and syn's `full`) makes
every crate above it compile twice, minutes of CI on two cores. The Python module's build
compiles the granula crates again in any case (another workspace root, see
`LATER_BUILDS`); what it can share is the dependencies from crates.io.

This script asks Cargo for the unit graphs (`--unit-graph`, an unstable flag read through
RUSTC_BOOTSTRAP, nothing is compiled) and compares the units below `granula-run`'s library
in each later build with the test build's. It prints each unit that differs and exits with 1
if any does.

    python3 .ci/shared-build.py
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED_ROOT = "granula-run"


def unit_graph(args):
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    cmd = ["cargo", *args, "--release", "-Z", "unstable-options", "--unit-graph"]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    return json.loads(out.stdout)["units"]


def unit_key(unit):
    """What makes a compiled unit reusable: the package (its version for a registry one, its
    path for a local one), target, mode, features and profile."""
    pkg = unit["pkg_id"]
    pkg = pkg.split("#")[-1] if pkg.startswith("registry+") else pkg
    profile = json.dumps(unit["profile"], sort_keys=True)
    return (pkg, unit["target"]["name"], unit["mode"], tuple(unit["features"]), profile, unit.get("platform"))


def closure_below(units, package):
    """The units the library of `package` is built from, itself included, by key."""
    roots = [
        i
        for i, u in enumerate(units)
        if f"/{package}#" in u["pkg_id"] and u["target"]["kind"] == ["lib"] and u["mode"] == "build"
    ]
    if len(roots) != 1:
        sys.exit(f"expected one library unit of {package}, found {len(roots)}")
    seen = {}
    stack = roots
    while stack:
        unit = units[stack.pop()]
        key = unit_key(unit)
        if key not in seen:
            seen[key] = unit
            stack.extend(d["index"] for d in unit["dependencies"])
    return seen


# The builds after the test build, as .ci/run runs them, and whether they can reuse the
# granula crates themselves. The Python module is its own workspace: Cargo's hash of a crate
# found by path depends on the path from the workspace root, so the module's build compiles
# the granula crates again whatever their features; it can reuse the dependencies from
# crates.io only, and only those are compared for it.
LATER_BUILDS = {
    "pip install ./python": (["build", "--manifest-path", "python/Cargo.toml"], False),
    "the MPI stage": (
        [
            "test", "--features", "granula/mpi,granula-mpi/mpi", "-p", "granula-mpi", "-p", "granula",
            "--lib", "--test", "mpi_suite", "--test", "mpi_runner", "--no-run",
        ],
        True,
    ),
}


def from_registry(key):
    return not key[0].startswith("path+")


def main():
    tests = closure_below(unit_graph(["test", "--workspace", "--no-run"]), SHARED_ROOT)
    failed = False
    for name, (args, local_too) in LATER_BUILDS.items():
        later = closure_below(unit_graph(args), SHARED_ROOT)
        ours = {k for k in tests if local_too or from_registry(k)}
        theirs = {k for k in later if local_too or from_registry(k)}
        differ = sorted(ours ^ theirs, key=str)
        for key in differ:
            side = "test build only" if key in ours else f"{name} only"
            print(f"{side}: {key[0]} {key[1]} ({key[2]}) features {list(key[3])}")
        what = f"units below {SHARED_ROOT}" if local_too else f"dependencies from crates.io below {SHARED_ROOT}"
        if differ:
            failed = True
            print(
                f"{name} would compile {what} again: name the missing "
                "features in crates/granula-io/Cargo.toml or python/Cargo.toml (build-dependencies)"
            )
        else:
            print(f"{name}: the {len(ours)} {what} are the test build's")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
