#!/usr/bin/env python3
"""Fails when files of a crate import each other, directly or around a circle.

Each source file is a module; a file depends on every module it names through `crate::...`
or `super::...` (in `use` lines or in paths). Strongly connected groups of more than one
file are import circles: the pieces cannot be read, tested or changed one at a time.
Usage: .ci/import-cycles.py [crate-dir ...] (default: every crate under crates/)."""
import os
import re
import sys

# Circles that exist and are to be taken apart: a circle passes only inside one of these
# groups (so none can grow or appear elsewhere). Remove a group once its circle is gone.
KNOWN = {
    # The sub-model traits name the batched forms, whose kernel reads the damping and
    # tangential settings and the closed forms, which name the sub-model traits.
    "granula-laws": [{"batched", "damping::clamped_calibration", "damping::viscous", "normal::power_law",
                      "normal::volumetric", "params", "submodel", "tangential::settings"}],
    # The shape's generators, the contact search and its temporal coherence share types both ways.
    "granula-polyhedra": [{"coherence", "contact", "contact::prepared", "core_shape", "overlap", "volume_contact"}],
}


def module_files(src):
    """Map module path tuples (relative to the crate root) to files."""
    mods = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)[:-3].split(os.sep)
            if rel[-1] in ("mod", "lib", "main"):
                rel = rel[:-1]
            mods[tuple(rel)] = os.path.join(dirpath, f)
    return mods


def strip_comments(text):
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def targets(path_segments, mods):
    """The module file a path names: its longest prefix that is a module."""
    for n in range(len(path_segments), -1, -1):
        if tuple(path_segments[:n]) in mods:
            return tuple(path_segments[:n])
    return None


def expand_use(body):
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e] (enough for module resolution)."""
    out = []
    depth, start, prefix_stack = 0, 0, [""]
    token = ""
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "{":
            prefix_stack.append(prefix_stack[-1] + token.strip())
            token = ""
        elif ch == "}":
            if token.strip():
                out.append(prefix_stack[-1] + token.strip())
            token = ""
            if len(prefix_stack) > 1:
                prefix_stack.pop()
        elif ch == ",":
            if token.strip():
                out.append(prefix_stack[-1] + token.strip())
            token = ""
        else:
            token += ch
        i += 1
    if token.strip():
        out.append(prefix_stack[-1] + token.strip())
    return out


def source(path):
    text = strip_comments(open(path, encoding="utf-8").read())
    # Test modules inside a file do not make the library circular.
    return re.split(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)[0]


def reexports(mods):
    """Per module, the items it re-exports from its own descendants (`pub use child::X`):
    a path through the re-export leads to the child that defines the item."""
    out = {}
    for mod, path in mods.items():
        table = {}
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", source(path)):
            for p in expand_use(m.group(1).replace("\n", " ")):
                segs = [x.strip() for x in p.split("::") if x.strip()]
                if len(segs) < 2 or segs[0] in ("crate", "super", "self") and len(segs) < 3:
                    continue
                if segs[0] == "self":
                    segs = segs[1:]
                if segs[0] in ("crate", "super"):
                    continue
                name = segs[-1].split(" as ")[-1].strip()
                child = targets(list(mod) + segs[:-1], mods)
                if child is not None and child[: len(mod)] == mod and child != mod:
                    table[name] = child
        out[mod] = table
    return out


def edges(crate_src):
    mods = module_files(crate_src)
    reexported = reexports(mods)
    graph = {m: set() for m in mods}
    for mod, path in mods.items():
        text = source(path)
        paths = []
        for m in re.finditer(r"\buse\s+([^;]+);", text):
            paths += expand_use(m.group(1).replace("\n", " "))
        paths += re.findall(r"\b((?:crate|super)(?:::\w+)+)", text)
        is_dir_module = os.path.basename(path) in ("mod.rs", "lib.rs", "main.rs")
        for p in paths:
            segs = [s.strip() for s in p.split("::") if s.strip()]
            if not segs:
                continue
            if segs[0] == "crate":
                base, segs = [], segs[1:]
            elif segs[0] == "super":
                base = list(mod) if is_dir_module else list(mod[:-1])
                while segs and segs[0] == "super":
                    base, segs = base[:-1], segs[1:]
            else:
                continue
            full = base + [s.split(" as ")[0].strip() for s in segs if s != "self"]
            t = targets(full, mods)
            if t is None:
                continue
            rest = full[len(t):]
            if rest and rest[0] in reexported.get(t, {}):
                t = reexported[t][rest[0]]
            # A module naming its own descendants (its `mod` children) is composition,
            # not a circle; naming an ancestor or a sibling is an import.
            if t != mod and t[: len(mod)] != mod:
                graph[mod].add(t)
    return graph


def circles(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    crates = sys.argv[1:] or sorted(
        os.path.join(root, "crates", c) for c in os.listdir(os.path.join(root, "crates")))
    failed = False
    for crate in crates:
        src = os.path.join(crate, "src")
        if not os.path.isdir(src):
            continue
        name = os.path.basename(os.path.normpath(crate))
        for group in circles(edges(src)):
            names = {"::".join(m) or "(crate root)" for m in group}
            if any(names <= known for known in KNOWN.get(name, [])):
                continue
            failed = True
            print(f"{name}: import circle among {', '.join(sorted(names))}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
