"""Opt-in pytest plugin of the conformance kit: ``pytest_plugins = ["asz_core.testing.plugin"]``.

Registers the ``asz_conformance`` marker and an ``asz_shared_corpus`` fixture
(``$ASZ_CORPUS`` or None) so adapter packages can point the kit at extra real
samples without hard-coding paths.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``asz_conformance`` marker."""
    config.addinivalue_line("markers", "asz_conformance: a check from asz_core.testing.AdapterConformance")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that comes from the AdapterConformance mixin."""
    from . import AdapterConformance

    for item in items:
        cls = getattr(item, "cls", None)
        if cls is not None and issubclass(cls, AdapterConformance) and hasattr(AdapterConformance, item.originalname or item.name):
            item.add_marker(pytest.mark.asz_conformance)


@pytest.fixture(scope="session")
def asz_shared_corpus() -> Path | None:
    """A folder of extra real samples named by ``$ASZ_CORPUS``, or None when unset."""
    value = os.environ.get("ASZ_CORPUS")
    return Path(value) if value else None
