"""`shardscope.ray` on a local Ray cluster (`ray.init(num_cpus=2)`): 24 jobs made from the
fixture traces in every input form (JSON, gzip, JSONL, a sink folder, per-rank files, a CSV
export, a file:// URI) plus one broken job give, job by job, exactly the command line's
results, and the broken job's error in its summary row."""

from __future__ import annotations

import csv
import gzip
import io
import math
import shutil
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

import shardscope
import shardscope.ray as fleet
from conftest import FIXTURES, run_cli

TRACES = FIXTURES / "traces"
FILES = [
    "sync_markers_type.json",
    "sync_no_markers.json",
    "unsync_single_rank.json",
    "preset_gap_thresholds.json",
    "phases_markers.json",
    "two_sessions.json",
    "jsonl_segment.jsonl",
    "tui_csv_export.csv",
]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory) -> list[str]:
    root = tmp_path_factory.mktemp("jobs")
    paths: list[str] = []
    for i in range(3):
        for name in FILES:
            job = root / f"job-{len(paths):02d}"
            job.mkdir()
            source = TRACES / name
            if i == 1 and source.suffix == ".json":
                target = job / (name + ".gz")
                target.write_bytes(gzip.compress(source.read_bytes()))
            else:
                target = job / name
                shutil.copy(source, target)
            paths.append(f"file://{target}" if i == 2 and len(paths) % 4 == 0 else str(target))
    shutil.copytree(TRACES / "sink_dir", root / "sink-job")
    paths.append(str(root / "sink-job"))
    shutil.copytree(TRACES / "tui_per_rank_files", root / "ranks-job")
    paths.append(str(root / "ranks-job"))
    broken = root / "broken.json"
    broken.write_text('{"events": [{"schema_version": 4, "timestamp_ns": "soon"}]}', encoding="utf-8")
    paths.append(str(broken))
    assert len(paths) >= 21
    return paths


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def local(job: str) -> str:
    return job[len("file://") :] if job.startswith("file://") else job


def cli_rows(job: str) -> list[dict]:
    code, out, err = run_cli("attribute", local(job), "--format", "csv")
    assert code == 0, err
    return list(csv.DictReader(io.StringIO(out)))


def normal(value) -> object:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value == "":
        return ""
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def test_every_job_s_intervals_are_the_cli_s(cluster, jobs):
    table = fleet.attribute_jobs(jobs).to_arrow_refs()
    rows = [row for ref in table for row in ray.get(ref).to_pylist()]
    assert [f.name for f in fleet.interval_schema()] == ["job"] + list(cli_rows(jobs[0])[0])
    by_job: dict[str, list[dict]] = {}
    for row in rows:
        by_job.setdefault(row.pop("job"), []).append(row)
    assert set(by_job) <= set(jobs)
    checked = 0
    for job in jobs[:-1]:
        want = [{k: normal(v) for k, v in r.items()} for r in cli_rows(job)]
        got = sorted(
            ({k: normal(v) for k, v in r.items()} for r in by_job.get(job, [])),
            key=lambda r: (r["rank"], r["interval_start_ns"]),
        )
        assert got == want, job
        checked += len(want)
    assert checked > 40
    assert jobs[-1] not in by_job


def test_one_summary_row_per_job_and_the_broken_one_says_why(cluster, jobs, tmp_path):
    summary = fleet.summarize_jobs(jobs)
    out = tmp_path / "summary"
    summary.write_parquet(str(out))
    import pyarrow.parquet as pq

    rows = {r["job"]: r for r in pq.read_table(str(out)).to_pylist()}
    assert set(rows) == set(jobs)
    for job in jobs[:-1]:
        results = shardscope.attribute(local(job))
        row = rows[job]
        assert row["error"] is None, row
        assert (row["events"], row["ranks"], row["intervals"], row["session_id"]) == (
            results.events,
            results.ranks,
            len(results),
            results.session_id,
        )
        for name in ("collective_confident", "collective_likely", "collective_suspect"):
            assert row[name] == sum(r.classification == name for r in results)
        gaps = [r.evidence.peak_gap_bytes for r in results]
        assert row["max_peak_gap_bytes"] == (max(gaps) if gaps else None)
    broken = rows[jobs[-1]]
    code, out_text, _ = run_cli("attribute", jobs[-1], "--format", "json")
    assert code == 2
    import json

    assert broken["error"] == "TraceError: " + json.loads(out_text)["error"]
    assert broken["intervals"] is None


def test_a_uri_job_is_fetched_whole_before_it_is_read(tmp_path):
    sink = tmp_path / "sink"
    shutil.copytree(TRACES / "sink_dir", sink)
    fetched = fleet._fetch(sink.as_uri(), str(tmp_path / "fetched"))
    assert sorted(p.name for p in Path(fetched).rglob("*")) == sorted(
        p.name for p in sink.rglob("*")
    )
    assert shardscope.attribute(fetched) == shardscope.attribute(sink)
    one = fleet._fetch((TRACES / "sync_markers_type.json").as_uri(), str(tmp_path))
    assert Path(one).name == "sync_markers_type.json"
    with pytest.raises(FileNotFoundError):
        fleet._fetch((tmp_path / "nope.json").as_uri(), str(tmp_path))
