"""Fixtures for collector tests: the JSONL test adapter and an in-process pass runner."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import mini_adapter
from collect_helpers import Runner  # noqa: F401 - fixtures hand it out
from asz_core.plugins import get_plugin_manager


@pytest.fixture
def adapter():
    """The mini-jsonl adapter, registered through the plugin manager as a plugin would be."""
    return get_plugin_manager(entrypoints=False, extra=[mini_adapter]).get("mini-jsonl")


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
