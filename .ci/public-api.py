#!/usr/bin/env python3
"""The public API of every library crate of the workspace, one line per item, compared with
the committed lists under .ci/public-api/ (or written there with --write).

An item is listed under the path a user reaches it by: the crate's modules and re-exports,
walked from the crate root, with the public fields of structs, the variants of enums, the
items of traits and the methods and constants of inherent impls. A change of the public
surface then shows in review as a change of these files.

The lists come from rustdoc's JSON output, an unstable format read here on the stable
toolchain (RUSTC_BOOTSTRAP=1 for rustdoc only; no code is built with it).

Usage: python3 .ci/public-api.py [--write] [crate ...]
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, ".ci", "public-api")


def crates():
    """The workspace's library crates: (package name, crate name)."""
    meta = json.loads(subprocess.check_output(
        ["cargo", "metadata", "--no-deps", "--format-version", "1"], cwd=ROOT))
    out = []
    for p in meta["packages"]:
        if any("lib" in t["kind"] for t in p["targets"]):
            out.append((p["name"], p["name"].replace("-", "_")))
    return sorted(out)


def rustdoc_json(package, crate, built):
    """The crate's rustdoc JSON: read as `built` left it (`--from-doc`: a `cargo doc` run
    with `--output-format json`), or made here by `cargo rustdoc`."""
    if not built:
        env = dict(os.environ, RUSTC_BOOTSTRAP="1")
        subprocess.check_call(
            ["cargo", "rustdoc", "-q", "-p", package, "--lib", "--",
             "-Z", "unstable-options", "--output-format", "json"],
            cwd=ROOT, env=env)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    with open(os.path.join(target, "doc", crate + ".json")) as f:
        return json.load(f)


def kind_of(item):
    return next(iter(item["inner"]))


def members(doc, item, path, lines):
    """The listed members of a struct, enum, trait or union at `path`."""
    index = doc["index"]
    kind = kind_of(item)
    inner = item["inner"][kind]
    if kind == "struct" and isinstance(inner.get("kind"), dict) and "plain" in inner["kind"]:
        for fid in inner["kind"]["plain"]["fields"]:
            f = index.get(str(fid))
            if f and f.get("visibility") == "public":
                lines.add(f"{path}.{f['name']} (field)")
    if kind == "enum":
        for vid in inner["variants"]:
            v = index.get(str(vid))
            if v:
                lines.add(f"{path}::{v['name']} (variant)")
    if kind == "trait":
        for tid in inner["items"]:
            t = index.get(str(tid))
            if t:
                lines.add(f"{path}::{t['name']} ({kind_of(t)} of trait)")
    for iid in inner.get("impls", []):
        imp = index.get(str(iid))
        if not imp:
            continue
        i = imp["inner"]["impl"]
        if i.get("trait") is not None or i.get("is_synthetic") or i.get("blanket_impl") is not None:
            continue
        for mid in i["items"]:
            m = index.get(str(mid))
            if m and m.get("visibility") == "public":
                lines.add(f"{path}::{m['name']} ({kind_of(m)})")


def walk(doc, module_id, path, lines, seen):
    index = doc["index"]
    module = index[str(module_id)]
    for cid in module["inner"]["module"]["items"]:
        item = index.get(str(cid))
        if item is None or item.get("visibility") != "public":
            continue
        kind = kind_of(item)
        if kind == "use":
            use = item["inner"]["use"]
            if use["is_glob"]:
                lines.add(f"{path}::* (glob re-export of {use['source']})")
                continue
            target = index.get(str(use["id"])) if use.get("id") is not None else None
            name = use["name"]
            if target is None:
                lines.add(f"{path}::{name} (re-export of {use['source']})")
            elif kind_of(target) == "module":
                if target["id"] not in seen:
                    seen.add(target["id"])
                    lines.add(f"{path}::{name} (module)")
                    walk(doc, target["id"], f"{path}::{name}", lines, seen)
            else:
                lines.add(f"{path}::{name} ({kind_of(target)})")
                members(doc, target, f"{path}::{name}", lines)
        elif kind == "module":
            if item["id"] not in seen:
                seen.add(item["id"])
                lines.add(f"{path}::{item['name']} (module)")
                walk(doc, item["id"], f"{path}::{item['name']}", lines, seen)
        elif kind == "impl":
            continue
        else:
            name = item.get("name") or "?"
            lines.add(f"{path}::{name} ({kind})")
            members(doc, item, f"{path}::{name}", lines)


def listing(package, crate, built):
    doc = rustdoc_json(package, crate, built)
    lines = set()
    walk(doc, doc["root"], crate, lines, {doc["root"]})
    return "".join(line + "\n" for line in sorted(lines))


def main():
    args = sys.argv[1:]
    write = "--write" in args
    # --from-doc: read the JSON a `cargo doc --workspace --no-deps` with rustdoc's
    # `--output-format json` wrote (CI's documentation stage), instead of one `cargo
    # rustdoc` per crate.
    built = "--from-doc" in args
    wanted = [a for a in args if not a.startswith("--")]
    os.makedirs(OUT, exist_ok=True)
    changed = []
    for package, crate in crates():
        if wanted and package not in wanted:
            continue
        text = listing(package, crate, built)
        path = os.path.join(OUT, package + ".txt")
        old = open(path).read() if os.path.exists(path) else ""
        if text != old:
            changed.append(package)
            if write:
                with open(path, "w") as f:
                    f.write(text)
            else:
                new_lines, old_lines = set(text.splitlines()), set(old.splitlines())
                for line in sorted(new_lines - old_lines):
                    print(f"{package}: + {line}")
                for line in sorted(old_lines - new_lines):
                    print(f"{package}: - {line}")
        print(f"{package}: {text.count(chr(10))} public items")
    if changed and not write:
        print(f"the public API changed in {', '.join(changed)}: if on purpose, run "
              "`python3 .ci/public-api.py --write` and commit .ci/public-api/")
        sys.exit(1)


if __name__ == "__main__":
    main()
