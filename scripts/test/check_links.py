#!/usr/bin/env python3
"""Every relative link in the repository's Markdown resolves: `[text](path)` and
`![alt](image)` to a file or folder of the repository, and `path#anchor` (or `#anchor`)
to a heading of that file. Web links are not fetched. And every `data-testid` the page's
code (`src/`) names is listed in `tests/e2e/README.md`. Run by `make test`.

Usage: scripts/test/check_links.py [ROOT]   (default: the repository)
"""

import os
import re
import sys

SKIP_DIRS = {".git", "target", "node_modules", ".tools", "dist", "bench-data", "fuzz"}
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_files(root):
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            if name.endswith(".md"):
                yield os.path.join(here, name)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"`|\*\*|\*|_(?=\w)|(?<=\w)_", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found, seen, fenced = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                fenced = not fenced
            if fenced or not line.startswith("#"):
                continue
            base = slug(line.lstrip("#"))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(path):
    fenced = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            # Inline code is not a link.
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                yield number, target


def unlisted_hooks(root):
    """The page's `data-testid` hooks that tests/e2e/README.md does not list."""
    listed_in = os.path.join(root, "tests", "e2e", "README.md")
    listed = open(listed_in, encoding="utf-8").read() if os.path.exists(listed_in) else ""
    missing = set()
    for here, dirs, files in os.walk(os.path.join(root, "src")):
        for name in files:
            if name.endswith(".rs"):
                with open(os.path.join(here, name), encoding="utf-8") as f:
                    missing.update(h for h in re.findall(r'data-testid="([a-z0-9-]+)"', f.read()) if f"`{h}`" not in listed)
    return [f"tests/e2e/README.md: the hook `{h}` (src/) is not listed" for h in sorted(missing)]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    broken, checked = [], 0
    for md in markdown_files(root):
        for number, target in links(md):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            checked += 1
            file_part, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(md), file_part)) if file_part else md
            where = f"{os.path.relpath(md, root)}:{number}"
            if not resolved.startswith(root + os.sep) and resolved != root:
                broken.append(f"{where}: {target} points outside the repository")
            elif not os.path.exists(resolved):
                broken.append(f"{where}: {target} does not exist")
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                broken.append(f"{where}: {target}: no heading #{anchor}")
    broken += unlisted_hooks(root)
    for line in broken:
        print(f"check_links: {line}", file=sys.stderr)
    print(f"check_links: {checked} relative links, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
