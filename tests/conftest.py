"""Shared test fixtures: where ../shared is, one headless browser for the whole run, and a guard that tests never
read the real ~/.claude."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO.parent / "shared").resolve()


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


@pytest.fixture(autouse=True)
def _no_real_claude_home(monkeypatch, tmp_path_factory):
    """Point CLAUDE_CONFIG_DIR and HOME-derived roots away from the machine's own ~/.claude and ~/.kiro."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path_factory.mktemp("claude-home")))
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
    drv = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    drv.set_page_load_timeout(60)
    yield drv
    drv.quit()
