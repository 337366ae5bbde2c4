#!/usr/bin/env python3
"""Trunk post-build step (first, see post_build.py): the worker built once more with wasm
SIMD (`-C target-feature=+simd128`), as `worker_simd.js` + `worker_simd_bg.wasm` beside
Trunk's scalar `worker.js` + `worker_bg.wasm`. The page runs the SIMD build where the
browser validates SIMD and the scalar one elsewhere (src/app/worker_module.rs).

Trunk cannot give one of its builds other compiler flags, so this runs the same three
steps it runs for the worker: cargo (in a target folder of its own, so the two builds do
not rebuild each other), wasm-bindgen --target no-modules, wasm-opt -O3.
Release builds only: a debug build has the scalar worker alone (the page falls back).
Usage: scripts/build/simd_worker.py [DIR]   (default: $TRUNK_STAGING_DIR)
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = "wasm32-unknown-unknown"
TARGET_DIR = os.path.join(ROOT, "target", "simd128")
NAME = "worker_simd"


def run(args: list, env=None) -> None:
    print("simd_worker.py:", " ".join(args), file=sys.stderr)
    subprocess.run(args, check=True, cwd=ROOT, env=env)


def wasm_opt() -> str:
    # binaryen 132 from npm, as Trunk uses (Trunk.toml); Debian's is too old.
    local = os.path.join(ROOT, "node_modules", ".bin", "wasm-opt")
    return local if os.path.exists(local) else "wasm-opt"


def main() -> int:
    root = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TRUNK_STAGING_DIR", "")
    if not root or not os.path.isdir(root):
        print(f"simd_worker.py: no build folder {root!r}", file=sys.stderr)
        return 1
    if os.environ.get("TRUNK_PROFILE", "release") != "release":
        print("simd_worker.py: debug build, no SIMD worker", file=sys.stderr)
        return 0
    env = dict(os.environ)
    env["RUSTFLAGS"] = (env.get("RUSTFLAGS", "") + " -C target-feature=+simd128").strip()
    run(["cargo", "build", "--release", "--offline", "--locked", "--target", TARGET,
         "--bin", "worker", "--target-dir", TARGET_DIR], env)
    built = os.path.join(TARGET_DIR, TARGET, "release", "worker.wasm")
    with tempfile.TemporaryDirectory() as tmp:
        run(["wasm-bindgen", "--target", "no-modules", "--no-typescript",
             "--out-dir", tmp, "--out-name", NAME, built])
        run([wasm_opt(), "-O3", "--enable-simd", f"--output={os.path.join(root, NAME + '_bg.wasm')}",
             os.path.join(tmp, NAME + "_bg.wasm")])
        shutil.copyfile(os.path.join(tmp, NAME + ".js"), os.path.join(root, NAME + ".js"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
