"""Shared test fixtures: where ../shared is, one headless browser for the whole run, and a guard that tests never
read the real ~/.claude."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from run_once import made_once

REPO = Path(__file__).resolve().parents[1]

# A run started in the background by a shell without job control (``cmd &`` in a script, ``nohup``) inherits SIGINT
# ignored, and every command a test starts would inherit that too: the Ctrl-C tests (which send a real SIGINT) would
# see a command that cannot be interrupted. A Python handler here is reset to the default at each exec, so the
# commands the tests start take SIGINT as from a terminal, however the suite itself was started.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
#: The handlers the test process keeps between tests. A command run in this process may change them as it would
#: before its own exit (``collect --once`` ignores SIGINT once its status is decided: cli/collect_cmd.py _decided),
#: and a command a later test starts would inherit an ignored SIGINT; they are put back after every phase of a test.
_SIGNALS = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}


def _signals_back() -> None:
    for sig, handler in _SIGNALS.items():
        if signal.getsignal(sig) is not handler:
            signal.signal(sig, handler)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield
    _signals_back()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield
    _signals_back()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    _signals_back()
SHARED = (REPO.parent / "shared").resolve()


def pytest_configure(config):
    """With ``ASZ_TEST_CPU=DIR`` set, each test's CPU (its own and its children's) and wall go to ``DIR``
    (tests/cpu_profile.py; docs/testing.md, "Where the CPU goes")."""
    out = os.environ.get("ASZ_TEST_CPU")
    if out:
        from cpu_profile import CpuProfile

        config.pluginmanager.register(CpuProfile(Path(out)), "asz_cpu_profile")


#: Tests started first on xdist's workers, with the seconds of wall each took in session 37's quiet fresh-clone suite
#: (31050b13, -n 3, load 3.5-4.4, ``--durations=40``; a chunk: its own; the two installs as session 38 left them;
#: the five tests session 39 made cheaper scaled by what they saved side by side with main, docs/testing.md). A
#: node id names one test (and its parametrized cases, each one placed on its own); a file path all of that file's
#: tests, kept together (its module fixtures are made once). A name no longer collected is passed over. The tests of
#: that run over 8.5 s are here but test_erase.py's kill loop (its module's ``officer_root`` is made once).
LONG_FIRST = (
    # slow-marked but in CI's whole run: 62.4 s in session 41's quiet suite (s41d, -n 4), where it came 4,850th of
    # 5,073, near the tail of the last worker's share, so it started in the run's last minutes (session 42)
    ("tests/view_server/test_talk_steps_paged.py::test_a_huge_talk_is_drawn_a_page_at_a_time", 62),
    ("tests/reading/test_verify_export_corpus_after_retention.py::"
     "test_every_corpus_copy_made_before_retention_checks_and_a_forged_one_does_not", 20),  # 24 before session 39
    ("tests/collect/test_crash.py::test_200_kills_leave_no_worker_and_lose_nothing", 12),  # each of 8 chunks of 25 kills (s39: 17 x 0.7)
    ("tests/export/test_push_crash.py::test_kill_9_mid_push_loses_and_duplicates_nothing", 8),  # each of 2 chunks (s39: 17 x 0.45)
    ("tests/view_server/test_page_reading_said.py", 15),
    ("tests/isolation/test_isolation.py::test_fuzzed_lines_cost_nothing_many_examples", 10.5),  # each of 3 chunks
    ("tests/reading/test_export_order_claude_unchanged.py::test_claude_code_exports_keep_file_order", 10.5),
    ("tests/view_server/test_server_follows.py::test_an_open_page_follows_appends", 6),  # fast_polls: half its wall
    ("tests/verify/test_verify_light.py::test_a_root_with_mcp_execution_records", 12),
    ("tests/view_server/test_page_keeps_focus.py", 17),  # its two browser tests, 11.6 + 6.8 (5.6 with fast_polls)
    ("tests/core/test_version_installed.py::test_pip_install_dot_names_the_commit_it_was_built_from", 10),  # a pip build
    ("tests/core/test_version_installed.py::test_a_wheel_from_a_tree_without_git_says_unknown_commit", 8),  # another
    ("tests/collect/test_crash.py::test_sigkill_at_random_moments_loses_nothing_in_one_process", 9),  # s39: 11 x 0.8
    ("tests/view_server/test_found_sources_gone.py::test_sources_gone_and_back_build_nothing_again_and_the_page_says_it", 10),
    ("tests/langchain/test_langchain_receiver_fuzz.py::test_every_malformed_post_is_400_many_examples", 9),
    ("tests/langchain/test_langchain_server_follows.py::test_a_staged_trace_lands_before_the_interval_in_one_pass", 9),
    ("tests/view/test_summary_store_open.py::test_processes_opening_a_new_store_at_once_all_keep_their_rows", 9),
    ("tests/collect/test_interrupt_exit.py::test_every_ctrl_c_of_a_collect_once_ends_in_an_allowed_way", 8.5),
    # over 10 s in session 44's quiet suite (s44d, -n 4) and not above (session 45); the server's late sources (13.7 s,
    # most of it waiting for the 10 s look for new sources) left it in session 45: the test looks every 1 s
    # (ASZ_SERVER_LATE_EVERY), its wait for the look 7.9 -> 0.3 s
    ("tests/reading/test_upgraded_chain.py::"
     "test_chains_without_a_state_are_assembled_once_and_again_after_a_downgrades_round", 11.3),
)


def _shares(n: int, workers: int) -> list[int]:
    """How many of ``n`` tests xdist's ``--dist worksteal`` first hands each of ``workers`` idle workers: consecutive
    runs, each ``len(pending) // workers_left`` (xdist/scheduler/worksteal.py ``check_schedule``)."""
    out, left = [], n
    for i in range(workers):
        out.append(left // (workers - i))
        left -= out[-1]
    return out


@pytest.hookimpl(trylast=True)  # after -k/-m have deselected: the shares are of what runs
def pytest_collection_modifyitems(session, config, items):
    """On an xdist worker, the tests of :data:`LONG_FIRST` at the heads of the workers' first shares, longest first,
    each to the share with the fewest seconds of them so far (longest-processing-time first); every other test keeps
    its order and fills the shares. ``--dist worksteal`` hands each worker one run of consecutive tests
    (:func:`_shares`) and a worker with nothing left takes the tail half of the longest queue, so the long tests all
    start within the run's first minutes, side by side, and what is stolen late is short. Every worker collects and
    orders the same way (xdist checks the collections are equal: the order depends only on the collection and
    ``PYTEST_XDIST_WORKER_COUNT``); docs/testing.md."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
    if not os.environ.get("PYTEST_XDIST_WORKER") or workers < 1:
        return

    files = {name.split("::", 1)[0] for name, _ in LONG_FIRST}

    def entry(item) -> int | None:
        if item.nodeid.split("::", 1)[0] not in files:  # most items: one set lookup, not 14 prefix checks
            return None
        for i, (name, _) in enumerate(LONG_FIRST):
            if item.nodeid == name or item.nodeid.startswith((name + "::", name + "[")):
                return i
        return None

    groups: dict[object, list] = {}  # a parametrized case alone; a file's tests together
    rest = []
    for item in items:
        i = entry(item)
        if i is None:
            rest.append(item)
        else:
            groups.setdefault(item.nodeid if "::" in LONG_FIRST[i][0] else i, []).append(item)
    timed = sorted(groups.values(), key=lambda g: -LONG_FIRST[entry(g[0])][1])  # stable: LONG_FIRST's order on a tie
    heads: list[list] = [[] for _ in range(workers)]
    load = [0.0] * workers
    for g in timed:
        w = min(range(workers), key=lambda k: (load[k], k))
        heads[w] += g
        load[w] += LONG_FIRST[entry(g[0])][1]
    out, rest_at = [], 0
    for w, size in enumerate(_shares(len(items), workers)):
        fill = max(0, size - len(heads[w])) if w < workers - 1 else len(rest) - rest_at
        out += heads[w] + rest[rest_at:rest_at + fill]
        rest_at += fill
    assert len(out) == len(items)
    items[:] = out

# A piped command that runs past ASZ_PROGRESS_AFTER seconds says where it is on stderr (asz_core/reading/progress.py):
# on a loaded machine a test's small root could pass 5 s and its stderr would differ. Off for every test (and the
# commands they start) unless a test sets it (tests/reading/test_progress_lines.py).
os.environ.setdefault("ASZ_PROGRESS_AFTER", "3600")

# Hypothesis loads the plugins of its ``hypothesis`` entry points when it is first imported: trio (installed for
# Selenium) registers one, and importing trio costs about 0.2 s of CPU in every pytest process (each xdist worker, and
# .ci/run's two collections). No test uses trio; its plugin only makes trio's own scheduler reproducible under
# Hypothesis. HYPOTHESIS_NO_PLUGINS (hypothesis/entry_points.py) leaves the entry points unloaded; docs/testing.md.
os.environ.setdefault("HYPOTHESIS_NO_PLUGINS", "1")

# Hypothesis's timing checks measure the machine, not the code: on a loaded 2-core CI machine the input generation
# of tests/flow/test_index_read.py tripped ``too_slow`` once. Every property keeps its examples and its assertions;
# only the wall-clock checks are off (a test's own @settings still sets what it names).
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("asz", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("asz")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only ../shared folder beside the repo; skips the test when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"../shared is absent ({SHARED}); corpus and conformance tests need it")
    return SHARED


@pytest.fixture(scope="session")
def corpus_dir(shared_dir: Path) -> Path:
    """../shared/corpus; skips when absent."""
    d = shared_dir / "corpus"
    if not d.is_dir():
        pytest.skip(f"{d} is absent")
    return d


@pytest.fixture(scope="session")
def corpus_projects(corpus_dir: Path) -> Path:
    """../shared/corpus/claude-code/projects (the real Claude Code transcripts); skips when absent."""
    d = corpus_dir / "claude-code" / "projects"
    if not d.is_dir():
        pytest.skip(f"{d} is absent")
    return d


@pytest.fixture(scope="session")
def corpus_collected(corpus_dir: Path, tmp_path_factory) -> Path:
    """The Claude Code corpus (../shared/corpus/claude-code/projects) collected and parsed ONCE per test run by
    the real ``asz collect --once`` into a storage root, made once for the run's xdist workers
    (:func:`run_once.made_once`, never read by a command there) and copied once into each worker's own: readers such as
    ``asz ls`` write the root's summary store, so a worker's reading must never meet another's copying. No test writes
    into it: a test or a module takes its own copy with :func:`corpus_copy` (a copy costs a fraction of a collect);
    skips when the corpus is absent."""
    projects = corpus_dir / "claude-code" / "projects"
    if not projects.is_dir():
        pytest.skip(f"{projects} is absent")

    def make(base: Path) -> None:
        base.mkdir()
        env = {**os.environ, "CLAUDE_CONFIG_DIR": str(base / "claude-home")}
        p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(projects),
                            "--root", str(base / "root")], capture_output=True, text=True, cwd=base, env=env, timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr

    own = tmp_path_factory.mktemp("corpus-collected") / "root"
    shutil.copytree(made_once(tmp_path_factory, "corpus-collected", make) / "root", own, symlinks=True)
    return own


@pytest.fixture(scope="session")
def corpus_copy(corpus_collected: Path, tmp_path_factory):
    """A factory: ``corpus_copy(dest=None)`` copies the once-collected corpus root (:func:`corpus_collected`) to
    ``dest`` (default: a new temporary directory's ``root``) and returns it; the copy is the caller's to change."""

    def copy(dest: Path | None = None) -> Path:
        dest = Path(dest) if dest is not None else tmp_path_factory.mktemp("corpus-copy") / "root"
        shutil.copytree(corpus_collected, dest, symlinks=True)
        return dest

    return copy


@pytest.fixture(autouse=True)
def _no_real_claude_home(monkeypatch, tmp_path_factory):
    """Point CLAUDE_CONFIG_DIR and HOME-derived roots away from the machine's own ~/.claude and ~/.kiro (KIRO_HOME,
    which plain asz collect checks for Kiro sessions the default adapter list leaves out)."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path_factory.mktemp("claude-home")))
    monkeypatch.setenv("KIRO_HOME", str(tmp_path_factory.mktemp("kiro-home")))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: Chromium's flags for the browser tests: headless, no network of its own, no sandbox (containers).
BROWSER_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """One headless Chromium (fresh profile) under Selenium for every browser test of the run (starting one costs
    seconds); each test loads its own page. Skipped when the browser, its driver or Selenium is missing."""
    if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
        pytest.skip(f"Debian's chromium and chromium-driver are not installed ({CHROMIUM}, {CHROMEDRIVER}); .ci/run installs them")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = str(CHROMIUM)
    for f in BROWSER_FLAGS:
        opts.add_argument(f)
    opts.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    opts.add_argument("--window-size=1280,1000")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the page's console, read by get_log("browser")
    drv = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    drv.set_page_load_timeout(60)
    yield drv
    drv.quit()
