"""Fixtures for collector tests: the JSONL test adapter and an in-process pass runner."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import mini_adapter
from asz_core.collect import Collector, CollectOptions, Counters, Report
from asz_core.plugins import get_plugin_manager


@pytest.fixture
def adapter():
    """The mini-jsonl adapter, registered through the plugin manager as a plugin would be."""
    return get_plugin_manager(entrypoints=False, extra=[mini_adapter]).get("mini-jsonl")


class Runner:
    """Runs passes of one Collector in-process; ``err`` accumulates what it told on stderr."""

    def __init__(self, root: Path, src: Path, adapter, **opts):
        self.buf = io.StringIO()
        self.collector = Collector(root, adapter, src, options=CollectOptions(**opts), report=Report(self.buf))

    def __call__(self) -> Counters:
        return self.collector.run_pass()

    @property
    def err(self) -> str:
        return self.buf.getvalue()


@pytest.fixture
def dirs(tmp_path):
    """(source root, storage root) under tmp_path."""
    src, root = tmp_path / "src", tmp_path / "data"
    src.mkdir()
    return src, root


@pytest.fixture
def runner(dirs, adapter):
    """A factory: ``runner(**CollectOptions)`` gives a Runner over ``dirs``."""
    src, root = dirs

    def make(**opts) -> Runner:
        opts.setdefault("fsync", False)
        return Runner(root, src, adapter, **opts)

    return make
