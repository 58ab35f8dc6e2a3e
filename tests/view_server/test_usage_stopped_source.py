"""``asz usage``, ``asz ls``, ``/api/usage`` and the Usage tab say a session whose source the collector no longer reads,
and that the lines it holds past what landed are in no figure (trial 46a F1).

The trial's case, with the corpus's own 53-line transcript 5c0375b4 (../shared/corpus, skipped when absent): its first
50 lines collected, the file emptied (``: > FILE``; the next pass finds it truncated: a conflict), then its 53 lines
written back: a later pass reads nothing of it. ``asz usage`` counted 2 calls fewer than the file holds, in every
view, and exited 0 saying nothing. Beside it, the corpus's 326189cf, untouched, in another project: a ``--project``
that keeps only it says nothing and exits 0. The calls are counted here straight from the transcript's lines (one per
message id + request id of an assistant line), never from asz. Real ``asz collect``, ``asz usage``, ``asz ls``, ``asz
sources --reset-conflict``, a real ``asz view`` on loopback and headless Chromium for the tab.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from view_server_helpers import whole_usage

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cli_helpers import asz_in_process  # noqa: E402

SID = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
SOURCE = ("-home-user-sample-project", SID)
OTHER = ("-Users-alex-workspace-claude-code-log-sample", "326189cf-5676-4237-8cde-1ce80aae4a9f")
AWAY = {"CLAUDE_CONFIG_DIR": "/nonexistent-claude-home", "XDG_CONFIG_HOME": None}
SAID = "the answer is incomplete (exit 1): 1 conversation(s) have a source the collector no longer reads"


def _calls(lines: list[bytes]) -> int:
    """Model calls of transcript ``lines``: distinct (message id, request id) of assistant lines, <synthetic> not."""
    seen = set()
    for ln in lines:
        d = json.loads(ln)
        m = d.get("message") or {}
        if d.get("type") == "assistant" and m.get("id") and m.get("model") != "<synthetic>":
            seen.add((m["id"], d.get("requestId") or ""))
    return len(seen)


def _collect(src: Path, root: Path) -> tuple[int, str]:
    p = asz_in_process("collect", "--once", "--source", str(src), "--root", str(root), env=AWAY)
    return p.returncode, p.stdout


@pytest.fixture(scope="module")
def stopped(corpus_dir, tmp_path_factory) -> dict:
    f, other = (corpus_dir / "claude-code" / "projects" / p / f"{s}.jsonl" for p, s in (SOURCE, OTHER))
    if not f.is_file() or not other.is_file():
        pytest.skip(f"{f} or {other} is absent")
    base = tmp_path_factory.mktemp("stopped-usage")
    src, root = base / "projects", base / "root"
    live = src / "-p" / f.name
    (src / "-q").mkdir(parents=True)
    live.parent.mkdir()
    shutil.copyfile(other, src / "-q" / other.name)
    lines = f.read_bytes().splitlines(keepends=True)
    live.write_bytes(b"".join(lines[:50]))
    assert _collect(src, root)[0] == 0
    live.write_bytes(b"")  # emptied: the pass finds it truncated
    rc, out = _collect(src, root)
    assert rc == 1 and " conflicts=1 " in out, out
    live.write_bytes(b"".join(lines))  # written back, longer than what landed
    assert " conflicts=1 " in _collect(src, root)[1]
    return {"src": src, "root": root, "landed": len(b"".join(lines[:50])), "kept": _calls(lines[:50]),
            "whole": _calls(lines), "other": _calls(other.read_bytes().splitlines())}


def _usage(root: Path, *args: str):
    return asz_in_process("usage", *args, "--tz", "UTC", "--root", str(root))


def test_every_view_says_the_source_and_exits_1(stopped):
    root = stopped["root"]
    assert stopped["whole"] - stopped["kept"] == 2  # the trial's 2 calls past line 50
    for view in ("daily", "weekly", "monthly", "session", "model", "blocks", "project"):
        p = _usage(root, view)
        lines = p.stdout.splitlines()
        total = next(x for x in lines if x.startswith("total"))
        assert total.startswith("total !") and f" {stopped['kept'] + stopped['other']} " in total, (view, total)
        said = [x for x in lines if x.startswith("! stopped: 5c0375b4: ")]
        assert len(said) == 1 and f"its source -p/{SID}.jsonl is no longer read since " in said[0], view
        assert (f"what landed is kept (50 lines, {stopped['landed']:,} bytes); lines it holds past those are in no "
                f"figure above; asz sources --reset-conflict {SID} --root {root} ") in said[0]
        assert p.returncode == 1 and f"asz usage: {SAID}" in p.stderr and ": 5c0375b4; asz sources" in p.stderr, view
    got = _usage(root, "--json", "--total-once")
    (s,) = json.loads(got.stdout)["stopped"]
    assert got.returncode == 1 and (s["conversation"], s["file"]) == (SID, f"-p/{SID}.jsonl")
    assert (s["kept_lines"], s["kept_bytes"]) == (50, stopped["landed"]) and s["next"].startswith(f"asz sources --reset-conflict {SID} ")
    assert s["why"].startswith("truncated: the source has 0 bytes")
    rows = json.loads(_usage(root, "--json").stdout)
    assert rows and all(r["stopped"] == [s] for r in rows)
    csv = _usage(root, "--format", "csv")
    assert csv.returncode == 1 and f"asz usage: stopped: 5c0375b4: its source -p/{SID}.jsonl" in csv.stderr


def test_a_filter_keeping_only_other_conversations_says_nothing(stopped):
    p = _usage(stopped["root"], "--project", "claude-code-log", "--json", "--total-once")
    got = json.loads(p.stdout)
    assert p.returncode == 0 and "stopped" not in got and "no longer read" not in p.stderr, p.stderr
    assert got["total"]["calls"] == stopped["other"]


def test_ls_says_it_and_exits_1_as_usage_does(stopped):
    root = stopped["root"]
    p = asz_in_process("ls", "--root", str(root))
    said = [x for x in p.stdout.splitlines() if x.startswith("stopped: 5c0375b4: ")]
    assert len(said) == 1 and "lines it holds past those are in no figure; asz sources --reset-conflict" in said[0]
    assert p.returncode == 1 and f"asz ls: {SAID}" in p.stderr
    j = asz_in_process("ls", "--json", "--root", str(root))
    rows = {r["id"]: r for r in json.loads(j.stdout)}
    assert j.returncode == 1 and len(rows[SID]["conflicts"]) == 1 and rows[OTHER[1]]["conflicts"] == []
    assert rows[SID]["llm_calls"] == stopped["kept"]
    assert asz_in_process("ls", "--project", "claude-code-log", "--root", str(root)).returncode == 0


def test_reset_reads_the_rest_and_the_answer_is_whole_again(stopped, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(stopped["root"], root)
    assert asz_in_process("sources", "--reset-conflict", SID, "--reread", "--source", str(stopped["src"]),
                          "--root", str(root), env=AWAY).returncode == 0
    assert _collect(stopped["src"], root)[0] == 0
    p = _usage(root, "--json", "--total-once")
    got = json.loads(p.stdout)
    assert p.returncode == 0 and "stopped" not in got and got["total"]["calls"] == stopped["whole"] + stopped["other"]
    assert asz_in_process("ls", "--root", str(root)).returncode == 0


@pytest.mark.slow
def test_the_usage_answer_and_tab_say_it(stopped, serve, browser):
    from test_view_server_browser import open_usage, shot

    root = stopped["root"]
    s = serve(root)
    u = whole_usage(s)
    (cli,) = json.loads(_usage(root, "--json", "--total-once").stdout)["stopped"]
    assert u["stopped"] == [{**cli, "name": "5c0375b4"}]
    table = [x[2:] for x in _usage(root).stdout.splitlines() if x.startswith("! stopped: ")]
    assert u["stopped_said"] == table and len(table) == 1
    assert s.get("/api/usage?project=claude-code-log").json()["stopped"] == []
    try:
        line = open_usage(browser, s.base, ".usage-stopped")
        assert [line.text] == table, (line.text, table)
        total = [r.text for r in browser.find_elements("css selector", "#usage-days tr") if r.text.startswith("Total")]
        assert len(total) == 1 and total[0].startswith("Total !"), total
    except Exception:
        shot(browser, "usage-stopped")
        raise
