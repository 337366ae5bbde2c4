#!/usr/bin/env python3
"""Trunk's one post-build hook (Trunk.toml), in order: csp.py (the start-up script out
of the HTML, the Content-Security-Policy in), then offline.py (the service worker, which
hashes index.html as csp.py left it)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import csp  # noqa: E402
import offline  # noqa: E402

if __name__ == "__main__":
    sys.exit(csp.main() or offline.main())
