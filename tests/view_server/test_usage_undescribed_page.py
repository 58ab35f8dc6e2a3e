"""``/api/usage`` and the Usage tab say the conversations holding transcript records their dialect could not read, as
``asz usage`` does (review 40: the CLI marked its total ``!`` with a line naming them, the page said nothing).

Real data (../shared/corpus, skipped when absent): a corpus transcript with 4,096 NUL bytes before one assistant line
whose call no other line holds (tests/reading/test_undescribed_marked.py's damage), beside a clean corpus transcript of
other days; collected by the real ``asz collect --once``; a real ``asz view`` on loopback; headless Chromium for the
tab. The API is held to ``asz usage --json --total-once`` for the whole root and for a window of the clean one's days
only (the damaged one wholly outside: named by neither), the tab's line to ``asz usage daily``'s own line; ``/api/usage/blocks``' list and line, and the blocks table's, to
``asz usage blocks``' (fix40o: the server says each line, the page prints it as it is), the By week table's to
``asz usage weekly``'s (fix41b: only the day table's line was given).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from view_server_helpers import whole_usage

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cli_helpers import asz_in_process, collect_transcript  # noqa: E402

SID = "b25638d7-b104-4f06-a797-70ac33d069ed"
PROJECT = "-Users-alex-workspace-personal-site-next"
OTHER = ("-Users-alex-workspace-claude-code-log-sample", "326189cf-5676-4237-8cde-1ce80aae4a9f")


def _days(data: bytes) -> set[str]:
    return {json.loads(ln)["timestamp"][:10] for ln in data.splitlines() if b'"timestamp"' in ln}


@pytest.fixture(scope="module")
def damaged(corpus_dir, tmp_path_factory) -> tuple[Path, set[str], set[str]]:
    """(root, the damaged conversation's days, the clean one's days), UTC."""
    f = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl"
    other = corpus_dir / "claude-code" / "projects" / OTHER[0] / f"{OTHER[1]}.jsonl"
    if not f.is_file() or not other.is_file():
        pytest.skip(f"{f} or {other} is absent")
    lines = f.read_bytes().splitlines(keepends=True)
    ids: dict[str, list[int]] = {}
    for i, ln in enumerate(lines):
        d = json.loads(ln)
        if d.get("type") == "assistant":
            ids.setdefault(d["message"]["id"], []).append(i)
    lone = next(ix[0] for ix in ids.values() if len(ix) == 1)
    lines[lone] = b"\0" * 4096 + lines[lone]
    base = tmp_path_factory.mktemp("undescribed-page")
    (base / "projects" / "-p").mkdir(parents=True)
    (base / "projects" / "-p" / other.name).write_bytes(other.read_bytes())
    root = collect_transcript(base, PROJECT, SID, b"".join(lines))
    mine, theirs = _days(f.read_bytes()), _days(other.read_bytes())
    assert mine.isdisjoint(theirs) and (max(mine) < min(theirs) or min(mine) > max(theirs))  # the premise
    return root, mine, theirs


def _cli(root: Path, *flags: str) -> list[dict]:
    p = asz_in_process("usage", "--json", "--total-once", "--tz", "UTC", "--root", str(root), *flags)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout).get("undescribed", [])


def test_the_usage_answer_and_tab_say_the_undescribed_records(damaged, serve, browser):
    from selenium.webdriver.support.ui import Select
    from test_view_server_browser import open_usage, shot, wait

    root, mine, theirs = damaged
    s = serve(root)
    u = whole_usage(s)
    want = [{"conversation": SID, "records": 1, "naming_calls": 0}]  # one line behind NULs, naming no call
    assert _cli(root) == want and u["undescribed"] == [{**e, "name": SID[:8]} for e in want]
    b = s.get("/api/usage/blocks?tz=UTC").json()  # asz usage blocks' list too, by the same function (fix40o)
    assert _cli(root, "blocks") == want and b["undescribed"] == u["undescribed"]
    for days, named in ((theirs, []), (mine, want)):  # a window wholly of the other's days names it in neither
        flags = ("--since", min(days), "--until", max(days))
        got = s.get(f"/api/usage?since={min(days)}&until={max(days)}&tz=UTC").json()  # days in tz, as the CLI's
        assert _cli(root, *flags) == named and [{k: e[k] for k in named[0]} for e in got["undescribed"]] == named, days
        got = s.get(f"/api/usage/blocks?since={min(days)}&until={max(days)}&tz=UTC").json()
        assert [{k: e[k] for k in named[0]} for e in got["undescribed"]] == named and bool(got["undescribed_said"]) == bool(named)
    said = [ln for ln in asz_in_process("usage", "daily", "--tz", "UTC", "--root", str(root)).stdout.splitlines()
            if ln.startswith("! undescribed")]
    in_blocks = [ln for ln in asz_in_process("usage", "blocks", "--tz", "UTC", "--root", str(root)).stdout.splitlines()
                 if ln.startswith("! undescribed")]
    assert [u["undescribed_said"]] == said and [b["undescribed_said"]] == in_blocks != said  # the server says each line
    try:
        line = open_usage(browser, s.base, "#usage-undescribed")
        assert [line.text] == said and said[0].endswith(f"{SID[:8]} (1 record(s))"), (line.text, said)
        total = [r.text for r in browser.find_elements("css selector", "#usage-days tr") if r.text.startswith("Total")]
        assert len(total) == 1 and total[0].startswith("Total !"), total
        weekly = [ln for ln in asz_in_process("usage", "weekly", "--tz", "UTC", "--root", str(root)).stdout.splitlines()
                  if ln.startswith("! undescribed")]
        Select(browser.find_element("id", "usage-by")).select_by_value("week")  # the week table's own line (fix41b)
        line = wait(browser, lambda d: d.find_elements("id", "usage-periods-undescribed"), timeout=60)[0]
        assert [line.text] == weekly != said and "in no week's row" in line.text, (line.text, weekly)
        Select(browser.find_element("id", "usage-by")).select_by_value("blocks")  # the blocks' line, as it is
        line = wait(browser, lambda d: d.find_elements("id", "usage-blocks-undescribed"), timeout=60)[0]
        assert [line.text] == in_blocks and browser.find_element("id", "usage-blocks-total-mark").text == "!"
    except Exception:
        shot(browser, "usage-undescribed")
        raise
