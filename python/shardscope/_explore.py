"""``shardscope explore`` and ``shardscope sensitivity`` from Python."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from . import _shardscope

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas
    import pyarrow

# The lists of configurations a report may hold, in the order looked for.
_CONFIG_LISTS = ("all", "pareto")


class ExploreResult(dict):
    """The command line's JSON report as Python objects (a ``dict``), with the
    configurations as a table."""

    def configurations(self) -> list[dict[str, Any]]:
        """The report's configurations, one dict each: every configuration with
        ``all=True``, else the Pareto frontier; one list over every batch of a
        ``batch_sweep`` (each with its ``batch``), and over every scenario (each with its
        ``scenario``); the baseline's rows for ``sensitivity``."""
        if "batches" in self:
            return [c for b in self["batches"] for c in b.get("pareto", [])]
        if "scenarios" in self:
            return [
                {"scenario": s.get("name"), **c}
                for s in self["scenarios"]
                for c in (s.get("report") or {}).get("pareto", [])
            ]
        for key in _CONFIG_LISTS:
            if isinstance(self.get(key), list):
                return list(self[key])
        if isinstance(self.get("rows"), list):
            return list(self["rows"])
        return []

    def to_arrow(self) -> "pyarrow.Table":
        """:meth:`configurations` as a ``pyarrow.Table``."""
        import pyarrow as pa

        return pa.Table.from_pylist(self.configurations())

    def to_pandas(self) -> "pandas.DataFrame":
        """:meth:`configurations` as a ``pandas.DataFrame``."""
        import pandas as pd

        return pd.DataFrame(self.configurations())


def _argv(command: str, settings: dict[str, Any]) -> list[str]:
    if "format" in settings:
        raise TypeError(f"{command}() returns the JSON report; it takes no format")
    argv = [command, "--format", "json"]
    for key, value in settings.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)) and key in ("scenario", "calibrate"):
            for item in value:
                argv += [flag, _text(item)]
        elif isinstance(value, (list, tuple)):
            argv += [flag, ",".join(str(v) for v in value)]
        else:
            argv += [flag, _text(value)]
    return argv


def _text(value: Any) -> str:
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def explore(**settings: Any) -> ExploreResult:
    """``shardscope explore``: sweep every parallelism configuration, keep the frontier.

    Every option of the command is a keyword (dashes become underscores): ``model``,
    ``model_json``, ``machine``, ``machine_json``, ``s_kv``, ``mode``, ``batch``, ``ep``,
    ``scope``, ``efficiency``, ``batch_sweep`` (a list), ``sla_tpot_ms``, ``sla_ttft_ms``,
    ``prompt_len``, ``all``, ``scenario`` (a list of ``"k=v,..."`` strings or dicts) and
    ``calibrate`` (a list). Returns the command's JSON report (an :class:`ExploreResult`).

    Raises:
        TraceError: a bad option value, with the command line's message and ``field``.
    """
    return ExploreResult(json.loads(_shardscope.run_cli(_argv("explore", settings))))


def sensitivity(**settings: Any) -> ExploreResult:
    """``shardscope sensitivity``: vary one knob at a time around ``baseline``.

    Takes the model and machine keywords of :func:`explore` and ``baseline``
    (``"cp=2,tp=4,..."``). Returns the command's JSON report.
    """
    return ExploreResult(json.loads(_shardscope.run_cli(_argv("sensitivity", settings))))
