"""`shardscope.explore` / `sensitivity` equal the command line's JSON, option by option,
and report its errors with the same message and field."""

from __future__ import annotations

import json

import pytest

import shardscope
from conftest import cli_json, run_cli

EXPLORE = [
    ({}, []),
    ({"model": "llama3.1-8b", "machine": "h100-hgx"}, ["--model", "llama3.1-8b", "--machine", "h100-hgx"]),
    ({"s_kv": 4096, "mode": "prefill", "batch": 4}, ["--s-kv", "4096", "--mode", "prefill", "--batch", "4"]),
    ({"model": "mixtral-8x7b", "ep": 8, "scope": "ffn"}, ["--model", "mixtral-8x7b", "--ep", "8", "--scope", "ffn"]),
    ({"efficiency": "corrected", "all": True}, ["--efficiency", "corrected", "--all"]),
    ({"batch_sweep": [1, 4, 16]}, ["--batch-sweep", "1,4,16"]),
    ({"sla_tpot_ms": 20, "sla_ttft_ms": 900, "prompt_len": 2048}, ["--sla-tpot-ms", "20", "--sla-ttft-ms", "900", "--prompt-len", "2048"]),
    (
        {"scenario": ["model=llama3.1-8b,name=small", {"model": "llama3.1-70b", "name": "big"}]},
        ["--scenario", "model=llama3.1-8b,name=small", "--scenario", "model=llama3.1-70b,name=big"],
    ),
    (
        {"calibrate": ["cfg=cp1.tp8.pp1.dp1.split.TP.pe.cube.kv,latency_ms=7"]},
        ["--calibrate", "cfg=cp1.tp8.pp1.dp1.split.TP.pe.cube.kv,latency_ms=7"],
    ),
]


@pytest.mark.parametrize("settings,args", EXPLORE, ids=[str(i) for i in range(len(EXPLORE))])
def test_explore_equals_the_cli_json(settings, args):
    report = shardscope.explore(**settings)
    assert report == cli_json("explore", *args)
    table = report.to_arrow()
    assert table.num_rows == len(report.configurations()) > 0
    assert report.to_pandas().shape[0] == table.num_rows


def test_the_table_holds_the_frontier_or_every_configuration():
    frontier = shardscope.explore()
    assert frontier.to_pandas().to_dict("records") == frontier["pareto"]
    everything = shardscope.explore(all=True)
    assert everything.to_arrow().num_rows == len(everything["all"]) > len(frontier["pareto"])
    sweep = shardscope.explore(batch_sweep=[1, 2])
    assert set(sweep.to_pandas()["batch"]) == {1, 2}


def test_sensitivity_equals_the_cli_json():
    assert shardscope.sensitivity() == cli_json("sensitivity")
    given = {"baseline": "cp=1,tp=8,pp=1", "model": "llama3.1-8b"}
    report = shardscope.sensitivity(**given)
    assert report == cli_json("sensitivity", "--baseline", "cp=1,tp=8,pp=1", "--model", "llama3.1-8b")
    assert report.to_arrow().num_rows == len(report["rows"])


def test_a_custom_model_file_is_read(tmp_path):
    code, out, _ = run_cli("explore", "--model", "llama3.1-8b", "--format", "json")
    assert code == 0
    bad = tmp_path / "model.json"
    bad.write_text("{ not json", encoding="utf-8")
    with pytest.raises(shardscope.TraceError) as caught:
        shardscope.explore(model_json=bad)
    code, out, _ = run_cli("explore", "--model-json", str(bad), "--format", "json")
    cli = json.loads(out)
    assert (str(caught.value), caught.value.file, caught.value.line, caught.value.field) == (
        cli["error"],
        cli["file"],
        cli["line"],
        cli["field"],
    )


BAD = [
    ({"s_kv": -1}, ["--s-kv", "-1"]),
    ({"mode": "train"}, ["--mode", "train"]),
    ({"model": "gpt-9"}, ["--model", "gpt-9"]),
    ({"batch_sweep": [1], "all": True}, ["--batch-sweep", "1", "--all"]),
    ({"prompt_len": 10}, ["--prompt-len", "10"]),
    ({"no_such_option": 1}, ["--no-such-option", "1"]),
]


@pytest.mark.parametrize("settings,args", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_settings_raise_the_cli_error(settings, args):
    with pytest.raises(shardscope.TraceError) as caught:
        shardscope.explore(**settings)
    code, out, _ = run_cli("explore", "--format", "json", *args)
    assert code == 2
    cli = json.loads(out)
    assert str(caught.value) == cli["error"]
    assert caught.value.field == cli["field"]


def test_format_is_not_an_option_here():
    with pytest.raises(TypeError):
        shardscope.explore(format="csv")
