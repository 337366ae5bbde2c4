#!/usr/bin/env python3
"""File-level import cycles among each crate's Rust modules: for every `.rs` file, the
files of the same crate it names through `crate::…`, `super::…` or `self::…` paths (in
`use` items and in expressions), then every strongly connected component of more than
one file. Prints each cycle; exit status 1 if there is one.

A module's `mod.rs` (or `lib.rs`) naming its children is not an import; naming a child's
item through its parent's re-export is an import of the parent. A file's unit tests (its
trailing `#[cfg(test)] mod …`) are left out: tests may use what sits above the code they
test.

Usage: scripts/test/import_cycles.py [CRATE_SRC_DIR...]   (default: every crate's src/)
"""

import os
import re
import sys

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP = re.compile(r"\buse\s+(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};", re.S)


def module_path(src, path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


def strip_comments(text):
    tests = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    if tests:
        text = text[: tests.start()]
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def resolve(files, base, parts):
    """The file that holds the longest prefix of `base + parts` that is a module."""
    full = base + tuple(parts)
    for n in range(len(full), -1, -1):
        if full[:n] in files:
            return full[:n]
    return None


def edges_of(src, files, mod, path):
    text = strip_comments(open(path, encoding="utf-8").read())
    is_dir_module = os.path.basename(path) in ("mod.rs", "lib.rs", "main.rs")
    here = mod if is_dir_module else mod
    parent = mod[:-1]

    def base_of(root):
        if root == "crate":
            return ()
        if root == "super":
            return parent
        return here

    targets = set()
    found = []
    for m in USE_GROUP.finditer(text):
        prefix = [p for p in m.group(2).split("::") if p]
        for item in re.split(r"[,\s]+", m.group(3)):
            name = item.split("::")[0].strip("{} ")
            if name and name != "self":
                found.append((m.group(1), prefix + [name] + [p for p in item.split("::")[1:] if p]))
            elif name == "self":
                found.append((m.group(1), prefix))
    for m in PATH.finditer(text):
        found.append((m.group(1), [p for p in m.group(2).split("::") if p]))
    for root, parts in found:
        base = base_of(root)
        while parts and parts[0] == "super":
            base, parts = base[:-1], parts[1:]
        target = resolve(files, base, parts)
        if target is not None and target != mod and not (is_dir_module and target[: len(mod)] == mod and len(target) == len(mod) + 1 and False):
            # A parent naming its child module is a declaration-like reference: skip.
            if target[: len(mod)] == mod and is_dir_module:
                continue
            targets.add(target)
    return targets


def cycles(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def crate_sources(root):
    for base in ["src"] + [os.path.join("crates", c, "src") for c in sorted(os.listdir(os.path.join(root, "crates")))]:
        if os.path.isdir(os.path.join(root, base)):
            yield os.path.join(root, base)


def main():
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    sources = sys.argv[1:] or list(crate_sources(root))
    found = 0
    for src in sources:
        paths = {}
        for here, _, names in os.walk(src):
            if os.path.join(src, "bin") == here:
                continue
            for name in names:
                if name.endswith(".rs"):
                    p = os.path.join(here, name)
                    paths[module_path(src, p)] = p
        graph = {m: edges_of(src, paths, m, p) for m, p in paths.items()}
        for comp in cycles(graph):
            found += 1
            names = [os.path.relpath(paths[m], root) for m in comp]
            print(f"import cycle ({len(names)} files): " + " , ".join(names))
    print(f"import_cycles: {found} cycle(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
