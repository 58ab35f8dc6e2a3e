"""``asz scenario check`` and ``asz scenario build`` in a normal install, where pytest is absent (trial finding 3).

pytest comes only with the ``[test]`` extra; the scenario commands import
:mod:`asz_core.testing`, whose conformance mixin needs pytest. Each test runs
the real console entry in a fresh Python in which ``import pytest`` fails
(``sys.modules['pytest'] = None`` makes the import raise ModuleNotFoundError),
over the scenario the trial used.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "tests" / "provider" / "scenarios" / "provider-bodies.yaml"
NO_PYTEST = (
    "import sys\n"
    "sys.modules['pytest'] = None\n"
    "sys.argv = ['asz'] + sys.argv[1:]\n"
    "from asz_core.cli.entry import main\n"
    "main()\n"
)


def _asz_without_pytest(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", NO_PYTEST, *args], capture_output=True, text=True, cwd=REPO, timeout=600)


def test_pytest_is_really_blocked() -> None:
    r = subprocess.run([sys.executable, "-c", "import sys; sys.modules['pytest'] = None; import pytest"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "ModuleNotFoundError" in r.stderr


def test_scenario_check_runs_without_pytest() -> None:
    r = _asz_without_pytest("scenario", "check", str(SCENARIO))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "pytest" not in r.stderr
    assert r.stdout.strip().splitlines()[-1].startswith("ok provider-bodies:")


def test_scenario_build_runs_without_pytest(tmp_path: Path) -> None:
    out = tmp_path / "built"
    r = _asz_without_pytest("scenario", "build", str(SCENARIO), "--format", "sd", "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "pytest" not in r.stderr
    assert any((out / "_conversations").rglob("r000001-*.sf")), r.stdout
