"""The drop-in against the real stormlog 0.4.3 (installed `--no-deps` with numpy by the
Makefile): its own loaded events through `shardscope.collective_attribution` give exactly
stormlog's own `attribute_collective_memory`; shardscope's loader gives the same events'
results; bad inputs and bad settings raise the same exception types and messages."""

from __future__ import annotations

import dataclasses

import pytest

stormlog_ca = pytest.importorskip("stormlog.collective_attribution")
stormlog_tm = pytest.importorskip("stormlog.telemetry")

import shardscope
from shardscope import collective_attribution as ours
from shardscope.phases import PhaseReplayIndex
from shardscope.telemetry import load_telemetry_events
from conftest import FIXTURES, PRESETS, expected, load_cases

CASES = load_cases()


def trace(case: dict) -> str:
    return str(FIXTURES / "traces" / case["file"])


def stormlog_events(case: dict):
    """stormlog's own loader's events, or None where it cannot read the input (CSV exports
    and folders of per-rank files are its TUI's, not its loader's)."""
    try:
        return stormlog_tm.load_telemetry_events(trace(case))
    except Exception:  # noqa: BLE001
        return None


LOADABLE = [c for c in CASES if c["kind"] == "valid" and stormlog_events(c) is not None]


def plain(results) -> list[dict]:
    return [dataclasses.asdict(r) for r in results]


def test_most_cases_load_in_stormlog():
    assert len(LOADABLE) >= 18


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("case", LOADABLE, ids=[c["name"] for c in LOADABLE])
def test_stormlog_events_through_the_drop_in_equal_stormlog(case, preset):
    events = stormlog_events(case)
    theirs = stormlog_ca.attribute_collective_memory(events, preset=preset)
    mine = ours.attribute_collective_memory(events, preset=preset)
    assert plain(mine) == plain(theirs)
    # shardscope's own loader: the same events, held in Rust, the same results.
    loaded = load_telemetry_events(trace(case))
    assert len(loaded) == len(events)
    assert plain(ours.attribute_collective_memory(loaded, preset=preset)) == plain(theirs)
    # ...and the results are stormlog's fixture output.
    assert [r.to_dict() for r in mine] == expected(f"{case['name']}.{preset}.json")


def test_shardscope_events_are_readable_one_by_one():
    case = next(c for c in LOADABLE if c["name"] == "sync_markers_type")
    theirs = stormlog_events(case)
    mine = load_telemetry_events(trace(case))
    for a, b in zip(mine, theirs):
        assert (a.timestamp_ns, a.rank, a.event_type, a.device_used_bytes) == (
            b.timestamp_ns,
            b.rank,
            b.event_type,
            b.device_used_bytes,
        )
    assert mine[-1].timestamp_ns == theirs[-1].timestamp_ns
    assert [e.timestamp_ns for e in mine[2:9:3]] == [e.timestamp_ns for e in theirs[2:9:3]]
    with pytest.raises(IndexError):
        mine[len(mine)]
    # A filtered Python list of our events goes through the object path, same answer.
    rank_0 = [e for e in mine if e.rank in (0, 1)]
    assert plain(ours.attribute_collective_memory(rank_0)) == plain(
        stormlog_ca.attribute_collective_memory([e for e in theirs if e.rank in (0, 1)])
    )


def test_a_given_config_is_used_as_stormlog_uses_it():
    case = next(c for c in LOADABLE if c["name"] == "preset_gap_thresholds")
    events = stormlog_events(case)
    for preset in PRESETS:
        config = stormlog_ca.resolve_collective_attribution_config(preset)
        config.min_confidence = 0.2  # set directly: stormlog does not validate it
        mine_config = ours.resolve_collective_attribution_config(preset)
        assert dataclasses.asdict(mine_config) == dataclasses.asdict(
            stormlog_ca.resolve_collective_attribution_config(preset)
        )
        mine_config.min_confidence = 0.2
        want = plain(stormlog_ca.attribute_collective_memory(events, config=config))
        assert plain(ours.attribute_collective_memory(events, config=config)) == want
        assert plain(ours.attribute_collective_memory(events, config=mine_config)) == want


def test_the_dataclasses_have_stormlog_s_fields():
    for name in (
        "CollectiveAttributionConfig",
        "CollectiveAttributionEvidence",
        "CollectiveAttributionResult",
    ):
        theirs = [(f.name, f.default) for f in dataclasses.fields(getattr(stormlog_ca, name))]
        mine = [(f.name, f.default) for f in dataclasses.fields(getattr(ours, name))]
        assert mine == theirs, name
    assert set(stormlog_ca.__all__) <= set(ours.__all__)
    from stormlog.phases import policy

    for name in ("PhaseAttribution", "PhaseSummary"):
        theirs = [f.name for f in dataclasses.fields(getattr(policy, name))]
        assert [f.name for f in dataclasses.fields(getattr(ours, name))] == theirs


SETTINGS = [
    ("medium", {"unknown_knob": 1}),
    ("medium", {"zzz": 1, "aaa": 2, "min_gap_bytes": 5}),
    ("medium", {"min_samples_per_rank": 2}),
    ("extreme", None),
    (" HIGH ", None),
    ("", None),
    ("medium", {"min_gap_bytes": "1"}),
    ("medium", {"min_gap_ratio": -0.5}),
    ("medium", {"robust_zscore_threshold": 0}),
    ("medium", {"min_synchrony_ratio": 1.5}),
    ("medium", {"min_confidence": "high"}),
    ("medium", {"marker_window_ns": -1}),
    ("low", {"min_confidence": 0.41, "min_gap_bytes": 157286400}),
    ("medium", {"min_gap_bytes": True}),
    ("medium", {"min_confidence": None}),
]


def outcome(fn):
    try:
        value = fn()
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return ("raised", isinstance(exc, ValueError), isinstance(exc, TypeError), str(exc))
    return ("ok", value)


@pytest.mark.parametrize("preset,overrides", SETTINGS)
def test_settings_raise_what_stormlog_raises(preset, overrides):
    theirs = outcome(
        lambda: dataclasses.asdict(
            stormlog_ca.resolve_collective_attribution_config(preset, overrides)
        )
    )
    mine = outcome(
        lambda: dataclasses.asdict(ours.resolve_collective_attribution_config(preset, overrides))
    )
    assert mine == theirs
    case = next(c for c in LOADABLE if c["name"] == "sync_no_markers")
    events = stormlog_events(case)
    theirs = outcome(
        lambda: plain(
            stormlog_ca.attribute_collective_memory(events, preset=preset, overrides=overrides)
        )
    )
    mine = outcome(
        lambda: plain(ours.attribute_collective_memory(events, preset=preset, overrides=overrides))
    )
    assert mine == theirs


INVALID = [c for c in CASES if c["kind"] == "invalid"]


@pytest.mark.parametrize("case", INVALID, ids=[c["name"] for c in INVALID])
def test_bad_input_raises_what_stormlog_raises(case):
    with pytest.raises(Exception) as theirs:
        stormlog_tm.load_telemetry_events(trace(case))
    with pytest.raises(shardscope.TraceError) as mine:
        load_telemetry_events(trace(case))
    assert isinstance(theirs.value, ValueError)  # JSONDecodeError and UnicodeDecodeError too
    want = expected(f"{case['name']}.error.json")
    if want["error_type"] == "ValueError":
        # stormlog's own words, exactly; ours may add detail in parentheses.
        assert str(mine.value) == str(theirs.value) or str(mine.value).startswith(
            str(theirs.value) + " ("
        )
    assert mine.value.file == case["file"]


def test_a_missing_session_is_stormlog_s_error():
    case = next(c for c in CASES if c["name"] == "two_sessions")
    with pytest.raises(ValueError) as theirs:
        stormlog_tm.load_telemetry_events(trace(case), session_id="nope")
    with pytest.raises(shardscope.TraceError) as mine:
        load_telemetry_events(trace(case), session_id="nope")
    assert str(mine.value) == str(theirs.value)
    b = load_telemetry_events(trace(case), session_id="sess-B")
    assert b.session_id == "sess-B"
    assert plain(ours.attribute_collective_memory(b)) == plain(
        stormlog_ca.attribute_collective_memory(
            stormlog_tm.load_telemetry_events(trace(case), session_id="sess-B")
        )
    )


def test_phases_come_from_the_loaded_events():
    case = next(c for c in CASES if c["name"] == "phases_markers")
    events = load_telemetry_events(trace(case))
    results = ours.attribute_collective_memory(
        events, phase_resolver=PhaseReplayIndex.from_events(events)
    )
    assert [r.to_dict() for r in results] == expected("phases_markers.medium.phases.json")
    theirs_events = stormlog_tm.load_telemetry_events(trace(case))
    from stormlog.phases import PhaseReplayIndex as StormlogIndex

    theirs = stormlog_ca.attribute_collective_memory(
        theirs_events, phase_resolver=StormlogIndex.from_events(theirs_events)
    )
    assert plain(results) == plain(theirs)


def test_empty_input_is_an_empty_list_whatever_the_settings():
    assert ours.attribute_collective_memory([], preset="nonsense") == []
    assert stormlog_ca.attribute_collective_memory([], preset="nonsense") == []


def test_hostile_events_raise_instead_of_crashing():
    from types import SimpleNamespace

    def event(**changes):
        fields = dict(
            timestamp_ns=1,
            event_type="sample",
            rank=0,
            local_rank=0,
            world_size=1,
            context=None,
            metadata={},
            device_used_bytes=2,
            allocator_reserved_bytes=1,
            device_total_bytes=10,
            allocator_allocated_bytes=1,
        )
        fields.update(changes)
        return SimpleNamespace(**fields)

    loop: list = []
    loop.append(loop)
    with pytest.raises(RecursionError):
        ours.attribute_collective_memory([event(metadata={"a": loop})])
    with pytest.raises(TypeError):
        ours.attribute_collective_memory([event(timestamp_ns="soon")])
    with pytest.raises(TypeError):
        ours.attribute_collective_memory([event(device_used_bytes=1.5)])
    with pytest.raises(TypeError):
        ours.attribute_collective_memory([object()])
    # Deep but finite metadata is walked as stormlog walks it.
    deep: object = "nccl"
    for _ in range(500):
        deep = [deep]
    marker = event(event_type="x", metadata={"k": deep}, device_used_bytes=None)
    assert ours.attribute_collective_memory([marker]) == []
