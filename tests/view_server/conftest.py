"""Fixtures for the asz view / asz server tests: storage roots built by the real collect and parse, and real servers."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from view_server_helpers import (
    CANARY_SESSION,
    EXAMPLE,
    Served,
    add_provider_body,
    canary_lines,
    collect_and_parse,
    copy_example,
    write_config,
    write_session,
)


def _needs_parse() -> None:
    try:
        import asz_core.flow.parse  # noqa: F401
    except ImportError as exc:  # pragma: no cover - parse is another issue's module
        pytest.skip(f"asz_core.flow.parse is not importable ({exc}); rounds cannot be built")


@pytest.fixture(scope="session")
def example_root(tmp_path_factory) -> Path:
    """The bundled example (examples/claude-code/projects) collected and parsed into a new root."""
    _needs_parse()
    if not EXAMPLE.is_dir():
        pytest.skip(f"{EXAMPLE} is absent")
    base = tmp_path_factory.mktemp("example")
    src = copy_example(base / "projects")
    root = base / "root"
    collect_and_parse(src, root)
    return root


@pytest.fixture(scope="session")
def canary_root(tmp_path_factory) -> Path:
    """The canary session (system prompt and tool schemas carry MARKER; a prompt holds markup) collected and parsed."""
    _needs_parse()
    base = tmp_path_factory.mktemp("canary")
    src = base / "projects"
    write_session(src, canary_lines())
    root = base / "root"
    collect_and_parse(src, root)
    return root


@pytest.fixture(scope="session")
def example_canary_root(tmp_path_factory) -> Path:
    """The bundled example (a subagent, a tool call) and the canary session (a failed call, a clipped result) collected
    and parsed into one root: two conversations on the list. Read only (the page tests of trial 28b browse it)."""
    _needs_parse()
    if not EXAMPLE.is_dir():
        pytest.skip(f"{EXAMPLE} is absent")
    base = tmp_path_factory.mktemp("example-canary")
    src = copy_example(base / "projects")
    write_session(src, canary_lines())
    root = base / "root"
    collect_and_parse(src, root)
    return root


@pytest.fixture(scope="session")
def bodies_root(canary_root: Path, tmp_path_factory) -> dict:
    """A copy of the canary root with one provider_body file landed after the rounds, and one whose header does not read."""
    base = tmp_path_factory.mktemp("bodies")
    root = base / "root"
    shutil.copytree(canary_root, root)
    seq, path = add_provider_body(root, CANARY_SESSION)
    bad_seq, bad_path = add_provider_body(root, CANARY_SESSION, garbage=True)
    return {"root": root, "seq": seq, "path": path, "bad_seq": bad_seq, "bad_path": bad_path}


@pytest.fixture(scope="session")
def corpus_root(corpus_copy) -> Path:
    """../shared/corpus/claude-code/projects collected and parsed (skips when the corpus is absent): a copy of the
    run's once-collected root (tests/conftest.py)."""
    _needs_parse()
    return corpus_copy()


#: Seconds a server over a root the module did not make (a session fixture's, such as ``example_root``) is kept after
#: the end of the last module that asked for it: stopped sooner, the next module asking for it starts it again (a fork,
#: its start and first answers: about 0.2-0.7 s of CPU, the corpus's the most), kept longer it follows its root idle
#: (about 0.1 s of CPU a minute, 0.14 s the corpus's). Session 45, docs/testing.md.
KEPT_IDLE = 240.0
#: The live :func:`serve` factories of this process (one a session), for :func:`_module_servers_stopped`.
_SERVES: list = []


def _stop_all(servers) -> None:
    """Stop ``servers`` (:class:`Served`): all are told at once, so their shutdowns overlap."""
    servers = list(servers)
    for s in servers:
        if s.proc.poll() is None:
            s.proc.terminate()
    for s in servers:
        s.stop()


@pytest.fixture(scope="session")
def serve(tmp_path_factory):
    """A factory: ``serve(root, hide=None, override=None, command='view')`` starts a real server, or gives the one
    already serving those arguments.

    Servers are shared by arguments within the test session. One over a root inside a test's own ``tmp_path``, which no
    other test can name, is stopped when that test ends (:func:`_own_servers_stopped`); one over a root made during a
    module (its module fixtures' roots, which no later module can name) when that module ends, and one over a root
    made before (a session fixture's) once no module has asked for it for :data:`KEPT_IDLE` seconds
    (:func:`_module_servers_stopped`); the rest at the session's end. (``start.started``: the servers by their
    arguments; ``start.asked``: the arguments asked for since the current module began; ``start.ended``: for each,
    the ``time.monotonic()`` the last module asking for it ended.)
    """
    started: dict[tuple, Served] = {}

    def start(root: Path, *, hide: list[str] | None = None, override: bool | None = None, extra: tuple[str, ...] = ()) -> Served:
        key = (str(root), tuple(hide) if hide is not None else None, override, extra)
        start.asked.add(key)
        s = started.get(key)
        if s is not None and s.proc.poll() is None:
            return s
        work = tmp_path_factory.mktemp("serve")
        args = ["view", "--root", str(root), *extra]
        if hide is not None or override is not None:
            args += ["--config", str(write_config(work / "asz.yaml", hide=hide, override=override))]
        s = Served(args, work)
        started[key] = s
        return s

    start.started, start.asked, start.ended = started, set(), {}
    _SERVES.append(start)
    yield start
    _SERVES.remove(start)
    _stop_all(started.values())


@pytest.fixture(scope="module", autouse=True)
def _module_servers_stopped(tmp_path_factory):
    """At the end of each module, stop the shared servers (:func:`serve`) no later test can ask for, or is unlikely to
    soon: one over a root made during this module (a folder of the run's base temporary folder that was not there when
    the module began: its module fixtures' roots, which no other module can name), and one over any other root no
    module has asked for in the last :data:`KEPT_IDLE` seconds (started again if asked for later). Kept to the
    session's end, each followed its root idle beside the many started after it: tests/view_server on two workers
    spent 32 s of CPU in the forked children (199 -> 167 s) less so (session 45, docs/testing.md)."""
    base = tmp_path_factory.getbasetemp()
    before = set(os.listdir(base))
    yield
    now = time.monotonic()
    for start in _SERVES:
        for key in start.asked & start.started.keys():
            start.ended[key] = now
        start.asked.clear()
        gone = []
        for key in list(start.started):
            root = Path(key[0])
            made_here = root.is_relative_to(base) and root.relative_to(base).parts[0] not in before
            if made_here or now - start.ended.get(key, now) > KEPT_IDLE:
                gone.append(start.started.pop(key))
                start.ended.pop(key, None)
        _stop_all(gone)


@pytest.fixture(autouse=True)
def _own_servers_stopped(request):
    """After a test that asked for ``serve`` and ``tmp_path``, stop the servers it started over a root inside its
    ``tmp_path``. Kept to the session's end, each went on following its root (about 0.3 % of a core idle) beside the
    many started after it, and none could be shared: its root's path is this test's alone."""
    if "serve" not in request.fixturenames or "tmp_path" not in request.fixturenames:
        yield
        return
    own = request.getfixturevalue("tmp_path").resolve()  # made here, so it is torn down after this
    started = request.getfixturevalue("serve").started
    yield
    for key in [k for k in started if Path(k[0]).resolve().is_relative_to(own)]:
        started.pop(key).stop()


@pytest.fixture(scope="session")
def word_sessions_root(tmp_path_factory) -> Path:
    """The four sessions of tests/search_convs_data.py (two projects; which message holds which word) collected and
    parsed by the real commands into a root nobody writes to (trial 21: search by conversation, the page's filters)."""
    from search_convs_data import write_sessions

    base = tmp_path_factory.mktemp("word-sessions")
    collect_and_parse(write_sessions(base / "projects"), base / "root")
    return base / "root"


@pytest.fixture
def fast_polls(browser):
    """The run's browser (tests/conftest.py), its pages polling every 0.5 s where they would every 5 s for this test
    only (test_view_server_browser.quick_polls): for the tests that wait for what the page's next poll brings."""
    from test_view_server_browser import quick_polls

    with quick_polls(browser):
        yield browser
