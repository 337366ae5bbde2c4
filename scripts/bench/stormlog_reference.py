"""Time stormlog 0.4.3 on a trace the way `shardscope attribute PATH` analyses it.

Usage: python stormlog_reference.py TRACE OUT.json
Prints one line of timings; writes stormlog's attribution results (medium preset) to OUT.json
so `make bench` can check that shardscope's answer is the same.
"""

import json
import resource
import sys
import time
from dataclasses import asdict


def main() -> int:
    trace, out = sys.argv[1], sys.argv[2]
    start = time.perf_counter()
    from stormlog.collective_attribution import attribute_collective_memory
    from stormlog.telemetry import load_telemetry_sessions

    imported = time.perf_counter()
    sessions = load_telemetry_sessions(trace, permissive_legacy=True)
    events = list(sessions[0].events) if sessions else []
    loaded = time.perf_counter()
    results = attribute_collective_memory(events, preset="medium")
    attributed = time.perf_counter()
    rows = []
    for result in results:
        row = asdict(result)
        row.pop("phase_attribution", None)
        rows.append(row)
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(rows, handle)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"stormlog 0.4.3: load {loaded - imported:.2f} s, attribution {attributed - loaded:.2f} s, "
        f"end to end {attributed - start:.2f} s (import included), {len(events)} events, "
        f"{len(rows)} intervals, peak RSS {peak_mb:.0f} MB"
    )
    print(f"STORMLOG_SECONDS={attributed - start:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
