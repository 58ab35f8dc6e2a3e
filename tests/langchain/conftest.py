"""Fixtures for the LangChain / LangGraph adapter (issue 11): a real receiver on a free loopback port, replay, asz runs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import forked
from cli_helpers import asz_in_process
from langchain_helpers import ASZ, Receiver

@pytest.fixture
def receiver_factory(tmp_path: Path):
    """Start receivers on free ports (``factory(root, *flags)``); every one is stopped after the test."""
    started: list[Receiver] = []

    def start(root: Path, *extra: str) -> Receiver:
        r = Receiver(root, tmp_path, *extra)
        started.append(r)
        return r

    yield start
    for r in started:
        r.stop()


@pytest.fixture
def run_asz(tmp_path: Path):
    """Run ``asz ARGS`` in a directory without asz.yaml; returns the CompletedProcess (text). In this process
    (tests/cli_helpers.py), but ``asz ingest`` (a receiver, which serves until stopped) in a real child, forked
    (tests/forked.py)."""

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        if args[:1] == ("ingest",):
            p = forked.run([*ASZ, *args], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        else:
            p = asz_in_process(*args, cwd=tmp_path)
        if check and p.returncode != 0:
            raise AssertionError(f"asz {' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
        return p

    return run


@pytest.fixture(scope="session")
def captures(shared_dir: Path) -> list[Path]:
    """Every recorded request ``conformance/langchain/testdata/<case>/<NNN>-<METHOD>`` in case and request order."""
    base = shared_dir / "conformance" / "langchain" / "testdata"
    if not base.is_dir():
        pytest.skip(f"{base} is absent")
    found = sorted(p for p in base.glob("*/*-*") if (p / "body.bin").is_file() and (p / "meta.json").is_file())
    if not found:
        pytest.skip(f"no recorded requests under {base}")
    return found


#: The corpus's LangSmith upload body from the Python tracer (a LangGraph react agent, 25 runs in one batch).
TRACER_BATCH = "generated__langsmith-0.15.1__LangChainTracer_runs_batch_POST.json"


@pytest.fixture(scope="session")
def tracer_batch(corpus_dir: Path) -> dict:
    """The ``json`` of ../shared/corpus/langchain's :data:`TRACER_BATCH` (``{"post": [runs]}``); skips when absent.
    Shared: a test that edits it takes a deep copy."""
    f = corpus_dir / "langchain" / TRACER_BATCH
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    return json.loads(f.read_text())["json"]

