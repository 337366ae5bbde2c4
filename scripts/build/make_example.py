#!/usr/bin/env python3
"""Writes public/examples/example-16-ranks.json.gz, the trace behind "Load example".

A made-up but stormlog-shaped (schema v4) run: 16 ranks on two 8-GPU nodes, 48 s of
100 ms samples, twelve 4 s training steps with forward / backward / optimizer phases.
What the attribution should find in it (medium preset):
  - confident: every step's backward all_reduce, a 1.5 GiB NCCL buffer on all 16 ranks
    at once, with collective markers;
  - likely: an all_gather of one tensor-parallel group (ranks 4-7) in the forward pass of
    steps 2, 5 and 8, with markers (only 4 of 16 ranks in sync);
  - suspect: a synchronous 640 MiB spike on every rank in step 6's optimizer phase with no
    collective marker, and a lone marked spike on rank 11 in step 9.
Deterministic (fixed seed); run `python3 scripts/build/make_example.py` to regenerate.
"""

import gzip
import json
import random
from pathlib import Path

GIB = 1 << 30
MIB = 1 << 20
TOTAL = 80 * GIB
START_NS = 1_733_000_000_000_000_000
STEP_S = 4.0
STEPS = 12
SAMPLE_NS = 100_000_000
RANKS = 16
SESSION = "example-run-16"

rng = random.Random(20261201)


def ns(seconds):
    return START_NS + int(round(seconds * 1e9))


def base(rank, ts, event_type):
    return {
        "schema_version": 4,
        "session_id": SESSION,
        "timestamp_ns": ts,
        "event_type": event_type,
        "collector": "stormlog.cuda_tracker",
        "sampling_interval_ms": 100,
        "pid": 41000 + rank,
        "host": f"node{rank // 8}",
        "job_id": "llama-8b-pretrain",
        "rank": rank,
        "local_rank": rank % 8,
        "world_size": RANKS,
        "device_id": rank % 8,
    }


NULL_COUNTERS = {
    "allocator_allocated_bytes": None,
    "allocator_reserved_bytes": None,
    "allocator_active_bytes": None,
    "allocator_inactive_bytes": None,
    "allocator_change_bytes": None,
    "device_used_bytes": None,
    "device_free_bytes": None,
    "device_total_bytes": None,
}

# (start_s, end_s, gap_bytes, ranks, marker op or None)
spikes = []
for step in range(STEPS):
    t0 = step * STEP_S
    spikes.append((t0 + 2.45, t0 + 2.75, 1536 * MIB, range(RANKS), "all_reduce"))
    if step in (2, 5, 8):
        spikes.append((t0 + 0.75, t0 + 0.95, 768 * MIB, range(4, 8), "all_gather"))
    if step == 6:
        spikes.append((t0 + 3.65, t0 + 3.85, 640 * MIB, range(RANKS), None))
    if step == 9:
        spikes.append((t0 + 1.05, t0 + 1.25, 1024 * MIB, [11], "broadcast"))

PHASES = [("forward", 0.0, 1.6), ("backward", 1.6, 3.4), ("optimizer", 3.4, 4.0)]

events = []
for rank in range(RANKS):
    skew_ns = rank * 1_500_000
    reserved = 38 * GIB + (rank % 3) * 512 * MIB
    sequence = 0
    for step in range(STEPS):
        for name, a, b in PHASES:
            for action, t in (("enter", a), ("exit", b)):
                sequence += 1
                ts = ns(step * STEP_S + t) + skew_ns + (1 if action == "enter" else -1) * 1000
                e = base(rank, ts, f"phase_{action}")
                e.update(NULL_COUNTERS)
                e["context"] = f"Phase {'entered' if action == 'enter' else 'exited'}: {name}"
                e["metadata"] = {
                    "backend": "cuda",
                    "phase_scope": {
                        "action": action,
                        "name": name,
                        "path": [f"step_{step}", name],
                        "depth": 2,
                        "scope_id": f"{SESSION}:{rank}:step_{step}:{name}",
                        "parent_scope_id": None,
                        "thread_id": 140000 + rank,
                        "thread_name": "MainThread",
                        "sequence": sequence,
                    },
                }
                events.append(e)
    for start, end, gap, ranks, op in spikes:
        if rank in ranks and op:
            e = base(rank, ns(start) + skew_ns - 4_000_000, "collective")
            e.update(NULL_COUNTERS)
            e["context"] = f"nccl:{op}"
            e["metadata"] = {"backend": "cuda", "op": op, "bytes": gap}
            events.append(e)
    samples = int(STEPS * STEP_S * 1e9 / SAMPLE_NS)
    for i in range(samples):
        t_s = i * SAMPLE_NS / 1e9
        ts = ns(t_s) + skew_ns + rng.randrange(400_000)
        phase_t = t_s % STEP_S
        # Activations grow through forward and are freed by the optimizer step.
        activations = int(min(phase_t, 3.4) / 3.4 * 6 * GIB) if phase_t < 3.4 else 0
        allocated = 30 * GIB + activations + rng.randrange(64) * MIB
        res = max(reserved, allocated + 256 * MIB)
        gap = 48 * MIB + rng.randrange(24) * MIB
        for start, end, spike_gap, ranks, _ in spikes:
            if rank in ranks and start <= t_s < end:
                gap += spike_gap
        used = res + gap
        e = base(rank, ts, "sample")
        e.update(
            {
                "allocator_allocated_bytes": allocated,
                "allocator_reserved_bytes": res,
                "allocator_active_bytes": None,
                "allocator_inactive_bytes": None,
                "allocator_change_bytes": 0,
                "device_used_bytes": used,
                "device_free_bytes": TOTAL - used,
                "device_total_bytes": TOTAL,
                "context": None,
                "metadata": {"backend": "cuda"},
            }
        )
        events.append(e)

events.sort(key=lambda e: (e["timestamp_ns"], e["rank"]))
out = Path(__file__).resolve().parents[2] / "public" / "examples" / "example-16-ranks.json.gz"
data = json.dumps(events, separators=(", ", ": ")).encode()
with open(out, "wb") as f:
    # mtime=0: the same bytes on every run.
    with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(data)
print(f"wrote {out}: {len(events)} events, {len(data) / 1e6:.1f} MB JSON, {out.stat().st_size / 1e3:.0f} kB gzip")
