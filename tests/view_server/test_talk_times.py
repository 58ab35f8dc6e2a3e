"""A talk's start and duration are the asz.view document's own talk time (``at``, what started it), in the page and the
md/html exports alike (trial 17b, F5: Talk 7 of 0d3a8e6f, the person's image prompt at 19:51:36, was drawn at
19:36:37, the time of the ``Caveat: …`` record Claude Code wrote earlier for the later /doctor and that folds into
the talk, with a duration of 16 min 29 s). Expected times read from the source transcript's own ``timestamp``s;
real ``asz export`` and ``asz view``, headless Chromium."""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cli_helpers import asz_in_process  # noqa: E402

SID = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"
SOURCE = f"claude-code/projects/-Users-alex-workspace-claude-code-log-sample/{SID}.jsonl"
PROMPT = "I think the library is setting it"


def _ms(stamp: str) -> int:
    return round(dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)


def _talk_times(corpus_dir: Path) -> tuple[int, int, int]:
    """(start, end, the injected caveat's time) of the talk the image prompt starts: the prompt line's timestamp, the
    latest timestamp up to the next typed command (/doctor), and the older Caveat line folded into it."""
    lines = [json.loads(x) for x in (corpus_dir / SOURCE).read_text().splitlines()]
    first = next(i for i, r in enumerate(lines) if PROMPT in json.dumps(r.get("message", {}).get("content")))
    last = next(i for i, r in enumerate(lines) if i > first and "<command-name>/doctor" in json.dumps(r.get("message", {})))
    talk = lines[first:last]
    caveat = next(r for r in talk if r.get("isMeta") and "Caveat:" in json.dumps(r["message"]))
    start = _ms(talk[0]["timestamp"])
    assert _ms(caveat["timestamp"]) < start  # the premise: the injected record is older than the talk
    return start, max(_ms(r["timestamp"]) for r in talk if r.get("timestamp")), _ms(caveat["timestamp"])


def _utc(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def test_md_and_html_give_the_talks_own_start(corpus_root, corpus_dir, tmp_path):
    start, _, caveat = _talk_times(corpus_dir)
    md = asz_in_process("export", SID[:8], "--root", str(corpus_root), "--tz", "UTC").stdout
    head = md[md.index(f"## Talk 4: {PROMPT}"):]
    assert head.splitlines()[2].startswith(f"*{_utc(start)}*"), head[:300]  # 19:51:36, not the caveat's 19:36:37
    assert f"*{_utc(caveat)}*" not in md
    out = tmp_path / "c.html"
    assert asz_in_process("export", SID[:8], "--root", str(corpus_root), "--tz", "UTC", "--format", "html",
                          "--out", str(out)).returncode == 0
    html = out.read_text()
    body = max(html.find("</nav>"), 0)  # after the list of talks at the top of the page (dd73df3): the talk itself
    at = html.index(f"Talk 4: <bdi>{PROMPT}", body) if f"Talk 4: <bdi>{PROMPT}" in html[body:] else html.index("Talk 4: ", body)
    assert f'<p class="when">{_utc(start)}</p>' in html[at:at + 600]
    times = [line for line in md.splitlines() if line.startswith("*20") and "· `talk/" in line]
    assert times == sorted(times)  # the talks in time order, as the document lists them


def test_the_page_draws_the_talks_own_start_and_duration(corpus_root, corpus_dir, browser, serve):
    start, end, _ = _talk_times(corpus_dir)
    s = serve(corpus_root)
    drv = browser
    open_at(drv, s.base + f"/c/{SID}", "section.talk")
    talks = drv.find_elements(By.CSS_SELECTOR, "section.talk")
    seventh = talks[3]  # Talk 4 since its 3 interrupt notices are steps, no talks (trial 43c F1)
    assert PROMPT in seventh.find_element(By.CSS_SELECTOR, ".label").text
    want = drv.execute_script("return new Date(arguments[0]).toLocaleString()", start)
    shown = seventh.find_element(By.CSS_SELECTOR, ".when").text
    page_start = drv.execute_script(
        "const s = arguments[0]; const m = /(\\d{4})-(\\d\\d)-(\\d\\d)[ T](\\d\\d):(\\d\\d):(\\d\\d)/.exec(s);"
        "return m ? new Date(+m[1], m[2] - 1, +m[3], +m[4], +m[5], +m[6]).getTime() : null;", shown)
    assert page_start is not None and page_start // 1000 == start // 1000, (shown, want)
    secs = round((end - start) / 1000)  # 89.928 s: 1 min 30 s, not the 16 min 29 s from the caveat
    assert seventh.find_element(By.CSS_SELECTOR, ".lasted").text == f"{secs // 60} min {secs % 60} s"
