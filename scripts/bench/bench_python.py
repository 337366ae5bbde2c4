"""`make bench`'s Python figures (issue 37): the package against the CLI and stormlog 0.4.3.

Usage: .tools/py-venv/bin/python scripts/bench/bench_python.py TRACE JOBS_DIR CLI

- the fast path `shardscope.attribute(TRACE)` against the CLI's wall time on the same file
  (`shardscope attribute TRACE --format json`, a process of its own) and against stormlog's
  `load_telemetry_events` + `attribute_collective_memory` in this process;
- the drop-in on stormlog's already loaded events against stormlog's
  `attribute_collective_memory` alone (results checked equal);
- two Python threads attributing two traces at once against one (each on one parse thread:
  the GIL is released, so two cores take two traces in about the time of one);
- the Ray fleet over every job in JOBS_DIR with 1 and 2 workers against the CLI run over
  the same jobs one after another.
Timings only (best of a few runs where cheap); the correctness is `make test`'s.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
import time


def best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    trace, jobs_dir, cli = sys.argv[1], sys.argv[2], sys.argv[3]
    import shardscope
    from shardscope import collective_attribution as ours

    size_mb = os.path.getsize(trace) / 1e6
    cores = os.cpu_count() or 1
    print(f"machine: {cores} cores; trace {os.path.basename(trace)} ({size_mb:.0f} MB)")

    def cli_run(path: str) -> None:
        subprocess.run([cli, "attribute", path, "--format", "json"], check=True, stdout=subprocess.DEVNULL)

    cli_s = best(lambda: cli_run(trace), 5)
    fast_s = best(lambda: shardscope.attribute(trace), 5)
    print()
    print("| what | wall | ratio | goal |")
    print("|---|---|---|---|")
    print(f"| CLI `shardscope attribute` (own process) | {cli_s:.3f} s | 1 | |")
    print(f"| `shardscope.attribute` (in Python) | {fast_s:.3f} s | {fast_s / cli_s:.2f}× the CLI | ≤ 1.2× |")

    try:
        from stormlog.collective_attribution import attribute_collective_memory
        from stormlog.telemetry import load_telemetry_events
    except ImportError:
        print("| stormlog 0.4.3 | not installed | | |")
        attribute_collective_memory = None
    if attribute_collective_memory is not None:
        start = time.perf_counter()
        events = load_telemetry_events(trace)
        loaded = time.perf_counter()
        theirs = attribute_collective_memory(events, preset="medium")
        attributed = time.perf_counter()
        stormlog_s, stormlog_attr_s = attributed - start, attributed - loaded
        print(
            f"| stormlog `load_telemetry_events` + `attribute_collective_memory` | {stormlog_s:.1f} s "
            f"| **{stormlog_s / fast_s:.0f}×** slower than `shardscope.attribute` | ≥ 100× |"
        )
        mine = ours.attribute_collective_memory(events)
        same = [dataclasses.asdict(r) for r in mine] == [dataclasses.asdict(r) for r in theirs]
        dropin_s = best(lambda: ours.attribute_collective_memory(events), 3)
        print(
            f"| stormlog `attribute_collective_memory` alone ({len(events):,} loaded events) "
            f"| {stormlog_attr_s:.2f} s | | |"
        )
        print(
            f"| drop-in on stormlog's loaded events ({'same results' if same else '**DIFFERENT**'}) "
            f"| {dropin_s:.3f} s | **{stormlog_attr_s / dropin_s:.0f}×** faster than stormlog's | ≥ 20× |"
        )
        del events, theirs, mine

    one_s = best(lambda: shardscope.attribute(trace, threads=1), 3)

    def two_at_once() -> None:
        threads = [threading.Thread(target=shardscope.attribute, args=(trace,), kwargs={"threads": 1}) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    two_s = best(two_at_once, 3)
    print(f"| one trace, one parse thread | {one_s:.3f} s | 1 | |")
    print(f"| two traces in two Python threads at once | {two_s:.3f} s | {two_s / one_s:.2f}× one | < 1.3× |")

    jobs = sorted(os.path.join(jobs_dir, name) for name in os.listdir(jobs_dir))
    total_mb = sum(os.path.getsize(j) for j in jobs) / 1e6
    start = time.perf_counter()
    for job in jobs:
        cli_run(job)
    cli_fleet_s = time.perf_counter() - start
    start = time.perf_counter()
    for job in jobs:
        shardscope.attribute(job)
    loop_s = time.perf_counter() - start
    print()
    print(f"Ray fleet: {len(jobs)} jobs ({total_mb:.0f} MB in all), `attribute_jobs(...).materialize()`")
    print()
    print("| run | wall | jobs/s |")
    print("|---|---|---|")
    print(f"| CLI, one job after another | {cli_fleet_s:.2f} s | {len(jobs) / cli_fleet_s:.1f} |")
    print(f"| `shardscope.attribute` in a Python loop | {loop_s:.2f} s | {len(jobs) / loop_s:.1f} |")
    import logging

    import ray
    import ray.data

    import shardscope.ray as fleet

    start = time.perf_counter()
    ray.init(num_cpus=cores, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.enable_auto_log_stats = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    print(f"| (`ray.init`, local cluster of {cores} CPUs) | {time.perf_counter() - start:.2f} s | |")
    fleet.attribute_jobs(jobs[:4]).materialize()  # workers started, the package imported
    for workers in sorted({1, 2, cores}):
        start = time.perf_counter()
        rows = fleet.attribute_jobs(jobs, concurrency=workers).materialize().count()
        wall = time.perf_counter() - start
        print(f"| Ray, {workers} worker{'s' if workers > 1 else ''} ({rows:,} intervals) | {wall:.2f} s | {len(jobs) / wall:.1f} |")
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
