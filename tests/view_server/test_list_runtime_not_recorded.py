"""The page's conversation list and ``asz ls`` say a conversation's runtime and what was not recorded alike
(session 24, found by fresh users).

- The page's list had no runtime column where ``asz ls`` prints RUNTIME: it has one now (Runtime, before State), in
  ``asz ls``'s words (the dialect name of the main transcript: claude-code, kiro; ``-`` when no transcript landed),
  and its Runtime filter keeps the rows ``asz ls --dialect`` keeps.
- A session of MCP hook records alone (``asz hook``, adapter ``changes``, no transcript) read ``0`` tokens and
  ``$0.00`` in ``asz ls``, on the page and in ``asz conversation``: nothing recorded is not a figure, so it reads
  ``not recorded`` and ``-`` by the one rule (``asz_core.view.rows.usage_unrecorded``), sorts last by cost, and the
  conversation's page says it in its tokens chip.

Real input: the corpus project -home-user-sample-project (Claude Code) and the corpus Kiro home, collected by the
real ``asz collect --once``; every corpus probe payload (``hooks/…mcp-hooks-2.1.282.jsonl``) fed to the real ``asz
hook`` and collected with adapter ``changes``. The hook-only sessions are the payloads' own ``session_id`` values.
"""

from __future__ import annotations

import json
import re
import shutil
from urllib.parse import quote
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from view_server_helpers import REPO, asz_here, parse

from test_mcp_executions_read import hook
from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

PROJECT = "-home-user-sample-project"
#: the root: two collects, eight real asz hook processes and a third collect (about 35 s on a loaded machine)
pytestmark = pytest.mark.slow


def _payloads(corpus_dir: Path) -> list[bytes]:
    return next((corpus_dir / "hooks").glob("apache__*mcp-hooks-2.1.282.jsonl")).read_bytes().splitlines()


@pytest.fixture(scope="module")
def mixed(corpus_dir, tmp_path_factory) -> tuple[Path, set[str]]:
    """The root, and the ids of the sessions of hook records alone (from the payloads)."""
    base = tmp_path_factory.mktemp("mixed")
    kiro = corpus_dir / "kiro" / "home" / ".kiro"
    if not kiro.is_dir():
        pytest.skip(f"{kiro} is absent")
    root = base / "root"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, base / "projects" / PROJECT)
    asz_here("collect", "--once", "--adapter", "claude-code-local", "--source", str(base / "projects"), "--root", str(root))
    asz_here("collect", "--once", "--adapter", "kiro", "--source", str(kiro), "--root", str(root))
    data = base / "hookdata"
    for line in _payloads(corpus_dir):
        hook(line, data)  # a real asz hook process, forked
    asz_here("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root))
    parse(root)
    return root, {json.loads(x)["session_id"] for x in _payloads(corpus_dir)}


def _ls(root: Path, *extra: str) -> dict[str, dict]:
    return {r["id"]: r for r in json.loads(asz_here("ls", "--json", "--root", str(root), *extra).stdout)}


def test_hook_records_alone_read_not_recorded_in_asz_ls(mixed):
    root, hooked = mixed
    rows = _ls(root)
    assert len(hooked) >= 2 and hooked <= set(rows)
    for sid in hooked:
        r = rows[sid]
        assert (r["llm_calls"], r["calls_with_usage"], r["usage_recorded"]) == (0, 0, False), r
        assert r["title"].startswith("(no transcript) ") and not r["runtime"]["name"]
    runtimes = {r["runtime"]["name"] for r in rows.values()}
    assert {"claude-code", "kiro", ""} <= runtimes  # the mix: three kinds of row
    table = asz_here("ls", "--root", str(root)).stdout.splitlines()
    head = re.split(r"\s{2,}", table[0].strip())
    assert head[-5:] == ["TOKENS", "COST", "CREDITS", "RUNTIME", "STATE"]  # CREDITS: a Kiro row metered some
    cells = {ln[:8]: re.split(r"\s{2,}", ln.strip()) for ln in table if re.match(r"[0-9a-f]{8}  ", ln)}
    for sid in hooked:
        assert cells[sid[:8]][-5:-1] == ["not recorded", "-", "-", "-"], cells[sid[:8]]
    assert "$0.00" not in "\n".join(" ".join(cells[s[:8]]) for s in hooked)
    sid = sorted(hooked)[0]
    said = asz_here("conversation", sid, "--root", str(root)).stdout.splitlines()
    assert "tokens not recorded: no model call is recorded in this conversation" in said and "cost - (no tokens to price)" in said
    md = asz_here("export", sid, "--format", "md", "--root", str(root)).stdout.splitlines()
    assert "- tokens not recorded: no model call is recorded in this conversation" in md and "- cost - (no tokens to price)" in md
    head = json.loads(asz_here("export", sid, "--audit", "--root", str(root)).stdout.splitlines()[0])
    assert (head["kind"], head["calls"], head["usage_recorded"]) == ("conversation", 0, False)
    claude = next(c for c, r in rows.items() if r["runtime"]["name"] == "claude-code")
    assert "usage_recorded" not in json.loads(asz_here("export", claude, "--audit", "--root", str(root)).stdout.splitlines()[0])
    by_cost = list(json.loads(asz_here("ls", "--json", "--sort", "cost", "--root", str(root)).stdout))
    priced = [r["id"] for r in by_cost if r["usage_recorded"] is not False]
    assert [r["id"] for r in by_cost][:len(priced)] == priced  # no figure: last, with the held-back ones


def _page_rows(drv) -> dict[str, list[str]]:
    """The list's rows as drawn: id -> its cells' texts. Read again when the list is drawn anew under the reading (the
    Runtime filter asks the server for its answer, then draws: the rows read before may be gone)."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(5):
        try:
            return {tr.get_attribute("data-id"): [td.text.strip() for td in tr.find_elements(By.TAG_NAME, "td")]
                    for tr in drv.find_elements(By.CSS_SELECTOR, "#rows tr")}
        except StaleElementReferenceException:
            continue
    return {}


def _list_counted(serve, root, browser, rows: dict):
    """Serve ``root``, open the page's list and wait until every row of ``rows`` (asz ls --json's) is there and
    counted; the server."""
    s = serve(root)
    open_at(browser, s.base + "/", "#rows tr")
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, "#rows td.counting")
         and len(d.find_elements(By.CSS_SELECTOR, "#rows tr")) == len(rows), timeout=180)
    return s


def test_the_page_list_has_runtime_and_says_not_recorded(mixed, serve, browser):
    root, hooked = mixed
    rows = _ls(root)
    s = _list_counted(serve, root, browser, rows)
    heads = [th.text.replace("▼", "").strip() for th in browser.find_elements(By.CSS_SELECTOR, "table.conv thead th")]
    assert heads[-2:] == ["Runtime", "State"] and heads[3:5] == ["Tokens", "Cost"]
    page = _page_rows(browser)
    assert set(page) == set(rows)
    for cid, cells in page.items():
        assert cells[-2] == (rows[cid]["runtime"]["name"] or "-"), (cid, cells)  # asz ls's words
    for sid in hooked:
        assert page[sid][3:5] == ["not recorded", "—"], page[sid]
    kiro = _ls(root, "--dialect", "kiro")
    assert kiro and set(kiro) < set(rows)
    Select(browser.find_element(By.ID, "f-dialect")).select_by_value("kiro")
    wait(browser, lambda d: set(_page_rows(d)) == set(kiro))
    assert "#" in browser.current_url and "dialect=kiro" in browser.current_url
    open_at(browser, f"{s.base}/c/{sorted(hooked)[0]}", "#usage")
    chips = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#usage .chip")]
    assert "tokens not recorded: no model call is recorded in this conversation" in chips and "cost — (no tokens to price)" in chips, chips
    assert "models (none recorded)" in chips, chips  # no model call at all: asz conversation's words (WORDS.none_recorded)


def test_the_page_runtime_filter_takes_what_the_list_shows(mixed, serve, browser):
    """The Runtime filter (#dialect=…) takes the name, the name and version as the runtime chip shows them, the
    dialect asz ls --dialect takes, or the start of one, in any case (session 25): it keeps the rows asz ls --json
    names so."""
    root, _ = mixed
    rows = _ls(root)
    s = _list_counted(serve, root, browser, rows)
    claude = next(r for r in rows.values() if (r["runtime"] or {}).get("name") == "claude-code" and r["runtime"].get("version"))
    name, version = claude["runtime"]["name"], claude["runtime"]["version"]
    same_version = {c for c, r in rows.items() if (r["runtime"] or {}).get("name") == name and r["runtime"].get("version") == version}
    by_dialect = _ls(root, "--dialect", claude["dialect"])
    named = {c for c, r in rows.items() if (r["runtime"] or {}).get("name") == name}
    assert set(by_dialect) == named and same_version <= named  # the CLI's rule: dialect or name
    for given, want in ((claude["dialect"], named), ("CLAUDE", named), (name, named), (f"{name} {version}", same_version),
                        (f"{name} {version[:2]}", {c for c, r in rows.items() if (r["runtime"] or {}).get("name") == name
                                                   and (r["runtime"].get("version") or "").startswith(version[:2])}),
                        ("kir", set(_ls(root, "--dialect", "kiro"))), ("KIRO/1", set(_ls(root, "--dialect", "kiro/1")))):
        open_at(browser, f"{s.base}/#dialect={quote(given, safe='')}", "#rows")
        wait(browser, lambda d: set(_page_rows(d)) == want, timeout=30)
        assert want, given
    # a dialect is held whole against the row's (trial 24: claude-code/2 kept every claude-code/1 row, its name alone
    # compared); asz ls --dialect refuses a dialect no adapter speaks, so the page's answer is counted from the rows
    other = f"{claude['dialect'].split('/')[0]}/999"
    assert not {c for c, r in rows.items() if r["dialect"] == other}
    open_at(browser, f"{s.base}/#dialect={quote(other, safe='')}", "#rows")
    wait(browser, lambda d: not _page_rows(d) and d.find_element(By.ID, "shown").text.startswith(
        f"0 of {len(rows)} conversation(s) match the filters"), timeout=30)


def test_the_server_decides_the_runtime_filter_and_the_page_holds_no_copy(mixed, serve):
    """Review A 26: the page's ``runtimeKeeps`` was a second copy, in JavaScript, of the Python rule. The server now
    answers for each row (``/api/conversations?runtime=…`` marks each with ``runtime_kept``, by
    ``match.runtime_keeps``) and the script only reads that answer. Expected here from the rows asz ls --json gives:
    the runtime name, or name and version, started by the value in any case, or the dialect whole."""
    root, _ = mixed
    rows = _ls(root)
    s = serve(root)

    def kept(value: str) -> set[str]:
        got = s.get(f"/api/conversations?runtime={quote(value, safe='')}").json()["conversations"]
        assert {r["id"] for r in got} == set(rows)  # it narrows nothing: every row, each marked
        return {r["id"] for r in got if r["runtime_kept"] is True}

    def by_name(value: str) -> set[str]:
        v = value.lower()
        return {c for c, r in rows.items() if (n := (r["runtime"] or {}).get("name") or "") and any(
            x.lower().startswith(v) for x in (n, *([f"{n} {r['runtime']['version']}"] if r["runtime"].get("version") else [])))}

    claude = next(r for r in rows.values() if (r["runtime"] or {}).get("name") == "claude-code" and r["runtime"].get("version"))
    for value in ("CLAUDE", "claude-code", f"claude-code {claude['runtime']['version']}", "kir", "nope"):
        assert kept(value) == by_name(value), value
    assert kept(claude["dialect"].upper()) == {c for c, r in rows.items() if r["dialect"] == claude["dialect"]}
    assert kept("claude-code/999") == set()
    assert kept("CLAUDE") and "runtime_kept" not in s.get("/api/conversations").json()["conversations"][0]
    script = (REPO / "asz_core" / "view" / "static" / "app.js").read_text()
    body = script[script.index("function runtimeKeeps("):]
    body = body[:body.index("\n  }\n")]
    assert "runtime_kept" in body and "toLowerCase" not in body and "indexOf" not in body, body


@pytest.mark.slow  # two servers and Chromium: 10 s and more
def test_the_runtime_filter_keeps_the_address_hide(mixed, serve, browser):
    """The page asks for the list with its Runtime filter and the ``hide`` of its own address in one query (review A 27
    on badfacc: ``?runtime=kiro`` then ``?hide=…`` was appended with a second ``?``, so the runtime read
    ``kiro?hide=system_prompt``, no row was kept and the address's hide never reached the server). Expected: the rows
    ``asz ls --dialect kiro`` names, from a server that takes the parameter; one that does not refuses it (HTTP 400)."""
    root, _ = mixed
    kiro = _ls(root, "--dialect", "kiro")
    assert kiro and set(kiro) < set(_ls(root))
    s = serve(root, hide=[], override=True)
    open_at(browser, f"{s.base}/?hide=system_prompt#dialect=kir", "#rows")
    wait(browser, lambda d: set(_page_rows(d)) == set(kiro), timeout=180)
    refusing = serve(root, hide=["system_prompt"], override=False)
    open_at(browser, f"{refusing.base}/?hide=tool_schemas#dialect=kir", ".box.error")
    assert "HTTP 400" in browser.find_element(By.CSS_SELECTOR, ".box.error").text
