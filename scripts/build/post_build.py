#!/usr/bin/env python3
"""Trunk's one post-build hook (Trunk.toml), in order: simd_worker.py (the worker's SIMD
build beside Trunk's scalar one), csp.py (the start-up script out of the HTML, the
Content-Security-Policy in), then offline.py (the service worker, which hashes every file,
and index.html as csp.py left it)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import csp  # noqa: E402
import offline  # noqa: E402
import simd_worker  # noqa: E402

if __name__ == "__main__":
    sys.exit(simd_worker.main() or csp.main() or offline.main())
