#!/usr/bin/env python3
"""The per-file mutation scores of `make mutants` (scripts/test/mutants.sh), from every
mutants.out/<group>/mutants.out/{caught,missed,timeout,unviable}.txt.

score = caught / viable, where caught includes timeouts (as cargo-mutants counts them)
and viable = caught + missed, less the missed mutants that mutants-equivalent.md lists as
unable to change behaviour. A listed mutant is matched by file, mutation and the text of
the mutated line (not its number), so the list survives code moving. Unviable mutants do
not build and say nothing about the tests.

    python3 scripts/test/mutants_score.py            the table, then every unlisted survivor
"""

from __future__ import annotations

import collections
import glob
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<desc>.*)$")
# previously_caught.txt: what an `--iterate` run skipped because an earlier run caught it.
KINDS = ("caught", "previously_caught", "timeout", "missed", "unviable")


def cells(line: str) -> list[str]:
    """A markdown table row's cells (`\\|` is a literal bar), without backticks."""
    parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [p.strip().replace("\\|", "|").strip("`") for p in parts]


def equivalents() -> set[tuple[str, str, str]]:
    """(file, mutation, mutated line) of every row of mutants-equivalent.md's table."""
    out = set()
    for line in (ROOT / "docs" / "mutants-equivalent.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("| `crates/"):
            row = cells(line)
            if len(row) >= 4:
                out.add((row[0], row[1], row[2]))
    return out


def source_line(file: str, line: int, cache: dict[str, list[str]] = {}) -> str:
    if file not in cache:
        cache[file] = (ROOT / file).read_text(encoding="utf-8").splitlines()
    lines = cache[file]
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def main() -> int:
    listed = equivalents()
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    unlisted = []
    for kind in KINDS:
        for path in sorted(glob.glob(str(ROOT / f"mutants.out/*/mutants.out/{kind}.txt"))):
            # An `--iterate` run lists the unviable mutants it skipped as previously
            # caught; the run before it (mutants.out.old) knows them as unviable.
            old = Path(path).parent.parent / "mutants.out.old" / "unviable.txt"
            unviable = set(old.read_text(encoding="utf-8").splitlines()) if old.exists() else set()
            for text in Path(path).read_text(encoding="utf-8").splitlines():
                m = NAME.match(text)
                if not m:
                    continue
                if kind == "previously_caught" and text in unviable:
                    counts[m["file"]]["unviable"] += 1
                    continue
                file, line, desc = m["file"], int(m["line"]), m["desc"]
                if kind == "missed":
                    if (file, desc, source_line(file, line)) in listed:
                        counts[file]["equivalent"] += 1
                        continue
                    unlisted.append(f"{text}\n    {source_line(file, line)}")
                counts[file]["caught" if kind == "previously_caught" else kind] += 1
    print(f"{'file':<42} {'caught':>6} {'timeout':>7} {'missed':>6} {'equiv':>5} {'unviable':>8} {'score':>6}")
    for file, c in sorted(counts.items()):
        caught = c["caught"] + c["timeout"]
        viable = caught + c["missed"]
        score = f"{100 * caught / viable:.1f}%" if viable else "-"
        print(
            f"{file:<42} {c['caught']:>6} {c['timeout']:>7} {c['missed']:>6} "
            f"{c['equivalent']:>5} {c['unviable']:>8} {score:>6}"
        )
    if unlisted:
        print("\nmissed, and not listed in mutants-equivalent.md:")
        print("\n".join(unlisted))
    return 0


if __name__ == "__main__":
    sys.exit(main())
