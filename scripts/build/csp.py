#!/usr/bin/env python3
"""Trunk post-build hook (Trunk.toml): make the built page run under a strict
Content-Security-Policy on any static host.

- Trunk writes the page's start-up code as an inline module script; a strict policy
  forbids inline scripts, so it moves into `start-<hash>.js`, loaded with a
  subresource-integrity hash like the other assets Trunk links.
- The policy itself goes into a <meta> element right after <meta charset>, so it holds
  wherever dist/ is served from, with no server configuration.
- Every local <script src>, stylesheet and preload must carry an integrity hash, or
  the build fails.

Usage: scripts/build/csp.py [DIR]   (default: $TRUNK_STAGING_DIR)
"""

import base64
import hashlib
import os
import re
import sys

POLICY = (
    "default-src 'self'; "
    "script-src 'self' 'wasm-unsafe-eval'; "
    "worker-src 'self' blob:; "
    "connect-src 'self'; "
    "object-src 'none'; "
    "base-uri 'none'"
)

INLINE = re.compile(r'<script type="module">\s*(.*?)\s*</script>', re.S)


def sri(data: bytes) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


def built_page(tool: str):
    """The folder a post-build step works on (its argument, else Trunk's staging
    folder) and its index.html; None, said on stderr, when there is none."""
    root = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TRUNK_STAGING_DIR", "")
    index = os.path.join(root, "index.html")
    if not root or not os.path.isfile(index):
        print(f"{tool}: no index.html in {root!r}", file=sys.stderr)
        return None
    return root, index


def main() -> int:
    page = built_page("csp.py")
    if page is None:
        return 1
    root, index = page
    with open(index, encoding="utf-8") as f:
        html = f.read()

    scripts = INLINE.findall(html)
    if len(scripts) != 1:
        print(f"csp.py: expected one inline module script, found {len(scripts)}", file=sys.stderr)
        return 1
    code = (scripts[0].strip() + "\n").encode()
    name = f"start-{hashlib.sha256(code).hexdigest()[:16]}.js"
    with open(os.path.join(root, name), "wb") as f:
        f.write(code)
    tag = f'<script type="module" src="./{name}" integrity="{sri(code)}" crossorigin="anonymous"></script>'
    html = INLINE.sub(lambda _: tag, html, count=1)

    meta = f'<meta http-equiv="Content-Security-Policy" content="{POLICY}" />'
    html, n = re.subn(r'(<meta charset="utf-8" />)', lambda m: m.group(1) + "\n    " + meta, html, count=1)
    if n != 1:
        print("csp.py: no <meta charset> to put the policy after", file=sys.stderr)
        return 1

    if "<script>" in html or re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html):
        print("csp.py: an inline script is left", file=sys.stderr)
        return 1
    for link in re.findall(r"<(?:script|link)\b[^>]*>", html):
        local = re.search(r'(?:src|href)="\./[^"]+"', link)
        needs = "stylesheet" in link or "preload" in link or "<script" in link
        if local and needs and "integrity=" not in link:
            print(f"csp.py: no integrity hash on {link}", file=sys.stderr)
            return 1

    with open(index, "w", encoding="utf-8") as f:
        f.write(html)
    print(f"csp.py: {name} and the Content-Security-Policy written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
