"""A fleet of jobs on Ray: every job's intervals, or one summary row per job.

Needs ``pip install shardscope[ray]``; ``import shardscope`` never imports Ray (this module
does, when it is imported). It runs unchanged on a laptop and on a cluster::

    import ray, shardscope.ray
    ray.init()                                # a local cluster of this machine's cores
    # ray.init(address="ray://head:10001")    # or an existing cluster
    rows = shardscope.ray.attribute_jobs(["s3://bucket/runs/job-0001/", ...])
    rows.write_parquet("s3://bucket/reports/intervals/")

Jobs are read on the workers: the driver ships only their paths. A path is anything
:func:`shardscope.attribute` takes, local (to every worker: a shared file system) or any
URI pyarrow's file systems read (``s3://``, ``gs://``, ``hdfs://``, ...), copied to the
worker's temporary folder first (a folder is copied whole: a sink, per-rank files).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any, Iterable, Mapping

import pyarrow as pa
import ray.data

from ._results import arrow_schema, attribute

__all__ = ["attribute_jobs", "summarize_jobs", "interval_schema", "summary_schema"]

_CLASSES = ("collective_confident", "collective_likely", "collective_suspect")


def interval_schema() -> pa.Schema:
    """:func:`attribute_jobs`' rows: ``job``, then the CLI's CSV columns."""
    return pa.schema([pa.field("job", pa.string())] + list(arrow_schema()))


def summary_schema() -> pa.Schema:
    """:func:`summarize_jobs`' rows, one per job."""
    return pa.schema(
        [
            ("job", pa.string()),
            ("events", pa.int64()),
            ("ranks", pa.int64()),
            ("intervals", pa.int64()),
            *[(name, pa.int64()) for name in _CLASSES],
            ("max_peak_gap_bytes", pa.int64()),
            ("session_id", pa.string()),
            ("error", pa.string()),
        ]
    )


def _is_uri(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def _fetch(uri: str, into: str) -> str:
    """``uri`` copied under ``into`` with pyarrow's file systems; the local path."""
    import pyarrow.fs as pafs

    fs, root = pafs.FileSystem.from_uri(uri)
    info = fs.get_file_info(root)
    if info.type == pafs.FileType.NotFound:
        raise FileNotFoundError(f"{uri} does not exist")
    name = os.path.basename(root.rstrip("/")) or "job"
    local = os.path.join(into, name)
    if info.type == pafs.FileType.Directory:
        selector = pafs.FileSelector(root, recursive=True)
        for entry in fs.get_file_info(selector):
            if entry.type != pafs.FileType.File:
                continue
            target = os.path.join(local, os.path.relpath(entry.path, root))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with fs.open_input_stream(entry.path) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
    else:
        with fs.open_input_stream(root) as src, open(local, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    return local


def _run_job(job: str, settings: Mapping[str, Any]):
    """``job`` attributed with ``settings`` (a URI fetched first)."""
    if job.startswith("file://"):
        return attribute(job[len("file://") :], **settings)
    if not _is_uri(job):
        return attribute(job, **settings)
    with tempfile.TemporaryDirectory(prefix="shardscope-job-") as tmp:
        return attribute(_fetch(job, tmp), **settings)


def _intervals(batch: pa.Table, settings: Mapping[str, Any]) -> pa.Table:
    tables = []
    for job in batch.column("job").to_pylist():
        try:
            columns = _run_job(job, settings).columns()
        except Exception:  # noqa: BLE001 - a job that cannot be read has no rows here
            continue
        count = len(columns["rank"])
        tables.append(
            pa.table({"job": [job] * count, **columns}, schema=interval_schema())
        )
    if not tables:
        return interval_schema().empty_table()
    return pa.concat_tables(tables)


def _summaries(batch: pa.Table, settings: Mapping[str, Any]) -> pa.Table:
    rows = []
    for job in batch.column("job").to_pylist():
        row: dict[str, Any] = {"job": job}
        try:
            results = _run_job(job, settings)
        except Exception as exc:  # noqa: BLE001 - one bad job never fails the others
            row["error"] = f"{type(exc).__name__}: {exc}"
            rows.append(row)
            continue
        classes = [r.classification for r in results]
        gaps = [r.evidence.peak_gap_bytes for r in results if r.evidence is not None]
        row.update(
            events=results.events,
            ranks=results.ranks,
            intervals=len(results),
            max_peak_gap_bytes=max(gaps) if gaps else None,
            session_id=results.session_id,
            error=None,
            **{name: classes.count(name) for name in _CLASSES},
        )
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=summary_schema())


def _jobs_per_task(jobs: int, given: int | None) -> int:
    """Jobs one task takes: as given, else enough tasks for four per CPU of the cluster
    (a task costs Ray tens of milliseconds; a small job takes a few), at most 16."""
    if given is not None:
        return max(1, int(given))
    cpus = int(ray.cluster_resources().get("CPU", 1)) if ray.is_initialized() else os.cpu_count() or 1
    return max(1, min(16, jobs // (4 * max(1, cpus))))


def _map(job_paths, fn, settings, concurrency, num_cpus, jobs_per_task) -> "ray.data.Dataset":
    settings = dict(settings)
    # A task holds num_cpus of the cluster: one CPU parses on one thread (the core's parse
    # threads would take a neighbour task's core).
    if num_cpus <= 1:
        settings.setdefault("threads", 1)
    jobs = [{"job": os.fspath(p)} for p in job_paths]
    per_task = _jobs_per_task(len(jobs), jobs_per_task)
    blocks = max(1, -(-len(jobs) // per_task))
    options: dict[str, Any] = {}
    if concurrency is not None:
        options["compute"] = ray.data.TaskPoolStrategy(size=concurrency)
    ds = ray.data.from_items(jobs, override_num_blocks=blocks)
    # Ray Data reserves part of the cluster per operator by default; with one operator
    # that holds tasks back on small clusters (measured on 2 CPUs: 1 and 2 workers alike).
    # This dataset's own context only: the caller's global settings stay as they are.
    ds.context.op_resource_reservation_enabled = False
    return ds.map_batches(
        fn,
        fn_kwargs={"settings": settings},
        batch_size=per_task,
        batch_format="pyarrow",
        num_cpus=num_cpus,
        udf_modifying_row_count=True,
        **options,
    )


def attribute_jobs(
    job_paths: Iterable[Any],
    *,
    concurrency: int | None = None,
    num_cpus: float = 1,
    jobs_per_task: int | None = None,
    **attribute_settings: Any,
) -> "ray.data.Dataset":
    """Every interval of every job, as a ``ray.data.Dataset``.

    One row per interval: ``job`` (the path as given), then the CLI's CSV columns
    (:meth:`shardscope.Results.to_arrow`). ``attribute_settings`` are
    :func:`shardscope.attribute`'s keywords (``preset``, ``overrides``, ``session_id``,
    ``phases``, ``align_clocks``, ``threads``). A job that cannot be read has no rows
    here; :func:`summarize_jobs` says why. ``concurrency`` caps the tasks at once
    (``compute=TaskPoolStrategy(size=...)``); ``num_cpus`` is each task's CPU share;
    ``jobs_per_task`` how many jobs one task reads one after another (default: four
    tasks per CPU of the cluster, at most 16 jobs each). Lazy, like every Ray dataset.
    """
    return _map(job_paths, _intervals, attribute_settings, concurrency, num_cpus, jobs_per_task)


def summarize_jobs(
    job_paths: Iterable[Any],
    *,
    concurrency: int | None = None,
    num_cpus: float = 1,
    jobs_per_task: int | None = None,
    **attribute_settings: Any,
) -> "ray.data.Dataset":
    """One row per job, as a ``ray.data.Dataset``: ``job``, ``events`` and ``ranks`` of the
    analysed session, ``intervals`` and the count of each class
    (``collective_confident``, ``collective_likely``, ``collective_suspect``),
    ``max_peak_gap_bytes`` (the largest gap of any interval), ``session_id`` and
    ``error`` (``None``, or why the job could not be read: one bad job never fails the
    others). Keywords as :func:`attribute_jobs`.
    """
    return _map(job_paths, _summaries, attribute_settings, concurrency, num_cpus, jobs_per_task)


