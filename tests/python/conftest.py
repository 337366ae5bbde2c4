"""Shared fixtures of the Python package's tests (`make test` runs them with pytest in
.tools/py-venv, after `cargo test` has built the command line they compare against)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "attribution"
PRESETS = ("low", "medium", "high")


def cli_path() -> Path:
    """The `shardscope` binary: $SHARDSCOPE_CLI, else the workspace's debug or release one."""
    given = os.environ.get("SHARDSCOPE_CLI")
    candidates = [Path(given)] if given else []
    candidates += [ROOT / "target" / "debug" / "shardscope", ROOT / "target" / "release" / "shardscope"]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise RuntimeError(
        "no shardscope binary: build it first (cargo build -p shardscope-cli) or set SHARDSCOPE_CLI"
    )


def run_cli(*args: str) -> tuple[int, str, str]:
    """`shardscope ARGS...`: exit status, stdout, stderr."""
    done = subprocess.run(
        [str(cli_path()), *args], capture_output=True, text=True, check=False
    )
    return done.returncode, done.stdout, done.stderr


def cli_json(*args: str):
    code, out, err = run_cli(*args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def load_cases() -> list[dict]:
    return json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))


def expected(name: str) -> object:
    return json.loads((FIXTURES / "expected" / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def cases() -> list[dict]:
    return load_cases()
