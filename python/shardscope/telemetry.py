"""A drop-in for ``stormlog.telemetry.load_telemetry_events`` (stormlog 0.4.3)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Union

from . import _shardscope
from ._shardscope import Event, EventList

__all__ = ["Event", "EventList", "load_telemetry_events"]


def load_telemetry_events(
    path: Union[str, "os.PathLike[str]"],
    permissive_legacy: bool = True,
    events_key: Optional[str] = None,
    session_id: Optional[str] = None,
) -> EventList:
    """Load telemetry events from JSON, JSONL, a sink folder (and, beyond stormlog, gzip,
    CSV exports and archives) and return the selected session's events.

    The events stay in Rust (an :class:`EventList`: ``len()``, indexing and iteration
    make one :class:`Event` at a time); pass them to
    :func:`shardscope.collective_attribution.attribute_collective_memory`. Errors are
    stormlog's ``ValueError`` messages, raised as :class:`shardscope.TraceError` with
    ``file``, ``line``, ``record`` and ``field``; a missing ``session_id`` raises
    ``Requested session_id not found: ...``.

    Only stormlog's defaults ``permissive_legacy=True`` and ``events_key=None`` are
    supported; other values raise ``NotImplementedError``.
    """
    if not permissive_legacy or events_key is not None:
        raise NotImplementedError(
            "shardscope reads traces as stormlog does by default "
            "(permissive_legacy=True, events_key=None); load with stormlog for other values"
        )
    given = os.fspath(path)
    try:
        return _shardscope.load_events(given, session_id=session_id)
    except _shardscope.TraceError as exc:
        # stormlog names the path as given where its message names a file; so do we.
        if exc.file and exc.message and f" in {exc.file} " in exc.message + " ":
            whole = str(Path(given))
            if os.path.basename(whole) == exc.file:
                text = exc.message.replace(f" in {exc.file}", f" in {whole}", 1)
                exc.args = (text,)
                exc.message = text
        raise
