#!/usr/bin/env bash
# `make bench`: the trace benchmark (parse, attribution, peak memory) against stormlog
# 0.4.3 on the same generated file, then the explorer benchmark. Timings only; the
# correctness of both is in `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

data=bench-data
trace=$data/trace-16x12500.json
mkdir -p "$data"
cargo build --release --quiet -p shardscope-bench -p shardscope-cli
bench=target/release/shardscope-bench
if [[ ! -s $trace ]]; then
  "$bench" gen-trace "$trace" --ranks 16 --samples 12500
fi

echo "==> trace: load + attribution (medium preset), native, median of 5 runs"
"$bench" trace "$trace" --runs 5 | tee "$data/shardscope.txt"
"$bench" trace "$trace" --runs 5 --sequential | tee "$data/shardscope-sequential.txt"

echo "==> timeline level of detail: one redraw query (64 ranks x 100k samples, 1,200 columns)"
"$bench" lod --ranks 64 --samples 100000 | tee "$data/lod.txt"

echo "==> reference: stormlog 0.4.3 (Python) on the same file"
venv=.tools/stormlog-venv
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import stormlog' 2>/dev/null; then
  python3 -m venv "$venv" && "$venv/bin/pip" install --quiet 'stormlog==0.4.3' \
    || echo "bench: could not install stormlog 0.4.3 from PyPI; skipping the reference"
fi
if "$venv/bin/python" -c 'import stormlog' 2>/dev/null; then
  "$venv/bin/python" scripts/stormlog_reference.py "$trace" "$data/stormlog.json" | tee "$data/stormlog.txt"
  target/release/shardscope attribute "$trace" > "$data/shardscope.json"
  python3 - "$data" <<'PY'
import json, re, sys
d = sys.argv[1]
ours = json.load(open(f"{d}/shardscope.json"))
theirs = json.load(open(f"{d}/stormlog.json"))
same = ours == theirs
ref = float(re.search(r"STORMLOG_SECONDS=([0-9.]+)", open(f"{d}/stormlog.txt").read()).group(1))
def e2e(name):
    return float(re.search(r"end to end:\s+([0-9.]+) s", open(f"{d}/{name}").read()).group(1))
par, seq = e2e("shardscope.txt"), e2e("shardscope-sequential.txt")
print(f"results identical to stormlog's: {same} ({len(ours)} intervals)")
print(f"speed-up end to end: {ref / par:.0f}x (parallel parse), {ref / seq:.0f}x (sequential parse)")
sys.exit(0 if same else 1)
PY
fi

echo "==> explorer: full sweep, frontier, 10-batch sweep"
cargo bench --quiet -p shardscope-core --bench explore
