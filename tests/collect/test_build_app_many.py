"""The application built many times in one process stays buildable (session 28's fresh-clone run: after about 1,000
``build_app()`` calls in one pytest worker, every command of a group kept at module level had a chain of as many
``~`` wrappers, and Typer's ``inspect.signature`` refused it as a "wrapper loop": 42 tests failed, 25 errors)."""

from __future__ import annotations

import inspect
import sys

import pytest
from typer.testing import CliRunner

from asz_core.cli.main import build_app


#: The recursion limit while the test runs: ``inspect.unwrap`` (under Typer's ``inspect.signature``) refuses a chain of
#: ``__wrapped__`` as long as ``sys.getrecursionlimit()``, so past a limit of 300 the old fault fails as it did past
#: the default 1,000, in 350 builds rather than 1,050 (10-12 s of CPU, session 33: 11.5 s before, about 4 s after).
#: 300 leaves room for pytest's frames and the ``--help`` run below (a test sits some 35 frames deep).
LIMIT = 300


@pytest.mark.slow  # 4-10 s: hundreds of builds
def test_the_app_built_past_the_recursion_limit_still_runs():
    default = sys.getrecursionlimit()
    sys.setrecursionlimit(LIMIT)
    try:
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
    finally:
        sys.setrecursionlimit(default)
    assert res.exit_code == 0, res.output
