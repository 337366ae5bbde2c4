"""`make bench`'s trace table: shardscope against stormlog 0.4.3 on the same files.

Usage: python3 scripts/bench/bench.py TRACE... (scripts/bench/bench.sh builds everything first)

For every trace, in this one run:
- shardscope natively, the whole `shardscope attribute` process: wall time (median of 5),
  peak RSS, MB/s and events/s;
- the same core compiled to WebAssembly (wasm32-wasip1, run in Node's WASI, one thread,
  the sequential parse): what a browser worker computes, without the browser;
- stormlog 0.4.3 (`load_telemetry_sessions` + `attribute_collective_memory`, medium
  preset) in CPython, timed the same way, and whether its results equal ours.
Prints one Markdown table. Exits 1 if any result differs from stormlog's.
"""

import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "target/release/shardscope")
WASM = os.path.join(ROOT, "target/wasm32-wasip1/release/shardscope-bench.wasm")
PYTHON = os.path.join(ROOT, ".tools/stormlog-venv/bin/python")


def run(cmd, stdout):
    """Wall seconds and peak RSS (MB) of one child process; its exit status."""
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, cwd=ROOT)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    err = child.stderr.read().decode(errors="replace") if child.stderr else ""
    return wall, usage.ru_maxrss / 1024, child.returncode, err


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def shardscope(trace, out):
    walls, rss = [], 0.0
    for _ in range(5):
        with open(out, "wb") as handle:
            wall, peak, code, err = run([CLI, "attribute", trace], handle)
        if code != 0:
            sys.exit(f"shardscope failed on {trace}: {err}")
        walls.append(wall)
        rss = max(rss, peak)
    return median(walls), rss


def wasm(trace):
    if not os.path.exists(WASM):
        return None
    cmd = ["node", "--no-warnings", "scripts/bench/wasi-run.mjs", WASM, "trace", trace, "--runs", "1", "--sequential"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    # Node 20's WASI may crash while tearing a big instance down, after the figures.
    match = re.search(r"end to end:\s+([0-9.]+) s", proc.stdout)
    return float(match.group(1)) if match else None


def stormlog(trace, out):
    if not os.path.exists(PYTHON):
        return None
    with open(out + ".txt", "wb") as handle:
        wall, peak, code, err = run([PYTHON, "scripts/bench/stormlog_reference.py", trace, out], handle)
    if code != 0:
        print(f"stormlog failed on {trace}: {err.strip()[-300:]}", file=sys.stderr)
        return None
    return wall, peak


def same(ours, theirs):
    with open(ours, encoding="utf-8") as a, open(theirs, encoding="utf-8") as b:
        return json.load(a) == json.load(b)


def main():
    rows, all_same = [], True
    for trace in sys.argv[1:]:
        size_mb = os.path.getsize(trace) / 1e6
        base = os.path.join(os.path.dirname(trace), os.path.basename(trace).rsplit(".", 1)[0])
        ours_out, theirs_out = base + ".shardscope.json", base + ".stormlog.json"
        print(f"bench: {trace} ({size_mb:.0f} MB) ...", file=sys.stderr, flush=True)
        wall, rss = shardscope(trace, ours_out)
        with open(ours_out, encoding="utf-8") as handle:
            intervals = len(json.load(handle))
        with open(trace, "rb") as handle:
            records = sum(chunk.count(b'"schema_version"') for chunk in iter(lambda: handle.read(1 << 24), b""))
        wasm_s = wasm(trace)
        ref = stormlog(trace, theirs_out)
        identical = same(ours_out, theirs_out) if ref else None
        all_same = all_same and identical is not False
        rows.append((trace, size_mb, records, intervals, wall, rss, wasm_s, ref, identical))

    print()
    print("| trace | records | intervals | shardscope (native, 2 threads) | MB/s | events/s | peak RSS "
          "| same core in wasm (Node, 1 thread) | stormlog 0.4.3 | stormlog RSS | speed-up | results |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for trace, size_mb, records, intervals, wall, rss, wasm_s, ref, identical in rows:
        wasm_text = f"{wasm_s:.2f} s ({size_mb / wasm_s:.0f} MB/s)" if wasm_s else "–"
        if ref:
            ref_text, ref_rss, ratio = f"{ref[0]:.1f} s", f"{ref[1]:.0f} MB", f"**{ref[0] / wall:.0f}×**"
        else:
            ref_text = ref_rss = ratio = "not run"
        verdict = {True: "identical", False: "**DIFFERENT**", None: "–"}[identical]
        print(f"| {os.path.basename(trace)} ({size_mb:.0f} MB) | {records:,} | {intervals:,} | {wall:.3f} s "
              f"| {size_mb / wall:.0f} | {records / wall / 1e6:.2f} M | {rss:.0f} MB | {wasm_text} "
              f"| {ref_text} | {ref_rss} | {ratio} | {verdict} |")
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
