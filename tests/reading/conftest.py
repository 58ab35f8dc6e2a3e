"""Fixtures for the reading commands (conversations, show, search, export): roots built by the real collect and parse."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

from run_once import made_once  # noqa: E402
from view_server_helpers import canary_lines, collect_and_parse, write_session  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CORPUS_SOURCE = REPO.parent / "shared" / "corpus" / "claude-code" / "projects"


@pytest.fixture(scope="session")
def corpus_source() -> Path:
    """../shared/corpus/claude-code/projects (skips when absent)."""
    if not CORPUS_SOURCE.is_dir():
        pytest.skip(f"the corpus is absent ({CORPUS_SOURCE})")
    return CORPUS_SOURCE


@pytest.fixture(scope="session")
def corpus_root(corpus_source: Path, corpus_copy) -> Path:
    """The Claude Code corpus collected and parsed into a new root (a copy of the run's once-collected root, tests/conftest.py)."""
    return corpus_copy()


@pytest.fixture(scope="session")
def canary_root(tmp_path_factory) -> Path:
    """The canary session (system prompt and tool schemas carry MARKER; a prompt holds script markup) collected and parsed."""
    base = tmp_path_factory.mktemp("reading-canary")
    write_session(base / "projects", canary_lines())
    root = base / "root"
    collect_and_parse(base / "projects", root)
    return root


@pytest.fixture(scope="session")
def corpus_source_x3(corpus_source: Path, tmp_path_factory) -> Path:
    """Three real-shaped copies of the corpus's sources (bench/realcorpus.py, 24 MB: 33 main transcripts under new ids).

    The Ctrl-C tests interrupt work on it: after the point a test waits for (a file written, a bar's count, a few
    sessions parsed) 30 or more conversations are left, seconds of work, where the corpus's 11 left a loaded machine
    (load ~21, -n 2) time to finish before the SIGINT came (exit 0, session 23). Made once a run, shared by its
    xdist workers (:func:`run_once.made_once`); nobody writes into it."""
    import subprocess

    def make(base: Path) -> None:
        base.mkdir()
        subprocess.run([sys.executable, str(REPO / "bench" / "realcorpus.py"), str(base / "source"), "--size-mb", "24",
                        "--source", str(corpus_source)], check=True, capture_output=True, timeout=600)

    return made_once(tmp_path_factory, "corpus-x3", make) / "source"


@pytest.fixture(scope="session")
def corpus_source_x5(corpus_source: Path, tmp_path_factory) -> Path:
    """Five real-shaped copies of the corpus's sources (bench/realcorpus.py, 40 MB: 55 main transcripts under new
    ids), for the Ctrl-C tests of a parse and of a search's indexing at that size. Made once a run, shared by its xdist
    workers (:func:`run_once.made_once`; each of the two tests made its own, 2.3 s of CPU and 40 MB written each);
    nobody writes into it."""
    import subprocess

    def make(base: Path) -> None:
        base.mkdir()
        subprocess.run([sys.executable, str(REPO / "bench" / "realcorpus.py"), str(base / "source"), "--size-mb", "40",
                        "--source", str(corpus_source)], check=True, capture_output=True, timeout=600)

    return made_once(tmp_path_factory, "corpus-x5", make) / "source"


@pytest.fixture(scope="session")
def corpus_collected_x3(corpus_source_x3: Path, tmp_path_factory) -> Path:
    """:func:`corpus_source_x3` collected and parsed by the real ``asz collect --once`` (33 conversations); copy it
    (:func:`corpus_root_x3`) before changing it. Made once a run, shared by its xdist workers
    (:func:`run_once.made_once`)."""
    import os
    import subprocess

    def make(base: Path) -> None:
        base.mkdir()
        env = {**os.environ, "CLAUDE_CONFIG_DIR": str(base / "claude-home")}
        p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source",
                            str(corpus_source_x3), "--root", str(base / "root")], capture_output=True, text=True,
                           cwd=base, env=env, timeout=900)
        assert p.returncode == 0, p.stdout + p.stderr

    return made_once(tmp_path_factory, "corpus-x3-collected", make) / "root"


@pytest.fixture
def corpus_root_x3(corpus_collected_x3: Path, tmp_path: Path) -> Path:
    """A copy of :func:`corpus_collected_x3` of the test's own."""
    import shutil

    dest = tmp_path / "root-x3"
    shutil.copytree(corpus_collected_x3, dest, symlinks=True)
    return dest
