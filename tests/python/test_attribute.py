"""`shardscope.attribute`, the fast path: every fixture case x preset equals the real
stormlog 0.4.3's output (tests/fixtures/attribution, copied from the shared fixtures),
and each result's `to_dict()` / the table equal the command line's JSON / CSV."""

from __future__ import annotations

import csv
import io
import math

import pytest

import shardscope
from conftest import FIXTURES, PRESETS, cli_json, expected, load_cases, run_cli

CASES = load_cases()
VALID = [c for c in CASES if c["kind"] == "valid"]
INVALID = [c for c in CASES if c["kind"] == "invalid"]


def trace(case: dict) -> str:
    return str(FIXTURES / "traces" / case["file"])


def test_the_fixtures_are_all_here():
    assert len(VALID) >= 20 and len(INVALID) >= 10


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("case", VALID, ids=[c["name"] for c in VALID])
def test_every_case_and_preset_equals_stormlog(case, preset):
    results = shardscope.attribute(trace(case), preset=preset)
    want = expected(f"{case['name']}.{preset}.json")
    assert results.to_dicts() == want
    assert len(results) == len(want)
    assert (results.events > 0) == (results.ranks > 0)
    assert results.events > 0 or case["name"].startswith("empty")


EXTRA = [(c, run) for c in VALID for run in (c["extra_runs"] or [])]


@pytest.mark.parametrize(
    "case,run", EXTRA, ids=[f"{c['name']}-{r['label']}" for c, r in EXTRA]
)
def test_every_extra_run_equals_stormlog(case, run):
    preset = run.get("preset") or "medium"
    name = f"{case['name']}.{preset.strip().lower()}.{run['label']}.json"
    want = expected(name)
    call = lambda: shardscope.attribute(  # noqa: E731
        trace(case),
        preset=preset,
        overrides=run.get("overrides"),
        session_id=run.get("session_id"),
        phases=bool(run.get("with_phases")),
    )
    if isinstance(want, dict) and "error_type" in want:
        error = TypeError if want["error_type"] == "TypeError" else shardscope.TraceError
        with pytest.raises(error) as caught:
            call()
        assert str(caught.value) == want["error"] or str(caught.value).startswith(
            want["error"] + " ("
        )
        return
    assert call().to_dicts() == want


@pytest.mark.parametrize("case", INVALID, ids=[c["name"] for c in INVALID])
def test_bad_input_raises_a_located_trace_error_like_the_cli(case):
    with pytest.raises(shardscope.TraceError) as caught:
        shardscope.attribute(trace(case))
    err = caught.value
    assert isinstance(err, ValueError)
    code, out, _ = run_cli("attribute", trace(case), "--format", "json")
    assert code == 2
    import json

    cli = json.loads(out)
    assert str(err) == cli["error"]
    assert str(err).startswith(err.message)
    assert (err.file, err.line, err.record, err.field) == (
        cli["file"],
        cli["line"],
        cli["record"],
        cli["field"],
    )
    want = expected(f"{case['name']}.error.json")
    if want["error_type"] == "ValueError":
        # stormlog's own text; ours may add detail in parentheses after it.
        assert err.message == want["error"] or err.message.startswith(want["error"] + " (")


def test_to_dict_is_one_element_of_the_cli_json():
    case = next(c for c in VALID if c["name"] == "phases_markers")
    results = shardscope.attribute(trace(case), phases=True)
    assert [r.to_dict() for r in results] == cli_json("attribute", trace(case), "--phases")
    assert results.to_json() == run_cli("attribute", trace(case), "--phases", "--format", "json")[1]
    phased = [r for r in results if r.phase_attribution is not None]
    assert phased and all(isinstance(r.phase_attribution.phase_path, str) for r in phased)


def cli_csv_rows(*args: str) -> list[dict]:
    code, out, err = run_cli(*args, "--format", "csv")
    assert code == 0, err
    return list(csv.DictReader(io.StringIO(out)))


def cell(value) -> object:
    """A table value as the CSV cell reads: empty for null, numbers as numbers."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (int, float)):
        return float(value)
    return str(value)


def csv_cell(text: str) -> object:
    try:
        return float(text)
    except ValueError:
        return text


@pytest.mark.parametrize("name", ["sync_markers_type", "phases_markers", "tui_csv_export"])
def test_the_table_has_the_cli_csv_columns_and_values(name):
    case = next(c for c in VALID if c["name"] == name)
    results = shardscope.attribute(trace(case), phases=True)
    table = results.to_arrow()
    rows = cli_csv_rows("attribute", trace(case), "--phases")
    assert table.column_names == list(rows[0].keys())
    assert table.num_rows == len(rows) == len(results)
    for ours, theirs in zip(table.to_pylist(), rows):
        assert {k: cell(v) for k, v in ours.items()} == {
            k: csv_cell(v) for k, v in theirs.items()
        }
    assert results.to_csv() == run_cli("attribute", trace(case), "--phases", "--format", "csv")[1]
    frame = results.to_pandas()
    assert list(frame.columns) == list(rows[0].keys())
    assert frame["peak_gap_bytes"].dtype == "int64"


def test_several_paths_and_a_folder_combine_as_the_cli_does():
    folder = FIXTURES / "traces" / "tui_per_rank_files"
    files = sorted(str(p) for p in folder.iterdir())
    assert shardscope.attribute(files).to_dicts() == cli_json("attribute", *files)
    assert shardscope.attribute(folder).to_dicts() == cli_json("attribute", str(folder))


def test_one_thread_or_many_give_the_same_results():
    case = next(c for c in VALID if c["name"] == "sync_markers_type")
    every = shardscope.attribute(trace(case))
    for threads in (1, 2, 3, 8):
        assert shardscope.attribute(trace(case), threads=threads) == every
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError):
            shardscope.attribute(trace(case), threads=bad)


def test_aligned_clocks_equal_the_cli():
    case = next(c for c in VALID if c["name"] == "sync_markers_type")
    got = shardscope.attribute(trace(case), align_clocks=True).to_dicts()
    assert got == cli_json("attribute", trace(case), "--align-clocks")


def test_a_missing_file_is_a_trace_error_naming_it(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(shardscope.TraceError) as caught:
        shardscope.attribute(missing)
    assert "nope.json" in str(caught.value)
    assert caught.value.kind == "not_found" or caught.value.kind == "io"


def test_garbage_never_crashes(tmp_path):
    for i, blob in enumerate([b"", b"\xff\xfe", b"[{", b'{"events": 3}', b"\x1f\x8b junk", b"[" * 5000]):
        path = tmp_path / f"junk{i}.json"
        path.write_bytes(blob)
        with pytest.raises(ValueError):
            shardscope.attribute(path)


def test_import_brings_in_neither_ray_nor_arrow():
    import subprocess
    import sys

    code = (
        "import sys, shardscope; "
        "print(','.join(m for m in ('ray', 'pyarrow', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_version_and_help_read_well():
    assert shardscope.__version__ == run_cli("--version")[1].split()[-1]
    for fn in (
        shardscope.attribute,
        shardscope.explore,
        shardscope.sensitivity,
        shardscope.collective_attribution.attribute_collective_memory,
        shardscope.collective_attribution.resolve_collective_attribution_config,
        shardscope.telemetry.load_telemetry_events,
    ):
        assert fn.__doc__ and len(fn.__doc__.strip()) > 40, fn
