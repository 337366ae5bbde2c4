"""Shardscope from Python: stormlog 0.4.3's collective-memory attribution, exactly and
about a hundred times faster, and the parallelism explorer.

- :func:`attribute` — trace files in, stormlog's result list out (``.to_pandas()``).
- :mod:`shardscope.collective_attribution` and :mod:`shardscope.telemetry` — drop-ins for
  stormlog's modules of the same names: change the import, keep the script.
- :func:`explore`, :func:`sensitivity` — ``shardscope explore`` / ``sensitivity``.
- :mod:`shardscope.ray` — a whole fleet of jobs on a Ray cluster (``pip install
  shardscope[ray]``; ``import shardscope`` never imports Ray).

Every computation is the Rust core's, the same as the command line and the web page.
"""

from __future__ import annotations

from ._shardscope import TraceError, __version__
from ._results import Results, attribute
from ._explore import ExploreResult, explore, sensitivity
from . import collective_attribution, telemetry

__all__ = [
    "ExploreResult",
    "Results",
    "TraceError",
    "__version__",
    "attribute",
    "collective_attribution",
    "explore",
    "sensitivity",
    "telemetry",
]
