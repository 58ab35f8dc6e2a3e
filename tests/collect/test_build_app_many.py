"""The application built many times in one process stays buildable (session 28's fresh-clone run: after about 1,000
``build_app()`` calls in one pytest worker, every command of a group kept at module level had a chain of as many
``~`` wrappers, and Typer's ``inspect.signature`` refused it as a "wrapper loop": 42 tests failed, 25 errors)."""

from __future__ import annotations

import inspect
import sys

import pytest
from typer.testing import CliRunner

from asz_core.cli.main import build_app


@pytest.mark.slow  # 12-30 s: over a thousand builds
def test_the_app_built_past_the_recursion_limit_still_runs():
    for _ in range(sys.getrecursionlimit() + 50):
        built = build_app()
    for group in built.registered_groups:
        for info in group.typer_instance.registered_commands if group.typer_instance else ():
            depth, f = 0, info.callback
            while hasattr(f, "__wrapped__"):
                f, depth = f.__wrapped__, depth + 1
            assert depth <= 1, (info.callback, depth)  # one ~ wrapper at most, however often the app was built
            inspect.signature(info.callback)
    res = CliRunner().invoke(built, ["scenario", "build", "--help"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
