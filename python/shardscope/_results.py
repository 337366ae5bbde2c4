"""The fast path (:func:`attribute`) and the result list every attribution returns."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence, Union

from . import _shardscope

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas
    import pyarrow

PathLike = Union[str, "os.PathLike[str]"]

#: The CLI's CSV columns (``shardscope attribute --format csv``), in its order.
COLUMNS = (
    "rank",
    "interval_start_ns",
    "interval_end_ns",
    "classification",
    "confidence",
    "marker_hits",
    "synchronized_ranks",
    "expected_world_size",
    "synchrony_ratio",
    "peak_gap_bytes",
    "peak_gap_ratio",
    "robust_zscore",
    "reason_codes",
    "phase_path",
)


def arrow_schema() -> "pyarrow.Schema":
    """The Arrow schema of :meth:`Results.to_arrow` (imports pyarrow)."""
    import pyarrow as pa

    i64, f64, text = pa.int64(), pa.float64(), pa.string()
    types = [i64, i64, i64, text, f64, i64, i64, i64, f64, i64, f64, f64, text, text]
    return pa.schema(list(zip(COLUMNS, types)))


class Results(list):
    """stormlog's result list (:class:`~shardscope.collective_attribution.CollectiveAttributionResult`
    objects, in stormlog's order: rank, then interval start), with what was loaded.

    Attributes:
        events: events in the analysed session.
        ranks: distinct ranks among them.
        session_id: the analysed session (``None`` when nothing was loaded).
        warnings: what stormlog's TUI warns about while loading (skipped CSV rows, ...).
    """

    events: int
    ranks: int
    session_id: str | None
    warnings: list[str]

    def __init__(self, items: Iterable[Any] = (), run: Any = None) -> None:
        super().__init__(items)
        self._run = run
        self.events = getattr(run, "events", 0)
        self.ranks = getattr(run, "ranks", 0)
        self.session_id = getattr(run, "session_id", None)
        self.warnings = list(getattr(run, "warnings", []))

    @classmethod
    def _of_run(cls, run: Any) -> "Results":
        from .collective_attribution import CollectiveAttributionResult

        items = [CollectiveAttributionResult._from_dict(d) for d in json.loads(run.json())]
        return cls(items, run)

    def to_dicts(self) -> list[dict[str, Any]]:
        """Each result as ``shardscope attribute --format json`` prints it."""
        return [r.to_dict() for r in self]

    def to_json(self) -> str:
        """The results exactly as ``shardscope attribute --format json`` prints them."""
        return self._checked_run().json()

    def to_csv(self) -> str:
        """The results exactly as ``shardscope attribute --format csv`` prints them."""
        return self._checked_run().csv()

    def _checked_run(self) -> Any:
        if self._run is None or len(self._run) != len(self):
            raise ValueError(
                "these results were changed after attribution; columns come from the "
                "attribution itself (call shardscope.attribute again)"
            )
        return self._run

    def columns(self) -> dict[str, list[Any]]:
        """The CSV's columns, typed: column name to a list of values (built in Rust)."""
        return dict(self._checked_run().columns())

    def to_arrow(self) -> "pyarrow.Table":
        """One row per interval, the CLI's CSV columns (a ``pyarrow.Table``; built column
        by column, no Python loop per row). ``peak_gap_ratio`` and ``phase_path`` are null
        where the CSV cell is empty; ``reason_codes`` are joined by ``;`` as in the CSV."""
        import pyarrow as pa

        return pa.table(self.columns(), schema=arrow_schema())

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`to_arrow` as a ``pandas.DataFrame``."""
        return self.to_arrow().to_pandas()

    def __repr__(self) -> str:
        return f"Results({list.__repr__(self)})"


def _paths(paths: PathLike | Sequence[PathLike]) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def _threads(threads: int | None) -> int:
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive int or None, got {threads!r}")
    return threads


def attribute(
    paths: PathLike | Sequence[PathLike],
    *,
    preset: str = "medium",
    overrides: Mapping[str, Any] | None = None,
    session_id: str | None = None,
    phases: bool = False,
    align_clocks: bool = False,
    threads: int | None = None,
) -> Results:
    """Load stormlog traces and attribute their hidden-memory spikes to collectives.

    Takes what ``shardscope attribute`` takes: a path or a list of them — trace files
    (``.json``, ``.jsonl``, ``.gz``, tracker ``.csv`` exports, ``telemetry_timeline.json``),
    telemetry-sink folders or their ``manifest.json``, folders of per-rank exports,
    ``.zip``/``.tar``/``.tar.gz`` archives. Several paths are combined as stormlog's TUI
    combines them.

    Args:
        preset: stormlog's sensitivity preset (``low``, ``medium``, ``high``).
        overrides: stormlog's override fields (``{"min_gap_bytes": 1 << 30}``).
        session_id: analyse this session instead of stormlog's default one.
        phases: attach each interval's phase (``phase_attribution``).
        align_clocks: beyond stormlog — attribute on the reference rank's clock.
        threads: parse big files with this many threads (``None``: one per core; ``1``:
            the calling thread only, what a process pool or a Ray task wants). The result
            is the same for every count.

    Returns:
        :class:`Results`, stormlog's result list. The GIL is released while files are
        read, parsed and attributed.

    Raises:
        TraceError: a file that cannot be loaded or a bad setting (a ``ValueError``,
            with ``file``, ``line``, ``record`` and ``field``), as the CLI reports it.
        TypeError: an override of a type stormlog cannot compare (as Python would).
    """
    run = _shardscope.attribute(
        _paths(paths),
        preset=preset,
        overrides=overrides,
        session_id=session_id,
        phases=phases,
        align_clocks=align_clocks,
        threads=_threads(threads),
    )
    return Results._of_run(run)
