#!/usr/bin/env python3
"""Writes the seed corpus of fuzz/ from the repository's own fixtures (run once; the
seeds are checked in). Each trace seed is one selector byte (see
crates/fuzz-targets/src/lib.rs: the layout in the low 3 bits, the parallel parse's range
size in the high bits) and a few records of a fixture, so the fuzzer starts from real
stormlog files of every format. The model and machine seeds are the explorer presets'
JSON documents (`shardscope_core::view::custom::{model,machine}_preset_json`), written
by `SHARDSCOPE_WRITE_SEEDS=1 cargo test -p shardscope-fuzz-targets preset_seeds`
(`make test` checks that they have not drifted from the presets).
"""

import gzip  # noqa: F401  (gzip seeds are compressed by the target itself)
import json
import pathlib
import struct

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRACES = ROOT / "tests/fixtures/attribution/traces"
TUI = ROOT / "tests/fixtures/tui_artifacts/traces"
OUT = ROOT / "fuzz/corpus"

JSON, JSONL, GZIP, CSV, TIMELINE, SINK, TWO_FILES, FOLDER = range(8)


def selector(layout: int, range_shift: int = 0) -> bytes:
    return bytes([(range_shift << 3) | layout])


def few_records(value, keep: int = 6):
    """A JSON document with its record lists cut to a few records, keeping one record
    of every event type (markers, phase events) so every path stays reachable."""
    def cut(records):
        if not isinstance(records, list):
            return records
        out, types = [], set()
        for r in records:
            t = r.get("event_type") if isinstance(r, dict) else None
            if len(out) < keep or t not in types:
                out.append(r)
                types.add(t)
        return out

    if isinstance(value, list):
        return cut(value)
    if isinstance(value, dict):
        return {k: cut(v) if k in ("events", "telemetry_events") else v for k, v in value.items()}
    return value


def json_text(path: pathlib.Path) -> bytes:
    raw = path.read_bytes()
    if len(raw) < 4096:
        return raw
    try:
        value = json.loads(raw)
    except ValueError:
        return raw[:4096]
    return json.dumps(few_records(value)).encode()


def lines(path: pathlib.Path, n: int = 8) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:n])


def write(target: str, name: str, data: bytes) -> None:
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def main() -> None:
    for f in sorted(TRACES.glob("*.json")):
        write("trace_load", f"json-{f.stem}", selector(JSON) + json_text(f))
    # The range path with ranges of 32 B and 512 B, and gzip.
    for stem, shift in [("sync_markers_type", 1), ("phases_markers", 5), ("two_sessions", 2)]:
        write("trace_load", f"ranges{16 << shift}-{stem}", selector(JSON, shift) + json_text(TRACES / f"{stem}.json"))
    write("trace_load", "gzip-overlap_merge", selector(GZIP) + json_text(TRACES / "overlap_merge.json"))
    for f in sorted(TRACES.glob("*.jsonl")):
        write("trace_load", f"jsonl-{f.stem}", selector(JSONL, 2) + lines(f))
    for f in sorted(TRACES.glob("*.csv")) + sorted(TUI.glob("*.csv")):
        write("trace_load", f"csv-{f.stem}", selector(CSV) + lines(f, 10))
    for d in ("timeline_single", "timeline_ranks"):
        for f in sorted((TUI / d).rglob("telemetry_timeline.json"))[:2]:
            write("trace_load", f"timeline-{d}-{f.parent.name}", selector(TIMELINE) + f.read_bytes()[:6000])
    sink = TRACES / "sink_dir"
    write("trace_load", "sink", selector(SINK) + (sink / "manifest.json").read_bytes() + b"\0" + lines(sink / "segment-000001.jsonl"))
    per_rank = TRACES / "tui_per_rank_files"
    write(
        "trace_load",
        "per-rank-files",
        selector(TWO_FILES) + json_text(per_rank / "rank0_events.json") + b"\0" + json_text(per_rank / "rank1_events.json"),
    )
    write(
        "trace_load",
        "folder-json-csv",
        selector(FOLDER) + json_text(per_rank / "rank0_events.json") + b"\0" + lines(TUI / "csv_many_ranks.csv", 10),
    )

    # Record layouts: JSONL lines of fixtures (alike records in a row, then others),
    # and the records of JSON fixtures one per line.
    for f in sorted(TRACES.glob("*.jsonl"))[:4]:
        write("json_records", f"jsonl-{f.stem}", lines(f, 12))
    for stem in ("sync_markers_type", "phases_markers", "legacy_v1", "v2_records", "nullable_counters_v4", "inv_unknown_field"):
        f = TRACES / f"{stem}.json"
        if f.exists():
            value = few_records(json.loads(f.read_bytes()), keep=8)
            records = value if isinstance(value, list) else value.get("events", [])
            write("json_records", f"json-{stem}", b"".join(json.dumps(r).encode() + b"\n" for r in records[:16]))

    for i, fragment in enumerate([
        "#v=1&view=trace",
        "#v=1&view=trace&preset=high&o.min_confidence=0.7&o.min_gap_bytes=134217728"
        "&phases=1&session=sess%20B%26co&ranks=0,2,4-7"
        "&t=1700000001000000000-1700000003500000000&sel=3:1700000001880000000"
        "&files=rank0_events.json,odd%2Cname%231.json",
        "#v=1&view=explore&model=llama3.1-70b&machine=h200-hgx&mode=prefill&batch=8&s_kv=4096&ep=2",
        "#v=1&view=explore&model=gpt-9&batch=0&mode=sideways&cfg=cp2&pin=a,b,c,d&s_kv=4096",
        "#v=1&view=explore&preset=extreme&o.min_confidence=abc&o.nope=1&ranks=5-3&t=9-1&zzz=1&phases=maybe&%ZZ=1&sel=x",
    ]):
        write("permalink", f"fragment-{i}", fragment.encode())

    # The clock estimator (see clock_markers in crates/fuzz-targets/src/lib.rs for the
    # layout): three ranks at irregular steps with rank 1's first step 180 ms longer
    # (a skew), two strictly periodic ranks against reference rank 1, and extremes.
    def marker(rank: int, value: int, extreme: bool = False) -> bytes:
        return bytes([rank | (0x80 if extreme else 0)]) + struct.pack("<i", value)

    steps = [300_000, 410_000, 520_000, 330_000, 610_000, 450_000, 380_000, 500_000]
    seed = bytes([2, 0])
    for k in range(24):
        for r in range(3):
            seed += marker(r, steps[k % len(steps)] + (180_000 if (r == 1 and k == 0) else 0))
    write("clock_markers", "skewed_three_ranks", seed)
    seed = bytes([1, 2])
    for k in range(20):
        for r in range(2):
            seed += marker(r, 100_000 + (60_000 if (r == 1 and k == 0) else 0))
    write("clock_markers", "periodic_two_ranks", seed)
    seed = bytes([3, 1]) + marker(0, 2**31 - 1, True) + marker(0, -(2**31), True)
    seed += marker(1, 5) + marker(2, -7) + marker(0, 0) + marker(3, 1, True)
    write("clock_markers", "extremes", seed)


if __name__ == "__main__":
    main()
