#!/usr/bin/env python3
"""Page state through props: a component gets the signals it uses as props, and Leptos
context carries only the workers handle and the theme. Prints every context read or
provision of another type in the web crate (`src/`); exit status 1 if there is one.

Usage: scripts/test/context_reads.py
"""

import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ALLOWED = {"WorkersHandle", "ThemeState"}
READ = re.compile(r"\b(?:expect|use)_context::<\s*([\w:]+)\s*>")
PROVIDE = re.compile(r"\bprovide_context\(\s*([\w.]+)\s*\)")
# What `provide_context(x)` may be given: the workers handle and the theme.
PROVIDED = {"workers", "state.theme", "theme"}


def main():
    bad = []
    for folder, _, names in os.walk(os.path.join(ROOT, "src")):
        for name in sorted(names):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, ROOT)
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    code = line.split("//", 1)[0]
                    for m in READ.finditer(code):
                        if m.group(1).split("::")[-1] not in ALLOWED:
                            bad.append(f"{rel}:{number}: reads {m.group(1)} from context")
                    for m in PROVIDE.finditer(code):
                        if m.group(1) not in PROVIDED:
                            bad.append(f"{rel}:{number}: provides {m.group(1)} as context")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} context use(s) beyond the workers handle and the theme: pass props")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
