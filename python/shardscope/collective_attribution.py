"""A drop-in for ``stormlog.collective_attribution`` (stormlog 0.4.3).

Change ``from stormlog.collective_attribution import ...`` to
``from shardscope.collective_attribution import ...`` and keep the script: the same
functions, the same three dataclasses with the same fields, the same results, and the
same exceptions (``ValueError`` — here :class:`shardscope.TraceError`, a subclass — and
``TypeError`` where Python would raise one). :func:`attribute_collective_memory` takes
shardscope's own events (:func:`shardscope.telemetry.load_telemetry_events`, held in Rust)
or stormlog's own ``TelemetryEventV2/V3/V4`` objects; the work is done by the Rust core.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from . import _shardscope
from ._results import Results

__all__ = [
    "CollectiveAttributionConfig",
    "CollectiveAttributionEvidence",
    "CollectiveAttributionResult",
    "PhaseAttribution",
    "PhaseSummary",
    "attribute_collective_memory",
    "resolve_collective_attribution_config",
]


@dataclass
class CollectiveAttributionConfig:
    """Runtime knobs for collective-memory attribution heuristics (stormlog's fields and
    its ``medium`` defaults)."""

    preset: str = "medium"
    min_samples_per_rank: int = 6
    min_gap_bytes: int = 128 * 1024 * 1024
    min_gap_ratio: float = 0.04
    robust_zscore_threshold: float = 2.5
    marker_window_ns: int = 150_000_000
    interval_padding_ns: int = 120_000_000
    synchrony_window_ns: int = 120_000_000
    min_synchrony_ratio: float = 0.5
    min_confidence: float = 0.5


@dataclass
class CollectiveAttributionEvidence:
    """Evidence fields backing one collective-attribution output."""

    marker_hits: int
    synchronized_ranks: int
    expected_world_size: int
    synchrony_ratio: float
    peak_gap_bytes: int
    peak_gap_ratio: float | None
    robust_zscore: float


@dataclass(frozen=True)
class PhaseSummary:
    """Optional presentation-oriented phase winner when the attribution stays ambiguous
    (stormlog's ``phases.PhaseSummary``)."""

    phase_path: str
    source: str


@dataclass(frozen=True)
class PhaseAttribution:
    """The phase an interval happened in (stormlog's ``phases.PhaseAttribution``)."""

    phase_resolution: str
    phase_source: str | None = None
    phase_path: str | None = None
    phase_paths: list[str] = field(default_factory=list)
    scope_id: str | None = None
    thread_id: int | None = None
    thread_name: str | None = None
    phase_summary: PhaseSummary | None = None

    def to_dict(self) -> dict[str, Any]:
        """The fields as ``shardscope attribute --phases --format json`` prints them."""
        return dict(getattr(self, "_dict", None) or dataclasses.asdict(self))

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any]) -> "PhaseAttribution":
        fields = dict(data)
        summary = fields.get("phase_summary")
        if summary is not None:
            fields["phase_summary"] = PhaseSummary(**summary)
        fields["phase_paths"] = list(fields.get("phase_paths") or [])
        made = cls(**fields)
        object.__setattr__(made, "_dict", dict(data))
        return made


@dataclass
class CollectiveAttributionResult:
    """Communication-attributed hidden-memory interval."""

    rank: int
    interval_start_ns: int
    interval_end_ns: int
    classification: str
    confidence: float
    reason_codes: list[str] = field(default_factory=list)
    evidence: CollectiveAttributionEvidence | None = None
    phase_attribution: PhaseAttribution | None = None

    def to_dict(self) -> dict[str, Any]:
        """This result as one element of ``shardscope attribute --format json``."""
        out: dict[str, Any] = {
            "rank": self.rank,
            "interval_start_ns": self.interval_start_ns,
            "interval_end_ns": self.interval_end_ns,
            "classification": self.classification,
            "confidence": self.confidence,
            "reason_codes": list(self.reason_codes),
            "evidence": dataclasses.asdict(self.evidence) if self.evidence else None,
        }
        if getattr(self, "_with_phases", False):
            phase = self.phase_attribution
            out["phase_attribution"] = phase.to_dict() if phase is not None else None
        return out

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any]) -> "CollectiveAttributionResult":
        evidence = data.get("evidence")
        phase = data.get("phase_attribution")
        made = cls(
            rank=data["rank"],
            interval_start_ns=data["interval_start_ns"],
            interval_end_ns=data["interval_end_ns"],
            classification=data["classification"],
            confidence=data["confidence"],
            reason_codes=list(data["reason_codes"]),
            evidence=CollectiveAttributionEvidence(**evidence) if evidence else None,
            phase_attribution=PhaseAttribution._from_dict(phase) if phase else None,
        )
        # Not a field: whether the JSON has the key (phases asked for, maybe none found).
        made._with_phases = "phase_attribution" in data
        return made


def resolve_collective_attribution_config(
    preset: str = "medium",
    overrides: Mapping[str, Any] | None = None,
) -> CollectiveAttributionConfig:
    """Resolve a preset config with optional per-threshold overrides (stormlog's rules
    and messages: an unknown preset or field, or a value out of range, raises
    :class:`shardscope.TraceError`, a ``ValueError``)."""
    fields = _shardscope.resolve_config(preset or "medium", overrides)
    return CollectiveAttributionConfig(**fields)


def attribute_collective_memory(
    events: Sequence[Any],
    *,
    config: CollectiveAttributionConfig | None = None,
    preset: str = "medium",
    overrides: Mapping[str, Any] | None = None,
    phase_resolver: Any = None,
) -> Results:
    """Attribute hidden-memory spikes to communication phases using hybrid signals.

    ``events`` is what :func:`shardscope.telemetry.load_telemetry_events` returns (the
    fast case: nothing is copied) or any sequence of stormlog's event objects. A
    ``config`` is used as it is, as stormlog uses it; otherwise ``preset`` and
    ``overrides`` are resolved as :func:`resolve_collective_attribution_config` does.
    ``phase_resolver`` is a :class:`shardscope.phases.PhaseReplayIndex` built from the
    same events. Returns stormlog's result list (a :class:`shardscope.Results`).
    """
    if not events:
        return Results([])
    config_fields = dataclasses.asdict(config) if dataclasses.is_dataclass(config) else config
    phases = False
    if phase_resolver is not None:
        from .phases import PhaseReplayIndex

        if not isinstance(phase_resolver, PhaseReplayIndex):
            raise TypeError(
                "phase_resolver must be a shardscope.phases.PhaseReplayIndex "
                "(PhaseReplayIndex.from_events(events)); stormlog's own index cannot be "
                "read by the core — or call shardscope.attribute(path, phases=True)"
            )
        if phase_resolver.events is not events:
            raise ValueError("phase_resolver was built from other events than these")
        phases = True
    run = _shardscope.attribute_events(
        events,
        config=config_fields,
        preset=preset or "medium",
        overrides=overrides,
        phases=phases,
    )
    return Results._of_run(run)
