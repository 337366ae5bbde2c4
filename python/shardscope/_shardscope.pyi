"""Type stubs of the Rust binding (crates/py). The public API is the Python modules'."""

from typing import Any, Mapping, Sequence

__version__: str

class TraceError(ValueError):
    """A trace or a setting Shardscope cannot use: stormlog's ValueError, located."""

    message: str
    file: str | None
    line: int | None
    column: int | None
    record: int | None
    field: str | None
    kind: str | None

class Run:
    events: int
    ranks: int
    session_id: str | None
    warnings: list[str]
    def json(self) -> str: ...
    def csv(self) -> str: ...
    def columns(self) -> dict[str, list[Any]]: ...
    def __len__(self) -> int: ...

class Event:
    """One telemetry event as shardscope keeps it."""

    timestamp_ns: int
    event_type: str
    rank: int
    local_rank: int
    world_size: int
    session_id: str | None
    context: str | None
    allocator_allocated_bytes: int | None
    allocator_reserved_bytes: int | None
    device_used_bytes: int | None
    device_total_bytes: int | None
    is_collective_marker: bool

class EventList(Sequence[Event]):
    """The events of one loaded session, held in Rust."""

    session_id: str | None
    def __len__(self) -> int: ...
    def __getitem__(self, index: Any) -> Any: ...

def attribute(
    paths: list[str],
    preset: str = "medium",
    overrides: Mapping[str, Any] | None = None,
    session_id: str | None = None,
    phases: bool = False,
    align_clocks: bool = False,
    threads: int = 0,
) -> Run: ...
def load_events(path: str, session_id: str | None = None) -> EventList: ...
def resolve_config(
    preset: str = "medium", overrides: Mapping[str, Any] | None = None
) -> dict[str, Any]: ...
def attribute_events(
    events: Any,
    config: Mapping[str, Any] | None = None,
    preset: str = "medium",
    overrides: Mapping[str, Any] | None = None,
    phases: bool = False,
) -> Run: ...
def run_cli(args: list[str]) -> str: ...
