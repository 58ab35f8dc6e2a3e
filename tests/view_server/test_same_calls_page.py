"""The page's ``/api/usage`` (its Usage tab) counts a provider call two conversations hold once, as ``asz usage``
does (fix37a item 1; trial 35a F5, review36 item 2: the page summed each conversation's calls, so a fork of a corpus
transcript read 121 calls and $3.06 where the root spent 80 calls and $1.97, and ``asz usage`` said so).

Real input (tests/same_calls_roots.py), collected by the real ``asz collect``: the corpus's cb2e607c and a fork of it
from its 151st line under another cwd, and the corpus's 326189cf and a copy of it under a new session id with new
record uuids. A real ``asz view`` on loopback; headless Chromium for the tab's line. Every figure is held to the counts
made here from the source files (one usage per message id and request id, over every transcript at once), and the
CLI's ``asz usage --json`` to the same.
"""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from view_server_helpers import asz, counted_rows, whole_usage

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from same_calls_roots import A, B, FORK, FORK_CWD, ORIGINAL, figures, write_sources  # noqa: E402

TOKENS = ("in", "out", "cache_read", "cache_write")


@pytest.fixture(scope="module")
def same_root(corpus_dir, tmp_path_factory) -> tuple[Path, dict]:
    base = tmp_path_factory.mktemp("same-calls-page")
    src = write_sources(corpus_dir / "claude-code" / "projects", base / "projects", copy=True)
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    return root, src


def _agrees(total: dict, want: tuple) -> None:
    calls, tokens, cost = want
    assert total["calls"] == calls
    assert {k: total[k] for k in TOKENS} == tokens
    assert Decimal(total["cost_exact"]) == cost


def _cli(root: Path, *flags: str) -> dict:
    return json.loads(asz("usage", "--json", "--total-once", "--tz", "UTC", "--root", str(root), *flags).stdout)


def test_the_usage_answer_counts_each_call_once(same_root, serve):
    root, src = same_root
    want = figures(*src.values())
    assert want[0] == 80 + 15 and figures(src[FORK])[0] == 41  # the premise: the fork and the copy add no call
    s = serve(root)
    u = whole_usage(s)
    _agrees(u["total"], want)  # was 95 + 41 + 15 calls
    assert sum(m["calls"] for m in u["models"]) == sum(q["calls"] for q in u["quarters"] + u["placed"]) + u["no_time"]["calls"] == want[0]
    for by, rows in (("month", "periods"), ("week", "periods"), ("instance", "instances")):
        got = s.get(f"/api/usage?by={by}&tz=UTC").json()
        assert sum(r["calls"] for r in got[rows]) == want[0], by
        assert sum(Decimal(r["cost_exact"]) for r in got[rows]) == want[2], by
    cli = _cli(root)
    assert cli["total"]["calls"] == u["total"]["calls"] and {k: cli["total"]["usage"][k] for k in TOKENS} == {k: u["total"][k] for k in TOKENS}
    assert Decimal(cli["total"]["cost"]["usd_exact"]) == Decimal(u["total"]["cost_exact"])
    assert u["same_calls"] == [{**e, "name": e["conversation"][:8]} for e in cli["total"]["same_calls"]]
    assert [(e["conversation"], e["counted_in"]) for e in u["same_calls"]] == [
        (FORK, {ORIGINAL: 41}), (A, {}), (B, {A: 15}), (ORIGINAL, {})]
    rows = {r["id"]: r for r in counted_rows(s)}  # each conversation's own figure, as asz ls gives it
    for cid in src:
        calls, tokens, _ = figures(src[cid])
        assert rows[cid]["llm_calls"] == calls and {k: rows[cid]["usage"][k] for k in TOKENS} == tokens, cid


def test_a_filtered_answer_counts_as_asz_usage_with_the_same_option(same_root, serve):
    root, src = same_root
    s = serve(root)
    whole_usage(s)
    for query, flags, want in ((f"project={FORK_CWD}&exact=1", ("--project", FORK_CWD), figures(src[FORK])),
                               ("project=coderabbit", ("--project", "coderabbit"), figures(src[ORIGINAL], src[FORK])),
                               ("project=claude-code-log", ("--project", "claude-code-log"), figures(src[A], src[B])),
                               ("dialect=claude-code", ("--dialect", "claude-code"), figures(*src.values()))):
        got = s.get(f"/api/usage?{query}").json()
        _agrees(got["total"], want)
        cli = _cli(root, *flags)
        assert cli["total"]["calls"] == want[0] and Decimal(cli["total"]["cost"]["usd_exact"]) == want[2], flags


def test_the_usage_tab_says_where_the_calls_are_counted(same_root, serve, browser):
    from test_view_server_browser import open_usage, shot

    root, _ = same_root
    s = serve(root)
    whole_usage(s)
    try:
        line = open_usage(browser, s.base, "#usage-same-calls")
        assert line.text == ("56 model call(s) that two conversations or more hold (the same call id and request id: a "
                             "fork, an import or a copy under a new session id) are counted once, under the conversation "
                             "whose copy counts the most output tokens, then the one that made them first: "
                             f"{FORK[:8]}'s 41 under {ORIGINAL[:8]}; {B[:8]}'s 15 under {A[:8]}. The "
                             "list gives each conversation its own figure, so its rows add up to more."), line.text
    except Exception:
        shot(browser, "usage-same-calls")
        raise


def test_kiro_credits_a_copy_holds_are_counted_once_on_the_page(corpus_dir, tmp_path, serve, browser):
    """fix37a item 3: the corpus's Kiro CLI 2.x session and a copy of it under a new id, its times moved 31 days (the
    same message ids, turns and metering), beside the IDE session: the page counts the copy's calls and credits once,
    as asz usage does; credits read from the files."""
    from kiro_copies import CLI, CLI_COPY, kiro_credits, moved_copy, writable_kiro_home
    from test_view_server_browser import open_usage, shot

    home = writable_kiro_home(corpus_dir, tmp_path / "kiro")
    moved_copy(home)
    root = tmp_path / "root"
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    metered, ide = kiro_credits(home)
    want = round(round(metered, 6) + round(ide, 6), 6)
    assert want == 2.053186  # the premise: docs/adapters/kiro.md's corpus figures, 0.711332 + 1.341854
    s = serve(root)
    u = whole_usage(s)
    cli = _cli(root)["total"]
    assert u["total"]["credits"] == cli["credits"] == want  # was 2.764518: the copy's turns metered twice
    assert u["total"]["calls"] == cli["calls"]
    assert {c["conversation"]: c["credits"] for c in u["credits"]}.get(CLI_COPY) is None  # counted under the original
    copy = next(e for e in u["same_calls"] if e["conversation"] == CLI_COPY)
    assert copy["credits_counted_in"] == {CLI: round(metered, 6)} and copy["counted_in"] == {CLI: 7}
    try:
        line = open_usage(browser, s.base, "#usage-same-credits")
        assert line.text == (f"0.711 credits that two conversations or more hold (the same metering: the record that "
                             "added them or the turn they were metered for, its message ids; a session copied under a "
                             f"new id) are counted once, under the one that metered them first: {CLI_COPY[:10]}'s 0.711 "
                             f"under {CLI[:10]}."), line.text
    except Exception:
        shot(browser, "usage-same-credits")
        raise
