#!/usr/bin/env python3
"""Small pieces: no Rust source file over 800 lines and no function over 120, outside
tests (files under `tests/`, files named `tests.rs` or `*_tests.rs`, and a file's
`#[cfg(test)]` modules) and generated tables. Prints each piece over its limit, the
largest first; exit status 1 if there is one.

A function's length is the lines from its `fn` line to its closing brace. Braces are
counted outside comments, strings and character literals.

Usage: scripts/test/sizes.py [--report N]   (N: also print the N largest of each kind)
"""

import os
import re
import sys

FILE_LIMIT = 800
FN_LIMIT = 120
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)")
CFG_TEST = re.compile(r"^\s*#\[cfg\(test\)\]")


def sources():
    bases = ["src"] + [os.path.join("crates", c, "src") for c in sorted(os.listdir(os.path.join(ROOT, "crates")))]
    for base in bases:
        for folder, _, names in os.walk(os.path.join(ROOT, base)):
            for name in sorted(names):
                if name.endswith(".rs") and name != "tests.rs" and not name.endswith("_tests.rs"):
                    yield os.path.join(folder, name)


def code_only(line, state):
    """The line with comments, strings and char literals blanked; `state` carries an
    open block comment or string across lines."""
    out = []
    i = 0
    while i < len(line):
        c = line[i]
        if state["block"]:
            if line.startswith("*/", i):
                state["block"] = False
                i += 2
                continue
            i += 1
            continue
        if state["string"]:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                state["string"] = False
            i += 1
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block"] = True
            i += 2
            continue
        if c == '"':
            state["string"] = True
            i += 1
            continue
        if c == "'":
            m = re.match(r"'(?:\\.|[^'\\])'", line[i:])
            if m:
                i += len(m.group(0))
                continue
        out.append(c)
        i += 1
    return "".join(out)


def measure(path):
    """(lines outside test modules, [(fn name, first line, length)])."""
    lines = open(path, encoding="utf-8").read().split("\n")
    state = {"block": False, "string": False}
    code = [code_only(l, state) for l in lines]
    counted = 0
    functions = []
    i = 0
    while i < len(lines):
        if CFG_TEST.match(code[i]):
            # Skip the item the attribute guards (a test module or helper).
            depth, j, opened = 0, i + 1, False
            while j < len(lines):
                depth += code[j].count("{") - code[j].count("}")
                opened = opened or "{" in code[j]
                if (opened and depth <= 0) or (not opened and code[j].rstrip().endswith(";")):
                    break
                j += 1
            i = j + 1
            continue
        counted += 1
        m = FN.match(code[i])
        if m:
            depth, j, opened = 0, i, False
            while j < len(lines):
                depth += code[j].count("{") - code[j].count("}")
                opened = opened or "{" in code[j]
                if opened and depth <= 0:
                    break
                if not opened and code[j].rstrip().endswith(";"):
                    break
                j += 1
            if opened:
                functions.append((m.group(1), i + 1, j - i + 1))
        i += 1
    return counted, functions


def main():
    report = 0
    if len(sys.argv) > 2 and sys.argv[1] == "--report":
        report = int(sys.argv[2])
    files, fns = [], []
    for path in sources():
        rel = os.path.relpath(path, ROOT)
        counted, functions = measure(path)
        files.append((counted, rel))
        fns.extend((n, f"{rel}:{line} {name}", f"{rel} {name}") for name, line, n in functions)
    files.sort(reverse=True)
    fns.sort(reverse=True)
    big_files = [(n, f) for n, f in files if n > FILE_LIMIT]
    failures = len(big_files)
    for n, f in big_files:
        print(f"sizes: {f}: {n} lines (limit {FILE_LIMIT})")
    over = {key: (n, f) for n, f, key in fns if n > FN_LIMIT}
    for _, (n, f) in sorted(over.items(), key=lambda kv: -kv[1][0]):
        print(f"sizes: {f}: {n} lines (limit {FN_LIMIT})")
        failures += 1
    if report:
        print("largest files:", ", ".join(f"{f} {n}" for n, f in files[:report]))
        print("largest functions:", ", ".join(f"{f} {n}" for n, f, _ in fns[:report]))
    print(
        f"sizes: {len(files)} files, {len(fns)} functions; {len(big_files)} file(s) over "
        f"{FILE_LIMIT} lines, {len(over)} function(s) over {FN_LIMIT}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
