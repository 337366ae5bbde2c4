"""Phase replay for the drop-in: ``PhaseReplayIndex.from_events(events)`` as in stormlog."""

from __future__ import annotations

from typing import Any

__all__ = ["PhaseReplayIndex"]


class PhaseReplayIndex:
    """The phase boundaries of a loaded session, for
    ``attribute_collective_memory(events, phase_resolver=index)``.

    The boundaries themselves stay in Rust with the events they were loaded with; this
    object only says "attach phases, from these events".
    """

    def __init__(self, events: Any) -> None:
        self.events = events

    @classmethod
    def from_events(cls, events: Any) -> "PhaseReplayIndex":
        """The index of ``events`` (what :func:`shardscope.telemetry.load_telemetry_events`
        returned)."""
        from ._shardscope import EventList

        if not isinstance(events, EventList):
            raise TypeError(
                "PhaseReplayIndex.from_events takes the events "
                "shardscope.telemetry.load_telemetry_events returned"
            )
        return cls(events)
