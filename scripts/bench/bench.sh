#!/usr/bin/env bash
# `make bench`: the trace table (shardscope natively and in wasm against stormlog 0.4.3 on
# the same generated files, results checked equal), the timeline's level-of-detail query
# and the explorer. Timings only; the correctness of everything is in `make test`.
# Takes about 5 minutes, most of it stormlog on the 605 MB trace (it needs ~2.5 GB).
set -euo pipefail
cd "$(dirname "$0")/../.."

data=bench-data
mkdir -p "$data"
cargo build --release --quiet -p shardscope-bench -p shardscope-cli
bench=target/release/shardscope-bench
# The same core for wasm32-wasip1 (run in Node's WASI): what the browser's workers compute.
if rustup target list --installed | grep -qx wasm32-wasip1 || rustup target add wasm32-wasip1; then
  cargo build --release --quiet -p shardscope-bench --target wasm32-wasip1 || true
fi

# Deterministic stormlog-shaped traces (see crates/trace/src/trace/synthetic.rs):
# 200k samples (16 ranks x 12,500; ~120 MB) and 1M samples (32 ranks x 31,500; ~605 MB).
small=$data/trace-16x12500.json
big=$data/trace-32x31500.json
[[ -s $small ]] || "$bench" gen-trace "$small" --ranks 16 --samples 12500
[[ -s $big ]] || "$bench" gen-trace "$big" --ranks 32 --samples 31500

venv=.tools/stormlog-venv
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import stormlog' 2>/dev/null; then
  python3 -m venv "$venv" && "$venv/bin/pip" install --quiet 'stormlog==0.4.3' \
    || echo "bench: could not install stormlog 0.4.3 from PyPI; its columns stay empty"
fi

echo "==> traces: load + attribution (medium preset), against stormlog 0.4.3 in the same run"
python3 scripts/bench/bench.py "$small" "$big" | tee "$data/trace-table.md"

echo
echo "==> parse threads: shardscope attribute --threads N, 1 to this machine's $(nproc) cores (best of 3)"
python3 - "$small" "$big" <<'PY'
import os, subprocess, sys, time
cores = os.cpu_count() or 1
print("| trace | " + " | ".join(f"{n} thread{'s' if n > 1 else ''}" for n in range(1, cores + 1)) + " | scaling |")
print("|---|" + "---|" * (cores + 1))
for trace in sys.argv[1:]:
    walls = []
    for n in range(1, cores + 1):
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run(["target/release/shardscope", "attribute", trace, "--threads", str(n)],
                           check=True, stdout=subprocess.DEVNULL)
            best = min(best, time.perf_counter() - start)
        walls.append(best)
    mb = os.path.getsize(trace) / 1e6
    print(f"| {os.path.basename(trace)} ({mb:.0f} MB) | " + " | ".join(f"{w:.3f} s" for w in walls)
          + f" | {walls[0] / walls[-1]:.2f}× |")
PY

echo
echo "==> the Python package (issue 37): shardscope.attribute, the stormlog drop-in, threads, a Ray fleet"
# 100 jobs of 8-12 ranks x 1,500-1,995 samples (7-14 MB each, 1 GB in all), all different.
jobs=$data/jobs-100
if [[ $(ls "$jobs" 2>/dev/null | wc -l) -lt 100 ]]; then
  mkdir -p "$jobs"
  for i in $(seq 0 99); do
    "$bench" gen-trace "$(printf '%s/job-%03d.json' "$jobs" "$i")" --ranks $((8 + i % 5)) --samples $((1500 + 5 * i)) >/dev/null
  done
fi
make --no-print-directory wheel >/dev/null
.tools/py-venv/bin/python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/shardscope-*.whl
.tools/py-venv/bin/python scripts/bench/bench_python.py "$small" "$jobs" target/release/shardscope | tee "$data/python.md"

echo
echo "==> each stage apart, natively (the file read into memory first; median of 5)"
echo "| trace | cores | read | parse, convert, stitch, sort | attribute | timeline index | JSON output | sum |"
echo "|---|---|---|---|---|---|---|---|"
for trace in "$small" "$big"; do "$bench" stages "$trace" --runs 5; done | tee "$data/stages.md"

echo
echo "==> where the native time goes (one process, the 120 MB trace)"
"$bench" trace "$small" --runs 5 --sequential

echo
echo "==> attribution on aligned clocks against plain attribution (the 605 MB trace)"
"$bench" trace "$big" --runs 3

echo
echo "==> timeline level of detail: one redraw query (64 ranks x 100k samples, 1,200 columns)"
"$bench" lod --ranks 64 --samples 100000 | tee "$data/lod.txt"

echo
echo "==> clock alignment: 64 ranks x 10,000 markers (offsets, drift, jitter)"
"$bench" clocks --ranks 64 --markers 10000 | tee "$data/clocks.txt"

echo
echo "==> explorer: full sweep, frontier, 10-batch sweep"
cargo bench --quiet -p shardscope-core --bench explore
